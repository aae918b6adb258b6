"""Compaction summaries kept with their task: one small JSON file per compaction.

When Claude Code compacts, the model writes a summary of the whole session: exactly "where
the work stands". PostCompact hands it to us; we keep it in the task's own folder so a
later session (and ``/missioncache:load``) can read it. Design:

- Files, not a tasks.db table: a compaction must never wait for the database lock, and a
  file per record needs no lock at all (each is written under a fresh name, atomically).
- ``<root>/<full_path>/.compactions/<epoch in microseconds, 16 digits>-<random>.json``:
  names sort in time order, so listing the folder answers "how many" and "newest first"
  without opening a file. The leading dot keeps the folder from ever looking like a
  subtask (task names start with a letter or digit).
- Bounded: each summary is cut to ``MAX_SUMMARY_CHARS``; only the newest
  ``KEEP_SUMMARIES`` records keep their summary, older ones shrink to a stub (time,
  trigger, session) so counting stays exact; past ``KEEP_RECORDS`` the oldest files go.

Imports only the standard library and ``missioncache_state``: this runs in hooks (and the
status line), so nothing heavy is imported at module level.
"""

from __future__ import annotations

import time

from missioncache_db._model import is_contained
from missioncache_state import lean_os as os
from missioncache_state.atomic import atomic_write_bytes
from missioncache_state.ids import session_id_or_none
from missioncache_state.json_codec import dumps, loads
from missioncache_state.tuples import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from missioncache_db._model import Task
    from missioncache_state.ids import SessionId

FOLDER = ".compactions"
SUFFIX = ".json"
TRIGGERS = ("manual", "auto")
MAX_SUMMARY_CHARS = 24_000  # a real summary is a few thousand; this bounds a runaway one
KEEP_SUMMARIES = 20  # newest records that keep their summary text
KEEP_RECORDS = 500  # newest records kept at all (stubs beyond KEEP_SUMMARIES)
STUB_BYTES = 1024  # a record file at most this big carries no summary worth pruning
CUT_MARK = "\n[… summary cut by MissionCache]"
_STAMP_DIGITS = 16


class Compaction(namedtuple("Compaction", "epoch trigger session_id summary")):
    """One stored compaction: ``epoch`` (seconds, float), ``trigger`` (``manual``, ``auto``
    or ``unknown``), ``session_id`` (str or None) and ``summary`` (str; empty for a stub).

    Fields read as attributes (``item.summary``) or as keys (``item["summary"]``), so a
    caller written against either form works.
    """

    __slots__ = ()

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return getattr(self, key)
        return super().__getitem__(key)

    @property
    def when(self) -> str:
        """Local ``YYYY-MM-DD HH:MM``, the format of the context file's entries."""
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.epoch))


def summary_text(raw: object) -> str:
    """The ``<summary>`` part of the model's raw compaction reply, stripped.

    Claude Code passes the reply whole, ``<analysis>…</analysis>`` included; the analysis
    is the model thinking aloud and is not worth keeping. Without a ``<summary>`` tag the
    text minus any analysis block is the summary. Plain string searches, no ``re``: hooks.
    """
    if not isinstance(raw, str):
        return ""
    start = raw.rfind("<summary>")
    if start >= 0:
        body = raw[start + len("<summary>") :]
        end = body.find("</summary>")
        return (body if end < 0 else body[:end]).strip()
    opened = raw.find("<analysis>")
    if opened < 0:
        return raw.strip()
    closed = raw.find("</analysis>", opened)
    rest = "" if closed < 0 else raw[closed + len("</analysis>") :]
    return (raw[:opened] + rest).strip()


def folder_for(task: Task) -> str:
    """The task's compaction folder; ValueError when the task's path would leave the data
    root (a damaged or hand-made row): nothing is ever written outside it."""
    full_path, name = getattr(task, "full_path", None), getattr(task, "name", None)
    if not is_contained(full_path, name):
        raise ValueError(f"task path {full_path!r} is not inside the data root")
    return os.path.join(task.directory_path, FOLDER)


def record_compaction(
    task: Task,
    summary: object,
    trigger: object,
    session_id: SessionId | None,
    when: float | None = None,
) -> str:
    """Store one compaction of ``task`` and prune old ones; returns the file written.

    ``summary`` may be the raw reply (its ``<summary>`` part is kept) or plain text. An
    unknown trigger is stored as ``unknown`` and an invalid session id as None: both come
    from hook stdin. Raises OSError / ValueError when the record cannot be written;
    pruning problems never raise (the record is what matters).
    """
    folder = folder_for(task)
    epoch = time.time() if when is None else float(when)
    # A lone surrogate (valid in JSON, not in UTF-8) would make the record unwritable.
    # A NUL (which no text reader expects) is replaced the same way, never the summary lost.
    text = summary_text(summary).encode("utf-8", "replace").decode("utf-8")
    text = text.replace("\x00", "\ufffd")
    if len(text) > MAX_SUMMARY_CHARS:
        text = text[: MAX_SUMMARY_CHARS - len(CUT_MARK)].rstrip() + CUT_MARK
    record = {
        "epoch": epoch,
        "trigger": trigger if trigger in TRIGGERS else "unknown",
        # The package's edge (PostCompact passes its parsed id; plain strings get parsed).
        "session_id": session_id_or_none(session_id),
        "summary": text,
    }
    stamp = max(0, int(epoch * 1_000_000))
    path = os.path.join(folder, f"{stamp:0{_STAMP_DIGITS}d}-{os.urandom(4).hex()}{SUFFIX}")
    atomic_write_bytes(path, _encode(record))
    _prune(folder)
    return path


def recent_compactions(task: Task, limit: int = 5) -> list:
    """The newest ``limit`` compactions of ``task``, newest first, as ``Compaction`` items.

    A stub (older than the newest ``KEEP_SUMMARIES``) has an empty summary. Unreadable or
    foreign files are skipped; a task without compactions (or with an unsafe path) gives [].
    """
    found: list[Compaction] = []
    for item in _records(task, _names(task)):
        if len(found) >= limit:
            break
        found.append(item)
    return found


def compaction_records(task: Task) -> tuple[int, Iterator[Compaction]]:
    """``compaction_count(task)`` and the records ``recent_compactions`` gives, newest
    first, each file read only when the iterator reaches it: SessionStart needs the count,
    the newest and the newest with a summary, which is one file to read, not three."""
    names = _names(task)
    return len(names), _records(task, names)


def _records(task: Task, names: list) -> Iterator[Compaction]:
    folder = folder_for(task) if names else ""  # names are only listed for a safe folder
    for name in names:
        item = _read(os.path.join(folder, name))
        if item is not None:
            yield item


def compaction_count(task: Task, since_epoch: float | None = None) -> int:
    """How many compactions of ``task`` are on record (exact up to ``KEEP_RECORDS``),
    or only those at or after ``since_epoch``. Reads names only: cheap enough for the
    status line."""
    names = _names(task)
    if since_epoch is None:
        return len(names)
    floor = since_epoch * 1_000_000
    return sum(1 for name in names if int(name[:_STAMP_DIGITS]) >= floor)


def _names(task: Task) -> list:
    """Record file names, newest first ([] when there is no folder or the path is unsafe)."""
    try:
        entries = os.listdir(folder_for(task))
    except (OSError, ValueError):
        return []
    return sorted((name for name in entries if _is_record_name(name)), reverse=True)


def _is_record_name(name: str) -> bool:
    """``<16 digits>-<hex>.json``: temp files (``.x.tmp``) and strangers are not records."""
    return (
        name.endswith(SUFFIX)
        and len(name) > _STAMP_DIGITS + 1
        and name[:_STAMP_DIGITS].isdigit()
        and name[:_STAMP_DIGITS].isascii()
        and name[_STAMP_DIGITS] == "-"
    )


def _encode(record: dict) -> bytes:
    return (dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def _read(path: str) -> Compaction | None:
    limit = MAX_SUMMARY_CHARS * 4 + 4096  # UTF-8 is at most 4 bytes a character
    try:
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)
        data = loads(raw.decode("utf-8")) if len(raw) <= limit else None
    except (OSError, ValueError):  # UnicodeDecodeError and bad JSON are ValueErrors
        return None
    if not isinstance(data, dict) or not isinstance(data.get("epoch"), (int, float)):
        return None
    trigger, session_id, summary = data.get("trigger"), data.get("session_id"), data.get("summary")
    return Compaction(
        float(data["epoch"]),
        trigger if trigger in TRIGGERS else "unknown",
        session_id_or_none(session_id),  # file boundary: read back from the record
        summary if isinstance(summary, str) else "",
    )


def _prune(folder: str) -> None:
    """Shrink records past the newest KEEP_SUMMARIES to stubs; delete past KEEP_RECORDS.

    Every compaction runs this, so normally it touches one file each way; a failure is
    left for the next run (which re-checks every older file's size) instead of raising.
    """
    try:
        names = sorted((n for n in os.listdir(folder) if _is_record_name(n)), reverse=True)
    except OSError:
        return
    for name in names[KEEP_SUMMARIES:KEEP_RECORDS]:
        path = os.path.join(folder, name)
        try:
            if os.path.getsize(path) <= STUB_BYTES:
                continue
            item = _read(path)
            if item is not None:
                stub = {**item._asdict(), "summary": "", "pruned": True}
                atomic_write_bytes(path, _encode(stub), durable=False)
        except OSError:
            continue
    for name in names[KEEP_RECORDS:]:
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            continue
