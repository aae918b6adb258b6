"""A fork billed apart from its parent in the timesheets: the Toggl, Clockify and Harvest
entries are the invoice's lines per day, so what a freelancer imports into the tool agrees
with the invoice they send for the same period (the invoice computed by the real command,
as a draft, through the built plugin)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import time
from decimal import ROUND_HALF_UP, Decimal

import pytest

from missioncache_harness.worklog import record_work

WEEK = "2025-W10"
MON, WED = "2025-03-03", "2025-03-05"


def _at(day: int, hour: int, minute: int = 0) -> float:
    return time.mktime((2025, 3, day, hour, minute, 0, 0, 0, -1))


def _task_id(mc_env, name: str) -> int:
    conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"))
    try:
        return int(conn.execute("SELECT id FROM tasks WHERE name = ?", (name,)).fetchone()[0])
    finally:
        conn.close()


def _fork_works(billing, mc_env) -> None:
    """alpha-spike, a fork of alpha (alpha: Mon 10:00-10:50, Wed 14:00-14:10):
    Mon 10:40-11:10 (10 minutes at the same time as alpha) and 16:00-16:20, Wed 09:00-09:30.
    The family's union: Mon 90m, Wed 40m; the fork's own time: Mon 50m, Wed 30m."""
    billing("fork", "alpha", "alpha-spike")
    fork, db = _task_id(mc_env, "alpha-spike"), mc_env.data_root / "tasks.db"
    record_work(db, fork, _at(3, 10, 40), [(1800, 0)])
    record_work(db, fork, _at(3, 16), [(1200, 0)])
    record_work(db, fork, _at(5, 9), [(1800, 0)])


def _invoiced(billing) -> dict:
    """{(client, task, day): hours} of both clients' draft invoices for the week."""
    out = {}
    for client in ("Acme", "Globex"):
        document = json.loads(
            billing(
                "invoice", client, "--period", WEEK, "--format", "json", "--lines", "day", "--draft"
            )
        )
        for day in document["days"]:
            out[(client, day["task"], day["day"])] = Decimal(day["hours"])
        assert sum(out[k] for k in out if k[0] == client) == Decimal(document["hours"])
    return out


def _hours(clock: str) -> Decimal:
    hours, minutes, seconds = (int(part) for part in clock.split(":"))
    exact = Decimal(hours * 3600 + minutes * 60 + seconds) / 3600
    return exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _sheet(billing, tool: str) -> dict:
    """{(client, task, day): hours} of ``tool``'s timesheet for the week, one entry each."""
    text = billing("report", "--format", "timesheet", "--for", tool, "--period", WEEK)
    out: dict = {}
    for row in csv.DictReader(io.StringIO(text)):
        if tool == "harvest":
            key, hours = (row["Client"], row["Project"], row["Date"]), Decimal(row["Hours"])
        else:
            key = (row["Client"], row["Project"], row["Start date"])
            hours = _hours(row["Duration"]) if tool == "toggl" else Decimal(row["Duration"])
        assert key not in out, f"two {tool} entries for {key}"
        out[key] = hours
    return out


@pytest.mark.parametrize(
    ("billed", "fork_hours"),
    [
        # Acme, 15 minutes up: Mon 50m -> 1.00, Wed 30m -> 0.50
        (("--client", "Acme", "--rate", "200"), {("Acme", MON): "1.00", ("Acme", WED): "0.50"}),
        # Globex, 6 minutes nearest: Mon 50m -> 0.80, Wed 30m -> 0.50
        (("--client", "Globex"), {("Globex", MON): "0.80", ("Globex", WED): "0.50"}),
    ],
    ids=["own-rate", "own-client"],
)
@pytest.mark.parametrize("tool", ["harvest", "toggl", "clockify"])
def test_a_fork_billed_apart_has_its_own_entries_as_the_invoice_bills_them(
    billing, mc_env, tool, billed, fork_hours
):
    _fork_works(billing, mc_env)
    billing("task", "set", "alpha-spike", *billed)
    sheet, invoiced = _sheet(billing, tool), _invoiced(billing)
    fork = {(k[0], k[2]): str(v) for k, v in sheet.items() if k[1] == "alpha-spike"}
    assert fork == fork_hours  # the fork's own time, by its own client's rounding
    # alpha keeps the rest: Mon 90m - the fork's 50m = 40m -> 0.75; Wed 40m - 30m -> 0.25
    assert sheet[("Acme", "alpha", MON)] == Decimal("0.75")
    assert sheet[("Acme", "alpha", WED)] == Decimal("0.25")
    assert sheet == invoiced  # every client, task and day: the invoice's line
    for client in ("Acme", "Globex"):
        total = sum(v for k, v in sheet.items() if k[0] == client)
        assert total == sum(v for k, v in invoiced.items() if k[0] == client)


def test_a_fork_billed_with_its_parent_stays_in_its_parents_entry(billing, mc_env):
    _fork_works(billing, mc_env)
    invoiced = _invoiced(billing)
    for tool in ("harvest", "toggl", "clockify"):
        sheet = _sheet(billing, tool)
        assert not any(k[1] == "alpha-spike" for k in sheet)
        # the family's union: Mon 90m -> 1.50, Wed 40m -> 0.75
        assert sheet[("Acme", "alpha", MON)] == Decimal("1.50")
        assert sheet[("Acme", "alpha", WED)] == Decimal("0.75")
        assert sheet == invoiced


@pytest.mark.parametrize(
    "seconds, shown", [(4050, "1.13"), (2250, "0.63"), (18, "0.01"), (0, "0.00")]
)
def test_the_reports_hours_round_as_the_invoice_does(seconds: int, shown: str) -> None:
    """1.125 h is 1.13 on an invoice line: the report's hours column says the same."""
    from missioncache_billing.compute import entry_hours
    from missioncache_billing.settings import Client
    from missioncache_report.columns import decimal_hours

    assert decimal_hours(seconds) == shown
    assert Decimal(shown) == entry_hours(seconds, Client(name="acme"))
