"""Whether a dashboard died with its http hooks still wired (docs/dashboard.md).

A dashboard that stops takes its hooks out of ``settings.json``; one that was killed or
crashed leaves them, and Claude Code then shows ``hook failed … ECONNREFUSED`` under every
prompt and edit (contract section 12). The hooks check this on their own path, so the
person is told, and the wiring taken out, at the end of the first such turn: the install
record (``install.json``) still describes a wiring while ``running.json`` is gone or names a
process that is gone. The cost where no dashboard was ever installed: one failed ``open``.
"""

from __future__ import annotations

import os
import sys

from missioncache_state.locations import dashboard_dir

# install.json keeps these while its hooks are in settings.json (missioncache_dashboard.install).
_WIRED_KEY = "written_sha256"


def left_wired_port() -> int | None:
    """The port of http hooks that a dead dashboard left wired, else None. Never raises.
    On Windows a process cannot be probed without ending it: a running.json there counts
    as alive, so only a dashboard that never announced itself is caught."""
    from missioncache_state.atomic import read_json_object

    try:
        record = read_json_object(os.path.join(dashboard_dir(), "install.json")) or {}
        port = record.get("port")
        if not isinstance(port, int) or isinstance(port, bool) or not record.get(_WIRED_KEY):
            return None
        running = read_json_object(os.path.join(dashboard_dir(), "running.json"))
        if running is not None and _alive(running.get("pid")):
            return None
        return port
    except Exception:
        return None


def _alive(pid: object) -> bool:
    from missioncache_state.pm_health import alive

    return alive(pid) if sys.platform != "win32" else pid is not None


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
        env = dict(os.environ)
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
