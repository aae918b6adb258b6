"""``missioncache client add|list|show|edit|remove``, ``missioncache task set TASK --client
NAME [--rate N]`` and ``missioncache billing setup``: a thin front for
``missioncache_billing`` (docs/billing.md), imported only when these commands run.
A mistake (unknown client, a negative rate, an unknown currency) is one line and changes
nothing: every value is parsed before anything is written.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, fields
from typing import Any, Callable

CLIENT_OPTIONS = (
    "rate",
    "currency",
    "rounding",
    "round",
    "bill",
    "ai_cost",
    "usd_rate",
    "tax",
    "address",
    "tax_id",
    "email",
)
RESERVED = ("list", "show", "none")


def _client_args(command: argparse.ArgumentParser) -> None:
    command.add_argument("--rate", help="per hour, a decimal such as 120 or 97.50")
    command.add_argument("--currency", help="ISO code: EUR, USD, GBP, CHF, JPY ...")
    command.add_argument("--rounding", help="per task per day: none, 6m, 15m or 30m")
    command.add_argument("--round", help="up (default) or nearest")
    command.add_argument("--bill", help="total (default: Claude's time and yours), claude, you")
    command.add_argument("--ai-cost", dest="ai_cost", help="none, at-cost or markup:15")
    command.add_argument("--usd-rate", dest="usd_rate", help="1 USD in the client's currency")
    command.add_argument("--tax", help="tax rate in percent (default: billing setup's)")
    command.add_argument("--address", help="postal address (use \\n for new lines)")
    command.add_argument("--tax-id", dest="tax_id", help="the client's VAT or tax id")
    command.add_argument("--email")


def cmd_client(args: argparse.Namespace) -> int:
    from missioncache_billing import Client, client_named, clients, remove_client, save_client
    from missioncache_billing.settings import check_client, check_name

    if args.action == "list":
        found = clients()
        if not found:
            print("no clients yet: add one with `missioncache client add NAME --rate 120`")
        for client in found.values():
            rate = f"{client.rate} {client.currency}/h" if client.rate else "no rate"
            print(
                f"{client.name}: {rate}, rounding {client.rounding} {client.round}, "
                f"bills {client.bill}, AI cost {client.ai_cost}"
            )
        return 0
    if not args.name:
        raise ValueError(f"`client {args.action}` needs the client's name")
    name = check_name(args.name)
    given: dict[str, Any] = {
        k: _unescape(getattr(args, k)) for k in CLIENT_OPTIONS if getattr(args, k) is not None
    }
    if args.action == "add":
        if name.lower() in RESERVED:
            raise ValueError(f"{name!r} is a word of the command line: choose another name")
        if name in clients():
            raise ValueError(f"client {name!r} exists: change it with `missioncache client edit`")
        client = check_client(Client(name=name, **given))
        save_client(client)
        print(
            f"added client {name}"
            + (f" at {client.rate} {client.currency}/h" if client.rate else " (no rate yet)")
        )
    elif args.action == "edit":
        current = asdict(client_named(name))
        client = check_client(Client(**dict(current, **given)))
        save_client(client)
        print(
            f"changed client {name}: "
            + (", ".join(f"{k} {v}" for k, v in given.items()) or "nothing given")
        )
    elif args.action == "show":
        client = client_named(name)
        for field in fields(client):
            print(f"{field.name}: {getattr(client, field.name) or '-'}")
    else:
        remove_client(name)
        print(f"removed client {name} (issued invoices keep it)")
    return 0


def _unescape(value: object) -> object:
    return value.replace("\\n", "\n") if isinstance(value, str) else value


def cmd_task(args: argparse.Namespace) -> int:
    from missioncache_billing import set_task
    from missioncache_cli.cli_common import CLI_BUSY_TIMEOUT, task_named
    from missioncache_db import TaskDB
    from missioncache_report.data import shown_name

    if args.client is None and args.rate is None:
        raise ValueError("say what to set: --client NAME and/or --rate N")
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        name = shown_name(task_named(db, args.task))
    billing = set_task(name, args.client, args.rate)
    if not billing.client:
        print(f"{name} is billed to no client now")
        return 0
    rate = f" at its own rate {billing.rate}/h" if billing.rate else " at the client's rate"
    print(f"{name} is billed to {billing.client}{rate}")
    return 0


def cmd_billing(args: argparse.Namespace) -> int:
    from missioncache_billing import Sender, save_sender, sender

    current = asdict(sender())
    given = {
        k: _unescape(getattr(args, k))
        for k in ("name", "address", "tax_id", "email", "tax", "prefix", "payment")
        if getattr(args, k) is not None
    }
    if args.terms is not None:
        given["terms_days"] = args.terms
    if args.action == "setup" and given:
        save_sender(Sender(**dict(current, **given)))
        current = asdict(sender())
        print("saved; invoices will carry:")
    for key, value in current.items():
        print(f"  {key}: {value if value not in ('', None) else '-'}")
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    client = add("client", cmd_client, "clients: their rates, rounding and billing rule")
    client.add_argument("action", choices=("add", "list", "show", "edit", "remove"))
    client.add_argument("name", nargs="?")
    _client_args(client)
    task = add("task", cmd_task, "a task's billing: its client and own rate")
    task.add_argument("action", choices=("set",))
    task.add_argument("task")
    task.add_argument("--client", help="the client's name (none: no client)")
    task.add_argument("--rate", help="the task's own rate, wins over the client's (none: clear)")
    setup = add("billing", cmd_billing, "who sends the invoices: name, address, tax, terms")
    setup.add_argument("action", choices=("setup", "show"))
    setup.add_argument("--name")
    setup.add_argument("--address", help="postal address (use \\n for new lines)")
    setup.add_argument("--tax-id", dest="tax_id")
    setup.add_argument("--email", help="also the timesheets' Email column")
    setup.add_argument("--terms", type=int, help="payment terms in days (default 30)")
    setup.add_argument("--tax", help="default tax rate in percent")
    setup.add_argument("--prefix", help="this machine's invoice number prefix")
    setup.add_argument("--payment", help="how to pay (bank details), printed on the invoice")
