"""The status line command: Claude Code's status-line JSON on stdin, one line on stdout.

WHY a cache: Claude Code runs this after every assistant message (and every
``refreshInterval``), and most runs find nothing changed. The cache
(``<state>/statusline/<session-id>.json``) keeps the computed facts with a signature of
everything they were computed from: the session binding, tasks.db and its WAL, the
task's context and tasks files and its compaction records folder (mtime and size), the
cwd and today's date (and, for a fork, its parent's context and the session's
shared-seen marker). A change of tasks.db alone (every prompt's heartbeat) is taken in
up to a minute later (``DB_GRACE_SECONDS``): it only moves "today", shown to the minute. A run
whose signature matches opens no database and parses no markdown; it only counts the
transcript bytes appended since the last run, for the edit count. Within that minute, a
change of the task's files alone is read from the files alone (``change``).

Never breaks the user's screen: a session without a task prints nothing of ours, and any
failure prints the last good line marked ``(stale)`` (or nothing); the caller always exits 0.
"""

from __future__ import annotations

import time

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from missioncache_state.ids import SessionId

CACHE_KIND = "statusline"
CACHE_VERSION = 3
STDIN_MAX = 4 * 1024 * 1024
DEFAULT_COLUMNS = 120
MARGIN = 4  # Claude Code indents the row by 2; keep clear of the right edge too
CACHE_KEEP_DAYS = 14
# tasks.db changes on every prompt (the heartbeat), while the only thing on the line that
# depends on it for a session already on its task is "today": shown to the minute. So a
# change of tasks.db alone is taken in at most this long after the last recompute,
# keeping the first runs after a prompt on the cheap path.
DB_GRACE_SECONDS = 60.0
_BINDING_STAMP = 3  # the session binding's position in the signature
_DB_STAMPS = (4, 5)  # positions of tasks.db and its WAL
# The facts that name a file whose stamp the signature holds: the task's own files (what
# ``facts.file_facts`` reads, kept while their stamps hold), then a fork's parent's.
FILE_KEYS = ("context", "tasks", "compactions_dir", "saved_marker")
FORK_KEYS = ("parent_context", "seen_marker")
_FILE_STAMPS = range(6, 6 + len(FILE_KEYS))
# What a run does with the cached facts (``change``).
KEEP, FILES, ALL = "keep", "files", "all"
# The fields of a session binding that choose the task: SessionStart rewrites the file on
# every start (its "updated" moves), mostly naming the same task.
BINDING_FIELDS = ("taskId", "projectName", "fullPath")
# Put before the last good line when this run failed: its figures are from an earlier run,
# and without a mark the human would take them for current. In front, because Claude Code
# cuts an over-long line at its end.
STALE_MARK = "(stale) "


def file_stamp(path: Any) -> list | None:
    """``[mtime_ns, size]`` of ``path``, or None when it cannot be read."""
    try:
        info = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return [info.st_mtime_ns, info.st_size]


def signature(session_id: SessionId, cwd: str, facts: dict | None, stored: bool = False) -> list:
    """What the cached facts depend on; a change anywhere means recompute. ``stored``:
    the signature to keep beside facts just computed, with the task's files as stamped
    before they were read (``file_stamps``), so one written during the read differs from
    it at the next run."""
    from missioncache_state.bindings import binding_file
    from missioncache_state.locations import tasks_db_path

    db = tasks_db_path()
    sig = [
        CACHE_VERSION,
        time.strftime("%Y-%m-%d"),
        cwd,
        file_stamp(binding_file(session_id)),
        file_stamp(db),
        file_stamp(db + "-wal"),
    ]
    if facts:
        stamps = facts.get("file_stamps") if stored else None
        if not (isinstance(stamps, list) and len(stamps) == len(FILE_KEYS)):
            stamps = [file_stamp(facts.get(key)) for key in FILE_KEYS]
        sig += [*stamps, *(file_stamp(facts.get(key)) for key in FORK_KEYS)]
    return sig


def binding_key(session_id: SessionId) -> list | None:
    """What in the session's binding chooses its task (``BINDING_FIELDS``), or None."""
    from missioncache_state.bindings import read_session_binding

    data = read_session_binding(session_id)
    return None if data is None else [data.get(field) for field in BINDING_FIELDS]


def _same_task_bound(cached: object, binding: Callable[[], object]) -> bool:
    """Whether the binding, rewritten since, still names the task it named."""
    return cached is not None and binding() == cached


def _this_version(cache: dict) -> bool:
    """Whether the cached facts were computed by this version of the line."""
    sig = cache.get("sig")
    return isinstance(sig, list) and bool(sig) and sig[0] == CACHE_VERSION


def change(
    cache: dict, sig: list, facts: dict | None, now: float, binding: Callable[[], object]
) -> str:
    """What this run must do with the cached facts, given today's signature ``sig``:

    - ``KEEP`` them: the same signature, or (for a session on a task) only tasks.db
      changed, or the binding file was rewritten naming the same task (``binding()``, asked
      only then);
    - ``FILES``: besides those, only the task's own files changed, so only they are read
      again (a compaction's snapshot, a save, an item ticked);
    - ``ALL``: anything else.

    The tasks.db figures are kept for less than ``DB_GRACE_SECONDS`` after they were
    computed, because "today" keeps growing with no file changing (a turn in progress
    counts up to now, and Stop's turn ends wait in the spool): after that, ``ALL``."""
    old = cache.get("sig")
    computed = cache.get("computed")
    fresh = isinstance(computed, (int, float)) and 0 <= now - computed < DB_GRACE_SECONDS
    if old == sig:
        return KEEP if not facts or fresh else ALL
    if not facts or not fresh or not isinstance(old, list) or len(old) != len(sig):
        return ALL
    files = False
    for i, (before, after) in enumerate(zip(old, sig)):
        if before == after or i in _DB_STAMPS:
            continue
        if i in _FILE_STAMPS:
            files = True
        elif i != _BINDING_STAMP or not _same_task_bound(cache.get("binding"), binding):
            return ALL
    return FILES if files else KEEP


def _payload(raw: bytes) -> dict | None:
    from missioncache_state.json_codec import loads

    try:
        value = loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _cwd(payload: dict) -> str:
    """``cwd``, else ``workspace.current_dir``, else the process cwd (Claude Code starts
    the command in the session's directory)."""
    cwd = payload.get("cwd")
    workspace = payload.get("workspace")
    if not isinstance(cwd, str) or not cwd:
        cwd = workspace.get("current_dir") if isinstance(workspace, dict) else None
    if not isinstance(cwd, str) or not cwd or "\x00" in cwd:
        cwd = os.getcwd()
    return cwd


def _width(env: Mapping[str, str]) -> int:
    try:
        columns = int(env.get("COLUMNS", ""))
    except ValueError:
        columns = DEFAULT_COLUMNS
    return max(20, columns - MARGIN) if columns > 0 else DEFAULT_COLUMNS


def _color(env: Mapping[str, str]) -> bool:
    """ANSI unless ``NO_COLOR`` (https://no-color.org) or ``TERM=dumb`` asks for plain."""
    return not env.get("NO_COLOR") and env.get("TERM") != "dumb"


def status_line(raw: bytes, env: Mapping[str, str], now: float | None = None) -> str:
    """The text to print for this stdin (empty: print nothing)."""
    payload = _payload(raw)
    if payload is None:
        return ""
    from missioncache_state.ids import session_id_or_none

    sid = session_id_or_none(payload.get("session_id"))  # the entry: parsed once, here
    if sid is None:
        return ""
    from missioncache_state.locations import tasks_db_path

    if not os.path.isfile(tasks_db_path()):
        return ""  # MissionCache not set up here: nothing of ours to show
    from missioncache_state.statefile import load_state, save_state

    cwd = _cwd(payload)
    cache = load_state(CACHE_KIND, sid) or {}
    facts = cache.get("facts") if isinstance(cache.get("facts"), dict) else None
    if not _this_version(cache):
        facts = None  # another version's facts may lack what this one reads
    sig = signature(sid, cwd, facts)
    clock = time.time()
    computed, bound = cache.get("computed"), cache.get("binding")
    read: list = []  # the binding, read at most once

    def binding() -> object:
        if not read:
            read.append(binding_key(sid))
        return read[0]

    try:
        todo = change(cache, sig, facts, clock, binding)
        if todo == KEEP and not read:
            sig = cache.get("sig", sig)  # unchanged, or tasks.db only: no write of the cache
        elif todo == FILES:
            from missioncache_statusline.facts import refresh_files

            facts = refresh_files(facts)  # type: ignore[arg-type]
            sig = signature(sid, cwd, facts, stored=True)
        elif todo == ALL:
            from missioncache_statusline.facts import task_facts

            bound = binding()  # before tasks.db: a rebinding during the read shows next run
            facts = task_facts(cwd, sid, facts)
            sig = signature(sid, cwd, facts, stored=True)
            computed = clock
        if facts is None:
            line, edits = "", None
        else:
            from missioncache_statusline.edits import count_edits

            edits = count_edits(payload.get("transcript_path"), cache.get("edits"))
            from missioncache_statusline.render import render

            line = render(facts, edits, _width(env), _color(env), clock if now is None else now)
    except Exception:
        last = cache.get("line")
        return STALE_MARK + last if isinstance(last, str) and last else ""
    fresh = {
        "sig": sig,
        "computed": computed,
        "binding": bound,
        "facts": facts,
        "edits": edits,
        "line": line,
    }
    if fresh != cache:
        try:
            save_state(CACHE_KIND, fresh, sid)
        except OSError:
            pass  # a read-only Claude dir: the next run just recomputes
        if not cache:
            prune_caches(clock)
    return line


def prune_caches(now: float | None = None, keep_days: int = CACHE_KEEP_DAYS) -> int:
    """Delete other sessions' caches untouched for ``keep_days``: one file per session
    would otherwise pile up forever. Run when a session writes its first cache, so the
    cost (one directory listing) is paid once per session, not per run."""
    from missioncache_state.ids import SessionId
    from missioncache_state.statefile import state_path

    folder = os.path.dirname(state_path(CACHE_KIND, SessionId("x")) or "")
    limit = (time.time() if now is None else now) - keep_days * 86400
    removed = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        path = os.path.join(folder, name)
        try:
            if name.endswith(".json") and name != "install.json" and os.stat(path).st_mtime < limit:
                os.unlink(path)
                removed += 1
        except OSError:
            pass
    return removed


def main(stdin: Any = None, stdout: Any = None, env: Mapping[str, str] | None = None) -> int:
    """Read stdin, print the line (UTF-8 whatever the locale), return 0 whatever happens.
    The modules it needs next come from the plugin's compiled bundle when the hooks have
    built one (``missioncache_state.bytecode``); every launcher ever installed calls this."""
    import sys

    from missioncache_state.bytecode import install

    install(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    try:
        source = stdin if stdin is not None else sys.stdin.buffer
        raw = source.read(STDIN_MAX)
        line = status_line(raw, os.environ if env is None else env)
    except Exception:
        line = ""
    if line:
        out = stdout if stdout is not None else sys.stdout.buffer
        try:
            out.write(line.encode("utf-8") + b"\n")
            out.flush()
        except (OSError, ValueError):
            pass
    return 0
