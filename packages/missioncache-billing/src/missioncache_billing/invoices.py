"""Invoices: numbered per machine, issued once, frozen.

An issued invoice is one JSON file, ``events/<machine id>/billing/invoices/<number>.json``,
created exclusively and never rewritten: its figures stay as issued when a late turn
arrives (the next invoice of the client bills the difference). Numbers increase per
machine under a prefix of the machine's own (its id's first four characters, or the one
``billing setup --prefix`` sets), so two machines never issue the same number; a number
seen on any machine is never used again.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import time
from dataclasses import asdict
from decimal import Decimal
from typing import TYPE_CHECKING

from missioncache_billing import compute
from missioncache_billing.money import plain
from missioncache_billing.settings import (
    billing_dir,
    client_named,
    is_linked,
    machines,
    own_folder,
    sender,
    task_billing,
    this_machine,
)

if TYPE_CHECKING:
    from missioncache_billing.periods import Period
    from missioncache_db import TaskDB

INVOICES = "invoices"
_NUMBER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
# Names Windows keeps for devices, whatever the extension: never a file name.
_DEVICES = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)),
            *(f"LPT{i}" for i in range(10))}  # fmt: skip


def check_number(text: str) -> str:
    value = str(text).strip()
    if not _NUMBER.match(value) or value.upper() in _DEVICES:
        raise ValueError(f"invalid invoice number {text!r}: letters, digits, _ and - (up to 40)")
    return value


def issued() -> list[dict]:
    """Every machine's issued invoices (oldest first); damaged files are skipped."""
    out = []
    for machine in machines():
        folder = os.path.join(billing_dir(machine), INVOICES)
        if is_linked(folder):
            continue
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            if not name.endswith(".json") or not _NUMBER.match(name[:-5]) or os.path.islink(path):
                continue
            try:
                with open(path, encoding="utf-8") as handle:
                    found = json.load(handle)
            except (OSError, ValueError):
                continue
            if isinstance(found, dict) and found.get("number") == name[:-5]:
                out.append(found)
    return sorted(out, key=lambda inv: (str(inv.get("created", "")), str(inv["number"])))


def invoice_numbered(number: str) -> dict:
    for invoice in issued():
        if invoice["number"] == number:
            return invoice
    raise ValueError(f"no invoice numbered {number!r} (`missioncache invoice list` shows them)")


def prefix() -> str:
    own = sender().prefix
    return own if own else this_machine()[:4].upper() + "-"


def next_number() -> str:
    """``<prefix><NNNN>``: one more than the highest this prefix has issued anywhere."""
    lead = prefix()
    pattern = re.compile(re.escape(lead) + r"(\d+)$")
    used = [int(m[1]) for inv in issued() if (m := pattern.match(str(inv["number"])))]
    return f"{lead}{max(used, default=0) + 1:04d}"


def already_billed() -> dict:
    """(task, day) -> (hours, AI USD) earlier invoices billed, whichever client they went
    to: a task moved to another client is never billed twice for the same day."""
    out: dict = {}
    for invoice in issued():
        for day in invoice.get("days", []):
            key = (day["task"], day["day"])
            hours, usd = out.get(key, (Decimal(0), Decimal(0)))
            out[key] = (hours + Decimal(day["hours"]), usd + Decimal(day.get("usd", "0")))
    return out


def draft(db: TaskDB, client_name: str, period: Period, now: float | None = None) -> dict:
    """The invoice the client would get for ``period`` now (number not yet given)."""
    client = client_named(client_name)
    me = sender()
    before = already_billed()
    settings = task_billing()
    lines = [
        compute.task_line(db, task, rate, client, period, before, now, settings)
        for task, rate in compute.client_tasks(db, client, settings)
    ]
    lines = [line for line in lines if line.days]
    usd = sum((d.usd for line in lines for d in line.days), Decimal(0))
    ai = compute.ai_amount(usd, client)
    subtotal = sum((line.amount for line in lines), Decimal(0)) + (ai or Decimal(0))
    tax_rate = Decimal(client.tax if client.tax is not None else me.tax)
    tax = compute.tax_amount(subtotal, tax_rate, client.currency)
    today = dt.date.fromtimestamp(time.time() if now is None else now)
    cur = client.currency
    return {
        "number": None,
        "issued": today.isoformat(),
        "due": (today + dt.timedelta(days=me.terms_days)).isoformat(),
        "period": {"first": str(period.first), "last": str(period.last), "title": period.title},
        "currency": cur,
        "client": asdict(client),
        "sender": asdict(me),
        "rule": rule_text(client),
        "lines": [_line_json(line, cur) for line in lines],
        "ai": None
        if ai is None
        else {"usd": str(usd), "rule": client.ai_cost, "amount": plain(ai, cur)},
        "hours": str(sum((line.hours for line in lines), Decimal(0))),
        "subtotal": plain(subtotal, cur),
        "tax_rate": str(tax_rate),
        "tax": plain(tax, cur),
        "total": plain(subtotal + tax, cur),
        "days": [_day_json(d, cur) for line in lines for d in line.days],
    }


def _line_json(line: compute.TaskLine, currency: str) -> dict:
    return {
        "task": line.task,
        "jira": line.jira,
        "forks": line.forks,
        "hours": str(line.hours),
        "rate": str(line.rate),
        "amount": plain(line.amount, currency),
    }


def _day_json(day: compute.DayLine, currency: str) -> dict:
    return {
        "day": day.day,
        "task": day.task,
        "seconds": day.seconds,
        "claude_seconds": day.claude,
        "you_seconds": day.you,
        "hours": str(day.hours),
        "rate": str(day.rate),
        "amount": plain(day.amount, currency),
        "usd": str(day.usd),
    }


def rule_text(client: object) -> str:
    """The billing rule in words, printed on the invoice."""
    what = {
        "total": "time worked (Claude's and yours)",
        "claude": "Claude's time",
        "you": "your own time",
    }[getattr(client, "bill", "total")]
    rounding = getattr(client, "rounding", "none")
    if rounding == "none":
        how = "to the hundredth of an hour"
    else:
        how = f"{getattr(client, 'round', 'up')} to {rounding[:-1]} minutes"
    return f"{what}, per task per day, rounded {how}"


def is_empty(document: dict) -> bool:
    return not document["lines"] and document["ai"] is None


def issue(document: dict, number: str | None = None, now: float | None = None) -> dict:
    """Freeze ``document`` under ``number`` (or the next one): written once, exclusively."""
    used = {str(inv["number"]) for inv in issued()}
    chosen = check_number(number) if number else next_number()
    if chosen in used:
        raise ValueError(f"invoice number {chosen} is already used: choose another or omit it")
    folder = own_folder(INVOICES)
    frozen = dict(document, number=chosen, machine=this_machine())
    frozen["created"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now))
    data = (json.dumps(frozen, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    path = os.path.join(folder, chosen + ".json")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0))
    except FileExistsError:
        raise ValueError(f"invoice number {chosen} is already used: choose another") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return frozen


def latest_for(client: str, period: Period) -> dict | None:
    """The newest invoice of ``client`` for exactly ``period``, if any."""
    found = [
        inv
        for inv in issued()
        if inv.get("client", {}).get("name") == client
        and inv.get("period", {}).get("first") == str(period.first)
        and inv.get("period", {}).get("last") == str(period.last)
    ]
    return found[-1] if found else None


def by_day(document: dict) -> dict:
    """``--lines day``: one line per task per day; the subtotal adds those lines."""
    cur = document["currency"]
    subtotal = sum((Decimal(d["amount"]) for d in document["days"]), Decimal(0))
    if document["ai"]:
        subtotal += Decimal(document["ai"]["amount"])
    tax = compute.tax_amount(subtotal, Decimal(document["tax_rate"]), cur)
    return dict(
        document,
        lines_by_day=True,
        subtotal=plain(subtotal, cur),
        tax=plain(tax, cur),
        total=plain(subtotal + tax, cur),
    )
