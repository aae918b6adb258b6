"""Billing end to end through the BUILT plugin's command line: a week of turns with a
known truth for two clients (different rates, currencies, rounding rules and tax), every
invoice line's hours and amount to the cent, the timesheets' import columns, an invoice
that stays as issued when a late turn arrives, numbers never reused, and bad input that
changes nothing."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import time

import pytest

from missioncache_harness.worklog import record_work

WEEK = "2025-W10"


def _at(day: int, hour: int, minute: int = 0) -> float:
    return time.mktime((2025, 3, day, hour, minute, 0, 0, 0, -1))


def _lines(document: dict) -> dict:
    return {
        line["task"]: (line["hours"], line["rate"], line["amount"]) for line in document["lines"]
    }


def test_each_line_hours_and_amount_to_the_cent(billing):
    acme = json.loads(billing("invoice", "Acme", "--period", WEEK, "--format", "json"))
    assert _lines(acme) == {"alpha": ("1.25", "120", "150.00"), "beta": ("1.25", "150", "187.50")}
    assert (acme["subtotal"], acme["tax_rate"], acme["tax"], acme["total"]) == (
        "337.50",
        "20",
        "67.50",
        "405.00",
    )
    assert acme["currency"] == "EUR" and acme["hours"] == "2.50"
    days = {(d["task"], d["day"]): d["hours"] for d in acme["days"]}
    assert days == {
        ("alpha", "2025-03-03"): "1.00",
        ("alpha", "2025-03-05"): "0.25",
        ("beta", "2025-03-04"): "1.25",
    }
    globex = json.loads(
        billing(
            "invoice", "Globex", "--from", "2025-03-03", "--to", "2025-03-09", "--format", "json"
        )
    )
    assert _lines(globex) == {"gamma": ("1.10", "95.50", "105.05")}
    assert (globex["subtotal"], globex["tax"], globex["total"]) == ("105.05", "0.00", "105.05")
    assert acme["number"] != globex["number"]


def test_every_format_shows_the_same_issued_invoice(billing):
    first = json.loads(billing("invoice", "Acme", "--period", WEEK, "--format", "json"))
    page = billing("invoice", "Acme", "--period", WEEK, "--format", "html")
    assert first["number"] in page and "€405.00" in page and "€187.50" in page
    assert "Ada Lovelace" in page and "Time behind this invoice" in page
    rows = list(
        csv.reader(io.StringIO(billing("invoice", "Acme", "--period", WEEK, "--format", "csv")))
    )
    assert rows[0] == [
        "invoice",
        "date",
        "task",
        "reference",
        "hours",
        "rate",
        "amount",
        "currency",
    ]
    assert [rows[-1][2], rows[-1][6]] == ["total", "405.00"]
    assert {r[0] for r in rows[1:]} == {first["number"]}  # asked again: the same invoice
    listed = billing("invoice", "list")
    assert listed.count(first["number"]) == 1 and "€405.00" in listed


def test_lines_per_day(billing):
    found = json.loads(
        billing(
            "invoice", "Globex", "--period", WEEK, "--format", "json", "--lines", "day", "--draft"
        )
    )
    assert [(d["day"], d["hours"], d["amount"]) for d in found["days"]] == [
        ("2025-03-03", "0.60", "57.30"),
        ("2025-03-06", "0.50", "47.75"),
    ]
    assert found["total"] == "105.05" and found["number"] is None


def test_an_issued_invoice_stays_as_issued_after_a_late_turn(billing, mc_env):
    issued = json.loads(billing("invoice", "Acme", "--period", WEEK, "--format", "json"))
    # a turn of Friday arrives late (another machine synced it, say): 20 minutes of alpha
    record_work(mc_env.data_root / "tasks.db", _find(mc_env, "alpha"), _at(7, 9), [(1200, 0)])
    again = json.loads(billing("invoice", "show", issued["number"], "--format", "json"))
    assert again == issued
    late = json.loads(billing("invoice", "Acme", "--period", WEEK, "--format", "json"))
    assert late["number"] != issued["number"]
    assert _lines(late) == {"alpha": ("0.50", "120", "60.00")}  # 20m -> 0.50 h, the difference
    assert late["total"] == "72.00"


def _find(mc_env, name: str) -> int:
    import sqlite3

    conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"))
    try:
        return int(conn.execute("SELECT id FROM tasks WHERE name = ?", (name,)).fetchone()[0])
    finally:
        conn.close()


def test_numbers_increase_and_are_never_reused(billing):
    one = json.loads(billing("invoice", "Acme", "--period", WEEK, "--format", "json"))
    two = json.loads(billing("invoice", "Globex", "--period", WEEK, "--format", "json"))
    prefix = one["number"][:-4]
    assert two["number"] == prefix + f"{int(one['number'][-4:]) + 1:04d}"
    error = billing(
        "invoice",
        "Globex",
        "--period",
        "2025-03-03",
        "--format",
        "json",
        "--number",
        one["number"],
        expect=1,
    )
    assert error.count("\n") == 1 and "already used" in error


def _tree(mc_env) -> str:
    digest = hashlib.sha256()
    for path in sorted((mc_env.data_root / "events").rglob("*")):
        if path.is_file():
            digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("invoice", "Initech", "--period", WEEK), "unknown client 'Initech'"),
        (("client", "edit", "Acme", "--rate", "-5"), "cannot be negative"),
        (("client", "edit", "Acme", "--rate", "lots"), "must be a number"),
        (("client", "add", "Hooli", "--currency", "XBT"), "unknown currency 'XBT'"),
        (("task", "set", "alpha", "--client", "Initech"), "unknown client 'Initech'"),
        (("task", "set", "alpha", "--rate", "-1"), "cannot be negative"),
        (("invoice", "Acme", "--period", "2025-01"), "nothing to bill Acme"),
        (("invoice", "Acme", "--period", "2025-13"), "invalid month"),
        (("invoice", "Acme"), "say which period to bill"),
        (("invoice", "Acme", "--period", WEEK, "--number", "../x"), "invalid invoice number"),
        (("client", "add", "list"), "a word of the command line"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(billing, mc_env, args, says):
    billing("invoice", "Acme", "--period", WEEK, "--format", "json")  # one issued already
    before = _tree(mc_env)
    error = billing(*args, expect=1)
    assert says in error and error.count("\n") == 1, error
    assert _tree(mc_env) == before
    assert billing("client", "show", "Acme").splitlines()[1] == "rate: 120"


def test_timesheets_in_each_tools_import_columns(billing):
    harvest = list(
        csv.reader(
            io.StringIO(
                billing("report", "--format", "timesheet", "--for", "harvest", "--period", WEEK)
            )
        )
    )
    assert harvest[0] == [
        "Date",
        "Client",
        "Project",
        "Task",
        "Notes",
        "Hours",
        "First name",
        "Last name",
    ]
    assert [
        "2025-03-04",
        "Acme",
        "beta",
        "Development",
        "Work on beta",
        "1.25",
        "Ada",
        "Lovelace",
    ] in harvest
    gamma = ["2025-03-03", "Globex", "gamma", "Development", "Work on gamma", "0.60", "Ada"]
    assert [*gamma, "Lovelace"] in harvest
    assert not any(r[0] == "2025-03-08" for r in harvest)  # 100 s rounds to nothing
    toggl = list(
        csv.reader(
            io.StringIO(
                billing("report", "--format", "timesheet", "--for", "toggl", "--period", WEEK)
            )
        )
    )
    assert toggl[0] == [
        "Email",
        "Client",
        "Project",
        "Description",
        "Billable",
        "Start date",
        "Start time",
        "Duration",
        "Tags",
    ]
    row = next(r for r in toggl if r[2] == "alpha" and r[5] == "2025-03-03")
    assert row[0] == "ada@example.com" and row[1] == "Acme" and row[6] == "10:00:00"
    assert row[7] == "01:00:00"  # 50 minutes, rounded up to the quarter hour
    clockify = list(
        csv.reader(
            io.StringIO(
                billing("report", "--format", "timesheet", "--for", "clockify", "--period", WEEK)
            )
        )
    )
    assert clockify[0] == [
        "Project",
        "Client",
        "Description",
        "Task",
        "Email",
        "Tags",
        "Billable",
        "Start date",
        "Start time",
        "Duration",
    ]
    row = next(r for r in clockify if r[0] == "gamma" and r[7] == "2025-03-06")
    assert (row[1], row[4], row[9]) == ("Globex", "ada@example.com", "0.50")


def test_time_shows_the_billable_amount(billing):
    out = billing("time", "beta")
    assert "billable 1.25 h = €187.50 (Acme)" in out


def test_description_is_what_was_worked_on_that_day(billing, mc_env):
    context = mc_env.data_root / "active" / "alpha" / "alpha-context.md"
    text = context.read_text(encoding="utf-8")
    entry = "### 2025-03-03 11:20\n- Wired the checkout form to the new API\n\n"
    context.write_text(text.replace("## Recent Changes\n", "## Recent Changes\n\n" + entry, 1))
    rows = list(
        csv.DictReader(
            io.StringIO(
                billing("report", "--format", "timesheet", "--for", "toggl", "--period", WEEK)
            )
        )
    )
    said = {(r["Project"], r["Start date"]): r["Description"] for r in rows}
    assert said[("alpha", "2025-03-03")] == "Wired the checkout form to the new API"
    assert said[("alpha", "2025-03-05")] == "Work on alpha"  # nothing saved that day


def test_no_email_is_said_not_left_empty(billing, mc_env, mc_plugin, tmp_path):
    billing("billing", "setup", "--email", "")
    env = dict(
        mc_env.with_lib(mc_plugin),
        GIT_CONFIG_GLOBAL=str(tmp_path / "none"),
        GIT_CONFIG_NOSYSTEM="1",
    )
    env.pop("MISSIONCACHE_TIMESHEET_EMAIL", None)
    done = mc_env.run(
        [*_cli(mc_plugin), "report", "--format", "timesheet", "--for", "toggl", "--period", WEEK],
        env=env,
        cwd=str(tmp_path),
    )
    assert done.returncode == 1 and "no email for the timesheet" in done.stderr
    assert "billing setup --email" in done.stderr and done.stderr.count("\n") == 1
    plain = mc_env.run(
        [*_cli(mc_plugin), "report", "--format", "timesheet", "--period", WEEK],
        env=env,
        cwd=str(tmp_path),
    )
    assert plain.returncode == 0 and "the Email column is empty" in plain.stderr


def _cli(mc_plugin) -> list:
    from missioncache_harness.workspace import python3

    return [python3(), "-m", "missioncache_cli"]


def test_a_fork_bills_with_its_parent_listed_under_it(billing, mc_env):
    billing("fork", "alpha", "alpha-spike")
    fork = _find(mc_env, "alpha-spike")
    record_work(mc_env.data_root / "tasks.db", fork, _at(5, 9), [(1800, 0)])  # Wed, 30m
    found = json.loads(billing("invoice", "Acme", "--period", WEEK, "--format", "json"))
    alpha = next(line for line in found["lines"] if line["task"] == "alpha")
    assert alpha["forks"] == ["alpha-spike"]
    assert alpha["hours"] == "1.75"  # Mon 1.00; Wed 10m + the fork's 30m = 40m -> 0.75
    assert [line["task"] for line in found["lines"]] == ["alpha", "beta"]


def test_a_fork_with_its_own_rate_is_its_own_line_and_leaves_its_parents(billing, mc_env):
    billing("fork", "alpha", "alpha-spike")
    fork = _find(mc_env, "alpha-spike")
    # Mon: alpha works 10:00-10:50; the fork 10:40-11:10, so the family's union is 70m
    record_work(mc_env.data_root / "tasks.db", fork, _at(3, 10, 40), [(1800, 0)])
    billing("task", "set", "alpha-spike", "--client", "Acme", "--rate", "200")
    found = json.loads(billing("invoice", "Acme", "--period", WEEK, "--format", "json"))
    assert _lines(found) == {
        "alpha": ("1.00", "120", "120.00"),  # Mon 70m - the fork's 30m = 40m -> 0.75; Wed 0.25
        "alpha-spike": ("0.50", "200", "100.00"),  # its own 30m, at its own rate
        "beta": ("1.25", "150", "187.50"),
    }
    assert next(line for line in found["lines"] if line["task"] == "alpha")["forks"] == []
    monday = {d["task"]: d for d in found["days"] if d["day"] == "2025-03-03"}
    assert monday["alpha"]["seconds"] + monday["alpha-spike"]["seconds"] == 70 * 60
    assert (found["subtotal"], found["total"]) == ("407.50", "489.00")


def test_a_fork_set_to_another_client_leaves_its_parents_line(billing, mc_env):
    billing("fork", "alpha", "alpha-spike")
    fork = _find(mc_env, "alpha-spike")
    record_work(mc_env.data_root / "tasks.db", fork, _at(3, 10, 40), [(1800, 0)])
    billing("task", "set", "alpha-spike", "--client", "Globex")
    acme = json.loads(billing("invoice", "Acme", "--period", WEEK, "--format", "json"))
    assert _lines(acme)["alpha"] == ("1.00", "120", "120.00")
    globex = json.loads(billing("invoice", "Globex", "--period", WEEK, "--format", "json"))
    assert _lines(globex)["alpha-spike"] == ("0.50", "95.50", "47.75")  # 30m, 6m nearest


def test_ai_usage_is_passed_through_with_the_markup(billing, mc_env, mc_execute):
    from decimal import ROUND_HALF_UP, Decimal

    gamma = _find(mc_env, "gamma")
    mc_execute(
        "INSERT INTO usage(session_id, message_key, model, epoch, input_tokens, output_tokens,"
        " cache_5m_tokens, cache_1h_tokens, cache_read_tokens, task_id)"
        " VALUES ('s', 'k:', 'claude-sonnet-4-5', ?, 2000000, 100000, 0, 0, 0, ?)",
        (_at(3, 11) + 60, gamma),
    )
    report = json.loads(billing("report", "--period", WEEK, "--format", "json"))
    usd = Decimal(str(next(t for t in report["tasks"] if t["name"] == "gamma")["cost_usd"]))
    assert usd > 1  # the price table knows the model
    billing("client", "edit", "Acme", "--ai-cost", "at-cost")
    billing("task", "set", "gamma", "--client", "Acme")
    error = billing("invoice", "Acme", "--period", WEEK, "--draft", expect=1)
    assert "--usd-rate" in error and error.count("\n") == 1
    billing("client", "edit", "Acme", "--usd-rate", "0.9")
    draft = json.loads(billing("invoice", "Acme", "--period", WEEK, "--draft", "--format", "json"))
    assert draft["ai"]["amount"] == str(
        (usd * Decimal("0.9")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    )
    billing("task", "set", "gamma", "--client", "Globex")
    billing("client", "edit", "Globex", "--ai-cost", "markup:15")
    found = json.loads(billing("invoice", "Globex", "--period", WEEK, "--format", "json"))
    expected = (usd * Decimal("1.15")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    assert found["ai"]["amount"] == str(expected)
    assert Decimal(found["total"]) == Decimal("105.05") + expected
    # moved to another client after it was invoiced, gamma's week is not billed twice: only
    # what Acme's rounding (15m up) adds over what Globex was billed (6m nearest) is left:
    # Mon 0.75 - 0.60, Thu 0.75 - 0.50, Sat 0.25 (100 s, nothing billed) = 0.65 h
    billing("task", "set", "gamma", "--client", "Acme")
    again = json.loads(billing("invoice", "Acme", "--period", WEEK, "--draft", "--format", "json"))
    assert _lines(again)["gamma"] == ("0.65", "120", "78.00") and again["ai"] is None


def test_a_linked_folder_is_neither_written_nor_read(billing, mc_env, tmp_path):
    events = mc_env.data_root / "events"
    mine = next(p for p in events.iterdir() if (p / "billing").is_dir())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (mine / "billing" / "invoices").symlink_to(elsewhere, target_is_directory=True)
    error = billing("invoice", "Acme", "--period", WEEK, expect=1)
    assert "symbolic link" in error and error.count("\n") == 1
    assert list(elsewhere.iterdir()) == []
    other = events / "00112233aabbccdd" / "billing"
    other.mkdir(parents=True)
    (elsewhere / "X-0001.json").write_text(json.dumps({"number": "X-0001"}))
    (other / "invoices").symlink_to(elsewhere, target_is_directory=True)
    assert "X-0001" not in billing("invoice", "list")
