"""MissionCache's store: tasks.db (its schema and migrations), tasks and their folders,
repositories, forks, compaction records, and which task a session is on.

``TaskDB`` is the object everyone opens; ``find_task`` answers for a session from its
binding without tasks.db when it can (the hooks' shortcut). Time and cost are computed
a layer up (``missioncache_time``, ``missioncache_cost``) from what is stored here.

Public modules besides this one: ``checks`` (doctor's read-only checks) and ``testing``
(pytest fixtures for the packages that build on the store). Hooks import this on every
prompt, so nothing is imported until a name is first used (PEP 562).
"""

from missioncache_state import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:  # the names __getattr__ serves, for the type checker
    from missioncache_db._bound import bound_task as bound_task
    from missioncache_db._bound import find_task as find_task
    from missioncache_db._compactions import Compaction as Compaction
    from missioncache_db._compactions import compaction_count as compaction_count
    from missioncache_db._compactions import compaction_records as compaction_records
    from missioncache_db._compactions import recent_compactions as recent_compactions
    from missioncache_db._compactions import record_compaction as record_compaction
    from missioncache_db._db import DEFAULT_BUSY_TIMEOUT as DEFAULT_BUSY_TIMEOUT
    from missioncache_db._db import TaskDB as TaskDB
    from missioncache_db._db import open_if_set_up as open_if_set_up
    from missioncache_db._fork_done import finish_fork as finish_fork
    from missioncache_db._forks import family_ids as family_ids
    from missioncache_db._health import is_broken as is_broken
    from missioncache_db._health import not_a_file_reason as not_a_file_reason
    from missioncache_db._health import plain_reason as plain_reason
    from missioncache_db._model import OPEN_STATUSES as OPEN_STATUSES
    from missioncache_db._model import STATUSES as STATUSES
    from missioncache_db._model import Task as Task
    from missioncache_db._model import When as When
    from missioncache_db._model import is_contained as is_contained
    from missioncache_db._model import is_valid_name as is_valid_name
    from missioncache_db._model import local_midnight_epoch as local_midnight_epoch
    from missioncache_db._model import local_text as local_text
    from missioncache_db._model import to_epoch as to_epoch
    from missioncache_db._model import validate_name as validate_name
    from missioncache_db._remote import git_remote as git_remote
    from missioncache_db._resolve import find_task_for_cwd as find_task_for_cwd
    from missioncache_db._schema import DEFAULT_CONFIG as DEFAULT_CONFIG
    from missioncache_db._schema import MIGRATIONS as MIGRATIONS
    from missioncache_db._schema import connect as connect
    from missioncache_db._schema import is_busy as is_busy
    from missioncache_db._schema import write_transaction as write_transaction
    from missioncache_db._tasks import folder_gone as folder_gone
    from missioncache_db._tasks import folder_ways_out as folder_ways_out
    from missioncache_db._tasks import stamp_worked_on as stamp_worked_on
    from missioncache_db._worktree import linked_worktree as linked_worktree

_EXPORTS = {
    "DEFAULT_BUSY_TIMEOUT": "_db",
    "TaskDB": "_db",
    "open_if_set_up": "_db",
    "bound_task": "_bound",
    "find_task": "_bound",
    "OPEN_STATUSES": "_model",
    "STATUSES": "_model",
    "Task": "_model",
    "is_contained": "_model",
    "is_valid_name": "_model",
    "validate_name": "_model",
    "Compaction": "_compactions",
    "compaction_count": "_compactions",
    "compaction_records": "_compactions",
    "recent_compactions": "_compactions",
    "record_compaction": "_compactions",
    "finish_fork": "_fork_done",
    "family_ids": "_forks",
    "is_broken": "_health",
    "not_a_file_reason": "_health",
    "plain_reason": "_health",
    "git_remote": "_remote",
    "find_task_for_cwd": "_resolve",
    "DEFAULT_CONFIG": "_schema",
    "MIGRATIONS": "_schema",
    "connect": "_schema",
    "is_busy": "_schema",
    "write_transaction": "_schema",
    "folder_gone": "_tasks",
    "folder_ways_out": "_tasks",
    "stamp_worked_on": "_tasks",
    "local_midnight_epoch": "_model",
    "local_text": "_model",
    "to_epoch": "_model",
    "linked_worktree": "_worktree",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
