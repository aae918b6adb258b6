"""UserPromptSubmit: one heartbeat per counted prompt, for time tracking. Prints nothing.

The heartbeat is written by ``missioncache_time``'s ``heartbeat-auto`` in a CHILD
process that this hook starts and does not wait for. Why: this runs on every prompt's
hot path, and recording needs the tasks.db write lock, which other sessions and tools
may hold. Waiting for it here would delay the prompt; instead the child (stdin, stdout
and stderr on /dev/null, no inherited descriptors, its own session; started by
``missioncache_hookio.spawn`` without importing subprocess) carries on after we exit, and
Claude Code does not wait for a background child that holds none of its pipes (contract
4.1). The child bounds itself: a ~0.75 s SQLite busy timeout after which the heartbeat
is spooled (never dropped), and a hard 2-second wall (SIGALRM) for anything else. The
child gets PYTHONPATH = the bundled library dir (prepended), CLAUDE_SESSION_ID = the
validated session id (removed when invalid), MISSIONCACHE_PROMPT_ID = the validated
prompt id (the turn this prompt starts; its Stop carries the same id), and
MISSIONCACHE_PROMPT_KIND = ``synthetic`` for a prompt Claude Code made itself (an agent's
``<task-notification>``), else ``prompt``; MISSIONCACHE_PROMPT_EPOCH = when the prompt
was submitted; cwd = the project directory.

Not counted as work: slash/shell commands and control words; they are recorded as
heartbeats of kind ``control`` (when they carry a prompt id), so the turn one starts counts
as Claude's once its Stop arrives, and nothing otherwise. Skipped: empty prompts, subagent
prompts (missioncache_hookio.prompts). See docs/hooks.md.
"""

from __future__ import annotations

import sys
import time

from missioncache_state import lean_os as os

# The bundled libraries (plugin/lib, beside hooks/), for the child's PYTHONPATH.
# (Links already resolved: the bundle and run_body name this file from the resolved script.)
_BUNDLED_LIBRARIES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "lib")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_state.ids import PromptId, SessionId


def child_env(
    session_id: SessionId | None,
    prompt_id: PromptId | None = None,
    synthetic: bool = False,
    kind: str | None = None,
) -> dict[str, str]:
    """Our environment plus where the child finds the library, which session it is, and
    which turn the prompt starts (prompt id, human or synthetic; docs/time.md)."""
    env = os.environ.copy()  # a dict, os's or lean_os's
    env.pop("MISSIONCACHE_PROMPT_ID", None)  # never let an inherited value stand in
    if prompt_id:
        env["MISSIONCACHE_PROMPT_ID"] = prompt_id
    env["MISSIONCACHE_PROMPT_KIND"] = kind or ("synthetic" if synthetic else "prompt")
    # The turn starts now, not when the detached child gets round to recording it.
    env["MISSIONCACHE_PROMPT_EPOCH"] = repr(time.time())
    if os.path.isdir(_BUNDLED_LIBRARIES):
        existing = env.get("PYTHONPATH")
        parts = [_BUNDLED_LIBRARIES] + ([existing] if existing else [])
        env["PYTHONPATH"] = os.pathsep.join(parts)
    if session_id:
        env["CLAUDE_SESSION_ID"] = session_id
    else:
        env.pop("CLAUDE_SESSION_ID", None)  # never let an inherited value stand in
    return env


def main() -> None:
    from missioncache_hookio.payload import identity, read_payload, well_typed
    from missioncache_hookio.prompts import control_prompt, counted_prompt, is_synthetic

    payload = read_payload()
    if payload is None or not well_typed(payload):
        return
    prompt = counted_prompt(payload)
    kind = None
    if prompt is None:
        if control_prompt(payload) is None or not payload.get("prompt_id"):
            return
        prompt, kind = "", "control"  # only its turn counts, if one ends (docs/time.md)
    from missioncache_state.locations import is_set_up

    if not is_set_up():
        return  # MissionCache not set up: no task to credit, no process worth starting
    ident = identity(payload)  # the ids: parsed once, here
    from missioncache_hookio.spawn import spawn_detached

    # -S as for the hooks themselves: the child needs only the stdlib and PYTHONPATH. A
    # script, not -m: runpy would cost more than the interpreter's start (its __main__).
    entry = os.path.join(_BUNDLED_LIBRARIES, "missioncache_time", "__main__.py")
    argv = [sys.executable, "-S", entry, "heartbeat-auto"]
    env = child_env(ident.session_id, ident.prompt_id, is_synthetic(prompt), kind)
    spawn_detached(argv, ident.cwd, env)
