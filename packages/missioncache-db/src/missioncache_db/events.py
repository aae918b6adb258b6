"""The per-machine event logs that make tasks.db a cache (docs/sync.md).

Every fact time and cost are computed from is also a line in an append-only log that only
its own machine writes: ``<data root>/events/<machine id>/<YYYY-MM>.jsonl``. A file-sync
engine or git can carry the logs between machines without a conflict, because no file has
two writers; tasks.db (one SQLite file per machine, never synced) is rebuilt from all of
them (``rebuild``) with the same figures.

- **Export** (``export_events``) writes what this machine's tasks.db holds and its log does
  not yet: rows with ``synced = 0`` (heartbeats, turn ends, tombstones; messages' tokens
  and waits once they have their task) and tasks whose
  ``changed`` differs from ``synced``. The hooks keep writing tasks.db exactly as before;
  the sync exports before it commits, so the hot path pays nothing, and every row from
  before version 4 (or written by another tool) reaches the log once. The log is written
  before the rows are marked: a crash between the two writes a line twice, which import
  ignores (by event id).
- **Import** (``import_events``) reads the other machines' logs from where it stopped
  (``event_files``), inside one write transaction: rows go in with ``INSERT OR IGNORE`` on
  their uid and ``synced = 1`` (never exported again as ours). A task event carries the
  task's whole state and wins when it is newer than the local row (``changed``); a task
  is known by its uid, or adopted by its path when both machines created it before they
  synced (``task_uids``). Its repository is this machine's when the path exists here, or
  the local repository with the same git remote.
- Sessions of one task on two machines are parallel sessions: the time model counts the
  union of their turns (``turns.merge``), overlap once.

Event types a newer version writes and this one does not know are skipped. ``IMPORTERS``
maps a type to its importer; ``_export_rows`` writes each type.
"""

from __future__ import annotations

import os
import time

from missioncache_db.model import STATUSES, is_contained, is_valid_name
from missioncache_db.schema import write_transaction
from missioncache_db.tasks import stamp_worked_on
from missioncache_db.timefmt import local_text
from missioncache_state.ids import prompt_id_or_none, session_id_or_none
from missioncache_state.json_codec import dumps, loads
from missioncache_state.locations import data_root
from missioncache_state.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

EVENTS_DIR = "events"
MACHINE_ID_FILE = "machine-id"
SUFFIX = ".jsonl"
MAX_LINE = 1 << 20
_HEX = frozenset("0123456789abcdef")


def is_machine_id(value: object) -> bool:
    return isinstance(value, str) and 8 <= len(value) <= 64 and set(value) <= _HEX


def _is_uid(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 64 and set(value.lower()) <= _HEX


def _is_epoch(value: object) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and value - value == 0.0
        and 0 <= value < 1e11
    )


def machine_id() -> str:
    """This machine's id (``<data root>/machine-id``), created once, random. It names the
    machine's log folder and is never synced: a copied data root must not make two
    machines write one log (docs/sync.md, the ignore rule)."""
    path = os.path.join(data_root(), MACHINE_ID_FILE)
    found = _read_id(path)
    if found:
        return found
    os.makedirs(data_root(), exist_ok=True)
    new = os.urandom(8).hex()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        time.sleep(0.05)  # another process is creating it: its id is the machine's
        found = _read_id(path)
        if found:
            return found
        os.replace(_write_temp(path, new), path)  # damaged: a new id (a new log folder)
        return new
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(new + "\n")
    return new


def _read_id(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as handle:
            found = handle.read(100).strip()
    except (OSError, UnicodeDecodeError):
        return None
    return found if is_machine_id(found) else None


def _write_temp(path: str, text: str) -> str:
    temp = f"{path}.{os.getpid()}.tmp"
    with open(temp, "w", encoding="ascii") as handle:
        handle.write(text + "\n")
    return temp


def events_dir() -> str:
    return os.path.join(data_root(), EVENTS_DIR)


def log_file(machine: str, now: float | None = None) -> str:
    """This month's log of ``machine`` (UTC month of the export: older files never change)."""
    month = time.strftime("%Y-%m", time.gmtime(time.time() if now is None else now))
    return os.path.join(events_dir(), machine, month + SUFFIX)


def _append(path: str, lines: list[str]) -> None:
    """Append whole lines durably; a torn last line (a crash mid-write) is closed first,
    so it spoils only itself."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        size = os.fstat(fd).st_size
        if size:
            os.lseek(fd, size - 1, os.SEEK_SET)
            if os.read(fd, 1) != b"\n":
                data = b"\n" + data
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


# -- export ------------------------------------------------------------------------------
def export_events(conn: sqlite3.Connection, now: float | None = None) -> int:
    """Write this machine's new facts to its log; returns how many events were written."""
    from missioncache_db.usage import assign_tasks

    with write_transaction(conn):
        conn.execute(
            "UPDATE heartbeats SET uid = lower(hex(randomblob(16))) "
            "WHERE uid IS NULL AND synced = 0"
        )
        assign_tasks(conn)  # a message is exported once it has its task
        lines, marks = _export_rows(conn)
        if lines:
            _append(log_file(machine_id(), now), lines)
        for statement, params in marks:
            conn.executemany(statement, params)
    return len(lines)


def _export_rows(conn: sqlite3.Connection) -> tuple[list[str], list[tuple[str, list]]]:
    lines: list[str] = []
    task_marks: list = []
    stones: list = []
    beats: list = []
    ends: list = []
    for row in conn.execute(
        "SELECT t.id, t.uid, t.changed, t.name, t.full_path, p.uid, t.status, t.jira_key, "
        "t.created_at, r.path, r.remote, r.short_name, f.uid FROM tasks t "
        "LEFT JOIN tasks p ON p.id = t.parent_id LEFT JOIN repositories r ON r.id = t.repo_id "
        "LEFT JOIN tasks f ON f.id = t.fork_of "
        "WHERE t.changed IS NOT t.synced "
        "ORDER BY t.parent_id IS NOT NULL, t.fork_of IS NOT NULL, t.id"
    ).fetchall():
        task_id, uid, changed, name, full_path, parent, status, jira, created = row[:9]
        path, remote, short, fork_of = row[9:]
        repo = None
        if path is not None:
            remote = remote or _fill_remote(conn, path)
            repo = {"path": path, "remote": remote, "name": short}
        lines.append(
            _line(
                type="task", id=os.urandom(16).hex(), at=changed, task=uid, name=name,
                path=full_path, parent=parent, status=status, jira=jira, created=created,
                repo=repo, fork_of=fork_of,
            )
        )  # fmt: skip
        task_marks.append((changed, task_id))
    for uid, epoch in conn.execute("SELECT uid, epoch FROM task_tombstones WHERE synced = 0"):
        lines.append(_line(type="deleted", id=os.urandom(16).hex(), at=epoch, task=uid))
        stones.append((uid,))
    for row in conn.execute(
        "SELECT h.id, h.uid, t.uid, h.epoch, h.session_id, h.prompt_id, h.kind, h.context "
        "FROM heartbeats h JOIN tasks t ON t.id = h.task_id WHERE h.synced = 0"
    ).fetchall():
        row_id, uid, task, epoch, session, prompt, kind, context = row
        beats.append((row_id,))
        if epoch is None:
            continue  # no place in time (another tool's unreadable timestamp): counts nothing
        lines.append(
            _line(
                type="heartbeat", id=uid, at=epoch, task=task, session=session, prompt=prompt,
                kind=kind or "prompt", context=_parsed(context),
            )
        )  # fmt: skip
    for row_id, uid, session, prompt, epoch, outcome, background in conn.execute(
        "SELECT id, uid, session_id, prompt_id, epoch, outcome, background FROM turn_ends "
        "WHERE synced = 0"
    ).fetchall():
        ends.append((row_id,))
        lines.append(
            _line(
                type="turn_end", id=uid, at=epoch, session=session, prompt=prompt,
                outcome=outcome, background=background,
            )
        )  # fmt: skip
    marks: list[tuple[str, list]] = [
        ("UPDATE tasks SET synced = ? WHERE id = ?", task_marks),
        ("UPDATE task_tombstones SET synced = 1 WHERE uid = ?", stones),
        ("UPDATE heartbeats SET synced = 1 WHERE id = ?", beats),
        ("UPDATE turn_ends SET synced = 1 WHERE id = ?", ends),
        ("UPDATE usage SET synced = 1 WHERE id = ?", _export_usage(conn, lines)),
        ("UPDATE waits SET synced = 1 WHERE id = ?", _export_waits(conn, lines)),
    ]
    return lines, marks


def _export_usage(conn: sqlite3.Connection, lines: list[str]) -> list[tuple]:
    """A line per message that has its task (an untracked session's reach no task, and no
    log); returns the rows to mark."""
    marked = []
    for row in conn.execute(
        "SELECT u.id, u.session_id, u.message_key, u.model, u.speed, u.agent, u.prompt_id, "
        "u.epoch, u.input_tokens, u.output_tokens, u.cache_5m_tokens, u.cache_1h_tokens, "
        "u.cache_read_tokens, t.uid FROM usage u JOIN tasks t ON t.id = u.task_id "
        "WHERE u.synced = 0"
    ).fetchall():
        row_id, session, key, model, speed, agent, prompt, epoch = row[:8]
        marked.append((row_id,))
        lines.append(
            _line(
                type="usage", at=epoch, task=row[13], session=session, key=key, model=model,
                speed=speed, agent=agent, prompt=prompt, tokens=list(row[8:13]),
            )
        )  # fmt: skip
    return marked


def _export_waits(conn: sqlite3.Connection, lines: list[str]) -> list[tuple]:
    marked = []
    for row_id, session, epoch, seconds, task in conn.execute(
        "SELECT w.id, w.session_id, w.epoch, w.seconds, t.uid FROM waits w "
        "JOIN tasks t ON t.id = w.task_id WHERE w.synced = 0"
    ).fetchall():
        marked.append((row_id,))
        lines.append(_line(type="wait", at=epoch, task=task, session=session, seconds=seconds))
    return marked


def _fill_remote(conn: sqlite3.Connection, path: str) -> str | None:
    from missioncache_db.remote import git_remote

    remote = git_remote(path)
    if remote:
        conn.execute("UPDATE repositories SET remote = ? WHERE path = ?", (remote, path))
    return remote


def _line(**fields: object) -> str:
    return dumps(fields, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _parsed(context: str | None) -> object:
    if context is None:
        return None
    try:
        return loads(context)
    except ValueError:
        return context


# -- import ------------------------------------------------------------------------------
class _Import:
    """One import: the uid -> local task id map and what the caller must do after commit."""

    def __init__(self, conn: sqlite3.Connection, keep_ids: dict | None):
        self.conn = conn
        self.keep_ids = keep_ids or {}
        self.closed: list[int] = []
        self.count = 0
        self.ids: dict[str, int] = dict(conn.execute("SELECT uid, id FROM tasks"))
        self.ids.update(conn.execute("SELECT uid, task_id FROM task_uids"))


def _log_files(include_own: bool) -> list[tuple[str, str]]:
    """(key ``<machine>/<file>``, path) of every log to read, in a stable order."""
    root = events_dir()
    me = machine_id()
    found = []
    try:
        machines = sorted(os.listdir(root))
    except OSError:
        return []
    for machine in machines:
        if not is_machine_id(machine) or (machine == me and not include_own):
            continue
        try:
            names = sorted(os.listdir(os.path.join(root, machine)))
        except OSError:
            continue
        for name in names:
            if name.endswith(SUFFIX) and not name.startswith("."):
                found.append((f"{machine}/{name}", os.path.join(root, machine, name)))
    return found


def _read_from(path: str, offset: int) -> tuple[list[dict], int]:
    """The events of complete lines from ``offset`` on, and the offset after them. A log
    shorter than the offset was replaced: it is read again from the start (idempotent)."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < offset:
                offset = 0
            handle.seek(offset)
            data = handle.read()
    except OSError:
        return [], offset
    end = data.rfind(b"\n") + 1
    events = []
    for raw in data[:end].split(b"\n"):
        if not raw or len(raw) > MAX_LINE:
            continue
        try:
            event = loads(raw.decode("utf-8"))
        except ValueError:
            continue  # a torn or foreign line spoils only itself
        if isinstance(event, dict) and _is_epoch(event.get("at")):
            events.append(event)
    return events, offset + end


def import_events(
    conn: sqlite3.Connection, include_own: bool = False, keep_ids: dict | None = None
) -> int:
    """Import the new events of the other machines' logs (``include_own``: this machine's
    too, for a rebuild; ``keep_ids``: task uid -> the id it had, so bindings stay true).
    Returns how many events changed something."""
    from missioncache_state.bindings import unbind_task

    with write_transaction(conn):
        state = _Import(conn, keep_ids)
        offsets = dict(conn.execute("SELECT path, offset FROM event_files"))
        tasks: list[dict] = []
        facts: list[dict] = []
        new_offsets = []
        for key, path in _log_files(include_own):
            events, offset = _read_from(path, 0 if include_own else offsets.get(key, 0))
            for event in events:
                (tasks if event.get("type") in ("task", "deleted") else facts).append(event)
            new_offsets.append((key, offset))
        tasks.sort(key=lambda e: (float(e["at"]), str(e.get("id"))))
        facts.sort(key=lambda e: float(e["at"]))
        for event in tasks + facts:
            importer = IMPORTERS.get(str(event.get("type")))
            if importer is not None and importer(state, event):
                state.count += 1
        conn.executemany(
            "INSERT OR REPLACE INTO event_files(path, offset) VALUES (?, ?)", new_offsets
        )
    for task_id in state.closed:
        unbind_task(task_id)
    if state.count:
        from missioncache_db.rollup import refresh

        refresh(conn, existing=True)  # the days the imported events touched
    return state.count


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
        _is_uid(event.get("task"))
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
    local = state.ids.get(uid) if isinstance(uid, str) and _is_uid(uid) else None
    if local is None:
        return False
    conn = state.conn
    row = conn.execute("SELECT changed FROM tasks WHERE id = ?", (local,)).fetchone()
    has_children = conn.execute("SELECT 1 FROM tasks WHERE parent_id = ?", (local,)).fetchone()
    if row is None or has_children or (row[0] is not None and row[0] > at):
        return False  # changed here after the delete (or a parent): kept
    uids = [u for u, i in state.ids.items() if i == local]
    conn.execute("DELETE FROM tasks WHERE id = ?", (local,))
    conn.executemany("UPDATE task_tombstones SET synced = 1 WHERE uid = ?", [(u,) for u in uids])
    for u in uids:
        del state.ids[u]
    state.closed.append(local)
    return True


_INSERT_HEARTBEAT = (
    "INSERT OR IGNORE INTO heartbeats(uid, task_id, timestamp, epoch, session_id, context, "
    "prompt_id, kind, processed, synced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 1)"
)


def _import_heartbeat(state: _Import, event: dict) -> bool:
    uid, task = event.get("id"), state.ids.get(event.get("task"))  # type: ignore[arg-type]
    if not _is_uid(uid) or task is None:
        return False
    epoch = float(event["at"])
    context = event.get("context")
    text = local_text(epoch)
    cursor = state.conn.execute(
        _INSERT_HEARTBEAT,
        (
            uid, task, text, epoch, session_id_or_none(event.get("session")),
            None if context is None else dumps(context, sort_keys=True),
            prompt_id_or_none(event.get("prompt")),
            "synthetic" if event.get("kind") == "synthetic" else None,
        ),
    )  # fmt: skip
    if cursor.rowcount:
        stamp_worked_on(state.conn, task, min(text, local_text(time.time())))
    return cursor.rowcount > 0


def _import_turn_end(state: _Import, event: dict) -> bool:
    uid, prompt, background = event.get("id"), prompt_id_or_none(event.get("prompt")), 0
    if isinstance(event.get("background"), int) and not isinstance(event["background"], bool):
        background = max(0, min(event["background"], 1000))
    if not _is_uid(uid) or prompt is None:
        return False
    outcome = event.get("outcome") if event.get("outcome") in ("stop", "failure") else "stop"
    cursor = state.conn.execute(
        "INSERT OR IGNORE INTO turn_ends(uid, session_id, prompt_id, epoch, outcome, "
        "background, synced) VALUES (?, ?, ?, ?, ?, ?, 1)",
        (
            uid, session_id_or_none(event.get("session")), prompt, float(event["at"]),
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
    from missioncache_db.usage import valid_message

    task, session = state.ids.get(event.get("task")), session_id_or_none(event.get("session"))  # type: ignore[arg-type]
    tokens = event.get("tokens")
    if task is None or session is None or not isinstance(tokens, list):
        return False
    fields = [event.get(name) for name in ("key", "model", "speed", "agent", "prompt")]
    row = valid_message(session, [*fields, event["at"], *tokens])
    if row is None:
        return False
    return state.conn.execute(_INSERT_USAGE, (*row, task)).rowcount > 0


def _import_wait(state: _Import, event: dict) -> bool:
    from missioncache_db.usage import valid_wait

    task, session = state.ids.get(event.get("task")), session_id_or_none(event.get("session"))  # type: ignore[arg-type]
    row = valid_wait(session, [event["at"], event.get("seconds")]) if session else None
    if task is None or row is None:
        return False
    cursor = state.conn.execute(
        "INSERT OR IGNORE INTO waits(session_id, epoch, seconds, task_id, synced) "
        "VALUES (?, ?, ?, ?, 1)",
        (*row, task),
    )
    return cursor.rowcount > 0


IMPORTERS: dict[str, Callable[[_Import, dict], bool]] = {
    "task": _import_task,
    "deleted": _import_deleted,
    "heartbeat": _import_heartbeat,
    "turn_end": _import_turn_end,
    "usage": _import_usage,
    "wait": _import_wait,
}


def iter_events(include_own: bool = True) -> Iterator[dict]:
    """Every event of every log (for tests and the doctor)."""
    for _key, path in _log_files(include_own):
        yield from _read_from(path, 0)[0]
