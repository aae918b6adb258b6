"""What is billed: the stated rule, in decimal arithmetic.

By default a task's total time (Claude's and yours) is billed, rounded per task per day
(each day of a task is one entry, as Harvest and Toggl round entries): ``up`` to the next
increment or to the ``nearest`` one (half up). Without rounding a day's hours are its
seconds to two decimals (0.01 h = 36 s). A line's amount is its hours times the rate,
rounded half up to the currency's minor unit; the subtotal adds the lines, the tax is the
subtotal times the rate, rounded once. AI usage (its USD cost) is passed through at cost,
with a markup, or not at all, converted at the client's stated USD rate.

A task's own rate wins over its client's; a fork's time is inside its parent's (their
union, docs/forks.md), so a fork bills with its parent, listed under it, unless the fork has
its own billing (``task set FORK --client/--rate``): then it is its own line (its own time,
the report's fork line) and its parent's line is the family's union less that time, so the
two add up to the union and nothing is billed twice (``split_family``, which the
timesheets use too, so their entries are these lines per day). What an earlier
invoice (of any client) already billed for a task and day is taken off (a late turn shows up
on the next invoice as the difference, never by changing the issued one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from missioncache_billing.money import to_cents
from missioncache_billing.settings import ROUNDINGS, Client, TaskBilling

if TYPE_CHECKING:
    from missioncache_billing.periods import Period
    from missioncache_db import Task, TaskDB

HUNDREDTH = Decimal("0.01")


@dataclass
class DayLine:
    day: str
    task: str
    seconds: int  # the time the rule bills (total, Claude's or yours), before rounding
    claude: int
    you: int
    hours: Decimal  # after rounding, less what an earlier invoice billed
    rate: Decimal
    amount: Decimal
    usd: Decimal = Decimal(0)  # the day's AI cost, less what was billed before


@dataclass
class TaskLine:
    task: str
    jira: str | None
    rate: Decimal
    hours: Decimal = Decimal(0)
    amount: Decimal = Decimal(0)
    forks: list = field(default_factory=list)
    days: list = field(default_factory=list)  # DayLine


def rounded_seconds(seconds: int, client: Client) -> int:
    """One entry's seconds under the client's rounding (0 stays 0)."""
    step = ROUNDINGS[client.rounding]
    if not step or seconds <= 0:
        return max(seconds, 0)
    whole, rest = divmod(seconds, step)
    if rest and (client.round == "up" or rest * 2 >= step):
        whole += 1
    return whole * step


def entry_hours(seconds: int, client: Client) -> Decimal:
    """A day's billed hours: rounded by the rule, to two decimals."""
    exact = Decimal(rounded_seconds(seconds, client)) / Decimal(3600)
    return exact.quantize(HUNDREDTH, rounding=ROUND_HALF_UP)


def billed_seconds(day: object, client: Client) -> int:
    """The seconds of a report day the client's ``bill`` rule counts."""
    if client.bill == "claude":
        return int(getattr(day, "claude", 0))
    if client.bill == "you":
        return int(getattr(day, "you", 0))
    return int(getattr(day, "seconds", 0))


def client_tasks(db: TaskDB, client: Client, settings: dict[str, TaskBilling]) -> list:
    """(task, its rate) of every task billed to ``client``: a task set to it (a fork set
    to it too: its time then leaves its parent's line, ``task_line``)."""
    from missioncache_report.data import shown_name

    out = []
    for task in db.list_tasks():
        own = settings.get(shown_name(task))
        if own is None or own.client != client.name:
            continue
        rate = own.rate if own.rate is not None else client.rate
        if rate is None:
            raise ValueError(
                f"no rate for task {shown_name(task)!r}: set one with `missioncache client "
                f"edit {client.name} --rate N` or `missioncache task set TASK --rate N`"
            )
        out.append((task, Decimal(rate)))
    return out


def task_line(
    db: TaskDB,
    task: Task,
    rate: Decimal,
    client: Client,
    period: Period,
    before: dict,
    now: float | None = None,
    settings: dict[str, TaskBilling] | None = None,
) -> TaskLine:
    """One task's line and its days, less ``before`` ((task, day) -> (hours, usd) already
    invoiced). A fork with its own billing in ``settings`` (read when None) is not in it."""
    from missioncache_billing.settings import task_billing
    from missioncache_report.calendar import task_days
    from missioncache_report.data import shown_name

    settings = task_billing() if settings is None else settings
    name = shown_name(task)
    line = TaskLine(name, task.jira_key, rate)
    apart = forks_apart(db, task, settings)
    line.forks = [shown_name(f) for f in db.forks_of(task.id) if f not in apart]
    days, _ = split_family(db, task_days(db, task, period.days, now), apart, now)
    for day in days:
        seconds = billed_seconds(day, client)
        old_hours, old_usd = before.get((name, day.day), (Decimal(0), Decimal(0)))
        hours = max(entry_hours(seconds, client) - old_hours, Decimal(0))
        usd = max(Decimal(str(day.cost_usd or 0)).quantize(Decimal("0.000001")) - old_usd, 0)
        if not hours and not usd:
            continue
        amount = to_cents(hours * rate, client.currency)
        line.days.append(
            DayLine(day.day, name, seconds, day.claude, day.you, hours, rate, amount, usd)
        )
    line.hours = sum((d.hours for d in line.days), Decimal(0))
    line.amount = to_cents(line.hours * rate, client.currency)
    return line


def forks_apart(db: TaskDB, task: Task, settings: dict[str, TaskBilling]) -> list:
    """The forks of ``task`` billed apart from it: those with billing of their own
    (``task set FORK --client/--rate``). The others bill inside its line."""
    from missioncache_report.data import shown_name

    return [fork for fork in db.forks_of(task.id) if shown_name(fork) in settings]


def split_family(
    db: TaskDB, parent_days: list, apart: list, now: float | None = None
) -> tuple[list, list[list]]:
    """``parent_days`` (a parent's report days: its family's union) as billed: (the
    parent's days less the forks in ``apart``, each of those forks' own days). The one
    split an invoice and a timesheet both use, so their hours per day agree."""
    from missioncache_report.calendar import task_days

    if not apart:
        return parent_days, []
    days = [row.day for row in parent_days]
    forks = [task_days(db, fork, days, now) for fork in apart]
    return less_forks(parent_days, forks), forks


def less_forks(days: list, forks: list[list]) -> list:
    """A parent's report days less its own-billed forks' days (each fork's report line):
    the family's union minus the forks' time, per day and per part, never below zero."""
    from dataclasses import replace

    if not forks:
        return days
    taken: dict = {}
    for fork_days in forks:
        for row in fork_days:
            seconds, claude, you, usd = taken.get(row.day, (0, 0, 0, 0.0))
            taken[row.day] = (
                seconds + row.seconds,
                claude + row.claude,
                you + row.you,
                usd + (row.cost_usd or 0.0),
            )
    out = []
    for day in days:
        seconds, claude, you, usd = taken.get(day.day, (0, 0, 0, 0.0))
        cost = None if day.cost_usd is None else max(day.cost_usd - usd, 0.0)
        out.append(
            replace(
                day,
                seconds=max(day.seconds - seconds, 0),
                claude=max(day.claude - claude, 0),
                you=max(day.you - you, 0),
                cost_usd=cost,
            )
        )
    return out


def ai_amount(usd: Decimal, client: Client) -> Decimal | None:
    """The AI usage line's amount in the client's currency; None when not billed."""
    if client.ai_cost == "none" or not usd:
        return None
    markup = Decimal(client.ai_cost[7:]) if client.ai_cost.startswith("markup:") else Decimal(0)
    if client.currency == "USD":
        exchange = Decimal(1)
    elif client.usd_rate is None:
        raise ValueError(
            f"client {client.name!r} is billed AI cost in {client.currency}: say what 1 USD is "
            f"with `missioncache client edit {client.name} --usd-rate N`"
        )
    else:
        exchange = Decimal(client.usd_rate)
    return to_cents(usd * (1 + markup / 100) * exchange, client.currency)


def tax_amount(subtotal: Decimal, percent: Decimal, currency: str) -> Decimal:
    return to_cents(subtotal * percent / 100, currency)


def billable_total(db: TaskDB, task: Task, period: str) -> tuple | None:
    """(hours, amount, currency, client) of ``task`` over a ``time`` period (today, week,
    month, all), by the same rule as an invoice; None when the task has no client or rate."""
    import datetime as dt

    from missioncache_billing.periods import Period, parse_period
    from missioncache_billing.settings import clients, task_billing
    from missioncache_report.data import shown_name

    settings = task_billing()
    own = settings.get(shown_name(task))
    client = clients().get(own.client) if own else None
    if own is None or client is None:
        return None
    rate = own.rate if own.rate is not None else client.rate
    if rate is None:
        return None
    if period == "all":
        row = db.conn.execute("SELECT MIN(epoch) FROM heartbeats WHERE task_id = ?", (task.id,))
        first = row.fetchone()[0]
        if first is None:
            return None
        today = dt.date.today()
        days = Period(dt.date.fromtimestamp(first), today, "all time")
    else:
        days = parse_period(period)
    line = task_line(db, task, Decimal(rate), client, days, {}, None, settings)
    return line.hours, line.amount, client.currency, client.name


def month_billing(db: TaskDB, task: Task, now: float | None = None) -> dict | None:
    """``{client, hours, amount}`` of ``task`` this calendar month (amount formatted), for
    the dashboard; None without a client and a rate. A fork's time is in its parent's."""
    import datetime as dt
    import time

    from missioncache_billing.money import format_money
    from missioncache_billing.periods import parse_period
    from missioncache_billing.settings import clients, task_billing
    from missioncache_report.data import shown_name

    settings = task_billing()
    own = settings.get(shown_name(task))
    client = clients().get(own.client) if own else None
    if own is None or client is None:
        return None
    rate = own.rate if own.rate is not None else client.rate
    now = time.time() if now is None else now
    month = parse_period(dt.date.fromtimestamp(now).strftime("%Y-%m"), now)
    if rate is None:
        return {"client": client.name, "hours": None, "amount": None}
    line = task_line(db, task, Decimal(rate), client, month, {}, now, settings)
    return {
        "client": client.name,
        "hours": str(line.hours),
        "amount": format_money(line.amount, client.currency),
    }
