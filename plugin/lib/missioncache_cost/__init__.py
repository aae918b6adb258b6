"""MissionCache's tokens and cost: what each turn used, and what it cost.

Stop and StopFailure read the tokens of the turn from the transcript and spool them as
token records (``missioncache_spool.record_usage``); ingested into tasks.db's ``usage``
table by the time model, each message gets its task from the heartbeat of its turn
(``missioncache_time.assign_tasks``) and is priced here with the price table
(``load_prices``, ``<root>/prices.json`` over the built-in one): a task's tokens and cost
in ``task_tokens``, shown by ``format_cost`` (docs/cost.md).

Nothing is imported until a name is first used.
"""

from missioncache_state import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:  # the names __getattr__ serves, for the type checker
    from missioncache_cost._day_pricing import DayPricing as DayPricing
    from missioncache_cost._day_pricing import day_pricing as day_pricing
    from missioncache_cost._prices import PRICES_DATE as PRICES_DATE
    from missioncache_cost._prices import PriceTable as PriceTable
    from missioncache_cost._prices import load_prices as load_prices
    from missioncache_cost._prices import normalise_model as normalise_model
    from missioncache_cost._prices import price_lines as price_lines
    from missioncache_cost._tokens import Tokens as Tokens
    from missioncache_cost._tokens import cost_part as cost_part
    from missioncache_cost._tokens import format_cost as format_cost
    from missioncache_cost._tokens import format_tokens as format_tokens
    from missioncache_cost._tokens import per_turn as per_turn
    from missioncache_cost._tokens import summed as summed
    from missioncache_cost._tokens import task_rows as task_rows
    from missioncache_cost._tokens import task_tokens as task_tokens

_EXPORTS = {
    "DayPricing": "_day_pricing",
    "day_pricing": "_day_pricing",
    "Tokens": "_tokens",
    "cost_part": "_tokens",
    "format_cost": "_tokens",
    "format_tokens": "_tokens",
    "per_turn": "_tokens",
    "summed": "_tokens",
    "task_rows": "_tokens",
    "task_tokens": "_tokens",
    "PRICES_DATE": "_prices",
    "PriceTable": "_prices",
    "load_prices": "_prices",
    "normalise_model": "_prices",
    "price_lines": "_prices",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
