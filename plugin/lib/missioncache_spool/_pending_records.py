"""The heartbeat spool: where a heartbeat waits when tasks.db is too busy to take it.

Dropping a heartbeat under contention would under-count exactly the busiest sessions, so
a writer that cannot get the lock within its budget appends the heartbeat as one JSON
line (with a unique ``uid``) to a spool file instead. Design, and why it is crash-safe:

- Each process appends to its own file ``<pid>-<token>.jsonl`` with ``O_APPEND`` and one
  ``write`` per line, so lines from different processes never interleave (Windows'
  ``O_APPEND`` is not atomic across processes; a file per writer needs no such promise).
- An ingester, holding the database write lock, first *claims* a file by renaming it to
  a unique ``*.claimed`` name, then reads it, inserts with ``INSERT OR IGNORE`` on the
  unique ``uid``, commits, and only then deletes the claimed file. A crash before the
  commit leaves the claimed file to be read again; a crash after it leaves rows that
  the unique ``uid`` makes a no-op to replay. Nothing is lost and nothing counted twice.
- A writer that opened its file just before the rename would write into the claimed
  (perhaps already read) file. So after writing it checks that its path still names the
  file it wrote to, and otherwise appends the same line again to a fresh file: the
  duplicate ``uid`` is ignored if the first copy was ingested after all.

A bad entry must not stop time tracking for good (it is read again after every failed
ingest), so whatever cannot be ingested is *quarantined*: moved to ``quarantine/``
inside the spool folder and never read again. That covers lines that do not parse
(including JSON nested deeply enough to raise RecursionError), values no database row
can hold (integers beyond 64 bits, non-finite numbers, nesting deeper than
``MAX_DEPTH``), records the caller's check rejects by raising (an epoch no clock can
show), and spool entries that are not regular files (a FIFO would block the reader
forever, a directory cannot be read). Bad lines go to ``quarantine/<file>.bad``, whole
non-regular entries to ``quarantine/<name>``; :func:`quarantined` lists them for
``missioncache doctor``.

Writing is ``_writes``: appending, and the turn end (Stop and StopFailure neither open
tasks.db nor work out the task; the next writer joins the end to its turn's start, the
heartbeat with the same session and prompt id, in whichever order the two arrive).
"""

from __future__ import annotations

from missioncache_spool._writes import CLAIMED_SUFFIX, SPOOL_SUFFIX, append
from missioncache_state import lean_os as os
from missioncache_state.json_codec import loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any, Union

    StrPath = Union[str, os.PathLike]

MAX_LINE = 65536  # a heartbeat line is tiny; anything longer is not ours
MAX_FILE = 64 << 20  # a spool file is read this far at most: the rest is quarantined
MAX_DEPTH = 32  # a record nested deeper than this is not ours (and could not be stored)
QUARANTINE = "quarantine"
BAD_SUFFIX = ".bad"
_INT64 = 1 << 63


def quarantine_dir(directory: StrPath) -> str:
    """Where the spool's bad entries are kept (inside the spool, never read again)."""
    return os.path.join(os.fspath(directory), QUARANTINE)


def quarantined(directory: StrPath) -> list[str]:
    """The quarantined entries of a spool (full paths, sorted), for a doctor to report:
    ``*.bad`` files hold bad lines, one per line; anything else is a whole spool entry
    that was not a regular file."""
    folder = quarantine_dir(directory)
    try:
        names = [name for name in os.listdir(folder) if name != REPORTED]
    except OSError:
        return []
    return sorted(os.path.join(folder, name) for name in names)


REPORTED = ".reported"  # names already reported, one per line, in the quarantine folder


def take_unreported(directory: StrPath) -> list[str]:
    """Quarantined entries not reported yet (names), now marked as reported: SessionStart
    calls this so each bad entry is told once per install (``doctor`` lists them all, every
    time, through ``quarantined``). A name is marked only after it has been returned."""
    folder = quarantine_dir(directory)
    try:
        with open(os.path.join(folder, REPORTED), "rb") as handle:
            seen = set(handle.read(1 << 20).decode("utf-8", "replace").splitlines())
    except OSError:
        seen = set()
    new = [os.path.basename(p) for p in quarantined(directory)]  # REPORTED is not listed
    new = [name for name in new if name not in seen]
    if new:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(os.path.join(folder, REPORTED), flags, 0o600)
            try:
                os.write(fd, "".join(f"{name}\n" for name in new).encode("utf-8", "replace"))
            finally:
                os.close(fd)
        except OSError:
            pass  # reported again next time rather than never
    return new


UNATTRIBUTED = "unattributed"  # heartbeats no task covers yet, kept until one does


def unattributed_dir(directory: StrPath) -> str:
    """Where heartbeats wait that were spooled while tasks.db was broken (no task id, only
    their directory) and that no task covers yet: a database restored or recreated before
    its tasks are registered again must not lose the outage's time. Inside the spool, so
    ``claim`` never takes them; :func:`release_unattributed` gives them another try."""
    return os.path.join(os.fspath(directory), UNATTRIBUTED)


def keep_unattributed(directory: StrPath, records: Iterable[dict[str, Any]]) -> None:
    """Set heartbeats aside that no task covers yet (see :func:`unattributed_dir`). Written
    before the claimed file they came from is deleted: a crash in between leaves a second
    copy, which the unique ``uid`` makes harmless."""
    for record in records:
        append(unattributed_dir(directory), record)


def release_unattributed(directory: StrPath) -> int:
    """Move the waiting heartbeats back into the spool, so the next claim tries them again
    (under the same write lock as that claim); returns how many files moved."""
    folder = unattributed_dir(directory)
    try:
        names = [name for name in os.listdir(folder) if name.endswith(SPOOL_SUFFIX)]
    except OSError:
        return 0
    moved = 0
    for name in names:
        source = os.path.join(folder, name)
        if _entry_kind(source) != _REGULAR:
            continue
        target = os.path.join(os.fspath(directory), f"u-{os.urandom(8).hex()}{SPOOL_SUFFIX}")
        try:
            os.rename(source, target)
            moved += 1
        except OSError:
            continue
    return moved


def unattributed_count(directory: StrPath) -> int:
    """How many heartbeats wait for a task (lines in ``unattributed/``), for doctor."""
    folder = unattributed_dir(directory)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return 0
    total = 0
    for name in names:
        if name.endswith(SPOOL_SUFFIX):
            total += sum(1 for line in _lines(os.path.join(folder, name)) if line.endswith(b"\n"))
    return total


def _quarantine_entry(directory: str, name: str) -> None:
    """Move a whole spool entry (a FIFO, a directory, a link) out of the reader's way.

    The rename is tried before the folder is made: another claimer may have taken the
    entry since it was listed, and a vanished entry must leave no empty ``quarantine/``
    behind (doctor would report a quarantine that holds nothing)."""
    folder = quarantine_dir(directory)
    source, target = os.path.join(directory, name), os.path.join(folder, name)
    try:
        os.rename(source, target)
        return
    except FileNotFoundError:
        if not os.path.lexists(source):
            return  # gone meanwhile: nothing to move aside
    except OSError:
        return  # it stays; _entry_kind keeps it from being opened all the same
    try:
        os.makedirs(folder, exist_ok=True)
        os.rename(source, target)
    except OSError:
        pass  # it stays (or vanished just now); it is never opened as a spool file


def _quarantine_line(path: str, raw: bytes) -> None:
    """Append a line that cannot be ingested to ``quarantine/<file>.bad``."""
    directory, name = os.path.split(path)
    folder = quarantine_dir(directory)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(os.path.join(folder, name + BAD_SUFFIX), flags, 0o600)
        try:
            os.write(fd, raw if raw.endswith(b"\n") else raw + b"\n")
        finally:
            os.close(fd)
    except OSError:
        pass  # the line is dropped from the spool all the same: it can never be ingested


_GONE, _REGULAR, _OTHER = "gone", "regular", "other"


def _entry_kind(path: str) -> str:
    """What a listed spool entry is now: gone (another claimer renamed it away between
    ``listdir`` and here: skip it), a regular file, or something else (quarantine it)."""
    import stat

    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return _GONE
    except OSError:
        return _OTHER
    return _REGULAR if stat.S_ISREG(mode) else _OTHER


def claim(directory: StrPath, limit: int | None = None) -> list[str]:
    """Claim spool files (rename to a unique ``*.claimed`` name) and return every claimed
    file waiting, including ones a crashed ingester left behind. Call while holding
    the database write lock, which serialises ingesters. An entry that is not a regular
    file is quarantined instead; one that vanished since it was listed (another claimer
    took it) is skipped."""
    directory = os.fspath(directory)
    try:
        names = sorted(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return []
    claimed, waiting = [], []
    for name in names:  # one lstat per entry: this runs on the heartbeat's path
        if not name.endswith((SPOOL_SUFFIX, CLAIMED_SUFFIX)):
            continue
        kind = _entry_kind(os.path.join(directory, name))
        if kind == _GONE:
            continue
        if kind == _OTHER:
            _quarantine_entry(directory, name)
        elif name.endswith(CLAIMED_SUFFIX):
            claimed.append(os.path.join(directory, name))
        else:
            waiting.append(name)
    for name in waiting:
        if limit is not None and len(claimed) >= limit:
            break
        unique = f"{name[: -len(SPOOL_SUFFIX)]}.{os.urandom(8).hex()}{CLAIMED_SUFFIX}"
        target = os.path.join(directory, unique)
        try:
            os.rename(os.path.join(directory, name), target)
        except OSError:  # gone, or (Windows) still open by its writer: next time
            continue
        claimed.append(target)
    return claimed[:limit] if limit is not None else claimed


def _storable(value: object, depth: int = 0) -> bool:
    """Whether a parsed value fits a database row: no integer beyond 64 bits (SQLite
    raises OverflowError), no NaN or infinity, no nesting deeper than MAX_DEPTH."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    if isinstance(value, int):
        return -_INT64 <= value < _INT64
    if isinstance(value, float):
        return value - value == 0.0  # False for NaN and infinities, no math import
    if depth >= MAX_DEPTH:
        return False
    if isinstance(value, dict):
        return all(_storable(item, depth + 1) for item in value.values())
    if isinstance(value, list):
        return all(_storable(item, depth + 1) for item in value)
    return False


def _lines(path: str) -> Iterator[bytes]:
    """The lines of a claimed file, read without blocking and at most MAX_FILE bytes;
    nothing when it is missing or not a regular file."""
    from missioncache_state.files import open_regular

    try:
        fd = open_regular(path)
    except OSError:
        return
    with os.fdopen(fd, "rb") as handle:
        left = MAX_FILE
        while left > 0:
            raw = handle.readline(min(MAX_LINE + 1, left))
            if not raw:
                return
            left -= len(raw)
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                rest = handle.readline(left)  # the rest of an overlong line goes with it
                left -= len(rest)
                raw += rest
            yield raw
        rest = handle.read(MAX_LINE)
        if rest:
            _quarantine_line(path, b"[spool file longer than MAX_FILE; rest not read]")


def read_records(path: StrPath, check: Callable[[dict], Any] | None = None) -> Iterator[Any]:
    """The records of a claimed file, one JSON object per line. Reading stops at a torn
    line (no newline: its writer died, or is still appending); any other line that cannot be
    ingested is quarantined, so it is never read again. With ``check``, each record is
    passed through it and what it returns is yielded; None skips the record, an
    exception quarantines it (a record no later ingest could take either)."""
    path = os.fspath(path)
    for raw in _lines(path):
        if not raw.endswith(b"\n"):
            # Torn: a crash mid-write, or its writer still appending. Whatever a later read
            # returns is the rest of that same line, not a record: stop here (the writer's
            # uid retry covers the line) rather than quarantine a fragment as bad.
            break
        try:
            record = loads(raw.decode("utf-8")) if len(raw) <= MAX_LINE else None
            if not (isinstance(record, dict) and _storable(record)):
                raise ValueError("not a storable JSON object")
            if check is not None:
                record = check(record)
        except Exception:  # RecursionError, OverflowError, ...: no later ingest could take it
            _quarantine_line(path, raw)
            continue
        if record is not None:
            yield record


def remove(paths: Iterable[StrPath]) -> None:
    """Delete claimed files once their rows are committed."""
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            pass
