"""``<state>/dashboard/running.json``: which port a running dashboard serves, for the
command line (``dashboard start``/``stop``, the slash command) and the ``pm`` server's
``task-created`` call. Standard library only, Python 3.9 (the command line reads it)."""

from __future__ import annotations

import json
import os

from missioncache_state.atomic import read_json_object, remove_file, write_json_atomic
from missioncache_state.locations import dashboard_dir


def running_path() -> str:
    return os.path.join(dashboard_dir(), "running.json")


def log_path() -> str:
    return os.path.join(dashboard_dir(), "dashboard.log")


def announce(port: int) -> None:
    write_json_atomic(running_path(), {"port": port, "pid": os.getpid()})


def withdraw() -> None:
    """Forget the file, but only our own: a second dashboard may have taken over."""
    found = read_json_object(running_path())
    if found is not None and found.get("pid") == os.getpid():
        remove_file(running_path())


def running() -> dict | None:
    """``{"port", "pid"}`` of the dashboard that answers, else None (a stale file is
    ignored: the process died without removing it)."""
    found = read_json_object(running_path())
    if found is None or not isinstance(found.get("port"), int):
        return None
    return found if answers(found["port"]) else None


def answers(port: int, timeout: float = 1.0) -> bool:
    """Whether this install's MissionCache dashboard answers on 127.0.0.1:``port``: its
    ``/api/alive`` answer names this install (another program on the port, or another person's
    dashboard, does not)."""
    from missioncache_state.dashboard_token import HEADER, install_id, read_token

    token = read_token()
    if token is None:
        return False
    from urllib.error import URLError
    from urllib.request import ProxyHandler, Request, build_opener

    opener = build_opener(ProxyHandler({}))  # loopback: never through a proxy
    request = Request(f"http://127.0.0.1:{port}/api/alive", headers={HEADER: token})
    try:
        with opener.open(request, timeout=timeout) as response:
            found = json.loads(response.read(65536))
            return bool(found.get("dashboard") == "missioncache") and found.get(
                "install"
            ) == install_id(token)
    except (OSError, URLError, ValueError, AttributeError):
        return False


def page_url(port: int) -> str:
    """The address to open: it carries the secret once, the page keeps it as a cookie."""
    from missioncache_state.dashboard_token import ensure_token

    return f"http://127.0.0.1:{port}/?token={ensure_token()}"
