"""What tokens cost: an offline, dated price table and the cost of one message.

WHY offline: costs are shown by hooks, the status line and reports, none of which may
reach the network. The table below is what MissionCache ships (``PRICES_DATE`` says when
it was checked); a user can correct or extend it without a release by writing
``<data root>/prices.json`` (same shape as ``PRICES``: model -> rates), whose entries
replace the shipped ones model by model. ``missioncache prices`` shows the table in
use. Costs are computed when they are shown, so a corrected table re-prices history.

Rates are USD per million tokens: ``input``, ``output``, ``cache_5m`` and ``cache_1h``
(cache writes with a 5-minute or 1-hour lifetime), ``cache_read``. Optional:

- ``fast``: the multiplier of every rate for a message written in fast mode
  (``usage.speed == "fast"``); a model without one has no fast mode we know the price of,
  so such a message's cost is unknown;
- ``long``: ``{"above": N, "rates": {...}}``, the rates of a request whose prompt (input,
  cache writes and cache reads together) exceeds N tokens, applied to all its tokens.

A model not in the table has an unknown cost (None), never $0: its tokens are still
counted. Names are matched after dropping what does not change the price: a provider
prefix (``anthropic/``, ``us.anthropic.``), a context-size tag (``[1m]``), a date or
version suffix (``-20250929``, ``@20250929``, ``-v1:0``). Sources: Anthropic's pricing
page (model table, prompt caching multipliers: 5-minute writes 1.25x input, 1-hour
writes 2x, reads 0.1x unless listed), Claude Code's fast-mode page, checked 2026-11-30.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PRICES_DATE = "2026-11-30"
RATE_FIELDS = ("input", "output", "cache_5m", "cache_1h", "cache_read")


def _rates(input: float, output: float, read: float | None = None, **extra: Any) -> dict:
    """The usual shape: cache writes at 1.25x (5 m) and 2x (1 h) input, reads at 0.1x."""
    rates = {
        "input": input,
        "output": output,
        "cache_5m": round(input * 1.25, 6),
        "cache_1h": round(input * 2, 6),
        "cache_read": round(input * 0.1, 6) if read is None else read,
    }
    rates.update(extra)
    return rates


_SONNET_LONG = {"above": 200_000, "rates": _rates(6.0, 22.5)}
_HAIKU_55_LONG = {"above": 100_000, "rates": _rates(0.5, 2.5)}

PRICES: dict[str, dict] = {
    "claude-fable-5-1": _rates(10.0, 50.0, 0.25),
    "claude-mythos-5-1": _rates(10.0, 50.0, 0.25),
    "claude-fable-5": _rates(10.0, 50.0),
    "claude-mythos-5": _rates(10.0, 50.0),
    "claude-opus-5-5": _rates(4.0, 20.0, 0.2),
    "claude-opus-5": _rates(5.0, 25.0, fast=2.0),
    "claude-opus-4-8": _rates(5.0, 25.0, fast=2.0),
    "claude-opus-4-7": _rates(5.0, 25.0, fast=6.0),
    "claude-opus-4-6": _rates(5.0, 25.0, fast=6.0),
    "claude-opus-4-5": _rates(5.0, 25.0),
    "claude-opus-4-1": _rates(15.0, 75.0),
    "claude-opus-4": _rates(15.0, 75.0),
    "claude-opus-4-0": _rates(15.0, 75.0),
    "claude-4-opus": _rates(15.0, 75.0),
    "claude-3-opus": _rates(15.0, 75.0),
    "claude-sonnet-5-5": _rates(2.0, 10.0, 0.1),
    "claude-sonnet-5": _rates(2.0, 10.0),
    "claude-sonnet-4-6": _rates(3.0, 15.0),
    "claude-sonnet-4-5": _rates(3.0, 15.0, long=_SONNET_LONG),
    "claude-sonnet-4": _rates(3.0, 15.0, long=_SONNET_LONG),
    "claude-sonnet-4-0": _rates(3.0, 15.0, long=_SONNET_LONG),
    "claude-4-sonnet": _rates(3.0, 15.0, long=_SONNET_LONG),
    "claude-3-7-sonnet": _rates(3.0, 15.0),
    "claude-3-5-sonnet": _rates(3.0, 15.0),
    "claude-haiku-5-5": _rates(0.1, 0.5, 0.01, long=_HAIKU_55_LONG),
    "claude-haiku-4-5": _rates(1.0, 5.0),
    "claude-3-5-haiku": _rates(0.8, 4.0, 0.08, cache_5m=1.0, cache_1h=1.6),
    "claude-3-haiku": _rates(0.25, 1.25, 0.03, cache_5m=0.3, cache_1h=0.5),
}


def user_prices_path() -> str:
    from missioncache_state.locations import data_root

    return os.path.join(data_root(), "prices.json")


def _valid_rates(value: Any) -> dict | None:
    """A rates entry of the user's file, or None when any rate is missing or not a
    non-negative number (a half-written entry must not price anything)."""
    if not isinstance(value, dict):
        return None
    for field in RATE_FIELDS:
        rate = value.get(field)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not rate >= 0:
            return None
    rates: dict[str, Any] = {field: float(value[field]) for field in RATE_FIELDS}
    fast = value.get("fast")
    if isinstance(fast, (int, float)) and not isinstance(fast, bool) and fast > 0:
        rates["fast"] = float(fast)
    long = value.get("long")
    if isinstance(long, dict) and isinstance(long.get("above"), int):
        inner = _valid_rates(long.get("rates"))
        if inner is not None:
            rates["long"] = {"above": long["above"], "rates": inner}
    return rates


class PriceTable:
    """The shipped table with the user's ``prices.json`` laid over it."""

    def __init__(self, prices: dict[str, dict], date: str, overrides: list[str]) -> None:
        self.prices, self.date, self.overrides = prices, date, overrides

    def rates(self, model: Any) -> dict | None:
        name = normalise_model(model)
        return None if name is None else self.prices.get(name)

    def cost(self, model: Any, speed: Any, tokens: tuple[int, int, int, int, int]) -> float | None:
        """USD for one message's (input, output, cache 5 m, cache 1 h, cache read) tokens;
        None when the model (or its fast mode) has no price. No tokens cost nothing."""
        if not any(tokens):
            return 0.0
        rates = self.rates(model)
        if rates is None:
            return None
        factor = 1.0
        if speed == "fast":
            if "fast" not in rates:
                return None
            factor = rates["fast"]
        long = rates.get("long")
        prompt = tokens[0] + tokens[2] + tokens[3] + tokens[4]
        if long is not None and prompt > long["above"]:
            rates = long["rates"]
        fields = ("input", "output", "cache_5m", "cache_1h", "cache_read")
        total = sum(count * float(rates[field]) for count, field in zip(tokens, fields))
        return float(total * factor / 1_000_000)


def load_prices(path: str | None = None) -> PriceTable:
    """The table in use: shipped prices, then the user's file over them (a file that does
    not parse is ignored whole; an entry that is not valid is ignored alone)."""
    from missioncache_state.atomic import read_json_object

    prices = dict(PRICES)
    overrides: list[str] = []
    date = PRICES_DATE
    data = read_json_object(path or user_prices_path())
    if data is not None:
        models = data.get("models", data)
        if isinstance(models, dict):
            for name, value in models.items():
                rates = _valid_rates(value)
                key = normalise_model(name)
                if rates is not None and key is not None:
                    prices[key] = rates
                    overrides.append(key)
        if isinstance(data.get("date"), str) and overrides:
            date = f"{PRICES_DATE} (yours: {data['date'][:40]})"
    return PriceTable(prices, date, overrides)


def _strip_date(name: str) -> str:
    """``claude-sonnet-4-5-20250929`` -> ``claude-sonnet-4-5``: the last part when it is
    an 8-digit date."""
    head, _, tail = name.rpartition("-")
    return head if head and len(tail) == 8 and tail.isdigit() else name


def normalise_model(model: Any) -> str | None:
    """The table key a model name is priced under; None for no name."""
    if not isinstance(model, str) or not model or len(model) > 200:
        return None
    name = model.strip().lower()
    if name.endswith("]") and "[" in name:  # claude-opus-4-6[1m]
        name = name[: name.rindex("[")]
    for prefix in ("anthropic/", "anthropic."):
        if prefix in name:
            name = name[name.index(prefix) + len(prefix) :]
    if "@" in name:  # Vertex: claude-sonnet-4-5@20250929
        name = name[: name.index("@")]
    if name.endswith(("-v1:0", "-v2:0")):  # Bedrock
        name = name[:-5]
    if name.endswith("-latest"):
        name = name[:-7]
    return _strip_date(name)


def price_lines(table: PriceTable | None = None) -> list[str]:
    """The table as ``missioncache prices`` prints it: USD per million tokens."""
    table = table or load_prices()
    lines = [
        f"prices checked {table.date}, USD per million tokens",
        f"{'model':<22} {'input':>7} {'output':>7} {'write5m':>8} {'write1h':>8} {'read':>7}"
        "  notes",
    ]
    for name in sorted(table.prices):
        rates = table.prices[name]
        notes = []
        if "fast" in rates:
            notes.append(f"fast mode x{rates['fast']:g}")
        if "long" in rates:
            notes.append(
                f"prompt over {rates['long']['above']:,}: {rates['long']['rates']['input']:g}"
                f"/{rates['long']['rates']['output']:g}"
            )
        if name in table.overrides:
            notes.append("from your prices.json")
        figures = " ".join(
            f"{rates[f]:>{8 if f.startswith('cache_') and f != 'cache_read' else 7}g}"
            for f in RATE_FIELDS
        )
        lines.append(f"{name:<22} {figures}  {', '.join(notes)}".rstrip())
    lines.append(
        f"Unknown models are counted in tokens with their cost unknown. To add or correct a"
        f' price, write {user_prices_path()} as {{"date": "YYYY-MM-DD", "models":'
        f' {{"<model>": {{"input": 3, "output": 15, "cache_5m": 3.75, "cache_1h": 6,'
        f' "cache_read": 0.3}}}}}} (docs/cost.md).'
    )
    return lines
