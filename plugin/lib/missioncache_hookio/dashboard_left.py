"""Whether a dashboard died with its http hooks still wired (docs/dashboard.md).

A dashboard that stops takes its hooks out of ``settings.json``; one that was killed or
crashed leaves them, and Claude Code then shows ``hook failed … ECONNREFUSED`` under every
prompt and edit (contract section 12). The hooks check this on their own path, so the
person is told, and the wiring taken out, at the end of the first such turn: the install
record (``install.json``) describes a wiring, settings.json really holds hooks for its
port, and no MissionCache dashboard of this install answers there. "Answers" is asked of
the port, never of a process id: a pid is reused, and a dashboard's ``running.json`` may
outlive it. The cost where no dashboard was ever installed: one failed ``open``.
"""

from __future__ import annotations

import sys

from missioncache_state import lean_os as os
from missioncache_state.locations import dashboard_dir

# install.json keeps these while its hooks are in settings.json (missioncache_dashboard.install).
_WIRED_KEY = "written_sha256"
_ANSWER_TIMEOUT = 0.5  # seconds; a dashboard answers /api/alive in microseconds
_MAX_SETTINGS = 4 << 20


def left_wired_port() -> int | None:
    """The port of http hooks that a dead dashboard left wired, else None. Never raises."""
    from missioncache_state.atomic import read_json_object

    try:
        record = read_json_object(os.path.join(dashboard_dir(), "install.json")) or {}
        port = record.get("port")
        if not isinstance(port, int) or isinstance(port, bool) or not record.get(_WIRED_KEY):
            return None
        if not _in_settings(port) or dashboard_answers(port):
            return None
        return port
    except Exception:
        return None


def _in_settings(port: int) -> bool:
    """Whether settings.json holds a hook URL of ours for ``port`` (a wiring the record
    describes but that never reached the file, say a read-only settings.json, is none)."""
    from missioncache_state.files import read_head
    from missioncache_state.locations import claude_dir

    try:
        data, _whole = read_head(os.path.join(claude_dir(), "settings.json"), _MAX_SETTINGS)
    except OSError:
        return False
    return f"http://127.0.0.1:{port}/api/hooks/".encode() in data


def dashboard_answers(port: int) -> bool:
    """Whether this install's dashboard answers on 127.0.0.1:``port``: its ``/api/alive`` answer
    names the install (``missioncache_state.dashboard_token.install_id``). A raw socket,
    so the hook imports no HTTP client."""
    import socket

    from missioncache_state.dashboard_token import HEADER, install_id, read_token

    token = read_token()
    if token is None:
        return False
    request = (
        f"GET /api/alive HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{HEADER}: {token}\r\n"
        "Connection: close\r\n\r\n"
    ).encode("ascii")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=_ANSWER_TIMEOUT) as sock:
            sock.sendall(request)
            answer = b""
            while len(answer) < 65536:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                answer += chunk
    except OSError:
        return False
    return f'"install": "{install_id(token)}"'.encode() in answer or (
        f'"install":"{install_id(token)}"'.encode() in answer
    )


def tidy_in_background() -> str:
    """Start ``missioncache dashboard tidy`` detached (it takes the hooks out only when no
    dashboard answers) and return the line for the person; "" when nothing is left."""
    port = left_wired_port()
    if port is None:
        return ""
    from missioncache_state.command import missioncache_command

    try:
        from missioncache_hookio.spawn import spawn_detached
        from missioncache_state.locations import data_root

        lib = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = os.environ.copy()
        env["PYTHONPATH"] = os.pathsep.join(p for p in (lib, env.get("PYTHONPATH")) if p)
        argv = [sys.executable, "-S", "-m", "missioncache_cli", "dashboard", "tidy"]
        spawn_detached(argv, data_root(), env)
    except Exception:
        return (
            f"MissionCache: the dashboard (port {port}) stopped without taking its http hooks"
            " out, so Claude Code shows `hook failed` under prompts and edits: run"
            f" `{missioncache_command()} dashboard stop` to take them out"
        )
    return (
        f"MissionCache: the dashboard (port {port}) stopped without taking its http hooks out"
        " (the `hook failed … ECONNREFUSED` lines); they are taken out now."
        f" `{missioncache_command()} dashboard start` puts them back"
    )
