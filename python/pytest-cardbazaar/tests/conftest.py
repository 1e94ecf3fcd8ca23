# Loads the plugin from this folder, so its tests run from a checkout without installing anything.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

try:  # installed (pip install): pytest already loaded it through the pytest11 entry point
    from importlib.metadata import entry_points

    _eps = entry_points()
    _group = _eps.select(group="pytest11") if hasattr(_eps, "select") else _eps.get("pytest11", [])
    _installed = any(ep.name == "cardbazaar" for ep in _group)
except Exception:
    _installed = False
pytest_plugins = [] if _installed else ["pytest_cardbazaar.plugin"]
