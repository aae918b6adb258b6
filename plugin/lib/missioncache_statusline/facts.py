"""The slow path: what the status line shows about a session's task, from tasks.db and
the task's files. Run only when the cache's signature (``line.signature``) changed.
"""

from __future__ import annotations

import time

from missioncache_state import lean_os as os
from missioncache_state.saves import SAVED_FILE, last_save

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from missioncache_db import Task, TaskDB
    from missioncache_state.ids import SessionId

# Reads never wait in WAL mode; the only write (folding heartbeats) gives up quickly,
# because Claude Code kills a status line when the next run starts.
BUSY_TIMEOUT = 0.2


# What the task's files say (``file_facts`` and the compaction count): kept from the last
# run while the files' stamps, taken before they were read, are the same, so a run that
# only tasks.db made stale (a prompt's heartbeat, a turn's end) parses no markdown.
FILE_FACTS = ("done", "total", "divergent", "saved_epoch", "compactions")
# A stamp this close to the read may hide a later write in the same tick of a coarse clock
# (git's "racily clean" files): such files are read again.
RACY_SECONDS = 2.0


def task_facts(cwd: str, session_id: SessionId, earlier: dict | None = None) -> dict | None:
    """Everything the line needs about the session's task, or None when it has none (or
    MissionCache is not set up: nothing is created for a user who never made a task).
    ``earlier``: the last run's facts, whose file facts are kept while the files' stamps
    they were read under (``file_stamps``) still hold for the same task."""
    from missioncache_cost import task_tokens
    from missioncache_db import open_if_set_up
    from missioncache_time import period_start, time_split

    db = open_if_set_up(BUSY_TIMEOUT)
    if db is None:
        return None
    with db:
        task = db.find_task_for_cwd(cwd, session_id)
        if task is None:
            return None
        _fold_heartbeats(db)
        total, claude, you = time_split(db, task.id, period="today")
        spent = task_tokens(db.conn, task.id, period_start("today"))
        facts: dict[str, Any] = {
            "task_id": task.id,
            "name": task.name,
            "full_path": task.full_path,
            "context": task.context_path,
            "tasks": task.tasks_path,
            # Compaction records are files there (one per compaction): its mtime moves
            # with each new one, so the cache notices without opening anything.
            "compactions_dir": os.path.join(task.directory_path, ".compactions"),
            "saved_marker": os.path.join(task.directory_path, SAVED_FILE),
            "today": total,
            "claude": claude,
            "you": you,
            # today's tokens and their cost (None: a model without a known price)
            "tokens_today": spent.total,
            "cost_today": spent.cost,
        }
        facts.update(fork_facts(db, task, session_id))
    stamps = _file_stamps(facts)
    if _files_unchanged(facts, stamps, earlier):
        kept = (*FILE_FACTS, "file_stamps", "files_read_at")
        facts.update({key: earlier[key] for key in kept})  # type: ignore[index]
        return facts
    return _read_files(facts, stamps, task)


def refresh_files(facts: dict) -> dict:
    """``facts`` with what the task's files say read again, and nothing else: for a run
    whose task is the same and whose tasks.db figures are still within their grace
    (``line.DB_GRACE_SECONDS``), but whose files changed (a compaction's snapshot, a save,
    Claude ticking an item). It opens no database."""
    from missioncache_db import Task

    fresh = dict(facts)
    task = Task(fresh["task_id"], fresh["name"], fresh["full_path"], None)  # as its binding has it
    return _read_files(fresh, _file_stamps(fresh), task)


def _read_files(facts: dict, stamps: list, task: Task) -> dict:
    """Fill in ``FILE_FACTS`` from the files of ``task``."""
    facts["file_stamps"] = stamps  # before the reads: a write during them shows next run
    facts["files_read_at"] = time.time()
    facts.update(file_facts(facts["context"], facts["tasks"]))
    known, saved = last_save(task.directory_path)
    if known:  # a task that keeps its real saves: the stamp may be a snapshot's
        facts["saved_epoch"] = saved
    facts["compactions"] = compactions_since(task, facts["saved_epoch"])
    return facts


def _file_stamps(facts: dict) -> list:
    """The stamps of the task's own files, in ``line.FILE_KEYS`` order."""
    from missioncache_statusline.line import FILE_KEYS, file_stamp

    return [file_stamp(facts[key]) for key in FILE_KEYS]


def _files_unchanged(facts: dict, stamps: list, earlier: dict | None) -> bool:
    """Whether the task's files are as they were when ``earlier`` read them: the same
    task and the same stamps (a missing file: None both times), none of them so close to
    that read that a write in the same clock tick could hide behind it."""
    if not earlier or earlier.get("task_id") != facts["task_id"]:
        return False
    if any(key not in earlier for key in FILE_FACTS) or earlier.get("file_stamps") != stamps:
        return False
    read_at = earlier.get("files_read_at")
    if not isinstance(read_at, (int, float)):
        return False
    racy = (read_at - RACY_SECONDS) * 1e9
    return all(stamp is None or stamp[0] < racy for stamp in stamps)


def fork_facts(db: TaskDB, task: Task, session_id: str) -> dict:
    """For a fork: its parent's context and this session's shared-seen marker (both in
    the cache's signature, so a save to the parent recomputes), and when the parent
    changed after this session last read it (docs/forks.md)."""
    parent = db.parent_of(task)
    if parent is None:
        return {}
    from missioncache_state.shared_seen import changed_since_mark, marker_path

    changed = changed_since_mark(session_id, parent.context_path)
    return {
        "parent": parent.key,
        "parent_context": parent.context_path,
        "seen_marker": marker_path(session_id),
        "parent_updated": changed / 1e9 if changed is not None else None,
    }


def _fold_heartbeats(db: TaskDB) -> None:
    """Turn this task's new heartbeats into work sessions so "today" is current (the
    same fold ``missioncache time`` does). Only when there is something to fold, and
    never waiting long for the lock: a busy database just shows the last figure."""
    try:
        pending = db.conn.execute("SELECT 1 FROM heartbeats WHERE processed = 0 LIMIT 1")
        from missioncache_spool import pending_files

        if pending.fetchone() or pending_files(db.spool_folder):
            from missioncache_time import process_pending

            process_pending(db)
    except Exception:
        pass


def compactions_since(task: Task, since_epoch: float | None) -> int | None:
    """Compactions of the task since the context file was last saved; None when its
    records cannot be read (the line then shows no mark rather than a wrong one)."""
    from missioncache_db import compaction_count

    try:
        return int(compaction_count(task, since_epoch=since_epoch))
    except Exception:
        return None


def file_facts(context_path: str, tasks_path: str) -> dict:
    """Checklist progress, findings for unchecked items, and when the context was saved.
    Of the context file only its head, as the task tracker reads it: the stamp and the
    findings are at the top, and a file too large to read whole must not show "never saved"."""
    from missioncache_context import divergent_tasks, get_stamp, parse_items, read_file
    from missioncache_context.reading import read_head

    done = total = 0
    divergent: list = []
    tasks_text = _read(read_file, tasks_path)
    context_text = _read(read_head, context_path)
    if tasks_text is not None:
        items = parse_items(tasks_text)
        total, done = len(items), sum(1 for item in items if item.done)
        if context_text is not None:
            divergent = divergent_tasks(context_text, tasks_text)
    saved = None
    if context_text is not None:
        saved = stamp_epoch(get_stamp(context_text))
        if saved is None:
            try:
                saved = os.path.getmtime(context_path)
            except OSError:
                saved = None
    return {"done": done, "total": total, "divergent": len(divergent), "saved_epoch": saved}


def _read(read_file: Callable[[str], str], path: str) -> str | None:
    try:
        return read_file(path)
    except (OSError, ValueError):
        return None


def stamp_epoch(stamp: Any) -> float | None:
    """``YYYY-MM-DD HH:MM`` (local) -> epoch seconds; None when it is not that shape.
    By hand: ``time.strptime`` imports ``_strptime`` (with ``re``, ``calendar``,
    ``datetime`` and ``locale``), tens of milliseconds on a hot path."""
    if not isinstance(stamp, str):
        return None
    text = stamp.strip()[:16]
    if len(text) < 16 or text[4] != "-" or text[7] != "-" or text[13] != ":":
        return None
    try:
        year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
        hour, minute = int(text[11:13]), int(text[14:16])
    except ValueError:
        return None
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60):
        return None
    return time.mktime((year, month, day, hour, minute, 0, 0, 0, -1))
