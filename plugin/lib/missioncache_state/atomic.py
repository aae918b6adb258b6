"""Atomic writes and tolerant JSON reads.

A reader (the statusline, another hook) must never see half a file, and a crash must
never leave one: we write a temp file in the same directory and ``os.replace`` it over
the target. Replacing also means a symlink planted at the target is replaced, never
written through.
"""

from __future__ import annotations

import sys

from missioncache_state import json_codec
from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Union

    StrPath = Union[str, os.PathLike]


def atomic_write_bytes(
    path: StrPath,
    data: bytes,
    *,
    mode: int = 0o644,
    durable: bool = True,
    still_valid: Callable[[], bool] | None = None,
) -> bool:
    """Write ``data`` to ``path`` via temp file + fsync + ``os.replace``; True when written.

    ``still_valid``, when given, is asked after the temp file is complete and just before
    the replace: if it returns False the temp file is removed, ``path`` is left as it is
    and the result is False. Read-modify-write callers use it to notice a writer that does
    not take our lock (a user's editor) saving the file while they were transforming it.

    ``durable=False`` skips the fsync, for small state a hook can rebuild (session bindings,
    reminder records): readers still never see half a file, but a power cut may lose the
    newest version. The fsync costs milliseconds on every session start, and a user's
    notes (the context file) are the only thing worth that wait.
    """
    path = os.fspath(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd, tmp = _create_temp(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if still_valid is not None and not still_valid():
            os.unlink(tmp)
            return False
        replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return True


REPLACE_RETRY_SECONDS = 2.0  # how long a Windows replace waits for another program's handle
_SHARING_ERRORS = (5, 32)  # ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION


def replace(source: str, target: str, *, retry_for: float = REPLACE_RETRY_SECONDS) -> None:
    """``os.replace(source, target)``, retried for up to ``retry_for`` seconds on Windows
    while another process holds ``target`` open.

    WHY: Windows refuses to replace a file that any process has open without
    ``FILE_SHARE_DELETE`` (an editor reading it, an antivirus or indexer scanning it, a
    hook reading the context file), with "access denied" or a sharing violation. Those
    handles live milliseconds to a second; giving up at once would turn a busy moment into
    a lost save. After ``retry_for`` the error is raised (the caller removes its temp file
    and reports); POSIX never refuses, so the first error there is final."""
    try:
        os.replace(source, target)
        return
    except PermissionError as error:
        if sys.platform != "win32" or getattr(error, "winerror", None) not in _SHARING_ERRORS:
            raise
    import time

    deadline = time.monotonic() + retry_for
    delay = 0.005
    while True:
        time.sleep(delay)
        try:
            os.replace(source, target)
            return
        except PermissionError as error:
            if getattr(error, "winerror", None) not in _SHARING_ERRORS:
                raise
            if time.monotonic() >= deadline:
                raise
        delay = min(delay * 2, 0.1)


def _create_temp(path: str) -> tuple[int, str]:
    """Create ``.<name>.<random>.tmp`` beside ``path`` exclusively (``O_EXCL``, never
    following a planted link); returns (fd, name). What ``tempfile.mkstemp`` does, but
    importing tempfile (shutil, random, compression modules) costs milliseconds on every
    prompt's hook."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        folder, name = os.path.split(path)
        tmp = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


STALE_TEMP_SECONDS = 600  # no live write takes this long; an older temp file is a leftover


def sweep_stale_temps(path: StrPath, older_than: float = STALE_TEMP_SECONDS) -> int:
    """Remove the temp files (``.<name>.<hex>.tmp``) that writers killed mid-write left
    beside ``path``, if older than ``older_than`` seconds; returns how many. WHY the age:
    a live writer's temp file lives milliseconds, and one that is not ours to judge
    (a writer not holding the caller's lock) is left alone until it is clearly dead."""
    import time

    folder, name = os.path.split(os.fspath(path))
    prefix, removed = f".{name}.", 0
    try:
        entries = os.listdir(folder or ".")
    except OSError:
        return 0
    now = time.time()
    for entry in entries:
        middle = entry[len(prefix) : -len(".tmp")]
        if not (entry.startswith(prefix) and entry.endswith(".tmp") and len(middle) == 12):
            continue
        if any(char not in "0123456789abcdef" for char in middle):
            continue
        full = os.path.join(folder, entry)
        try:
            info = os.lstat(full)
            if now - info.st_mtime > older_than and not os.path.islink(full):
                os.unlink(full)
                removed += 1
        except OSError:
            continue
    return removed


def atomic_write_text(
    path: StrPath, text: str, *, encoding: str = "utf-8", durable: bool = True
) -> None:
    # newline="" semantics: the caller's line endings are written exactly as given.
    atomic_write_bytes(path, text.encode(encoding), durable=durable)


def write_json_atomic(path: StrPath, obj: Any, *, durable: bool = True) -> None:
    data = (json_codec.dumps(obj, indent=2, sort_keys=True) + "\n").encode("utf-8")
    atomic_write_bytes(path, data, durable=durable)


def read_json_object(path: StrPath) -> dict[str, Any] | None:
    """The JSON object stored at ``path``, or None when it is missing, unreadable,
    corrupt, or not an object: callers treat all of those as "no state"."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(1_048_576 + 1)
    except (OSError, ValueError):
        return None
    if len(raw) > 1_048_576:
        return None
    try:
        value = json_codec.loads_small(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def remove_file(path: StrPath | None) -> bool:
    """Delete ``path``; False when there was nothing to delete (or no valid path: callers
    pass what their id check returned, None for a hostile id)."""
    if path is None:
        return False
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True
