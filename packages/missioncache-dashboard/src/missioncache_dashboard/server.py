"""``missioncache-dashboard [--port 8787]``: serve the dashboard on 127.0.0.1.

The socket is bound here, before uvicorn starts, so a port already in use is one clear
sentence with a way out instead of a traceback. While it serves, the dashboard announces
its port (``running.json``) and, when the user installed the http hooks, keeps them wired
into settings.json; when it stops it takes them out again (``install.py`` says why).
"""

from __future__ import annotations

import argparse
import errno
import socket
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

HOST = "127.0.0.1"  # never anything else: the dashboard is for this machine only
UNWIRE_GRACE = 1.5  # seconds served after the hooks were taken out (winding_down_server)


class StartError(Exception):
    """Why the dashboard cannot start, in words the user can act on."""


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:``port``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if sys.platform != "win32":  # on Windows this would let two servers share the port
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # A response goes out as two writes (head, then body); without this, Nagle holds the
    # body until the client's delayed ACK (~40 ms on Linux). Accepted sockets inherit it.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        if error.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1)):
            raise StartError(
                f"port {port} on {HOST} is already in use (another dashboard, or another "
                f"program). Open http://{HOST}:{port}/ if it is a dashboard, or start this "
                f"one on another port: missioncache dashboard --port {port + 1}"
            ) from error
        if error.errno == errno.EACCES:
            raise StartError(
                f"not allowed to listen on port {port}; use a port above 1023: "
                "missioncache dashboard --port 8787"
            ) from error
        raise StartError(f"cannot listen on {HOST}:{port}: {error.strerror or error}") from error
    return sock


def lifespan_for(port: int, wire_hooks: bool) -> Any:
    """Announce the port and wire the installed hooks while serving; undo both on stop."""

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        from missioncache_dashboard import install, running

        running.announce(port)
        wired = False
        try:
            record = install.is_installed() if wire_hooks else None
            if record is not None and record["port"] == port:
                print(install.wire(port), flush=True)
                wired = True
        except Exception as error:  # the page still works without the hooks
            print(f"the http hooks were not wired: {error}", file=sys.stderr, flush=True)
        try:
            yield
        finally:
            running.withdraw()
            if wired:
                take_hooks_out()  # done already when a signal stopped us (WindingDown)

    return lifespan


def take_hooks_out() -> None:
    """Unwire our http hooks when they are in settings.json; never raises."""
    from missioncache_dashboard import install

    try:
        if install.wired_port(install.read_settings()) is not None:
            print(install.unwire(), flush=True)
    except Exception as error:
        print(f"the http hooks were not taken out: {error}", file=sys.stderr, flush=True)


def winding_down_server(config: Any, hooks_wired: Callable[[], bool]) -> Any:
    """A uvicorn server that, asked to stop, first takes the http hooks out and keeps
    serving ``UNWIRE_GRACE`` seconds more. Why: Claude Code notices a change to
    settings.json about a second after it is written (measured on 2.1.328: not after
    0.5 s, always after 1 s); a prompt sent in that second would still post to us, and
    must find us up rather than show ``hook failed``. A second Ctrl-C stops at once."""
    import threading
    import time

    import uvicorn

    class WindingDown(uvicorn.Server):
        winding = False

        def handle_exit(self, sig: int, frame: Any) -> None:
            if self.winding or not hooks_wired():
                super().handle_exit(sig, frame)
                return
            self.winding = True

            def wind_down() -> None:
                take_hooks_out()
                time.sleep(UNWIRE_GRACE)
                self.should_exit = True

            threading.Thread(target=wind_down, daemon=True).start()

    return WindingDown(config)


def _hooks_wired(port: int) -> bool:
    from missioncache_dashboard import install

    try:
        return install.wired_port(install.read_settings()) == port
    except Exception:
        return False


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="missioncache dashboard", description="Serve the MissionCache dashboard locally."
    )
    parser.add_argument("--port", type=int, default=8787, help="port on 127.0.0.1 (8787)")
    parser.add_argument(
        "--no-hooks",
        action="store_true",
        help="leave settings.json alone even when the http hooks are installed",
    )
    parser.add_argument("--check", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"invalid port {args.port}: use 1 to 65535")
    return args


def serve(port: int, wire_hooks: bool = True) -> int:
    import signal

    import uvicorn
    import uvicorn.server

    from missioncache_dashboard.app import create_app

    # A terminal closed under a foreground dashboard sends SIGHUP: shut down as for Ctrl-C,
    # so the http hooks are taken out (uvicorn handles only SIGINT and SIGTERM itself).
    if hasattr(signal, "SIGHUP") and signal.SIGHUP not in uvicorn.server.HANDLED_SIGNALS:
        uvicorn.server.HANDLED_SIGNALS += (signal.SIGHUP,)  # type: ignore[assignment]
    sock = bind(port)
    app = create_app(port, lifespan_for(port, wire_hooks))
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=2
    )
    from missioncache_dashboard.running import page_url

    print(f"MissionCache dashboard: {page_url(port)} (Ctrl-C stops it)", flush=True)
    winding_down_server(config, lambda: _hooks_wired(port)).run(sockets=[sock])
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Console script ``missioncache-dashboard``. ``--check`` exits 0 once Starlette and
    uvicorn import, serving nothing: the command line runs it through ``uvx --offline`` to
    learn whether uv's cache can start the dashboard without a network (as for ``pm``)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from missioncache_dashboard.bootstrap import ensure_libraries

    ensure_libraries()
    if args.check:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401

        return 0
    try:
        return serve(args.port, not args.no_hooks)
    except StartError as error:
        print(f"missioncache dashboard: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
