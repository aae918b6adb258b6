"""Clients, rates and the sender's details: where they live and how they are read.

WHY under ``events/<machine id>/billing/``: sync carries ``active/`` and ``events/`` only
(docs/sync.md), and a folder only its own machine writes never conflicts. Each machine keeps
one ``settings.json`` of records stamped with the time they changed; the settings in force
are every machine's records folded together, the newest change of each winning (a removal
is a record too). So the same client and rate hold on every machine once they synced, and
nothing is ever kept in the plugin folder.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import asdict, dataclass, fields
from decimal import Decimal

from missioncache_billing.money import currency_code, parse_decimal
from missioncache_state.atomic import read_json_object, write_json_atomic
from missioncache_state.locations import data_root

BILLING_DIR = "billing"
SETTINGS_FILE = "settings.json"
ROUNDINGS = {"none": 0, "6m": 360, "15m": 900, "30m": 1800}
ROUND_MODES = ("up", "nearest")
BILL_WHAT = ("total", "claude", "you")
_NAME = re.compile(r"^[^\x00-\x1f\x7f/\\]{1,80}$")
_MACHINE = re.compile(r"^[0-9a-f]{8,64}$")


@dataclass
class Client:
    """A client: what its time costs and how it is rounded and billed (docs/billing.md)."""

    name: str
    rate: str | None = None  # a decimal as text, per hour; None: no rate yet
    currency: str = "EUR"
    rounding: str = "none"  # none, 6m, 15m, 30m: per task per day
    round: str = "up"  # up or nearest
    bill: str = "total"  # total (Claude's and yours), claude, you
    ai_cost: str = "none"  # none, at-cost, markup:N (percent)
    usd_rate: str | None = None  # 1 USD in the client's currency, for the AI usage line
    tax: str | None = None  # percent; None: the sender's default
    address: str = ""
    tax_id: str = ""
    email: str = ""

    @property
    def rate_value(self) -> Decimal | None:
        return None if self.rate is None else Decimal(self.rate)


@dataclass
class Sender:
    """Who sends the invoices (``missioncache billing setup``)."""

    name: str = ""
    address: str = ""
    tax_id: str = ""
    email: str = ""
    terms_days: int = 30
    tax: str = "0"  # default tax rate, percent
    prefix: str = ""  # invoice numbers: <prefix><NNNN>; empty: this machine's id, 4 chars
    payment: str = ""  # bank details or how to pay, printed under the total


@dataclass
class TaskBilling:
    """A task's own client and rate (its rate wins over the client's)."""

    client: str
    rate: str | None = None


def billing_dir(machine: str) -> str:
    return os.path.join(data_root(), "events", machine, BILLING_DIR)


def is_linked(path: str) -> bool:
    """True when ``path`` or a folder between the data root and it is a symbolic link:
    a synced tree could carry one, and billing never follows a link it did not make."""
    root = os.path.normpath(data_root())
    current = os.path.normpath(path)
    while current.startswith(root + os.sep):
        if os.path.islink(current):
            return True
        current = os.path.dirname(current)
    return False


def own_folder(*parts: str) -> str:
    """This machine's billing folder (or a folder in it), made when missing; refused when
    a symbolic link stands anywhere on the way."""
    path = os.path.join(billing_dir(this_machine()), *parts)
    if is_linked(path):
        raise ValueError(f"{path} goes through a symbolic link: billing writes no file there")
    os.makedirs(path, exist_ok=True)
    return path


def this_machine() -> str:
    from missioncache_sync import machine_id

    return machine_id()


def machines() -> list[str]:
    """Every machine with an event folder (this one first), ids checked before use."""
    me = this_machine()
    try:
        found = sorted(os.listdir(os.path.join(data_root(), "events")))
    except OSError:
        found = []
    return [me, *(m for m in found if _MACHINE.match(m) and m != me)]


def check_name(name: object, what: str = "client name") -> str:
    text = str(name).strip()
    if not _NAME.match(text):
        raise ValueError(f"invalid {what} {name!r}: 1 to 80 characters, no slash or control")
    return text


def check_rounding(value: str) -> str:
    if value not in ROUNDINGS:
        raise ValueError(f"invalid rounding {value!r}: use one of {', '.join(ROUNDINGS)}")
    return value


def check_ai_cost(value: str) -> str:
    """``none``, ``at-cost`` or ``markup:N`` (N percent, a decimal)."""
    if value in ("none", "at-cost"):
        return value
    if value.startswith("markup:"):
        return f"markup:{parse_decimal(value[7:], 'the AI cost markup', 2)}"
    raise ValueError(f"invalid AI cost rule {value!r}: use none, at-cost or markup:15")


def check_client(client: Client) -> Client:
    """Every field parsed once: a client that passes is safe to bill with."""
    client.name = check_name(client.name)
    if client.rate is not None:
        client.rate = str(parse_decimal(client.rate, "the rate"))
    client.currency = currency_code(client.currency)
    check_rounding(client.rounding)
    if client.round not in ROUND_MODES:
        raise ValueError(f"invalid --round {client.round!r}: use up or nearest")
    if client.bill not in BILL_WHAT:
        raise ValueError(f"invalid --bill {client.bill!r}: use total, claude or you")
    client.ai_cost = check_ai_cost(client.ai_cost)
    if client.usd_rate is not None:
        client.usd_rate = str(parse_decimal(client.usd_rate, "the USD exchange rate", 6))
    if client.tax is not None:
        client.tax = str(parse_decimal(client.tax, "the tax rate", 3))
    return client


# -- the stored records -------------------------------------------------------------------


def _own_path() -> str:
    return os.path.join(own_folder(), SETTINGS_FILE)


def _load(machine: str) -> dict:
    path = os.path.join(billing_dir(machine), SETTINGS_FILE)
    if is_linked(path):
        return {}
    found = read_json_object(path)
    return found if isinstance(found, dict) else {}


def _write(section: str, key: str, record: dict) -> None:
    """Stamp and store one record of this machine's file (clients, tasks or sender)."""
    from missioncache_state.lock import FileLock

    path = _own_path()
    with FileLock(path):
        data = _load(this_machine())
        # a clock behind another machine's still makes this the newest change
        record = dict(record, changed=max(time.time(), max(_stamps(), default=0.0) + 0.001))
        data.setdefault(section, {})[key] = record
        write_json_atomic(path, data)


def _stamps() -> list[float]:
    out = []
    for machine in machines():
        for section in _load(machine).values():
            if isinstance(section, dict):
                out += [r.get("changed", 0) for r in section.values() if isinstance(r, dict)]
    return [s for s in out if isinstance(s, (int, float))]


def _folded(section: str) -> dict[str, dict]:
    """The newest record of each key across every machine; removed ones left out."""
    best: dict[str, dict] = {}
    for machine in machines():
        records = _load(machine).get(section)
        if not isinstance(records, dict):
            continue
        for key, record in records.items():
            if not isinstance(record, dict) or not isinstance(record.get("changed"), (int, float)):
                continue
            if key not in best or record["changed"] > best[key]["changed"]:
                best[key] = record
    return {k: r for k, r in best.items() if not r.get("removed")}


def _from_record(kind: type, record: dict):  # type: ignore[no-untyped-def]
    names = {f.name for f in fields(kind)}
    return kind(**{k: v for k, v in record.items() if k in names})


def clients() -> dict[str, Client]:
    """The clients in force, by name (each one checked: a damaged record is skipped)."""
    out = {}
    for key, record in sorted(_folded("clients").items()):
        try:
            out[key] = check_client(_from_record(Client, record))
        except (TypeError, ValueError):
            continue
    return out


def client_named(name: str) -> Client:
    found = clients()
    if name not in found:
        known = ", ".join(found) or "none yet: add one with `missioncache client add NAME`"
        raise ValueError(f"unknown client {name!r} (clients: {known})")
    return found[name]


def save_client(client: Client) -> None:
    _write("clients", client.name, asdict(check_client(client)))


def remove_client(name: str) -> None:
    client_named(name)
    users = [task for task, billing in task_billing().items() if billing.client == name]
    if users:
        raise ValueError(
            f"client {name!r} is still set on {', '.join(users)}: "
            f"`missioncache task set TASK --client OTHER` first"
        )
    _write("clients", name, {"removed": True})


def task_billing() -> dict[str, TaskBilling]:
    """Each task's own billing settings, by task name."""
    return {k: _from_record(TaskBilling, r) for k, r in _folded("tasks").items()}


def set_task(task: str, client: str | None, rate: str | None) -> TaskBilling:
    """Set a task's client (``none`` takes it off) and its own rate (``none``: the
    client's)."""
    current = task_billing().get(task)
    if client == "none":
        _write("tasks", task, {"removed": True})
        return TaskBilling(client="")
    name = client if client is not None else (current.client if current else None)
    if name is None:
        raise ValueError(f"task {task!r} has no client yet: add --client NAME")
    client_named(name)
    if rate == "none":
        own = None
    elif rate is not None:
        own = str(parse_decimal(rate, "the rate"))
    else:
        own = current.rate if current and current.client == name else None
    billing = TaskBilling(client=name, rate=own)
    _write("tasks", task, asdict(billing))
    return billing


def sender() -> Sender:
    found = _folded("sender").get("me")
    try:
        return _from_record(Sender, found) if found else Sender()
    except TypeError:
        return Sender()


def save_sender(value: Sender) -> None:
    parse_decimal(value.tax, "the tax rate", 3)
    if value.terms_days < 0 or value.terms_days > 365:
        raise ValueError("payment terms must be 0 to 365 days")
    if value.prefix and not re.match(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,19}$", value.prefix):
        raise ValueError(f"invalid number prefix {value.prefix!r}: letters, digits, _ and -")
    _write("sender", "me", asdict(value))
