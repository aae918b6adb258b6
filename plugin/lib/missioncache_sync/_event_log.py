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
- **Import** (``import_events`` in ``_event_merge``, where two machines' events merge)
  reads the other machines' logs from where it stopped (``event_files``), inside one write
  transaction: rows go in with ``INSERT OR IGNORE`` on their uid and ``synced = 1`` (never
  exported again as ours). A task event carries the task's whole state and wins when it
  is newer than the local row (``changed``); a task is known by its uid, or adopted by its
  path when both machines created it before they synced (``task_uids``). Its repository
  is this machine's when the path exists here, or the local repository with the same git
  remote.
- Sessions of one task on two machines are parallel sessions: the time model counts the
  union of their turns (``turns.merge``), overlap once.

Event types a newer version writes and this one does not know are skipped. ``IMPORTERS``
(``_event_merge``) maps a type to its importer; ``_export_rows`` writes each type.
"""

from __future__ import annotations

import time

from missioncache_db import (
    write_transaction,
)
from missioncache_state import lean_os as os
from missioncache_state.json_codec import loads
from missioncache_state.locations import data_root
from missioncache_state.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from json import JSONEncoder

EVENTS_DIR = "events"
MACHINE_ID_FILE = "machine-id"
SUFFIX = ".jsonl"
MAX_LINE = 1 << 20
CLOCK_SLACK = 300.0  # seconds ahead before a machine's clock is called off
_HEX = frozenset("0123456789abcdef")


def is_machine_id(value: object) -> bool:
    return isinstance(value, str) and 8 <= len(value) <= 64 and set(value) <= _HEX


def is_uid(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 64 and set(value.lower()) <= _HEX


def _is_epoch(value: object) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and value - value == 0.0
        and 0 <= value < 1e11
    )


def own_machine_name() -> str:
    """What this machine calls itself (``sync setup --name``, else its host name): each
    heartbeat carries it, so another machine's dashboard can say whose session it is."""
    import socket

    from missioncache_state.atomic import read_json_object
    from missioncache_sync import paths

    name = (read_json_object(paths.config_path()) or {}).get("name")
    return name if isinstance(name, str) and name else socket.gethostname() or "another machine"


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


def log_file(machine: str, month: str) -> str:
    """The log of ``machine`` named by a UTC month (``YYYY-MM``): an export appends this
    month's events to this month's file and older ones to last month's (``_Lines``)."""
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
        view = memoryview(data)
        try:
            while view:  # os.write may write less than asked (a size limit, a full disk)
                written = os.write(fd, view)
                if written <= 0:
                    raise OSError(f"could not append to {path}: nothing was written")
                view = view[written:]
            os.fsync(fd)
        except OSError:
            try:  # the part written goes: its rows stay unexported and are written again
                os.ftruncate(fd, size)
            except OSError:
                pass  # a torn last line: the next append closes it, and it spoils only itself
            raise
    finally:
        os.close(fd)


# -- export ------------------------------------------------------------------------------
def export_events(conn: sqlite3.Connection, now: float | None = None) -> int:
    """Write this machine's new facts to its log; returns how many events were written.
    Rows are marked exported only once every byte of their lines is written and synced:
    an append that fails (OSError, raised) leaves them for the next export. Their ids are
    given first, in a transaction of their own, so a line written before a failure and
    written again after it has the same id (import keeps one)."""
    from missioncache_time import assign_tasks

    with write_transaction(conn):
        conn.execute(
            "UPDATE heartbeats SET uid = lower(hex(randomblob(16))) "
            "WHERE uid IS NULL AND synced = 0"
        )
    with write_transaction(conn):
        assign_tasks(conn)  # a message is exported once it has its task
        lines, marks = _export_rows(conn, time.time() if now is None else now)
        for month, texts in sorted(lines.files.items()):
            _append(log_file(machine_id(), month), texts)
        for statement, params in marks:
            conn.executemany(statement, params)
    return lines.count


class _Lines:
    """One export's lines, by the log file each goes to: an event of the export's UTC month
    (or later: a clock ahead) to this month's file, an older one to last month's. The
    first export of years of history so writes last month's file once, and the syncs
    after it change only this month's small file: git stores a changed file whole at every
    commit until it packs it, so history in this month's file would cost its whole size
    again, locally and on the remote, at every sync of the month. (A file a month would
    cost git a delta search between every pair of similar files at the first push and
    fetch: a few seconds for three years.) Files two months old and more never change."""

    def __init__(self, now: float):
        self.latest = _month(now)
        utc = time.gmtime(now)  # POSIX time has no leap seconds: the month began at
        self.start = int(now) - (utc.tm_mday - 1) * 86400 - utc.tm_hour * 3600 - utc.tm_min * 60
        self.start -= utc.tm_sec
        self.earlier = _month(self.start - 86400)
        self.files: dict[str, list[str]] = {}
        self.count = 0

    def add(self, **fields: object) -> None:
        at = fields.get("at")
        month = self.latest
        if _is_epoch(at) and at < self.start:  # type: ignore[operator]  # an epoch, checked
            month = self.earlier
        self.files.setdefault(month, []).append(_line(**fields))
        self.count += 1


def _month(epoch: float) -> str:
    return time.strftime("%Y-%m", time.gmtime(epoch))


def _export_rows(conn: sqlite3.Connection, now: float) -> tuple[_Lines, list[tuple[str, list]]]:
    lines = _Lines(now)
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
        lines.add(
            type="task", id=os.urandom(16).hex(), at=changed, task=uid, name=name,
            path=full_path, parent=parent, status=status, jira=jira, created=created,
            repo=repo, fork_of=fork_of,
        )  # fmt: skip
        task_marks.append((changed, task_id))
    for uid, epoch in conn.execute("SELECT uid, epoch FROM task_tombstones WHERE synced = 0"):
        lines.add(type="deleted", id=os.urandom(16).hex(), at=epoch, task=uid)
        stones.append((uid,))
    machine = own_machine_name()
    for row in conn.execute(
        "SELECT h.id, h.uid, t.uid, h.epoch, h.session_id, h.prompt_id, h.kind, h.context "
        "FROM heartbeats h JOIN tasks t ON t.id = h.task_id WHERE h.synced = 0"
    ).fetchall():
        row_id, uid, task, epoch, session, prompt, kind, context = row
        beats.append((row_id,))
        if epoch is None:
            continue  # no place in time (another tool's unreadable timestamp): counts nothing
        lines.add(
            type="heartbeat", id=uid, at=epoch, task=task, session=session, prompt=prompt,
            kind=kind or "prompt", context=_parsed(context), machine=machine,
        )  # fmt: skip
    for row_id, uid, session, prompt, epoch, outcome, background in conn.execute(
        "SELECT id, uid, session_id, prompt_id, epoch, outcome, background FROM turn_ends "
        "WHERE synced = 0"
    ).fetchall():
        ends.append((row_id,))
        lines.add(
            type="turn_end", id=uid, at=epoch, session=session, prompt=prompt,
            outcome=outcome, background=background,
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


def _export_usage(conn: sqlite3.Connection, lines: _Lines) -> list[tuple]:
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
        lines.add(
            type="usage", at=epoch, task=row[13], session=session, key=key, model=model,
            speed=speed, agent=agent, prompt=prompt, tokens=list(row[8:13]),
        )  # fmt: skip
    return marked


def _export_waits(conn: sqlite3.Connection, lines: _Lines) -> list[tuple]:
    marked = []
    for row_id, session, epoch, seconds, task in conn.execute(
        "SELECT w.id, w.session_id, w.epoch, w.seconds, t.uid FROM waits w "
        "JOIN tasks t ON t.id = w.task_id WHERE w.synced = 0"
    ).fetchall():
        marked.append((row_id,))
        lines.add(type="wait", at=epoch, task=task, session=session, seconds=seconds)
    return marked


def _fill_remote(conn: sqlite3.Connection, path: str) -> str | None:
    from missioncache_db import git_remote

    remote = git_remote(path)
    if remote:
        conn.execute("UPDATE repositories SET remote = ? WHERE path = ?", (remote, path))
    return remote


def _line(**fields: object) -> str:
    """One event: compact, keys sorted, text as is. Encoded by ``json``'s C encoder, not
    ``json_codec``'s (whose encoder is Python, right for a hook's few small payloads): an
    export runs in sync, off the hooks' path, and the first one writes every row of
    years of history (375,852 lines for three years of heavy use: 6 s less)."""
    global _ENCODER
    encoder = _ENCODER
    if encoder is None:
        import json

        encoder = _ENCODER = json.JSONEncoder(
            separators=(",", ":"), sort_keys=True, ensure_ascii=False
        )
    return encoder.encode(fields)


_ENCODER: JSONEncoder | None = None


def _parsed(context: str | None) -> object:
    if context is None:
        return None
    try:
        return loads(context)
    except ValueError:
        return context


def log_files(include_own: bool) -> list[tuple[str, str]]:
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


def read_from(path: str, offset: int, bad: list[int] | None = None) -> tuple[list[dict], int]:
    """The events of complete lines from ``offset`` on, and the offset after them. A log
    shorter than the offset was replaced: it is read again from the start (idempotent).
    A line that is not a readable event spoils only itself (counted in ``bad[0]``)."""
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
        except (ValueError, RecursionError, MemoryError):
            event = None  # a torn, foreign or absurdly nested line spoils only itself
        if isinstance(event, dict) and _is_epoch(event.get("at")):
            events.append(event)
        elif bad is not None:
            bad[0] += 1
    return events, offset + end


def iter_events(include_own: bool = True) -> Iterator[dict]:
    """Every event of every log (for tests and the doctor)."""
    for _key, path in log_files(include_own):
        yield from read_from(path, 0)[0]


def new_machine_id() -> str:
    """Replace this machine's id by a new random one (two machines were found sharing
    it); its log goes to a new folder from now on."""
    path = os.path.join(data_root(), MACHINE_ID_FILE)
    new = os.urandom(8).hex()
    os.replace(_write_temp(path, new), path)
    return new


def clock_words(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"about {minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"


def clock_ahead(conn: sqlite3.Connection, now: float | None = None) -> float:
    """How far the latest prompt or turn end in tasks.db lies ahead of this machine's
    clock (0 when none does by more than ``CLOCK_SLACK``): a machine's clock is off."""
    now = time.time() if now is None else now
    latest = conn.execute(
        "SELECT max(m) FROM (SELECT max(epoch) AS m FROM heartbeats "
        "UNION ALL SELECT max(epoch) FROM turn_ends)"
    ).fetchone()[0]
    ahead = float(latest) - now if latest is not None else 0.0
    return ahead if ahead > CLOCK_SLACK else 0.0
