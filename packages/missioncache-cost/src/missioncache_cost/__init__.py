"""MissionCache's tokens and cost: what each turn used, and what it cost.

Stop and StopFailure read the tokens of the turn from the transcript and spool them as
token records (``record_usage``); ingested into tasks.db's ``usage`` table, each message
gets its task from the heartbeat of its turn (``assign_tasks``) and is priced with the
price table (``load_prices``, ``<root>/prices.json`` over the built-in one): a task's
tokens and cost in ``task_tokens``, shown by ``format_cost`` (docs/cost.md).

Nothing is imported until a name is first used: the Stop hook pays only for the spooling.
"""

from __future__ import annotations

from missioncache_state import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:  # the names __getattr__ serves, for the type checker
    from missioncache_cost._prices import PRICES_DATE as PRICES_DATE
    from missioncache_cost._prices import PriceTable as PriceTable
    from missioncache_cost._prices import load_prices as load_prices
    from missioncache_cost._prices import normalise_model as normalise_model
    from missioncache_cost._prices import price_lines as price_lines
    from missioncache_cost._tokens import Tokens as Tokens
    from missioncache_cost._tokens import assign_tasks as assign_tasks
    from missioncache_cost._tokens import cost_part as cost_part
    from missioncache_cost._tokens import format_cost as format_cost
    from missioncache_cost._tokens import format_tokens as format_tokens
    from missioncache_cost._tokens import insert_usage as insert_usage
    from missioncache_cost._tokens import per_turn as per_turn
    from missioncache_cost._tokens import summed as summed
    from missioncache_cost._tokens import task_rows as task_rows
    from missioncache_cost._tokens import task_tokens as task_tokens
    from missioncache_cost._tokens import valid_message as valid_message
    from missioncache_cost._tokens import valid_usage as valid_usage
    from missioncache_cost._tokens import valid_wait as valid_wait
    from missioncache_cost._tokens import waiting_seconds as waiting_seconds
    from missioncache_cost._usage_record import record_usage as record_usage
    from missioncache_cost._usage_record import spool_records as spool_records

_EXPORTS = {
    "record_usage": "_usage_record",
    "spool_records": "_usage_record",
    "Tokens": "_tokens",
    "assign_tasks": "_tokens",
    "cost_part": "_tokens",
    "format_cost": "_tokens",
    "format_tokens": "_tokens",
    "insert_usage": "_tokens",
    "per_turn": "_tokens",
    "summed": "_tokens",
    "task_rows": "_tokens",
    "task_tokens": "_tokens",
    "valid_message": "_tokens",
    "valid_usage": "_tokens",
    "valid_wait": "_tokens",
    "waiting_seconds": "_tokens",
    "PRICES_DATE": "_prices",
    "PriceTable": "_prices",
    "load_prices": "_prices",
    "normalise_model": "_prices",
    "price_lines": "_prices",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
