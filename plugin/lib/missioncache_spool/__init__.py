"""MissionCache's spool: the records waiting for tasks.db (heartbeats, turn ends, token records).

Stop and StopFailure never open tasks.db: they hand the end of the turn
(``record_turn_end``) and its token counts read from the transcript (``record_usage``) to
the spool, and this package is all they load of the domain. A heartbeat comes here when
tasks.db is busy or broken (``missioncache_time``). Each record is one small JSON line in
a file of its own process; the next writer that holds the lock claims the files by rename
and ingests them (``missioncache_time``). The file names on disk are kept as they always
were (``<root>/spool/*.jsonl``), so what an older version spooled is still read.

Standard library only, Python 3.9+; nothing is imported until a name is first used.
"""

from missioncache_state import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:  # the names __getattr__ serves, for the type checker
    from missioncache_spool._pending_records import BAD_SUFFIX as BAD_SUFFIX
    from missioncache_spool._pending_records import MAX_LINE as MAX_LINE
    from missioncache_spool._pending_records import QUARANTINE as QUARANTINE
    from missioncache_spool._pending_records import claim as claim
    from missioncache_spool._pending_records import keep_unattributed as keep_unattributed
    from missioncache_spool._pending_records import quarantine_dir as quarantine_dir
    from missioncache_spool._pending_records import quarantined as quarantined
    from missioncache_spool._pending_records import read_records as read_records
    from missioncache_spool._pending_records import release_unattributed as release_unattributed
    from missioncache_spool._pending_records import remove as remove
    from missioncache_spool._pending_records import take_unreported as take_unreported
    from missioncache_spool._pending_records import unattributed_count as unattributed_count
    from missioncache_spool._pending_records import unattributed_dir as unattributed_dir
    from missioncache_spool._usage_record import record_usage as record_usage
    from missioncache_spool._usage_record import spool_records as spool_records
    from missioncache_spool._writes import CLAIMED_SUFFIX as CLAIMED_SUFFIX
    from missioncache_spool._writes import MAX_BACKGROUND as MAX_BACKGROUND
    from missioncache_spool._writes import OUTCOMES as OUTCOMES
    from missioncache_spool._writes import SPOOL_SUFFIX as SPOOL_SUFFIX
    from missioncache_spool._writes import TURN_END as TURN_END
    from missioncache_spool._writes import USAGE as USAGE
    from missioncache_spool._writes import append as append
    from missioncache_spool._writes import new_turn_end as new_turn_end
    from missioncache_spool._writes import pending_files as pending_files
    from missioncache_spool._writes import record_turn_end as record_turn_end
    from missioncache_spool._writes import spool_folder_for as spool_folder_for

_EXPORTS = {
    "MAX_BACKGROUND": "_writes",
    "OUTCOMES": "_writes",
    "new_turn_end": "_writes",
    "record_turn_end": "_writes",
    "record_usage": "_usage_record",
    "spool_records": "_usage_record",
    "BAD_SUFFIX": "_pending_records",
    "CLAIMED_SUFFIX": "_writes",
    "MAX_LINE": "_pending_records",
    "QUARANTINE": "_pending_records",
    "SPOOL_SUFFIX": "_writes",
    "TURN_END": "_writes",
    "USAGE": "_writes",
    "append": "_writes",
    "claim": "_pending_records",
    "keep_unattributed": "_pending_records",
    "pending_files": "_writes",
    "quarantine_dir": "_pending_records",
    "quarantined": "_pending_records",
    "read_records": "_pending_records",
    "release_unattributed": "_pending_records",
    "remove": "_pending_records",
    "spool_folder_for": "_writes",
    "take_unreported": "_pending_records",
    "unattributed_count": "_pending_records",
    "unattributed_dir": "_pending_records",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
