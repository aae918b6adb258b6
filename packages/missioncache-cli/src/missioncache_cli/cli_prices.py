"""``missioncache prices``: the price table costs are computed from (docs/cost.md)."""

from __future__ import annotations

import argparse
from typing import Callable

Add = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]


def cmd_prices(args: argparse.Namespace) -> int:
    from missioncache_cost import price_lines

    print("\n".join(price_lines()))
    return 0


def register(add: Add) -> None:
    add("prices", cmd_prices, "the price table costs are computed from, and how to update it")
