"""Who may talk to the dashboard: only this machine, through its own address.

- **Host** must be ``127.0.0.1:<port>`` or ``localhost:<port>``. A web page on another
  site could point a DNS name at 127.0.0.1 (DNS rebinding) and then read the API as
  "same origin"; its requests still carry that name as Host, so they are refused.
- **Origin**, when a browser sends one on a state-changing request, must be the
  dashboard's own: another site's page could otherwise POST to the hook endpoints.
  Claude Code's hook requests carry no Origin.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


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


class Guard:
    """ASGI middleware applying ``refusal`` to every HTTP request before any route."""

    def __init__(self, app: ASGIApp, port: int) -> None:
        self.app, self.port = app, port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            why = refusal(scope["method"], headers.get("host"), headers.get("origin"), self.port)
            if why is not None:
                body = json.dumps({"error": why}).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
