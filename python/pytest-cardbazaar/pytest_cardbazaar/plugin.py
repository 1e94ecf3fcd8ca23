"""pytest fixtures for a cardbazaar sandbox (docs/testing-your-client.md, "pytest").

The session fixture `cardbazaar` starts `cardbazaar serve` on a free port with `DATABASE_URL=:memory:`
(or uses the server at `CARDBAZAAR_URL`); every other fixture talks to it over HTTP: the control API
(`/_cardbazaar/…`, with the control token) and the public API, signed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator, Optional, Set

import pytest

from .client import Cardbazaar, Snapshots
from .server import ServerProcess
from .webhooks import Receiver, Website


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cardbazaar", "cardbazaar sandbox")
    group.addoption(
        "--cardbazaar-url",
        default=None,
        help="use the cardbazaar server at this address (its origin, e.g. http://127.0.0.1:8080) "
        "instead of starting one; default $CARDBAZAAR_URL",
    )
    group.addoption(
        "--cardbazaar-command",
        default=None,
        help="how to run cardbazaar to start one (e.g. 'npx cardbazaar'); default $CARDBAZAAR_COMMAND, "
        "else the checkout this plugin is in, node_modules/.bin/cardbazaar, or npx",
    )


def _document_from_env() -> Optional[dict]:
    """CARDBAZAAR_CREDENTIALS: the document `serve --print-credentials json` printed, or its file."""
    value = os.environ.get("CARDBAZAAR_CREDENTIALS", "").strip()
    if not value:
        return None
    return json.loads(value if value.startswith("{") else Path(value).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def cardbazaar(request: pytest.FixtureRequest) -> Iterator[Cardbazaar]:
    """The sandbox: started for the session, or the one at CARDBAZAAR_URL (+ CARDBAZAAR_CONTROL_TOKEN)."""
    url = request.config.getoption("--cardbazaar-url") or os.environ.get("CARDBAZAAR_URL")
    if url:
        token = os.environ.get("CARDBAZAAR_CONTROL_TOKEN")
        if not token:
            pytest.fail("CARDBAZAAR_URL is set but CARDBAZAAR_CONTROL_TOKEN is not (the server prints it at start)")
        yield Cardbazaar(url, token, _document_from_env())
        return
    command = request.config.getoption("--cardbazaar-command") or os.environ.get("CARDBAZAAR_COMMAND")
    server = ServerProcess(command)
    try:
        cb = Cardbazaar(server.document["websiteUrl"], server.control_token, server.document)
        cb.server = server  # type: ignore[attr-defined]
        yield cb
    finally:
        code = server.stop()
        if code == 0:
            server.remove_log()
        else:
            print(f"\ncardbazaar exited with {code}; its log: {server.log_path}\n{server.log_tail()}")


@pytest.fixture(scope="session")
def credentials(cardbazaar: Cardbazaar) -> dict:
    """demo-seller's dedicated app: `appToken`, `appSecret`, `accessToken`, `accessTokenSecret`."""
    return cardbazaar.credentials("demo-seller", "dedicated")


@pytest.fixture
def api(cardbazaar: Cardbazaar, credentials: dict) -> Iterator[Any]:
    """A `requests.Session` signed as demo-seller, on the JSON base URL (`api.get("/account")`)."""
    session = cardbazaar.session(credentials)
    yield session
    session.close()


@pytest.fixture
def world(cardbazaar: Cardbazaar):
    """`world(file_or_dict)` builds a world through the control API; answers its ids and apps."""
    return cardbazaar.world


@pytest.fixture
def clock(cardbazaar: Cardbazaar):
    """The marketplace clock; back to real time after the test."""
    yield cardbazaar.clock
    cardbazaar.clock.reset()


@pytest.fixture
def faults(cardbazaar: Cardbazaar):
    """Injected faults; all cleared after the test."""
    yield cardbazaar.faults
    cardbazaar.faults.clear()


class _TestSnapshots(Snapshots):
    """Snapshots that remembers what the test saved, to delete it afterwards."""

    def __init__(self, cb: Cardbazaar):
        super().__init__(cb)
        self.saved: Set[str] = set()

    def save(self, name: str) -> dict:
        snap = super().save(name)
        self.saved.add(name)
        return snap


@pytest.fixture
def snapshot(cardbazaar: Cardbazaar):
    """Save and load snapshots (`snapshot.save("clean")`, `snapshot.load("clean")`); the test's are deleted after it."""
    snaps = _TestSnapshots(cardbazaar)
    yield snaps
    for name in snaps.saved:
        try:
            snaps.delete(name)
        except Exception:  # already deleted by the test
            pass


@pytest.fixture
def trigger(cardbazaar: Cardbazaar):
    """`trigger(kind, user=…, override={…})`: the marketplace produces that event for real."""
    return cardbazaar.trigger


@pytest.fixture
def webhook_receiver() -> Iterator[Receiver]:
    """An HTTP receiver on 127.0.0.1 recording every delivery (`.url`, `.deliveries`, `.wait_for_kinds`)."""
    receiver = Receiver()
    yield receiver
    receiver.close()


@pytest.fixture
def webhook(cardbazaar: Cardbazaar, credentials: dict, webhook_receiver: Receiver) -> Iterator[Receiver]:
    """`webhook_receiver`, registered for every kind on the `credentials` app (demo-seller's), signed
    in on the website as its owner; `.endpoint` (`idEndpoint`, `secret`). Deleted after the test."""
    owner = next(
        (u["username"] for u in cardbazaar.document.get("users", []) if u.get("idUser") == credentials.get("idOwner")),
        "demo-seller",
    )
    site = Website(cardbazaar.website_url, owner, cardbazaar.demo_password)
    endpoint = site.add_endpoint(credentials["idApp"], webhook_receiver.url)
    webhook_receiver.endpoint = endpoint  # type: ignore[attr-defined]
    webhook_receiver.secret = endpoint["secret"]  # type: ignore[attr-defined]
    yield webhook_receiver
    try:
        site.delete_endpoint(endpoint["idEndpoint"])
    finally:
        site.close()
