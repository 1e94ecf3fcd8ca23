"""A cardbazaar sandbox seen from Python: its control API (`/_cardbazaar/…`) and signed API sessions.

Everything here talks HTTP to a running server, never its command line: the control API for the
clock, faults, snapshots, fixtures, event triggers and the request log (docs/testing-your-client.md,
"The control API"), the public API (`/ws/v2.0`) signed with OAuth 1.0 for everything else.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Union
from urllib.parse import urlsplit, urlunsplit

import requests
from oauthlib.oauth1 import Client as _OAuthClient
from requests_oauthlib import OAuth1

CONTROL_PREFIX = "/_cardbazaar"


class ControlError(Exception):
    """A control API call answered with something other than 2xx; carries the status and body."""

    def __init__(self, method: str, path: str, response: requests.Response):
        self.status = response.status_code
        self.response = response
        try:
            self.body: Any = response.json()
        except ValueError:
            self.body = response.text
        super().__init__(f"{method} {path} answered {self.status}: {response.text[:2000]}")


class _EmptyTokenClient(_OAuthClient):
    """oauthlib leaves `oauth_token` out when it is empty; a widget app must send `oauth_token=""`."""

    def get_oauth_params(self, request):  # noqa: D401 - oauthlib's own signature
        params = super().get_oauth_params(request)
        if self.resource_owner_key == "" and not any(k == "oauth_token" for k, _ in params):
            params.append(("oauth_token", ""))
        return params


class RealmOAuth1(OAuth1):
    """OAuth 1.0 as the Marketplace API wants it: the `realm` is the URL requested, without its query.

    The server accepts any realm (it is never signed), but the live API's clients send the URL, so
    this does the same. The body is never signed (only form-encoded bodies would be, by oauthlib:
    send XML or JSON bodies).
    """

    def __init__(self, credentials: Mapping[str, Any]):
        super().__init__(
            credentials["appToken"],
            client_secret=credentials["appSecret"],
            resource_owner_key=credentials.get("accessToken") or "",
            resource_owner_secret=credentials.get("accessTokenSecret") or "",
            client_class=_EmptyTokenClient,
        )

    def __call__(self, r):
        parts = urlsplit(r.url)
        self.client.realm = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        return super().__call__(r)


class SignedSession(requests.Session):
    """A `requests.Session` that signs every request with one set of credentials.

    Relative URLs are joined to `base_url` (`api.get("/account")`); absolute ones are sent as given.
    """

    def __init__(self, base_url: str, credentials: Mapping[str, Any]):
        super().__init__()
        self.base_url = base_url.rstrip("/")
        self.credentials = dict(credentials)
        self.auth = RealmOAuth1(credentials)

    def request(self, method, url, *args, **kwargs):  # type: ignore[override]
        if not re.match(r"^https?://", url):
            url = f"{self.base_url}/{url.lstrip('/')}"
        return super().request(method, url, *args, **kwargs)

    def rebuild_auth(self, prepared_request, response):
        # A redirect (`GET /stock` answers 307 to `/stock/1`) is a new URL: sign it afresh, with
        # a new nonce, instead of sending the first request's signature again.
        prepared_request.headers.pop("Authorization", None)
        if origin_of(prepared_request.url) == origin_of(response.request.url):
            self.auth(prepared_request)


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class Cardbazaar:
    """One sandbox server: where it is, its control token, and handles on what the control API does."""

    def __init__(
        self,
        url: str,
        control_token: str,
        document: Optional[Mapping[str, Any]] = None,
        *,
        timeout: float = 30.0,
    ):
        self.origin = origin_of(url)
        self.control_token = control_token
        self.document: dict = dict(document or {})
        self.base_url: str = self.document.get("baseUrl") or f"{self.origin}/ws/v2.0"
        self.json_base_url: str = self.document.get("jsonBaseUrl") or f"{self.base_url}/output.json"
        self.website_url: str = self.document.get("websiteUrl") or f"{self.origin}/"
        self.demo_password: str = self.document.get("demoPassword") or "cardbazaar-demo"
        self.timeout = timeout
        self.control = requests.Session()
        self.control.headers["Authorization"] = f"Bearer {control_token}"
        self.clock = Clock(self)
        self.faults = Faults(self)
        self.snapshots = Snapshots(self)
        # Credentials made through the control API (no document, e.g. a server at CARDBAZAAR_URL).
        self._made: dict = {}

    # -- the control API -------------------------------------------------------------------------

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        raw: Optional[Union[str, bytes]] = None,
        content_type: Optional[str] = None,
    ) -> Any:
        """One control API call (`path` under `/_cardbazaar`); the JSON answer, None for 204.

        Any answer but 2xx raises ControlError with the status and the server's error body.
        """
        full = f"{self.origin}{CONTROL_PREFIX}/{path.lstrip('/')}"
        headers = {}
        data = None
        if raw is not None:
            data = raw
            headers["Content-Type"] = content_type or "application/json"
        elif body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        res = self.control.request(
            method, full, data=data, params=params, headers=headers, timeout=self.timeout
        )
        if not 200 <= res.status_code < 300:
            raise ControlError(method, f"{CONTROL_PREFIX}/{path.lstrip('/')}", res)
        if res.status_code == 204 or not res.content:
            return None
        return res.json()

    def health(self) -> dict:
        return self.call("GET", "health")

    def reset(self) -> dict:
        """Back to the seeded state (everything a test made is gone; the demo users' credentials stay)."""
        self._made.clear()
        return self.call("POST", "reset")

    def requests_log(self, limit: int = 50, start: int = 0) -> list:
        return self.call("GET", "requests", params={"limit": limit, "start": start})["requests"]

    def event_kinds(self) -> list:
        return self.call("GET", "events/kinds")["kinds"]

    def trigger(
        self,
        kind: str,
        user: Optional[str] = None,
        override: Optional[Mapping[str, Any]] = None,
        **more: Any,
    ) -> dict:
        """Make the marketplace produce an event of `kind` for real; the event as the server answers it."""
        body: dict = {"kind": kind, **more}
        if user is not None:
            body["user"] = user
        if override:
            body["override"] = dict(override)
        answer = self.call("POST", "events/trigger", body)
        if "event" in answer:
            return answer["event"]
        events = answer.get("events") or []
        return events[0] if events else answer

    def world(self, source: Union[str, os.PathLike, Mapping[str, Any]]) -> dict:
        """Build a world (the fixture format of `cardbazaar fixtures run`) in one transaction.

        `source` is a dict, or a `.json`, `.yaml` or `.yml` file, sent as it is (YAML files are
        read by the server, so PyYAML is not needed). Answers `{"ids": …, "apps": […]}`.
        """
        if isinstance(source, Mapping):
            return self.call("POST", "fixtures", dict(source))
        path = Path(source)
        text = path.read_text(encoding="utf-8")
        kind = "application/json" if path.suffix.lower() == ".json" else "application/yaml"
        return self.call("POST", "fixtures", raw=text.encode("utf-8"), content_type=kind)

    # -- credentials and signed sessions ---------------------------------------------------------

    def credentials(self, username: str = "demo-seller", kind: str = "dedicated") -> dict:
        """The four values that sign requests as `username` with an app of `kind`.

        From the document the server printed at start when there is one; otherwise (a server at
        CARDBAZAAR_URL without CARDBAZAAR_CREDENTIALS) an app made for the user through the control
        API's fixtures, once per user and kind.
        """
        api_kind = {"third-party": "thirdParty", "third_party": "thirdParty"}.get(kind, kind)
        for user in self.document.get("users", []):
            if user.get("username") == username and api_kind in user.get("apps", {}):
                return dict(user["apps"][api_kind])
        key = (username, api_kind)
        if key not in self._made:
            if api_kind == "thirdParty":
                raise LookupError(
                    f"no third-party credentials for {username} in the server's document; "
                    "make them with a world (an `app` step with `actsFor`)"
                )
            step = {"app": "made", "owner": username, "kind": api_kind}
            made = self.world({"steps": [step]})
            self._made[key] = credentials_of(made, "made")
        return dict(self._made[key])

    def session(
        self,
        credentials: Optional[Mapping[str, Any]] = None,
        *,
        json: bool = True,
        username: str = "demo-seller",
    ) -> SignedSession:
        """A signed session; JSON answers (`…/output.json`) unless `json=False` (XML)."""
        creds = credentials if credentials is not None else self.credentials(username)
        return SignedSession(self.json_base_url if json else self.base_url, creds)


def credentials_of(result: Mapping[str, Any], name: str) -> dict:
    """The credentials of the app step `name` in a fixtures answer (named result, or the `apps` list)."""
    ids = result.get("ids") or {}
    if isinstance(ids.get(name), Mapping) and "appToken" in ids[name]:
        return dict(ids[name])
    for app in result.get("apps") or []:
        if app.get("name") == name or app.get("step") == name:
            return dict(app)
    apps = result.get("apps") or []
    if len(apps) == 1:
        return dict(apps[0])
    raise LookupError(f"no app {name!r} in the fixtures answer: {json.dumps(result)[:500]}")


def parse_time(text: str) -> _dt.datetime:
    """An ISO 8601 time with an offset (`…Z` too, which Python before 3.11 does not read)."""
    return _dt.datetime.fromisoformat(re.sub(r"Z$", "+00:00", text))


class Clock:
    """The marketplace clock: waiting periods, reservation expiry, webhook retries run on it."""

    def __init__(self, cb: Cardbazaar):
        self._cb = cb

    def get(self) -> dict:
        return self._cb.call("GET", "clock")

    def now(self) -> _dt.datetime:
        return parse_time(self.get()["now"])

    def advance(self, by: Union[str, int, _dt.timedelta]) -> dict:
        """Move it forward: `"8d"`, `"1h30m"`, milliseconds, or a timedelta."""
        if isinstance(by, _dt.timedelta):
            by = int(by.total_seconds() * 1000)
        return self._cb.call("POST", "clock/advance", {"by": by})

    def set(self, to: Union[str, _dt.datetime]) -> dict:
        if isinstance(to, _dt.datetime):
            to = to.isoformat()
        return self._cb.call("POST", "clock/set", {"to": to})

    def reset(self) -> dict:
        return self._cb.call("POST", "clock/reset")


class Faults:
    """Injected faults (docs/testing-your-client.md, "Break it on purpose")."""

    def __init__(self, cb: Cardbazaar):
        self._cb = cb

    def add(self, path: str, **options: Any) -> dict:
        """Add a fault; options as the control API names them (`status`, `method`, `times`, …)."""
        return self._cb.call("POST", "faults", {"path": path, **options})["fault"]

    def list(self) -> list:
        return self._cb.call("GET", "faults")["faults"]

    def delete(self, id_fault: int) -> None:
        self._cb.call("DELETE", f"faults/{int(id_fault)}")

    def clear(self) -> None:
        self._cb.call("DELETE", "faults")


class Snapshots:
    """Snapshots of the whole marketplace, kept by the server (they work with `:memory:`)."""

    def __init__(self, cb: Cardbazaar):
        self._cb = cb

    def save(self, name: str) -> dict:
        return self._cb.call("POST", "snapshots", {"name": name})["snapshot"]

    def load(self, name: str) -> dict:
        # Credentials made after the snapshot are gone with it: make them again when asked.
        self._cb._made.clear()
        return self._cb.call("POST", f"snapshots/{_segment(name)}/load")["snapshot"]

    def list(self) -> list:
        return self._cb.call("GET", "snapshots")["snapshots"]

    def delete(self, name: str) -> None:
        self._cb.call("DELETE", f"snapshots/{_segment(name)}")

    def names(self) -> Iterable[str]:
        return [s["name"] for s in self.list()]


def _segment(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9._-]+", name):
        raise ValueError(f"a snapshot name is letters, digits, '.', '-', '_': {name!r}")
    return name
