"""The same tests against an already running server: CARDBAZAAR_URL and CARDBAZAAR_CONTROL_TOKEN.

The server is the one this session's `cardbazaar` fixture started (a `cardbazaar serve` child on
`:memory:`); a nested pytest run of test_sandbox.py is pointed at it through the environment, with
no way to start one of its own (CARDBAZAAR_COMMAND fails) and no credentials document, so it gets
its credentials through the control API too.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.skipif(bool(os.environ.get("CARDBAZAAR_URL")), reason="already the run against CARDBAZAAR_URL")
def test_the_suite_passes_against_a_running_server(cardbazaar):
    env = {
        **os.environ,
        "CARDBAZAAR_URL": cardbazaar.origin,
        "CARDBAZAAR_CONTROL_TOKEN": cardbazaar.control_token,
        "CARDBAZAAR_COMMAND": "false",
    }
    env.pop("CARDBAZAAR_CREDENTIALS", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", str(HERE / "test_sandbox.py"), "-q", "-rs", "-p", "no:cacheprovider"],
        cwd=str(HERE.parent),
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    print(run.stdout[-6000:])
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert " passed" in run.stdout


def test_without_a_token_the_running_server_is_refused(cardbazaar, tmp_path):
    (tmp_path / "test_one.py").write_text("def test_it(cardbazaar):\n    cardbazaar.health()\n")
    (tmp_path / "conftest.py").write_text((HERE / "conftest.py").read_text().replace(
        "Path(__file__).resolve().parents[1]", repr(str(HERE.parent))
    ))
    env = {**os.environ, "CARDBAZAAR_URL": cardbazaar.origin, "CARDBAZAAR_CONTROL_TOKEN": "wrong"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", str(tmp_path), "-q", "-p", "no:cacheprovider"],
        cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 1, run.stdout
    assert "401" in run.stdout
