# Loads the plugin from this folder, so its tests run from a checkout without installing anything.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

try:  # installed (pip install): pytest already loaded it through the pytest11 entry point
    from importlib.metadata import entry_points

    _installed = any(ep.name == "cardbazaar" for ep in entry_points().select(group="pytest11"))
except Exception:
    _installed = False
pytest_plugins = [] if _installed else ["pytest_cardbazaar.plugin"]
