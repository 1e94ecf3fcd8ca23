"""Webhooks from Python: a local receiver, the signature check, and registering an endpoint.

The signature is docs/api.md's recipe ("Verifying a delivery"): HMAC-SHA256 with the endpoint's
whole `whsec_…` secret over `t`, a `.`, and the raw body; `v1` is its hex; `t` within 5 minutes.
An endpoint is registered where its app's owner does it, on the website's profile pages (signed in
with the user's password), which is also where its secret is shown.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable, List, Mapping, Optional

import requests


def verify_signature(
    secret: str, header: Optional[str], raw_body: bytes, *, tolerance: int = 300, now: Optional[float] = None
) -> bool:
    """Whether `Cardbazaar-Signature: t=…,v1=…` signs `raw_body` with `secret`, within `tolerance` s."""
    if not header:
        return False
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    t, v1 = parts.get("t", ""), parts.get("v1", "")
    if not t.isdigit() or not v1:
        return False
    if abs((time.time() if now is None else now) - int(t)) > tolerance:
        return False
    expected = hmac.new(secret.encode("utf-8"), t.encode("ascii") + b"." + raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, v1)


class Delivery:
    """One POST the receiver got: headers (lower-case names), the raw body and its JSON."""

    def __init__(self, path: str, headers: Mapping[str, str], body: bytes):
        self.path = path
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body
        try:
            self.json: Any = json.loads(body.decode("utf-8"))
        except ValueError:
            self.json = None

    @property
    def kind(self) -> Optional[str]:
        return self.headers.get("cardbazaar-event-type")

    def verify(self, secret: str, **kw: Any) -> bool:
        return verify_signature(secret, self.headers.get("cardbazaar-signature"), self.body, **kw)


class Receiver:
    """An HTTP server on 127.0.0.1 (any free port) that records every POST and answers 200."""

    def __init__(self, status: int = 200):
        self.deliveries: List[Delivery] = []
        self.status = status
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with receiver._changed:
                    receiver.deliveries.append(Delivery(self.path, dict(self.headers.items()), body))
                    receiver._changed.notify_all()
                self.send_response(receiver.status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hook"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def wait_for(
        self, predicate: Callable[[List[Delivery]], bool], timeout: float = 30.0
    ) -> List[Delivery]:
        """Wait until `predicate(deliveries)` holds; the deliveries then. AssertionError on time-out."""
        end = time.monotonic() + timeout
        with self._changed:
            while not predicate(self.deliveries):
                left = end - time.monotonic()
                if left <= 0:
                    got = [d.kind for d in self.deliveries]
                    raise AssertionError(f"no such deliveries within {timeout} s; got {got}")
                self._changed.wait(left)
            return list(self.deliveries)

    def wait_for_kinds(self, kinds: Iterable[str], timeout: float = 30.0) -> List[Delivery]:
        wanted = set(kinds)
        return self.wait_for(lambda ds: wanted <= {d.kind for d in ds}, timeout)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


_CSRF = re.compile(r'name="_csrf" value="([^"]+)"')
_SECRET = re.compile(r'data-webhook="secret">([^<]+)<')


def _csrf(page: requests.Response) -> str:
    m = _CSRF.search(page.text)
    if not m:
        raise AssertionError(f"no CSRF field on {page.url} ({page.status_code})")
    return html.unescape(m.group(1))


class Website:
    """A user signed in on the website, as a browser is: where an app's owner manages its webhooks."""

    def __init__(self, website_url: str, username: str, password: str, *, timeout: float = 30.0):
        self.site = website_url.rstrip("/")
        self.timeout = timeout
        self.web = requests.Session()
        login = self.web.get(f"{self.site}/login", timeout=timeout)
        signed_in = self.web.post(
            f"{self.site}/login",
            data={"_csrf": _csrf(login), "username": username, "password": password, "next": "/"},
            allow_redirects=False,
            timeout=timeout,
        )
        if signed_in.status_code != 303:
            raise AssertionError(f"signing in as {username} answered {signed_in.status_code}")

    def add_endpoint(self, id_app: int, url: str, kinds: Iterable[str] = ()) -> dict:
        """Register a webhook endpoint on an app the user owns: `{"idEndpoint", "secret", "url"}`.

        No kinds means every kind.
        """
        form = self.web.get(f"{self.site}/profile/apps/{int(id_app)}/webhooks/new", timeout=self.timeout)
        form.raise_for_status()
        fields = [("_csrf", _csrf(form)), ("url", url), ("enabled", "true")]
        fields += [("kinds", k) for k in kinds]
        made = self.web.post(
            f"{self.site}/profile/apps/{int(id_app)}/webhooks",
            data=fields,
            allow_redirects=False,
            timeout=self.timeout,
        )
        where = made.headers.get("Location", "")
        m = re.search(r"/profile/webhooks/(\d+)", where)
        if made.status_code not in (302, 303) or not m:
            raise AssertionError(f"registering {url} answered {made.status_code}: {made.text[:1000]}")
        page = self.web.get(f"{self.site}/profile/webhooks/{m.group(1)}", timeout=self.timeout)
        secret = _SECRET.search(page.text)
        if not secret:
            raise AssertionError(f"no secret on {page.url}")
        return {"idEndpoint": int(m.group(1)), "secret": html.unescape(secret.group(1)), "url": url}

    def delete_endpoint(self, id_endpoint: int) -> None:
        page = self.web.get(f"{self.site}/profile/webhooks/{int(id_endpoint)}", timeout=self.timeout)
        page.raise_for_status()
        done = self.web.post(
            f"{self.site}/profile/webhooks/{int(id_endpoint)}/delete",
            data={"_csrf": _csrf(page)},
            allow_redirects=False,
            timeout=self.timeout,
        )
        if done.status_code not in (302, 303):
            raise AssertionError(f"deleting endpoint {id_endpoint} answered {done.status_code}")

    def close(self) -> None:
        self.web.close()


def register_endpoint(
    website_url: str,
    username: str,
    password: str,
    id_app: int,
    url: str,
    kinds: Iterable[str] = (),
    *,
    timeout: float = 30.0,
) -> dict:
    """Sign in as `username` and register `url` on their app `id_app` (see Website.add_endpoint)."""
    site = Website(website_url, username, password, timeout=timeout)
    try:
        return site.add_endpoint(id_app, url, kinds)
    finally:
        site.close()
