"""Who may talk to the dashboard: only this person, on this machine, through its address.

- **Host** must be ``127.0.0.1:<port>`` or ``localhost:<port>``. A web page on another
  site could point a DNS name at 127.0.0.1 (DNS rebinding) and then read the API as
  "same origin"; its requests still carry that name as Host, so they are refused.
- **Origin**, when a browser sends one on a state-changing request, must be the
  dashboard's own: another site's page could otherwise POST to the hook endpoints.
  Claude Code's hook requests carry no Origin.
- **The secret** (``missioncache_state.dashboard_token``, a 0600 file only the person
  reads): loopback is shared by every account on the machine, so every request must carry
  it, as the ``X-MissionCache-Token`` header (the http hooks, the command line, the ``pm``
  server) or the ``missioncache_token`` cookie (the page). The page gets the cookie from
  the URL ``dashboard start`` prints (``/?token=...``, as Jupyter does): that request is
  answered with the cookie (``HttpOnly``, ``SameSite=Strict``) and a redirect to the same
  page without the token in its address. Without it: 403, and nothing is read or changed.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from missioncache_state.dashboard_token import COOKIE, HEADER

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
NO_TOKEN = (
    "this dashboard needs its secret: open the address `missioncache dashboard start` "
    "prints (it ends in ?token=...)"
)


def allowed_hosts(port: int) -> frozenset[str]:
    return frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})


def allowed_origins(port: int) -> frozenset[str]:
    return frozenset(f"http://{host}" for host in allowed_hosts(port))


def refusal(method: str, host: str | None, origin: str | None, port: int) -> str | None:
    """Why a request is refused, or None when it may proceed."""
    if host is None or host.lower() not in allowed_hosts(port):
        return f"this dashboard answers only to http://127.0.0.1:{port}/"
    if method not in SAFE_METHODS and origin is not None and origin not in allowed_origins(port):
        return "a request from another site may not change anything here"
    return None


def _same(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def cookie_token(header: str | None) -> str | None:
    if not header:
        return None
    try:
        jar = SimpleCookie(header)
    except CookieError:
        return None
    morsel = jar.get(COOKIE)
    return morsel.value if morsel is not None else None


def query_token(scope: Scope) -> str | None:
    query = scope.get("query_string", b"").decode("latin-1")
    values = parse_qs(query).get("token") if "token=" in query else None
    return values[0] if values else None


class Guard:
    """ASGI middleware applying ``refusal`` and the secret to every HTTP request before
    any route."""

    def __init__(self, app: ASGIApp, port: int, token: str) -> None:
        self.app, self.port, self.token = app, port, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        why = refusal(scope["method"], headers.get("host"), headers.get("origin"), self.port)
        if why is not None:
            await _answer(send, 403, {"error": why})
            return
        if scope["method"] == "GET" and _same(query_token(scope), self.token):
            # The address `dashboard start` printed: keep the secret in a cookie, and
            # take it out of the address bar (and the history) at once.
            cookie = f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/"
            extra = [(b"location", scope["path"].encode("latin-1") or b"/")]
            extra.append((b"set-cookie", cookie.encode("latin-1")))
            await _answer(send, 303, {}, extra)
            return
        if _same(headers.get(HEADER.lower()), self.token) or _same(
            cookie_token(headers.get("cookie")), self.token
        ):
            await self.app(scope, receive, send)
            return
        await _answer(send, 403, {"error": NO_TOKEN})


async def _answer(
    send: Send, status: int, value: dict, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps(value).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        (b"referrer-policy", b"no-referrer"),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
