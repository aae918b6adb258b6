"""Fence-aware reading and lossless editing of MissionCache context and tasks files.

Names are re-exported lazily (PEP 562) so ``import missioncache_context`` costs nothing until
a name is used; hooks run on every prompt. Modules: fences, document (lines and splicing),
context_file, tasks_file, context_digest, update (locked atomic read-transform-write).
"""

from __future__ import annotations

from missioncache_state import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:  # the type checker sees the names __getattr__ serves
    from .context_digest import (
        digest as digest,
    )
    from .context_file import (
        add_recent_change as add_recent_change,
    )
    from .context_file import (
        format_when as format_when,
    )
    from .context_file import (
        get_stamp as get_stamp,
    )
    from .context_file import (
        newest_recent_change as newest_recent_change,
    )
    from .context_file import (
        recent_changes as recent_changes,
    )
    from .context_file import (
        record_change as record_change,
    )
    from .context_file import (
        section as section,
    )
    from .context_file import (
        set_section as set_section,
    )
    from .context_file import (
        set_stamp as set_stamp,
    )
    from .context_file import (
        task_headings as task_headings,
    )
    from .fences import (
        fenced_lines as fenced_lines,
    )
    from .fences import (
        scan_fences as scan_fences,
    )
    from .numbers import (
        normalize_number as normalize_number,
    )
    from .numbers import (
        selector_number as selector_number,
    )
    from .reading import (
        NotUtf8Error as NotUtf8Error,
    )
    from .reading import (
        read_ends as read_ends,
    )
    from .reading import (
        read_file as read_file,
    )
    from .reading import (
        read_head as read_head,
    )
    from .tasks_file import (
        AppendResult as AppendResult,
    )
    from .tasks_file import (
        MarkResult as MarkResult,
    )
    from .tasks_file import (
        TaskItem as TaskItem,
    )
    from .tasks_file import (
        append_items as append_items,
    )
    from .tasks_file import (
        divergent_tasks as divergent_tasks,
    )
    from .tasks_file import (
        mark_done as mark_done,
    )
    from .tasks_file import (
        parse_items as parse_items,
    )
    from .tasks_file import (
        pending_numbers as pending_numbers,
    )
    from .update import (
        FileChangedError as FileChangedError,
    )
    from .update import (
        SaveDivertedError as SaveDivertedError,
    )
    from .update import (
        UpdateResult as UpdateResult,
    )
    from .update import (
        update_file as update_file,
    )

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
    "selector_number": "numbers",
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
    "read_file": "reading",
    "read_head": "reading",
    "read_ends": "reading",
    "UpdateResult": "update",
    "NotUtf8Error": "reading",
    "FileChangedError": "update",
    "SaveDivertedError": "update",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
