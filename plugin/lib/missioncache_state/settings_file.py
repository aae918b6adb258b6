"""Editing Claude Code's ``settings.json`` beside the programs that also write it.

settings.json belongs to the user. Claude Code saves it (a permission granted, a model
picked), the user's editor saves it, and so may any other tool, none of them taking our
lock. Two ways such a writer loses data if we read, transform and replace naively:

- **A save that lands while we work** (between our read and our replace) is overwritten
  by our replace. So the bytes (and the file's identity) are compared again right before
  the replace, and on any difference the whole edit starts over from a fresh read, side
  files included (the backup and record must describe the file we actually replaced).
  A save that still reaches the replaced file after the replace (an editor that opened
  it just before) is noticed through the descriptor kept open on it, and that save is
  put back and the edit redone on top of it.
- **A half-finished save read as the whole file.** An editor that truncates, pauses and
  then writes leaves, for a moment, an empty or unparsable file. Taken as ``{}``, our
  write would keep none of the user's keys and the backup would hold the empty file. So
  an empty or unparsable file modified less than ``QUIET_SECONDS`` ago is waited for
  until it parses or has been quiet that long; when it keeps changing for
  ``SETTLE_LIMIT`` seconds the edit is refused with a message, nothing changed. Only a
  file that has been empty (or broken) for a while is taken as it is: empty means ``{}``,
  broken is refused.

The API is generic, so every MissionCache installer edits settings.json the same way:

- :func:`read_settings` -> :class:`Snapshot` (bytes, parsed object), settled as above.
- :func:`edit_settings` applies a *pure* ``transform(snapshot)`` (returning the new object,
  exact bytes, :data:`REMOVE`, or None for "leave it") with the guards above; ``prepare``
  runs before each replace to write whatever must exist first.
- :func:`install_edit` / :func:`uninstall_edit` add the backup and the record that make an
  uninstall exact: when settings.json is still byte for byte what the install wrote, the
  bytes from before are put back (or the file removed, if the install created it);
  otherwise the caller's ``fallback`` transformation takes out only what was added and
  keeps every edit made since.

Anything unexpected (not JSON, not an object, not a regular file, a missing backup)
raises :class:`SettingsError` with words the user can act on; settings.json is unchanged.
"""

from __future__ import annotations

import hashlib
import stat
import sys
import time

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Union

    Change = Union[dict[str, Any], bytes, "_Remove", None]


class Snapshot:
    """settings.json as read: ``path`` as named, its ``data`` (None when there is no file)
    and ``value``, the parsed object ({} for no file or a settled empty one)."""

    __slots__ = ("data", "path", "value")

    def __init__(self, path: str, data: bytes | None, value: dict[str, Any]) -> None:
        self.path, self.data, self.value = path, data, value


QUIET_SECONDS = 1.0  # an empty/broken file modified more recently may be mid-save
SETTLE_LIMIT = 5.0  # how long an empty/broken file may keep changing before we refuse
ATTEMPTS = 8  # a file that changes under us this many times in a row is left alone
_POLL = 0.02
_MAX_BYTES = 1 << 30  # read whole (a huge file is the user's business), but never unbounded
BACKUP_SUFFIX = ".missioncache-backup"


class SettingsError(Exception):
    """A reason not to touch settings.json, in words the user can act on; it is unchanged."""


class _Remove:
    """The change "delete settings.json" (an uninstall of an install that created it)."""


REMOVE = _Remove()


def encode(value: dict[str, Any]) -> bytes:
    """How MissionCache writes settings.json: two-space JSON, non-ASCII kept, key order kept."""
    import json

    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _bytes_of(change: dict[str, Any] | bytes | None) -> bytes:
    return change if isinstance(change, bytes) else encode(change or {})


def _signature(info: os.stat_result) -> tuple[int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def _parse(path: str, data: bytes) -> dict[str, Any] | str:
    """The object in ``data``, or why it is not one (a message)."""
    import json

    if not data.strip():
        return {}
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        return f"{path} is not valid JSON ({error}); fix it first, nothing was changed"
    if not isinstance(value, dict):
        return f"{path} does not hold a JSON object; nothing was changed"
    return value


def _open(target: str, path: str) -> tuple[int, os.stat_result, bytes] | None:
    """(descriptor, stat, bytes) of the file now, None when it does not exist."""
    from missioncache_state.files import open_regular, read_fd

    try:
        fd = open_regular(target)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SettingsError(f"cannot read {path} ({error}); nothing was changed") from error
    try:
        return fd, os.fstat(fd), read_fd(fd, _MAX_BYTES)
    except BaseException:
        os.close(fd)
        raise


def _age(info: os.stat_result) -> float:
    return time.time() - info.st_mtime_ns / 1e9


def _settled(path: str, target: str) -> tuple[int | None, os.stat_result | None, Snapshot]:
    """Read until the file parses, or has been quiet for QUIET_SECONDS (see module doc)."""
    deadline = time.monotonic() + SETTLE_LIMIT
    while True:
        opened = _open(target, path)
        if opened is None:
            return None, None, Snapshot(path, None, {})
        fd, info, data = opened
        parsed = _parse(path, data)
        if isinstance(parsed, dict) and data.strip():
            return fd, info, Snapshot(path, data, parsed)
        age = _age(info)
        if age >= QUIET_SECONDS or age <= -QUIET_SECONDS:  # settled (or a clock far off)
            if isinstance(parsed, dict):
                return fd, info, Snapshot(path, data, parsed)
            os.close(fd)
            raise SettingsError(parsed)
        os.close(fd)
        if time.monotonic() >= deadline:
            raise SettingsError(
                f"{path} is {'empty' if not data.strip() else 'incomplete'} and was still "
                f"being written {SETTLE_LIMIT:g}s later (another program saving it?); "
                "nothing was changed, try again once it is saved"
            )
        time.sleep(min(_POLL, QUIET_SECONDS - max(age, 0.0)))


def read_settings(path: str) -> Snapshot:
    """settings.json as it stands once any save in progress has finished."""
    fd, _info, snapshot = _settled(path, os.path.realpath(path))
    if fd is not None:
        os.close(fd)
    return snapshot


def _still(target: str, info: os.stat_result | None, data: bytes | None) -> bool:
    """Right before the replace: is the file still the one we read, byte for byte?"""
    try:
        now = os.stat(target)
    except FileNotFoundError:
        return info is None
    except OSError:
        return False
    if info is None or _signature(now) != _signature(info):
        return False
    opened = _open(target, target)
    if opened is None:
        return False
    os.close(opened[0])
    return opened[2] == data


def _mode(info: os.stat_result | None) -> int:
    return stat.S_IMODE(info.st_mode) if info is not None else 0o600


def _replace(target: str, change: Change, info: os.stat_result | None, data: bytes | None) -> bool:
    """Write ``change`` if the file is still what was read; False when it moved."""
    from missioncache_state.atomic import atomic_write_bytes

    if isinstance(change, _Remove):
        if not _still(target, info, data):
            return False
        os.unlink(target)
        return True
    new = _bytes_of(change)
    return atomic_write_bytes(
        target, new, mode=_mode(info), still_valid=lambda: _still(target, info, data)
    )


def _put_back_late_save(target: str, fd: int, ours: Change) -> None:
    """A save reached the file we had just replaced (its writer opened it before our
    replace). Wait for it to finish, then put it back where our version is, so the next
    attempt redoes the edit on top of it. Refuse, keeping a copy, when our version was
    itself replaced meanwhile (two saves to merge is the user's call)."""
    from missioncache_state.atomic import atomic_write_bytes
    from missioncache_state.files import read_fd

    deadline = time.monotonic() + SETTLE_LIMIT
    while _age(os.fstat(fd)) < QUIET_SECONDS and time.monotonic() < deadline:
        time.sleep(_POLL)
    os.lseek(fd, 0, os.SEEK_SET)
    saved = read_fd(fd, _MAX_BYTES)
    expected = None if isinstance(ours, _Remove) else _bytes_of(ours)

    def ours_still_there() -> bool:
        if expected is None:
            return not os.path.lexists(target)
        opened = _open(target, target)
        if opened is None:
            return False
        os.close(opened[0])
        return opened[2] == expected

    if atomic_write_bytes(target, saved, mode=_mode(os.fstat(fd)), still_valid=ours_still_there):
        return
    copy = target + ".missioncache-late-save"
    atomic_write_bytes(copy, saved, mode=0o600)
    raise SettingsError(
        f"another program saved {target} while MissionCache was editing it, twice; its "
        f"late save is kept at {copy}. Nothing of yours was merged: check the file, then "
        "run the command again"
    )


def edit_settings(
    path: str,
    transform: Callable[[Snapshot], Change],
    *,
    prepare: Callable[[Snapshot, Change], None] | None = None,
) -> tuple[Snapshot, Change]:
    """Apply ``transform`` to settings.json safely; returns (what was read, what was written).

    ``transform(snapshot)`` must be pure (it may run several times): it returns the new
    object, exact bytes, :data:`REMOVE`, or None to leave the file alone; raising
    SettingsError refuses. ``prepare(snapshot, change)`` runs before each replace (write a
    backup, a record, a launcher). A symlinked settings.json is edited at its target (the
    link stays) and keeps its permission bits."""
    target = os.path.realpath(path)
    for _attempt in range(ATTEMPTS):
        fd, info, snapshot = _settled(path, target)
        if fd is not None and sys.platform == "win32":
            # Windows refuses to replace a file that is open, ours included; a writer that
            # holds it open blocks our replace instead (retried), so no late save is missed.
            os.close(fd)
            fd = None
        try:
            change = transform(snapshot)
            if change is None:
                return snapshot, None
            if prepare is not None:
                prepare(snapshot, change)
            if not _replace(target, change, info, snapshot.data):
                continue  # someone saved meanwhile: start over from their version
            if fd is not None and info is not None and _signature(os.fstat(fd)) != _signature(info):
                _put_back_late_save(target, fd, change)
                continue
            return snapshot, change
        finally:
            if fd is not None:
                os.close(fd)
    raise SettingsError(
        f"{path} kept changing while MissionCache edited it ({ATTEMPTS} tries); "
        "nothing was changed, try again in a moment"
    )


def install_edit(
    path: str,
    transform: Callable[[Snapshot], dict[str, Any] | None],
    *,
    record_path: str,
    details: Callable[[Snapshot], dict[str, Any]] | None = None,
    prepare: Callable[[Snapshot, Change], None] | None = None,
    backup_suffix: str = BACKUP_SUFFIX,
) -> tuple[Snapshot, Change]:
    """:func:`edit_settings` that also keeps what :func:`uninstall_edit` needs to undo it
    exactly: the previous bytes at ``<settings><backup_suffix>`` (one suffix per installer,
    so two installs never overwrite each other's backup) and, at
    ``record_path``, a JSON record (``settings``, ``had_file``, ``written_sha256``,
    ``backup``, plus the caller's ``details(snapshot)``). Both are written before the
    replace, again on every retry, so they always describe the file actually replaced."""
    from missioncache_state.atomic import atomic_write_bytes

    def write_side_files(snapshot: Snapshot, change: Change) -> None:
        if prepare is not None:
            prepare(snapshot, change)
        backup = path + backup_suffix if snapshot.data is not None else None
        if backup is not None:
            atomic_write_bytes(backup, snapshot.data or b"", mode=0o600)
        written = None if isinstance(change, _Remove) else _bytes_of(change)
        record = {
            "settings": path,
            "had_file": snapshot.data is not None,
            "written_sha256": digest(written),
            "backup": backup,
            **(details(snapshot) if details is not None else {}),
        }
        atomic_write_bytes(record_path, encode(record), mode=0o600)

    return edit_settings(path, transform, prepare=write_side_files)


EXACT, REMOVED, EDITED, UNCHANGED = "exact", "removed", "edited", "unchanged"


def uninstall_edit(
    path: str,
    record: dict[str, Any],
    fallback: Callable[[dict[str, Any]], dict[str, Any] | None],
) -> str:
    """Undo an :func:`install_edit` whose ``record`` is given. Returns EXACT (the previous
    bytes are back, the backup removed), REMOVED (the install had created the file),
    EDITED (the file changed since install: ``fallback(settings)`` took our part out,
    keeping the rest) or UNCHANGED (``fallback`` returned None)."""
    from missioncache_state.atomic import remove_file

    backup = record.get("backup")

    def undo(snapshot: Snapshot) -> Change:
        if snapshot.data is not None and digest(snapshot.data) == record.get("written_sha256"):
            if not record.get("had_file"):
                return REMOVE
            try:
                with open(str(backup), "rb") as handle:
                    return handle.read()
            except (OSError, TypeError) as error:
                raise SettingsError(
                    f"the backup {backup} is missing; nothing was changed"
                ) from error
        return fallback(snapshot.value)

    snapshot, change = edit_settings(path, undo)
    if change is None:
        return UNCHANGED
    if isinstance(change, _Remove):
        return REMOVED
    if snapshot.data is not None and digest(snapshot.data) == record.get("written_sha256"):
        remove_file(str(backup))  # settings.json is that copy again: leave no second one
        return EXACT
    return EDITED
