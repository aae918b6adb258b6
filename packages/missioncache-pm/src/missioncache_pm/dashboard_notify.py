"""Tell a running dashboard that a task was created, so its page shows it at once.

The dashboard announces its port in ``<state>/dashboard/running.json`` while it serves
(docs/dashboard.md). No file, no dashboard: nothing is sent. The POST goes to loopback
only, bypasses any proxy, is given half a second and runs in a daemon thread, so creating
a task never waits on (or fails because of) the dashboard.
"""

from __future__ import annotations

import json
import os
import threading

TIMEOUT_SECONDS = 0.5


def _port() -> int | None:
    from missioncache_state.atomic import read_json_object
    from missioncache_state.locations import dashboard_dir

    found = read_json_object(os.path.join(dashboard_dir(), "running.json"))
    port = found.get("port") if found else None
    return port if isinstance(port, int) and 0 < port < 65536 else None


def _post(port: int, body: bytes) -> None:
    from urllib.request import ProxyHandler, Request, build_opener

    from missioncache_state.dashboard_token import HEADER, read_token

    token = read_token()
    if token is None:  # no dashboard was ever started here
        return
    request = Request(
        f"http://127.0.0.1:{port}/api/hooks/task-created",
        data=body,
        headers={"Content-Type": "application/json", HEADER: token},
        method="POST",
    )
    try:
        build_opener(ProxyHandler({})).open(request, timeout=TIMEOUT_SECONDS).close()
    except Exception:  # the dashboard is gone or busy: its page refreshes on its own
        pass


def task_created(name: str) -> threading.Thread | None:
    """Notify the dashboard in the background; the thread, for tests to join."""
    port = _port()
    if port is None:
        return None
    body = json.dumps({"name": name}).encode("utf-8")
    thread = threading.Thread(target=_post, args=(port, body), daemon=True)
    thread.start()
    return thread
