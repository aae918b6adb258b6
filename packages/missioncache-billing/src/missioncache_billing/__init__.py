"""MissionCache billing (docs/billing.md): clients and rates, the billing rule in decimal
arithmetic, invoices numbered per machine and frozen once issued, and timesheets for
Toggl Track, Clockify and Harvest. Standard library only (the command line runs it under
the user's own Python); the PDF is printed by WeasyPrint through ``uvx`` (``pdf``).
"""

from __future__ import annotations

from missioncache_billing.money import format_money, parse_decimal
from missioncache_billing.periods import Period, between, parse_period
from missioncache_billing.settings import (
    Client,
    Sender,
    client_named,
    clients,
    remove_client,
    save_client,
    save_sender,
    sender,
    set_task,
    task_billing,
)

__all__ = [
    "Client",
    "Period",
    "Sender",
    "between",
    "client_named",
    "clients",
    "format_money",
    "parse_decimal",
    "parse_period",
    "remove_client",
    "save_client",
    "save_sender",
    "sender",
    "set_task",
    "task_billing",
]
