"""MissionCache sync: the data root's event logs and task folders carried between a
person's machines through their own git repository (docs/sync.md).

Never on a hook's hot path: the hooks only check that sync is set up and start
``python -m missioncache_sync auto`` detached (``missioncache_sync.hooks``).

Two machines' events merge here: each machine appends what it recorded to its own event
log (``export_events``), and every machine replays the others' logs into its tasks.db
(``import_events``), or rebuilds tasks.db from all of them (``rebuild``). The other
public modules: ``sync`` (the exchange through git), ``git``, ``hooks``, ``notice``,
``paths``.
"""

from missioncache_state import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:  # the names __getattr__ serves, for the type checker
    from missioncache_sync._event_log import clock_ahead as clock_ahead
    from missioncache_sync._event_log import clock_words as clock_words
    from missioncache_sync._event_log import export_events as export_events
    from missioncache_sync._event_log import iter_events as iter_events
    from missioncache_sync._event_log import machine_id as machine_id
    from missioncache_sync._event_merge import import_events as import_events
    from missioncache_sync._rebuild import RebuildError as RebuildError
    from missioncache_sync._rebuild import Rebuilt as Rebuilt
    from missioncache_sync._rebuild import rebuild as rebuild

_EXPORTS = {
    "export_events": "_event_log",
    "import_events": "_event_merge",
    "iter_events": "_event_log",
    "machine_id": "_event_log",
    "Rebuilt": "_rebuild",
    "RebuildError": "_rebuild",
    "clock_ahead": "_event_log",
    "clock_words": "_event_log",
    "rebuild": "_rebuild",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
