"""Starting `cardbazaar serve` as a child process and reading the document it prints.

`serve --port 0 --database-url :memory: --print-credentials json` prints exactly one line on
standard output once it listens (the base URLs, the demo users' credentials and `controlToken`);
everything else goes to standard error. It stops when its standard input closes, so a test run
that dies never leaves it behind.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import List, Mapping, Optional, Tuple


class StartError(RuntimeError):
    pass


def checkout_root(start: Optional[Path] = None) -> Optional[Path]:
    """The cardbazaar checkout this plugin sits in (python/pytest-cardbazaar/…), if it does."""
    here = (start or Path(__file__)).resolve()
    for folder in [here, *here.parents]:
        pkg = folder / "package.json"
        if pkg.is_file() and (folder / "src" / "cli.ts").is_file():
            try:
                if json.loads(pkg.read_text(encoding="utf-8")).get("name") == "cardbazaar":
                    return folder
            except ValueError:
                continue
    return None


def find_command(explicit: Optional[str] = None) -> Tuple[List[str], Optional[str]]:
    """How to run cardbazaar, and in which folder.

    1. `explicit` (the `--cardbazaar-command` option or `CARDBAZAAR_COMMAND`), split as a shell would.
    2. In a checkout of cardbazaar with its dependencies installed: its sources through tsx
       (`node --import tsx src/cli.ts`), which are never stale, unlike a build.
    3. `node_modules/.bin/cardbazaar` of the current folder or one above it (`npm install cardbazaar`).
    4. `npx --no-install cardbazaar`.
    """
    if explicit:
        return shlex.split(explicit), None
    root = checkout_root()
    if root is not None and (root / "node_modules" / "tsx").is_dir():
        return ["node", "--import", "tsx", str(root / "src" / "cli.ts")], str(root)
    for folder in [Path.cwd(), *Path.cwd().parents]:
        local = folder / "node_modules" / ".bin" / "cardbazaar"
        if local.exists():
            return [str(local)], None
    if shutil.which("npx") is None:
        raise StartError("no cardbazaar found: set CARDBAZAAR_COMMAND, or install it (npm install cardbazaar)")
    return ["npx", "--no-install", "cardbazaar"], None


class ServerProcess:
    """A running `cardbazaar serve` child: its document and how to stop it."""

    def __init__(
        self,
        command: Optional[str] = None,
        *,
        env: Optional[Mapping[str, str]] = None,
        database_url: str = ":memory:",
        timeout: float = 180.0,
    ):
        argv, cwd = find_command(command)
        # A token of our own, so the control API is reachable even from a server that prints none.
        self.control_token = (env or {}).get("CONTROL_TOKEN") or secrets.token_urlsafe(24)
        child_env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "CONTROL_TOKEN": self.control_token,
            "NO_COLOR": "1",
            **(env or {}),
        }
        self._log = tempfile.NamedTemporaryFile(prefix="cardbazaar-", suffix=".log", delete=False)
        self.log_path = self._log.name
        self.argv = [
            *argv,
            "serve",
            "--port",
            "0",
            "--database-url",
            database_url,
            "--print-credentials",
            "json",
            "--exit-on-stdin-close",
        ]
        self.process = subprocess.Popen(
            self.argv,
            cwd=cwd,
            env=child_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        self.document = self._read_document(timeout)
        self.control_token = self.document.get("controlToken") or self.control_token

    def _read_document(self, timeout: float) -> dict:
        line: list = []

        def read() -> None:
            line.append(self.process.stdout.readline())

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        if not line or not line[0]:
            self.stop()
            why = "did not print its document" if not line else f"exited ({self.process.returncode})"
            raise StartError(f"{shlex.join(self.argv)} {why} within {timeout:.0f} s:\n{self.log_tail()}")
        try:
            return json.loads(line[0])
        except ValueError as err:
            self.stop()
            raise StartError(f"not a JSON document: {line[0][:500]!r}\n{self.log_tail()}") from err

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return Path(self.log_path).read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self, grace: float = 15.0) -> Optional[int]:
        """Close its standard input (it stops cleanly), then SIGTERM, then SIGKILL."""
        p = self.process
        if p.poll() is None:
            try:
                p.stdin.close()
            except OSError:
                pass
            try:
                p.wait(grace)
            except subprocess.TimeoutExpired:
                p.terminate()
                try:
                    p.wait(grace)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for stream in (p.stdout, p.stdin):
            try:
                stream.close()
            except (OSError, AttributeError):
                pass
        self._log.close()
        return p.returncode

    def remove_log(self) -> None:
        try:
            os.unlink(self.log_path)
        except OSError:
            pass
