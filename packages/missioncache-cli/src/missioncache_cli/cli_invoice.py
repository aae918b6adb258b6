"""``missioncache invoice CLIENT --period P [--format html|pdf|csv|json] [-o FILE]
[--number N] [--lines day] [--draft]``, ``invoice list`` and ``invoice show NUMBER``: a
thin front for ``missioncache_billing`` (docs/billing.md).

Issuing is idempotent per client and period: asked again with nothing new to bill, the
command shows the invoice already issued (same number, same figures) in the format asked;
with time that arrived after it (a late turn), it issues a new invoice for the difference.
"""

from __future__ import annotations

import argparse
import sqlite3
from typing import Callable

FORMATS = ("html", "pdf", "csv", "json")


def period_of(args: argparse.Namespace) -> object:
    """``--period`` or ``--from``/``--to``, parsed once."""
    from missioncache_billing import between, parse_period

    if args.start or args.end:
        if not (args.start and args.end):
            raise ValueError("give both --from and --to (YYYY-MM-DD)")
        if args.period:
            raise ValueError("give --period or --from/--to, not both")
        return between(args.start, args.end)
    if not args.period:
        raise ValueError(
            "say which period to bill: --period 2026-11 (a month), 2026-W48 (a week), "
            "2026-11-01..2026-11-30, or --from/--to"
        )
    return parse_period(args.period)


def cmd_invoice(args: argparse.Namespace) -> int:
    from missioncache_billing import invoices

    if args.client == "list":
        return _list(invoices.issued())
    if args.client == "show":
        if not args.number_arg:
            raise ValueError("`invoice show` needs the invoice number")
        return _write(invoices.invoice_numbered(args.number_arg), args, "shown")
    if args.number_arg:
        raise ValueError(f"unexpected {args.number_arg!r}: the client comes alone")
    from missioncache_billing import client_named

    client = client_named(args.client)  # an unknown client stops here, nothing written
    period = period_of(args)
    number = invoices.check_number(args.number) if args.number else None
    if number and number in {str(inv["number"]) for inv in invoices.issued()}:
        raise ValueError(f"invoice number {number} is already used: choose another or omit it")
    document = _draft(client.name, period)
    if args.lines == "day":
        document = invoices.by_day(document)
    if invoices.is_empty(document):
        earlier = invoices.latest_for(client.name, period)  # type: ignore[arg-type]
        if earlier is not None and not number and not args.draft:
            return _write(earlier, args, "already issued, shown again")
        raise ValueError(
            f"nothing to bill {client.name} for {period.title}: no time of its tasks in it "  # type: ignore[attr-defined]
            f"that an earlier invoice did not bill (`missioncache task set TASK --client "
            f"{client.name}` assigns a task)"
        )
    if args.draft:
        return _write(document, args, "draft (not issued)")
    return _write(invoices.issue(document, number), args, "issued")


def _draft(client: str, period: object) -> dict:
    from missioncache_billing import invoices
    from missioncache_cli.cli_common import CLI_BUSY_TIMEOUT
    from missioncache_cli.cli_sync import refresh
    from missioncache_db import TaskDB
    from missioncache_time import process_pending

    refresh()  # with sync set up: the other machines' time and invoices too
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        try:
            process_pending(db)
        except sqlite3.OperationalError:
            pass
        return invoices.draft(db, client, period)  # type: ignore[arg-type]


def _write(document: dict, args: argparse.Namespace, what: str) -> int:
    from decimal import Decimal

    from missioncache_billing.money import format_money
    from missioncache_billing.render import render
    from missioncache_state.atomic import atomic_write_bytes

    fmt = args.format
    number = document.get("number") or "DRAFT"
    total = format_money(Decimal(document["total"]), document["currency"])
    summary = f"invoice {number} {what}: {document['client']['name']}, {total}"
    if fmt == "pdf":
        from missioncache_billing.pdf import html_to_pdf

        target = args.output or f"invoice-{number}.pdf"
        html_to_pdf(render(document, "html"), target)
        print(f"{summary}; wrote {target}")
        return 0
    text = render(document, fmt)
    if args.output:
        atomic_write_bytes(args.output, text.encode("utf-8"))
        print(f"{summary}; wrote {args.output}")
    else:
        print(text, end="")
    return 0


def _list(found: list) -> int:
    from decimal import Decimal

    from missioncache_billing.money import format_money

    if not found:
        print("no invoices issued yet: `missioncache invoice CLIENT --period 2026-11`")
        return 0
    for inv in found:
        total = format_money(Decimal(inv["total"]), inv["currency"])
        period = f"{inv['period']['first']} to {inv['period']['last']}"
        print(
            f"{inv['number']}  {inv['issued']}  {inv['client']['name']}  {period}  "
            f"{inv['hours']} h  {total}  due {inv['due']}"
        )
    return 0


def billable_line(db: object, task: object, period: str) -> str | None:
    """``billable 12.5 h = €1,500.00`` for ``time TASK`` when the task has a rate."""
    from missioncache_billing.compute import billable_total

    try:
        found = billable_total(db, task, period)  # type: ignore[arg-type]
    except (ValueError, OSError):
        return None
    if found is None:
        return None
    from missioncache_billing.money import format_money

    hours, amount, currency, client = found
    return f"  billable {hours.normalize():f} h = {format_money(amount, currency)} ({client})"


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    command = add("invoice", cmd_invoice, "issue an invoice for a client, list or show them")
    command.add_argument("client", help="the client's name, or list, or show")
    command.add_argument("number_arg", nargs="?", metavar="NUMBER", help="for show")
    command.add_argument("--period", help="2026-11, 2026-W48, START..END, week, month")
    command.add_argument("--from", dest="start", help="first day, YYYY-MM-DD")
    command.add_argument("--to", dest="end", help="last day, YYYY-MM-DD")
    command.add_argument("--format", choices=FORMATS, default="html")
    command.add_argument("-o", "--output", help="write to this file instead of stdout")
    command.add_argument("--number", help="this invoice number instead of the next one")
    command.add_argument("--lines", choices=("task", "day"), default="task")
    command.add_argument("--draft", action="store_true", help="show it without issuing it")
