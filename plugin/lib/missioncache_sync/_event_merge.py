"""Where two machines' events merge: the other machines' logs replayed into tasks.db.

``import_events`` reads every log from where it stopped (``event_files``) inside one
write transaction; each event type has its importer (``IMPORTERS``). A row goes in with
``INSERT OR IGNORE`` on its uid and ``synced = 1`` (never exported again as ours); a task
event carries the task's whole state and wins when it is newer than the local row. The
logs themselves, and what this machine writes into its own, are ``_event_log``.
"""

from __future__ import annotations

import time

from missioncache_db import (
    STATUSES,
    is_contained,
    is_valid_name,
    local_text,
    stamp_worked_on,
    write_transaction,
)
from missioncache_state import lean_os as os
from missioncache_state.ids import prompt_id_or_none, session_id_or_none
from missioncache_state.json_codec import dumps
from missioncache_state.sqlite import sqlite3
from missioncache_sync._bulk import Bulk, Parsed
from missioncache_sync._event_log import (
    CLOCK_SLACK,
    clock_words,
    is_uid,
    log_files,
    machine_id,
    read_from,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class _Import:
    """One import: the uid -> local task id map and what the caller must do after commit."""

    def __init__(self, conn: sqlite3.Connection, keep_ids: dict | None):
        self.conn = conn
        self.keep_ids = keep_ids or {}
        self.closed: list[int] = []
        self.count = 0
        self.unreadable = 0  # lines skipped: not JSON, absurdly deep, or fields of a wrong type
        self.kept: dict[str, str] = {}  # task name -> what kept another machine's delete back
        self.ahead: dict[str, float] = {}  # machine id -> how far ahead its clock runs
        self.ids: dict[str, int] = dict(conn.execute("SELECT uid, id FROM tasks"))
        self.ids.update(conn.execute("SELECT uid, task_id FROM task_uids"))
        self.session = Parsed(session_id_or_none)  # a SessionId or None
        self.prompt = Parsed(prompt_id_or_none)  # a PromptId or None
        self.worked: dict[int, str] = {}  # task id -> its latest imported heartbeat's time
        from missioncache_time import valid_message

        self.valid_message = valid_message  # checks a message as the spool's are checked

    def stamp_worked_on(self) -> None:
        """Each task's ``last_worked_on`` moved to its latest new heartbeat (never past
        now), once per import rather than once per heartbeat."""
        now = local_text(time.time())
        for task, text in self.worked.items():
            stamp_worked_on(self.conn, task, min(text, now))


def import_events(
    conn: sqlite3.Connection,
    include_own: bool = False,
    keep_ids: dict | None = None,
    report: list[str] | None = None,
) -> int:
    """Import the new events of the other machines' logs (``include_own``: this machine's
    too, for a rebuild; ``keep_ids``: task uid -> the id it had, so bindings stay true).
    Returns how many events changed something; what the person should hear (lines that
    could not be read, a delete kept back) is appended to ``report``, once per import."""
    from missioncache_state.bindings import unbind_task

    with Bulk(conn), write_transaction(conn):
        state = _Import(conn, keep_ids)
        offsets = dict(conn.execute("SELECT path, offset FROM event_files"))
        tasks: list[dict] = []
        facts: list[dict] = []
        new_offsets = []
        bad = [0]
        now = time.time()
        me = machine_id()
        for key, path in log_files(include_own):
            events, offset = read_from(path, 0 if include_own else offsets.get(key, 0), bad)
            machine = key.split("/", 1)[0]
            source = None if machine == me else machine
            for event in events:
                event[_SOURCE] = source
                ahead = float(event["at"]) - now
                if ahead > CLOCK_SLACK:
                    state.ahead[machine] = max(ahead, state.ahead.get(machine, 0.0))
                (tasks if event.get("type") in ("task", "deleted") else facts).append(event)
            new_offsets.append((key, offset))
        state.unreadable = bad[0]
        # Deletes after every task event: a task forked (or changed) here after another
        # machine deleted it keeps the delete back in a rebuild exactly as in an import.
        tasks.sort(
            key=lambda e: (
                e.get("type") == "deleted",
                float(e["at"]),
                e["id"] if isinstance(e.get("id"), str) else "",
            )
        )
        facts.sort(key=lambda e: float(e["at"]))
        for event in tasks + facts:
            _apply(state, event)
        state.stamp_worked_on()
        conn.executemany(
            "INSERT OR REPLACE INTO event_files(path, offset) VALUES (?, ?)", new_offsets
        )
    for task_id in state.closed:
        unbind_task(task_id)
    if report is not None:
        report.extend(_told(state))
    if state.count:
        from missioncache_cost import day_pricing
        from missioncache_time import refresh_days

        # the days the imported events touched
        refresh_days(conn, existing=True, pricing=day_pricing())
    return state.count


_TEXT_FIELDS = ("id", "task", "session", "prompt", "name", "path", "parent", "fork_of", "key")
_TEXT_TYPES = frozenset((str, type(None)))  # what JSON text decodes to: str, never a subclass


def _apply(state: _Import, event: dict) -> None:
    """One event, all or nothing: a field of the wrong type or shape makes it skipped and
    counted, never an error that stops the other events. An importer that writes more
    than one statement runs in a savepoint; one that writes a single statement, last,
    needs none (SQLite undoes a failed statement, and nothing was written before it):
    two statements fewer for each of the hundreds of thousands of events of a first
    import."""
    importer, single = IMPORTERS.get(
        event["type"] if isinstance(event.get("type"), str) else "", (None, True)
    )
    if importer is None:
        return
    if not _TEXT_TYPES.issuperset(map(type, map(event.get, _TEXT_FIELDS))):
        state.unreadable += 1  # a list or an object where a name or an id belongs
        return
    if not single:
        state.conn.execute("SAVEPOINT one_event")
    try:
        changed = importer(state, event)
    except (ValueError, TypeError, KeyError, RecursionError, OverflowError, sqlite3.Error):
        if not single:
            state.conn.execute("ROLLBACK TO one_event")  # raises when SQLite rolled back
        elif not state.conn.in_transaction:
            # SQLite rolled the whole import back (a full disk, an I/O error): going on
            # would write the rest outside it and mark every log read. The sync fails,
            # nothing is marked, the next one imports it all.
            raise
        changed = False
        state.unreadable += 1
    if not single:
        state.conn.execute("RELEASE one_event")
    state.count += bool(changed)


def _told(state: _Import) -> list[str]:
    said = []
    if state.unreadable:
        said.append(
            f"sync: {_lines(state.unreadable)} of the event logs could not be read and"
            f" {'was' if state.unreadable == 1 else 'were'} skipped; everything else was"
            " imported"
        )
    for machine, ahead in sorted(state.ahead.items()):
        said.append(
            f"sync: the clock of the machine writing events/{machine} is {clock_words(ahead)}"
            " ahead of this one; what it records counts once that time comes here: set its"
            " clock right (automatic date and time)"
        )
    for name, kind in sorted(state.kept.items()):
        said.append(
            f"sync: another machine deleted the task {name}, but it has {kind} here, so it is"
            f" kept; delete its {kind} first, then the task, if you want it gone"
        )
    return said


def _local_repo(conn: sqlite3.Connection, repo: object) -> int | None:
    """This machine's repository for a task event's: one registered here with the same
    path or git remote, else the other machine's path, marked ``elsewhere``: a session
    starting there resolves it by path; one starting in a folder with the same remote (or
    name) adopts it (``resolve``). A path that exists here is no proof it is the same
    repository: two HOMEs on one disk each have their own clone."""
    if not isinstance(repo, dict) or not isinstance(repo.get("path"), str):
        return None
    path, remote = repo["path"], repo.get("remote")
    remote = remote if isinstance(remote, str) and remote else None
    row = conn.execute("SELECT id FROM repositories WHERE path = ?", (path,)).fetchone()
    if row:
        return int(row[0])
    if remote:
        row = conn.execute(
            "SELECT id FROM repositories WHERE remote = ? ORDER BY id LIMIT 1", (remote,)
        ).fetchone()
        if row:
            return int(row[0])
    name = repo.get("name") if isinstance(repo.get("name"), str) else os.path.basename(path)
    conn.execute(
        "INSERT OR IGNORE INTO repositories(path, short_name, created_at, remote, elsewhere) "
        "VALUES (?, ?, ?, ?, 1)",
        (path, name or path, local_text(time.time()), remote),
    )
    return int(conn.execute("SELECT id FROM repositories WHERE path = ?", (path,)).fetchone()[0])


def _valid_task(event: dict) -> bool:
    name, path = event.get("name"), event.get("path")
    return (
        is_uid(event.get("task"))
        and is_valid_name(name)
        and is_contained(path, name)
        and isinstance(path, str)
        and path.startswith("active/")
        and event.get("status") in STATUSES
    )


def _import_task(state: _Import, event: dict) -> bool:
    if not _valid_task(event):
        return False
    conn, uid, at = state.conn, event["task"], float(event["at"])
    jira = event.get("jira") if isinstance(event.get("jira"), str) else None
    parent_uid = event.get("parent")
    parent = state.ids.get(parent_uid) if isinstance(parent_uid, str) else None
    fork_uid = event.get("fork_of")  # the task a fork branched from (docs/forks.md)
    fork_of = state.ids.get(fork_uid) if isinstance(fork_uid, str) else None
    local = state.ids.get(uid)
    if local is None:
        row = conn.execute("SELECT id FROM tasks WHERE full_path = ?", (event["path"],)).fetchone()
        if row is not None:  # created on both machines before they synced: one task
            local = int(row[0])
            conn.execute(
                "INSERT OR IGNORE INTO task_uids(uid, task_id) VALUES (?, ?)", (uid, local)
            )
            state.ids[uid] = local
    if local is None:
        created = event.get("created") if isinstance(event.get("created"), str) else None
        stamp = created or local_text(at)
        wanted = state.keep_ids.get(uid)
        taken = (
            wanted is None or conn.execute("SELECT 1 FROM tasks WHERE id = ?", (wanted,)).fetchone()
        )
        cursor = conn.execute(
            "INSERT INTO tasks(id, repo_id, name, full_path, parent_id, status, jira_key, "
            "created_at, updated_at, uid, changed, synced, fork_of) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                None if taken else wanted, _local_repo(conn, event.get("repo")), event["name"],
                event["path"], parent, event["status"], jira, stamp, local_text(at), uid, at, at,
                fork_of,
            ),
        )  # fmt: skip
        assert cursor.lastrowid is not None
        state.ids[uid] = cursor.lastrowid
        return True
    row = conn.execute(
        "SELECT changed, status, repo_id FROM tasks WHERE id = ?", (local,)
    ).fetchone()
    if row is None or (row[0] is not None and at <= row[0]):
        return False  # this machine's state is as new or newer
    repo_id = row[2]
    if repo_id is None or not _repo_is_here(conn, repo_id):
        repo_id = _local_repo(conn, event.get("repo")) or repo_id
    conn.execute(
        "UPDATE tasks SET name = ?, full_path = ?, parent_id = ?, status = ?, jira_key = ?, "
        "repo_id = ?, updated_at = ?, changed = ?, synced = ?, fork_of = ? WHERE id = ?",
        (
            event["name"], event["path"], parent, event["status"], jira, repo_id,
            local_text(at), at, at, fork_of, local,
        ),
    )  # fmt: skip
    if event["status"] not in ("active", "paused"):
        state.closed.append(local)
    return True


def _repo_is_here(conn: sqlite3.Connection, repo_id: int) -> bool:
    row = conn.execute("SELECT path FROM repositories WHERE id = ?", (repo_id,)).fetchone()
    return row is not None and os.path.isdir(row[0])


def _import_deleted(state: _Import, event: dict) -> bool:
    uid, at = event.get("task"), float(event["at"])
    local = state.ids.get(uid) if isinstance(uid, str) and is_uid(uid) else None
    if local is None:
        return False
    conn = state.conn
    row = conn.execute("SELECT changed, name FROM tasks WHERE id = ?", (local,)).fetchone()
    has_children = conn.execute("SELECT 1 FROM tasks WHERE parent_id = ?", (local,)).fetchone()
    forks = conn.execute("SELECT 1 FROM tasks WHERE fork_of = ?", (local,)).fetchone()
    if row is None or (row[0] is not None and row[0] > at):
        return False  # changed here after the delete: kept
    if has_children or forks:  # its subtasks or forks point at it: kept, and said
        state.kept[row[1]] = "forks" if forks else "subtasks"
        return False
    uids = [u for u, i in state.ids.items() if i == local]
    conn.execute("DELETE FROM tasks WHERE id = ?", (local,))
    conn.executemany("UPDATE task_tombstones SET synced = 1 WHERE uid = ?", [(u,) for u in uids])
    for u in uids:
        del state.ids[u]
    state.closed.append(local)
    return True


_INSERT_HEARTBEAT = (
    "INSERT OR IGNORE INTO heartbeats(uid, task_id, timestamp, epoch, session_id, context, "
    "prompt_id, kind, processed, synced, machine) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 1, ?)"
)
_SOURCE = "\x00machine"  # set on each event read: the log's machine id, None for our own
MACHINE_NAME_CHARS = 64


# The kinds a heartbeat keeps in tasks.db; a person's prompt is stored as NULL ("prompt").
_KINDS = ("synthetic", "control")


def _kind(value: object) -> str | None:
    """A heartbeat's kind as tasks.db holds it: a turn Claude Code made or a control prompt
    keeps its kind, anything else is a person's prompt."""
    return value if value in _KINDS else None


def _machine(event: dict) -> str | None:
    """Which machine a heartbeat came from, for a person: the name its log gives (shown
    as text, so only printable and short), else the machine id's start."""
    source = event.get(_SOURCE)
    if not isinstance(source, str):
        return None
    name = event.get("machine")
    if isinstance(name, str) and name.isprintable() and 0 < len(name.strip()) <= MACHINE_NAME_CHARS:
        return name.strip()
    return source[:8]


def _import_heartbeat(state: _Import, event: dict) -> bool:
    """One statement (its task's ``last_worked_on`` moves once per import, at the end)."""
    uid, task = event.get("id"), state.ids.get(event.get("task"))  # type: ignore[arg-type]
    if not is_uid(uid) or task is None:
        return False
    epoch = float(event["at"])
    context = event.get("context")
    text = local_text(epoch)
    cursor = state.conn.execute(
        _INSERT_HEARTBEAT,
        (
            uid, task, text, epoch, state.session(event.get("session")),
            None if context is None else dumps(context, sort_keys=True),
            state.prompt(event.get("prompt")),
            _kind(event.get("kind")),
            _machine(event),
        ),
    )  # fmt: skip
    if cursor.rowcount <= 0:
        return False
    if text > state.worked.get(task, ""):
        state.worked[task] = text
    return True


def _import_turn_end(state: _Import, event: dict) -> bool:
    uid, prompt, background = event.get("id"), state.prompt(event.get("prompt")), 0
    if isinstance(event.get("background"), int) and not isinstance(event["background"], bool):
        background = max(0, min(event["background"], 1000))
    if not is_uid(uid) or prompt is None:
        return False
    outcome = event.get("outcome") if event.get("outcome") in ("stop", "failure") else "stop"
    cursor = state.conn.execute(
        "INSERT OR IGNORE INTO turn_ends(uid, session_id, prompt_id, epoch, outcome, "
        "background, synced) VALUES (?, ?, ?, ?, ?, ?, 1)",
        (
            uid, state.session(event.get("session")), prompt, float(event["at"]),
            outcome, background,
        ),
    )  # fmt: skip
    return cursor.rowcount > 0


_INSERT_USAGE = (
    "INSERT OR IGNORE INTO usage(session_id, message_key, model, speed, agent, prompt_id, "
    "epoch, input_tokens, output_tokens, cache_5m_tokens, cache_1h_tokens, cache_read_tokens, "
    "task_id, synced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)"
)


def _import_usage(state: _Import, event: dict) -> bool:
    """A message's tokens, checked as a spooled one is; stored once (session, message)."""
    task, session = state.ids.get(event.get("task")), state.session(event.get("session"))  # type: ignore[arg-type]
    tokens = event.get("tokens")
    if task is None or session is None or not isinstance(tokens, list):
        return False
    # the agent's and the prompt's ids parsed once here: valid_message keeps a parsed one
    agent, prompt = state.session(event.get("agent")), state.prompt(event.get("prompt"))
    fields = [event.get("key"), event.get("model"), event.get("speed"), agent, prompt]
    row = state.valid_message(session, [*fields, event["at"], *tokens])
    if row is None:
        return False
    return state.conn.execute(_INSERT_USAGE, (*row, task)).rowcount > 0


def _import_wait(state: _Import, event: dict) -> bool:
    from missioncache_time import valid_wait

    task, session = state.ids.get(event.get("task")), state.session(event.get("session"))  # type: ignore[arg-type]
    row = valid_wait(session, [event["at"], event.get("seconds")]) if session else None
    if task is None or row is None:
        return False
    cursor = state.conn.execute(
        "INSERT OR IGNORE INTO waits(session_id, epoch, seconds, task_id, synced) "
        "VALUES (?, ?, ?, ?, 1)",
        (*row, task),
    )
    return cursor.rowcount > 0


# type -> (its importer, whether it writes a single statement, last: see ``_apply``)
IMPORTERS: dict[str, tuple[Callable[[_Import, dict], bool], bool]] = {
    "task": (_import_task, False),
    "deleted": (_import_deleted, False),
    "heartbeat": (_import_heartbeat, True),
    "turn_end": (_import_turn_end, True),
    "usage": (_import_usage, True),
    "wait": (_import_wait, True),
}


def _lines(count: int) -> str:
    return "1 line" if count == 1 else f"{count} lines"
