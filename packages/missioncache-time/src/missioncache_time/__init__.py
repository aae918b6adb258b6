"""MissionCache's time model: heartbeats, turns, work sessions and the time split.

A heartbeat (one counted prompt) is recorded here, into tasks.db or the spool when the
database is busy (``record_heartbeat``; the hook's child ``python -m missioncache_time
heartbeat-auto``); a turn's end reaches it through the spool (``missioncache_spool``).
Time is computed from the turns, a heartbeat joined to the turn end with the same prompt
id: Claude's time inside them, yours in the gaps within the idle timeout (``time_split``,
docs/time.md), per period or cut per local day (``day_splits``), and shown by
``format_duration``.

Hooks import this on every prompt, so nothing is imported until a name is first used.
"""

from missioncache_state import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:  # the names __getattr__ serves, for the type checker
    from missioncache_time._daily import sealed_days as sealed_days
    from missioncache_time._daily import window_tokens as window_tokens
    from missioncache_time._fold import process_pending as process_pending
    from missioncache_time._format import format_duration as format_duration
    from missioncache_time._format import format_split as format_split
    from missioncache_time._format import part_texts as part_texts
    from missioncache_time._format import shown_parts as shown_parts
    from missioncache_time._heartbeat_auto import arm_hard_wall as arm_hard_wall
    from missioncache_time._heartbeat_auto import heartbeat_auto as heartbeat_auto
    from missioncache_time._heartbeats import new_heartbeat as new_heartbeat
    from missioncache_time._heartbeats import record_heartbeat as record_heartbeat
    from missioncache_time._heartbeats import record_heartbeat_auto as record_heartbeat_auto
    from missioncache_time._heartbeats import spool_turn_end as spool_turn_end
    from missioncache_time._rollup import rebuild_days as rebuild_days
    from missioncache_time._rollup import refresh_days as refresh_days
    from missioncache_time._sessions import PERIODS as PERIODS
    from missioncache_time._sessions import day_splits as day_splits
    from missioncache_time._sessions import period_start as period_start
    from missioncache_time._sessions import time_invested as time_invested
    from missioncache_time._sessions import time_split as time_split
    from missioncache_time._summary import wait_union as wait_union
    from missioncache_time._token_rows import assign_tasks as assign_tasks
    from missioncache_time._token_rows import insert_usage as insert_usage
    from missioncache_time._token_rows import valid_message as valid_message
    from missioncache_time._token_rows import valid_usage as valid_usage
    from missioncache_time._token_rows import valid_wait as valid_wait
    from missioncache_time._turns import TimeSplit as TimeSplit
    from missioncache_time._turns import clipped as clipped
    from missioncache_time._turns import merge as merge
    from missioncache_time._turns import turn_intervals as turn_intervals

_EXPORTS = {
    "process_pending": "_fold",
    "record_heartbeat": "_heartbeats",
    "record_heartbeat_auto": "_heartbeats",
    "spool_turn_end": "_heartbeats",
    "time_invested": "_sessions",
    "time_split": "_sessions",
    "TimeSplit": "_turns",
    "clipped": "_turns",
    "merge": "_turns",
    "turn_intervals": "_turns",
    "PERIODS": "_sessions",
    "day_splits": "_sessions",
    "period_start": "_sessions",
    "format_duration": "_format",
    "format_split": "_format",
    "shown_parts": "_format",
    "part_texts": "_format",
    "arm_hard_wall": "_heartbeat_auto",
    "new_heartbeat": "_heartbeats",
    "assign_tasks": "_token_rows",
    "insert_usage": "_token_rows",
    "valid_message": "_token_rows",
    "valid_usage": "_token_rows",
    "valid_wait": "_token_rows",
    "heartbeat_auto": "_heartbeat_auto",
    "sealed_days": "_daily",
    "window_tokens": "_daily",
    "rebuild_days": "_rollup",
    "wait_union": "_summary",
    "refresh_days": "_rollup",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
