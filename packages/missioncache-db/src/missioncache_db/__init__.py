"""MissionCache task database: tasks, heartbeats, work sessions and time invested.

Hooks import this on every prompt, so this file imports nothing: the public names are
resolved on first use (PEP 562). ``import missioncache_db; missioncache_db.TaskDB`` loads
the database modules only, never the command line.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_db.bound import (
        find_task as find_task,
    )

    # the names __getattr__ serves, for the type checker
    from missioncache_db.db import (
        TaskDB as TaskDB,
    )
    from missioncache_db.db import (
        open_if_set_up as open_if_set_up,
    )
    from missioncache_db.durations import (
        format_duration as format_duration,
    )
    from missioncache_db.model import (
        STATUSES as STATUSES,
    )
    from missioncache_db.model import (
        Task as Task,
    )
    from missioncache_db.model import (
        validate_name as validate_name,
    )

_EXPORTS = {
    "TaskDB": "missioncache_db.db",
    "open_if_set_up": "missioncache_db.db",
    "find_task": "missioncache_db.bound",
    "Task": "missioncache_db.model",
    "STATUSES": "missioncache_db.model",
    "validate_name": "missioncache_db.model",
    "format_duration": "missioncache_db.durations",
    "format_split": "missioncache_db.durations",
    "TimeSplit": "missioncache_db.turns",
    "time_split": "missioncache_db.sessions",
    "record_turn_end": "missioncache_db.turn_end",
    "record_compaction": "missioncache_db.compactions",
    "recent_compactions": "missioncache_db.compactions",
    "compaction_count": "missioncache_db.compactions",
    "compaction_records": "missioncache_db.compactions",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    __import__(module_name)  # not importlib: that package costs an import of its own
    value = getattr(sys.modules[module_name], name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
