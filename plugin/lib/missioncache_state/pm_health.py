"""Is this Claude Code process's ``pm`` MCP server answering? A cheap, file-based answer.

Claude Code shows a dead MCP server only in ``/mcp``; Claude just finds its tools gone
(or a call failing), and a failed start is cached and skipped for a while. So the server
keeps a record, one per Claude Code process, ``<state>/pm-server/<claude pid>.json``:

- the launcher (``missioncache_pm/launch.py``, run by plugin.json) writes ``starting``
  before it hands over to ``uvx``, keeping its own pid (``exec``): when uvx cannot start the
  server, that pid is gone while the record still says ``starting``;
- the server writes ``ready`` with its pid at start and again every ``BEAT_SECONDS`` from
  its event loop, so a server that hangs stops beating, and one that is killed leaves a
  dead pid; it writes ``stopped`` when it ends.

Hooks, the status line and the commands' helper find their Claude Code process by walking
up their parents (``/proc``; a hook's parent is the ``/bin/sh`` Claude Code started) and
read that one record: a few small reads, no subprocess. Where ``/proc`` is missing the
answer is "unknown" and nothing is said. See docs/hooks.md ("When the pm server is down").
"""

from __future__ import annotations

import sys

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BEAT_SECONDS = 15.0
STALE_SECONDS = 75.0  # five missed beats: the server's loop is stuck
EARLIER_FAILURE_SECONDS = 24 * 3600  # a failed start Claude Code may still be skipping
SETTLED_SECONDS = 20.0  # a Claude Code process this old has launched its servers
# Claude Code caches a failed start and does not launch the server again for 15 minutes
# (its /mcp says "recent failure cached; retries automatically in 15 min", measured on
# 2.1.332): within that window a new process will certainly not start one.
CACHED_FAILURE_SECONDS = 15 * 60
PID_VARIABLE = "MISSIONCACHE_PM_CLAUDE_PID"  # the launcher tells the server whose it is
TOLD_KIND = "pm-down-told"  # <state>/pm-down-told/<session-id>.json
# Processes between Claude Code and us: the hook's /bin/sh, the Bash tool's shell, python.
_BETWEEN = frozenset({"sh", "dash", "bash", "zsh", "fish", "ksh", "env", "timeout", "uv", "uvx"})
_MAX_HOPS = 8


def records_dir() -> str:
    from missioncache_state.locations import state_dir

    return os.path.join(state_dir(), "pm-server")


def record_path(claude_pid: int) -> str:
    return os.path.join(records_dir(), f"{int(claude_pid)}.json")


def _stat(pid: int) -> tuple[str, int, str] | None:
    """(name, parent pid, state letter) of a process from ``/proc/<pid>/stat``."""
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as handle:
            text = handle.read(1024).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    start, end = text.find("("), text.rfind(")")  # the name may hold spaces and ')'
    fields = text[end + 2 :].split()
    if start < 0 or end < start or len(fields) < 2 or not fields[1].isdigit():
        return None
    return text[start + 1 : end], int(fields[1]), fields[0]


def _between(name: str) -> bool:
    return name in _BETWEEN or name.startswith("python")


def claude_pid(start: int | None = None) -> int | None:
    """The Claude Code process above this one: the first parent that is not a shell,
    python or uv; None without ``/proc`` or past ``_MAX_HOPS``. ``PID_VARIABLE`` names
    it outright: the launcher sets it for the server (and a test for a hook)."""
    named = os.environ.get(PID_VARIABLE, "")
    if start is None and named.isdigit() and int(named) > 1:
        return int(named)
    if sys.platform == "win32" or not os.path.isdir("/proc"):
        return None  # the walk reads /proc (and Windows' getppid needs an API Wine lacks)
    pid = os.getppid() if start is None else start
    for _ in range(_MAX_HOPS):
        found = _stat(pid)
        if found is None:
            return None
        name, parent, _state = found
        if not _between(name):
            return pid
        if parent <= 1:
            return None
        pid = parent
    return None


def alive(pid: Any) -> bool:
    """Whether ``pid`` names a running process (a zombie counts as gone)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    if sys.platform == "win32":
        return True  # os.kill(pid, 0) would END the process there, not probe it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process: it exists
    found = _stat(pid)
    return found is None or found[2] != "Z"


def write_record(claude_pid: int, record: dict[str, Any]) -> None:
    """Write the record (small and rebuilt every beat: no fsync)."""
    from missioncache_state.atomic import write_json_atomic

    write_json_atomic(record_path(claude_pid), record, durable=False)


def read_record(claude_pid: int) -> dict[str, Any] | None:
    from missioncache_state.atomic import read_json_object

    return read_json_object(record_path(claude_pid))


class Health:
    """What the record says: ``state`` is ``up``, ``starting``, ``down`` or ``unknown``;
    for ``down``, ``reason`` is a few words for the human and ``outage`` tells one
    outage from the next (so each is told once)."""

    __slots__ = ("outage", "reason", "state")

    def __init__(self, state: str, reason: str = "", outage: str = "") -> None:
        self.state, self.reason, self.outage = state, reason, outage

    @property
    def down(self) -> bool:
        return self.state == "down"

    def __repr__(self) -> str:
        return f"Health({self.state!r}, {self.reason!r}, {self.outage!r})"


UNKNOWN = Health("unknown")


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def judge(record: dict[str, Any] | None, now: float) -> Health:
    """The health a record stands for at ``now`` (epoch seconds)."""
    if not record:
        return UNKNOWN
    state = record.get("state")
    outage = f"{record.get('launcher_pid')}:{record.get('started')}"
    if state == "starting":
        if alive(record.get("launcher_pid")):
            return Health("starting")
        return Health("down", "failed to start", outage)
    if state == "stopped":
        return Health("down", "stopped", outage)
    if state != "ready":
        return UNKNOWN
    if not alive(record.get("server_pid")):
        return Health("down", "stopped", outage)
    if now - _number(record.get("beat")) > STALE_SECONDS:
        return Health("down", "not answering", outage)
    return Health("up")


def running_for(pid: int) -> float | None:
    """Seconds since ``pid`` started (``/proc``), None when unknown."""
    try:
        with open("/proc/uptime", "rb") as handle:
            uptime = float(handle.read(64).split()[0])
        with open(f"/proc/{int(pid)}/stat", "rb") as handle:
            text = handle.read(1024).decode("utf-8", "replace")
        ticks = int(text[text.rfind(")") + 2 :].split()[19])
        return uptime - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def earlier_failure(
    now: float, within: float = EARLIER_FAILURE_SECONDS, proven_only: bool = False
) -> Health:
    """A start that failed in another, finished Claude Code process less than ``within``
    seconds ago. Claude Code caches such a failure and does not even start the server for
    a while, so no record of this process will ever appear. ``proven_only``: count only a
    start whose launcher found no server in uv's cache (``"cached": false``): a start cut
    short because its Claude Code ended (a print-mode turn, a quick /exit) leaves the same
    ``starting`` record as a failed one, and only the missing cache tells them apart early."""
    try:
        names = os.listdir(records_dir())
    except OSError:
        return UNKNOWN
    for name in names:
        stem = name[:-5] if name.endswith(".json") else ""
        if not stem.isdigit() or alive(int(stem)):
            continue
        record = read_record(int(stem))
        if (
            record
            and record.get("state") == "starting"
            and not alive(record.get("launcher_pid"))
            and now - _number(record.get("started")) < within
            and (not proven_only or record.get("cached") is False)
        ):
            return Health("down", "failed to start in an earlier session", f"earlier:{stem}")
    return UNKNOWN


def health(pid: int | None = None, now: float | None = None) -> Health:
    """This Claude Code process's server health (``pid``: its pid, found when None)."""
    import time

    pid = claude_pid() if pid is None else pid
    if pid is None:
        return UNKNOWN
    now = time.time() if now is None else now
    record = read_record(pid)
    if record is not None:
        return judge(record, now)
    age = running_for(pid)  # young: its launcher may simply not have run yet
    settled = age is not None and age > SETTLED_SECONDS
    cached = earlier_failure(now, CACHED_FAILURE_SECONDS, proven_only=not settled)
    if cached.down:
        return cached
    return earlier_failure(now) if settled else UNKNOWN


def first_telling(session_id: Any, found: Health) -> bool:
    """True the first time this session hears of this outage (and remember it)."""
    from missioncache_state.statefile import load_state, save_state

    if not found.down:
        return False
    last = load_state(TOLD_KIND, session_id) or {}
    if last.get("outage") == found.outage:
        return False
    try:
        save_state(TOLD_KIND, {"outage": found.outage}, session_id)
    except OSError:
        pass  # a read-only Claude dir: the notice may repeat, never be lost
    return True


def what_to_do(found: Health) -> str:
    """The human's line: what is wrong, the likely why, and the ways out, one of which
    works offline (the cause itself is only in Claude Code's MCP log)."""
    from missioncache_state.command import plugin_command

    command = plugin_command()
    server = (
        os.path.join(os.path.dirname(os.path.dirname(command)), "missioncache-pm")
        if command
        else "<plugin>/missioncache-pm"
    )
    return (
        f"MissionCache: its `pm` tool server {found.reason}, so Claude cannot use the"
        " MissionCache tools. The usual reason: it runs through uv's `uvx`, which needs the"
        " `mcp` package from PyPI or uv's cache, so with no network and an empty cache it"
        " cannot start (Claude Code's MCP log then says `Failed to fetch ... /simple/mcp/`)."
        " Offline, /missioncache:save still saves, without the server. Once online, run"
        f' `uvx --from "{server}" missioncache-pm --check` to fill the cache (after that'
        " it starts offline too), then type /mcp, pick plugin:missioncache:pm, choose"
        " Reconnect (or restart Claude Code)."
    )
