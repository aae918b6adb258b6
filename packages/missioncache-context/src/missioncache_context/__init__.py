"""Fence-aware reading and lossless editing of MissionCache context and tasks files.

Names are re-exported lazily (PEP 562) so ``import missioncache_context`` costs nothing until
a name is used; hooks run on every prompt. Modules: fences, document (lines and splicing),
context_file, tasks_file, context_digest, update (locked atomic read-transform-write).
"""

from __future__ import annotations

import sys

_EXPORTS = {
    "scan_fences": "fences",
    "fenced_lines": "fences",
    "format_when": "context_file",
    "get_stamp": "context_file",
    "set_stamp": "context_file",
    "section": "context_file",
    "set_section": "context_file",
    "recent_changes": "context_file",
    "newest_recent_change": "context_file",
    "add_recent_change": "context_file",
    "record_change": "context_file",
    "task_headings": "context_file",
    "normalize_number": "numbers",
    "TaskItem": "tasks_file",
    "MarkResult": "tasks_file",
    "AppendResult": "tasks_file",
    "parse_items": "tasks_file",
    "pending_numbers": "tasks_file",
    "divergent_tasks": "tasks_file",
    "mark_done": "tasks_file",
    "append_items": "tasks_file",
    "digest": "context_digest",
    "update_file": "update",
    "read_file": "update",
    "read_head": "update",
    "UpdateResult": "update",
    "NotUtf8Error": "update",
    "FileChangedError": "update",
    "SaveDivertedError": "update",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    qualified = f"{__name__}.{module}"
    __import__(qualified)  # not importlib: that package costs an import of its own
    value = getattr(sys.modules[qualified], name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
