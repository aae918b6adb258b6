"""Start the ``pm`` server for Claude Code, leaving a record of the attempt.

plugin.json's ``sh -c`` line ``exec``s this file with the user's ``python3`` (standard
library and the plugin's bundled libraries only), so our pid is the one Claude Code
started and our parent is Claude Code itself. Before handing over to ``uvx`` (again by
``exec``, so the pid stays) it writes ``starting`` to ``<state>/pm-server/<claude
pid>.json`` (``missioncache_state.pm_health``): if uvx cannot fetch or start the server,
that pid ends while the record still says ``starting``, and the hooks can tell the human,
which Claude Code itself shows only in ``/mcp``.

The start itself is the one plugin.json used to do in sh: ask uv's cache first
(``--offline ... --check``), then start exactly one server, offline when the cache can,
online otherwise (packages/missioncache-pm/README.md, "How it is launched").
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__" and not __package__:  # run as a file from the installed plugin
    _HERE = os.path.dirname(os.path.abspath(__file__))
    _PLUGIN = os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))
    if sys.path and os.path.abspath(sys.path[0]) == _HERE:
        sys.path.pop(0)  # our module names must not shadow anything as top-level modules
    sys.path.insert(0, os.path.dirname(_HERE))
    from missioncache_pm.bootstrap import ensure_libraries  # the servers' one way to lib

    ensure_libraries({"MISSIONCACHE_PLUGIN_ROOT": _PLUGIN})

PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def record_start(env: dict) -> None:
    """Write the ``starting`` record and tell the server whose it is; never fails."""
    import time

    claude = os.getppid()
    env["MISSIONCACHE_PM_CLAUDE_PID"] = str(claude)
    try:
        from missioncache_state.pm_health import write_record

        record = {"state": "starting", "claude_pid": claude, "launcher_pid": os.getpid()}
        write_record(claude, {**record, "started": time.time()})
    except Exception:  # a missing library or a read-only dir: start the server anyway
        pass


def uvx_command(offline: bool, check: bool = False) -> list:
    command = ["uvx", *(["--offline"] if offline else []), "--from", PROJECT, "missioncache-pm"]
    return [*command, "--check"] if check else command


def cache_can_start(env: dict) -> bool:
    """Whether uv's cache alone can start the server (no network needed)."""
    import subprocess

    try:
        done = subprocess.run(
            uvx_command(True, check=True),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    except OSError:
        return False
    return done.returncode == 0


def note_no_cache(env: dict) -> None:
    """Add to the record that uv's cache holds no server: a start that then ends without
    ``ready`` failed (offline, no SDK), while one cut short by its Claude Code ending is
    told apart only this way (``pm_health.earlier_failure``). Never fails."""
    try:
        from missioncache_state.pm_health import read_record, write_record

        claude = int(env["MISSIONCACHE_PM_CLAUDE_PID"])
        record = read_record(claude)
        if record is not None and record.get("state") == "starting":
            write_record(claude, {**record, "cached": False})
    except Exception:
        pass


def main() -> None:
    env = dict(os.environ)
    record_start(env)
    offline = cache_can_start(env)
    if not offline:
        note_no_cache(env)
    command = uvx_command(offline)
    try:
        os.execvpe(command[0], command, env)
    except OSError as error:
        sys.stderr.write(f"missioncache pm: cannot start uvx ({error})\n")
        sys.exit(127)


if __name__ == "__main__":
    main()
