"""Atomic writes and tolerant JSON reads.

A reader (the statusline, another hook) must never see half a file, and a crash must
never leave one: we write a temp file in the same directory and ``os.replace`` it over
the target. Replacing also means a symlink planted at the target is replaced, never
written through.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` via temp file + fsync + ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_text(path: Path, text: str, *, encoding: str = "utf-8") -> None:
    # newline="" semantics: the caller's line endings are written exactly as given.
    atomic_write_bytes(path, text.encode(encoding))


def write_json_atomic(path: Path, obj: Any) -> None:
    atomic_write_bytes(path, (json.dumps(obj, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def read_json_object(path: Path) -> dict[str, Any] | None:
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
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None
