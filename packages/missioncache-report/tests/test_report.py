"""``missioncache report``: the BUILT plugin's command line on a tasks.db with known
work sessions, in every format; and ``/missioncache:report``'s entry."""

from __future__ import annotations

import csv
import datetime
import io
import json
import time

import pytest

from missioncache_harness.worklog import record_work
from missioncache_harness.workspace import python3


def _local(days_ago: int, hour: int) -> float:
    t = time.localtime()
    return time.mktime((t.tm_year, t.tm_mon, t.tm_mday - days_ago, hour, 0, 0, 0, 0, -1))


@pytest.fixture
def work(mc_env, mc_task, mc_make_task):
    """demo-task: 1h today from 00:01 (two turns, 4 minutes of yours between them: 56m
    Claude, 4m you), 30m of Claude three days ago, 2h forty days ago; other: 45m
    yesterday. Recorded as the hooks record them (a heartbeat per prompt, a turn end
    per Stop)."""
    other = mc_make_task("other")
    db = mc_env.data_root / "tasks.db"
    record_work(db, mc_task.id, _local(0, 0) + 60, [(1680, 240), (1680, 0)])
    record_work(db, mc_task.id, _local(3, 10), [(1800, 0)])
    record_work(db, mc_task.id, _local(40, 10), [(7200, 0)])
    record_work(db, other.id, _local(1, 15), [(2700, 0)])
    return mc_task, other


@pytest.fixture
def report(mc_plugin, mc_env):
    def run(*args, expect=0):
        env = dict(mc_env.env, PYTHONPATH=str(mc_plugin / "lib"))
        done = mc_env.run([python3(), "-m", "missioncache_cli", "report", *args], env=env)
        assert done.returncode == expect, done.stderr
        assert "Traceback" not in done.stderr
        return done.stdout if expect == 0 else done.stderr

    return run


def _row(text: str, name: str) -> list:
    return next(line for line in text.splitlines() if line.startswith(f"{name} ")).split()


def test_text_week_per_task_and_per_day(report, work):
    text = report("--period", "week")
    assert text.startswith("MissionCache time report (week, the last 7 days: ")
    lines = text.splitlines()
    assert lines[2].split() == [
        "task",
        "total",
        "Claude",
        "you",
        "hours",
        "sessions",
        "compactions",
        "progress",
        "last",
        "activity",
        "tokens",
        "cost",
    ]
    # 1h today + 30m three days ago; Claude 56m + 30m, you 4m; 3 work sessions.
    assert _row(text, "demo-task")[1:10] == [
        "1h", "30m", "1h", "26m", "4m", "1.50", "3", "0", "-"
    ]  # fmt: skip
    assert _row(text, "other")[1:6] == ["45m", "45m", "0s", "0.75", "1"]
    assert lines[4].startswith("demo-task ")  # most time first
    assert _row(text, "total")[1:8] == ["2h", "15m", "2h", "11m", "4m", "2.25", "4"]
    today = time.strftime("%Y-%m-%d")
    day = next(line.split() for line in lines if line.startswith(today))
    assert day[1:6] == ["demo-task", "1h", "56m", "4m", "2"] and day[-1] == "1.00"


def test_periods_bound_what_is_counted(report, work):
    today = report("--period", "today")
    assert _row(today, "demo-task")[1:4] == ["1h", "56m", "4m"] and "other" not in today
    every = report("--period", "all")
    assert _row(every, "demo-task")[1:3] == ["3h", "30m"]
    month = json.loads(report("--period", "month", "--format", "json"))
    # month = today and the 29 days before (as `missioncache time` counts it): the
    # work forty days ago is out, the work three days ago is in.
    assert month["start"] == time.strftime("%Y-%m-%d", time.localtime(_local(29, 12)))
    assert [t["seconds"] for t in month["tasks"] if t["name"] == "demo-task"] == [5400]


def test_the_days_add_up_to_the_total_and_agree_with_time(report, work, mc_cli):
    data = json.loads(report("--period", "all", "--format", "json"))
    for task in data["tasks"]:
        days = [d for d in data["days"] if d["task"] == task["name"]]
        assert sum(d["seconds"] for d in days) == task["seconds"]
        assert sum(d["claude"] for d in days) == task["claude"]
        assert sum(d["you"] for d in days) == task["you"]
    assert "demo-task: 3h 30m" in mc_cli("time", "demo-task")


def test_csv_is_a_timesheet(report, work):
    rows = list(csv.DictReader(io.StringIO(report("--format", "csv"))))
    assert [r["task"] for r in rows].count("demo-task") == 2
    today = next(r for r in rows if r["date"] == time.strftime("%Y-%m-%d"))
    assert today == {
        "date": today["date"],
        "task": "demo-task",
        "status": "active",
        "seconds": "3600",
        "hours": "1.00",
        "duration": "1h",
        "claude_seconds": "3360",
        "you_seconds": "240",
        "sessions": "2",
        "input_tokens": "0",  # no transcript in this history: no tokens, and they cost $0
        "output_tokens": "0",
        "cache_write_tokens": "0",
        "cache_read_tokens": "0",
        "cost_usd": "0.0000",
        "jira": "",
    }
    assert round(sum(float(r["hours"]) for r in rows), 2) == 2.25


def test_json_has_tasks_days_and_totals(report, work):
    data = json.loads(report("--format", "json", "--period", "all"))
    assert data["seconds"] == 3600 + 1800 + 7200 + 2700
    names = {t["name"]: t for t in data["tasks"]}
    assert names["demo-task"]["claude"] == 3360 + 1800 + 7200 and names["demo-task"]["you"] == 240
    assert names["other"]["seconds"] == 2700
    assert len(data["days"]) == 4


def test_html_to_file_is_self_contained(report, work, tmp_path):
    out = tmp_path / "r.html"
    assert "wrote html report" in report("--format", "html", "-o", str(out))
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "demo-task" in page
    assert "<script" not in page and "src=" not in page and "href=" not in page


def test_progress_comes_from_the_tasks_file(report, work, mc_task_dir):
    (mc_task_dir / "demo-task-tasks.md").write_text("- [x] 1. a\n- [ ] 2. b\n- [x] 3. c\n")
    demo = next(line for line in report().splitlines() if line.startswith("demo-task "))
    assert "2/3" in demo


def test_one_task_and_an_empty_period(report, work, mc_make_task):
    mc_make_task("idle")
    assert "No time recorded" not in report("--task", "idle")
    assert "idle" in report("--task", "idle")
    assert "no task named 'nope'" in report("--task", "nope", expect=1)


def test_no_work_at_all(report, mc_task):
    assert "No time recorded in this period." in report()


def test_bad_arguments_are_one_line(report, work):
    assert "invalid choice" in report("--period", "year", expect=1)


def test_slash_report_entry(mc_plugin, mc_env, work):
    cmd = [python3(), str(mc_plugin / "slash" / "slash.py"), "report"]
    done = mc_env.run([*cmd, "today"])
    assert done.returncode == 0 and "(today: " in done.stdout and "demo-task" in done.stdout
    done = mc_env.run([*cmd, ""])
    assert done.returncode == 0 and "(week, the last 7 days: " in done.stdout
    done = mc_env.run([*cmd, "decade"])
    assert done.returncode == 0 and "MISSIONCACHE ERROR" in done.stdout


def test_compactions_in_the_period_are_counted(report, work, mc_task_dir):
    records = mc_task_dir / ".compactions"
    records.mkdir()
    for epoch in (_local(2, 11), _local(1, 9), _local(60, 9)):  # two this week, one long ago
        (records / f"{int(epoch * 1_000_000):016d}-0a0b0c0d.json").write_text("{}")
    assert _row(report("--period", "week"), "demo-task")[8] == "2"
    data = json.loads(report("--period", "all", "--format", "json"))
    assert [t["compactions"] for t in data["tasks"] if t["name"] == "demo-task"] == [3]


def _days_of(data: dict, name: str) -> dict:
    return {d["day"]: d for d in data["days"] if d["task"] == name}


@pytest.mark.parametrize(
    ("start_hour", "minute", "seconds"),
    [(23, 50, 1800), (17, 0, 7 * 3600 + 1200)],  # 23:50-00:20; a 7h20m turn to 00:20
)
def test_a_turn_across_midnight_gives_both_days_their_minutes(
    report, mc_env, mc_task, mc_cli, start_hour, minute, seconds
):
    """The day after has no prompt of its own: its minutes used to be missing from the
    per-day table (the days no longer added up to the task's total)."""
    start = _local(2, start_hour) + minute * 60
    record_work(mc_env.data_root / "tasks.db", mc_task.id, start, [(seconds, 0)])
    midnight = _local(1, 0)
    data = json.loads(report("--period", "week", "--format", "json"))
    days = _days_of(data, "demo-task")
    before, after = (time.strftime("%Y-%m-%d", time.localtime(e)) for e in (start, midnight))
    assert days[before]["seconds"] == int(midnight - start)
    assert days[after]["seconds"] == int(start + seconds - midnight)
    [task] = [t for t in data["tasks"] if t["name"] == "demo-task"]
    assert sum(d["seconds"] for d in days.values()) == task["seconds"] == seconds
    assert sum(d["claude"] for d in days.values()) == task["claude"] == seconds
    total = f"demo-task: {mc_cli('time', 'demo-task', '--period', 'week').split(': ')[1]}"
    assert total.startswith(f"demo-task: {_duration(seconds)} ")


def test_the_report_total_is_the_sum_of_its_days_at_the_period_start(report, mc_env, mc_task):
    """A turn from before the period into it: only its part inside the period counts,
    on the period's first day, and the total says the same."""
    start = _local(6, 0) - 600  # 23:50 the night before the week starts, to 00:20
    record_work(mc_env.data_root / "tasks.db", mc_task.id, start, [(1800, 0)])
    data = json.loads(report("--period", "week", "--format", "json"))
    days = _days_of(data, "demo-task")
    assert [d["seconds"] for d in days.values()] == [1200]
    assert data["seconds"] == 1200


def _duration(seconds: int) -> str:
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours}h {minutes}m" if hours else f"{minutes}m"


def test_days_of_fractional_seconds_still_add_up_to_the_total(report, mc_env, mc_task, mc_cli):
    """Hooks record epochs with fractions: 600.4 s before midnight and 1200.4 s after
    round to 600 + 1200 per day, but the period's 1800.8 s rounds to 1801."""
    midnight = _local(1, 0)
    record_work(mc_env.data_root / "tasks.db", mc_task.id, midnight - 600.4, [(1800.8, 0)])
    data = json.loads(report("--period", "week", "--format", "json"))
    days = _days_of(data, "demo-task")
    [task] = [t for t in data["tasks"] if t["name"] == "demo-task"]
    assert task["seconds"] == 1801
    assert sum(d["seconds"] for d in days.values()) == 1801
    assert sum(d["claude"] for d in days.values()) == task["claude"]
    assert sum(d["you"] for d in days.values()) == task["you"]
    assert "demo-task: 30m" in mc_cli("time", "demo-task", "--period", "week")


def test_subtasks_sharing_a_name_are_told_apart_and_not_added_together(
    report, mc_env, mc_cli, tmp_path
):
    """Two parents may each have a subtask called ``same``: the report names them as the
    command line does (``a/same``), and neither's time is drawn or labelled as the other's."""
    import sqlite3

    for args in (("a",), ("b",), ("same", "--parent", "a"), ("same", "--parent", "b")):
        mc_cli("create-task", *args)
    db = mc_env.data_root / "tasks.db"
    with sqlite3.connect(db) as conn:
        ids = dict(conn.execute("SELECT full_path, id FROM tasks"))
        conn.execute("UPDATE tasks SET status = 'paused' WHERE id = ?", (ids["active/b/same"],))
    record_work(db, ids["active/a/same"], _local(0, 0) + 60, [(1800, 0)])
    record_work(db, ids["active/b/same"], _local(0, 2), [(2700, 0)])
    text = report("--period", "today")
    assert _row(text, "a/same")[1] == "30m" and _row(text, "b/same")[1] == "45m"
    rows = {r["task"]: r for r in csv.DictReader(io.StringIO(report("--format", "csv")))}
    assert (rows["a/same"]["status"], rows["b/same"]["status"]) == ("active", "paused")
    out = tmp_path / "r.html"
    report("--period", "today", "--format", "html", "-o", str(out))
    page = out.read_text(encoding="utf-8")
    today = time.strftime("%Y-%m-%d")
    assert f"<title>{today} a/same: 30m</title>" in page
    assert f"<title>{today} b/same: 45m</title>" in page


def _rename(mc_env, task_id: int, shown: str) -> None:
    """A task name MissionCache would never accept, as another tool (or a shared or
    hand-edited tasks.db) may leave it: the report shows ``full_path``'s name part."""
    import sqlite3

    with sqlite3.connect(mc_env.data_root / "tasks.db") as conn:
        conn.execute("UPDATE tasks SET full_path = ? WHERE id = ?", (f"active/{shown}", task_id))


FORMULAS = ["=cmd|'calc'!A0", "=1+2", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx", " =1+1"]


@pytest.mark.parametrize("name", FORMULAS)
def test_a_csv_cell_never_starts_a_formula(report, work, mc_env, name):
    """Issue 20, defect 8 (OWASP CSV injection): a task name starting with =, +, -, @, a
    tab or CR was written raw, and a spreadsheet opening the timesheet ran it."""
    task, _other = work
    _rename(mc_env, task.id, name)
    rows = list(csv.DictReader(io.StringIO(report("--format", "csv"))))
    mine = [r for r in rows if r["task"] not in ("other",)]
    assert mine
    for row in mine:
        assert row["task"].lstrip(" ")[:1] not in "=+-@\t\r\n"
        if name.isprintable():
            assert row["task"] == "'" + name  # the OWASP guard: shown as text, never run
        else:  # a tab or CR is shown escaped (a CR would also end the row)
            assert row["task"] == name.replace("\t", "<U+0009>").replace("\r", "<U+000D>")
    assert all(r["seconds"].isdigit() for r in rows)  # figures stay numbers


BIDI = ["\u202e", "\u202d", "\u202a", "\u202b", "\u202c", "\u2066", "\u2067", "\u2068", "\u2069"]


@pytest.mark.parametrize("char", BIDI)
def test_a_bidi_override_in_a_name_cannot_reorder_a_line(report, work, mc_env, char):
    """Issue 20, defect 9: U+202E in a task name reversed the rest of a text or CSV line
    when displayed, so a timesheet line could be shown spoofed. It is shown escaped."""
    task, _other = work
    _rename(mc_env, task.id, f"abc{char}9h 99")
    shown = f"abc<U+{ord(char):04X}>9h 99"
    text = report("--period", "week")
    csv_out = report("--format", "csv")
    assert char not in text and char not in csv_out
    assert shown in text
    assert any(r["task"] == shown for r in csv.DictReader(io.StringIO(csv_out)))


def test_control_characters_in_a_name_do_not_reach_the_terminal(report, work, mc_env):
    task, _other = work
    _rename(mc_env, task.id, "a\x1b[31mred\nline")
    text = report("--period", "week")
    assert "\x1b" not in text and "a<U+001B>[31mred<U+000A>line" in text


def test_forks_are_rows_under_their_parent_and_counted_once(report, mc_env, mc_task, mc_cli):
    """demo-task 20m alone; forks fa and fb 30m each at the same time (the parent's time
    is the union: 50m); the total row adds the family once, not 110m."""
    mc_cli("fork", "demo-task", "fa")
    mc_cli("fork", "demo-task", "fb")
    ids = {line.split()[-1]: line for line in mc_cli("list").splitlines()}
    assert "└ fork fa" in ids["fa"] and "└ fork fb" in ids["fb"]
    fork_ids = {name: int(ids[name].split()[0]) for name in ("fa", "fb")}
    db = mc_env.data_root / "tasks.db"
    start = _local(0, 0) + 60
    record_work(db, mc_task.id, start, [(1200, 0)])
    record_work(db, fork_ids["fa"], start + 1200, [(1800, 0)])
    record_work(db, fork_ids["fb"], start + 1200, [(1800, 0)])
    text = report("--period", "week")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("demo-task "))
    assert _row(text, "demo-task")[1:3] == ["50m", "50m"]
    assert lines[at + 1].split()[:3] == ["└", "fa", "30m"]
    assert lines[at + 2].split()[:3] == ["└", "fb", "30m"]
    assert _row(text, "total")[1] == "50m"
    data = json.loads(report("--period", "week", "--format", "json"))
    assert data["seconds"] == 3000
    assert [t["fork_of"] for t in data["tasks"]] == [None, "demo-task", "demo-task"]
    assert {d["task"] for d in data["days"]} == {"demo-task"}  # the forks' days are in it
    assert sum(d["seconds"] for d in data["days"]) == 3000
    assert "demo-task: 50m" in mc_cli("time", "demo-task", "--period", "week")
    page = report("--period", "week", "--format", "html")
    legend = page.split('<div class="legend">', 1)[1].split("</div>", 1)[0]
    assert "demo-task" in legend and "fa" not in legend and "fb" not in legend  # no bar of theirs


def _usage(mc_execute, task_id, key, at, model="claude-sonnet-4-5", counts=(1000, 100, 0, 0, 0)):
    mc_execute(
        "INSERT INTO usage(session_id, message_key, model, epoch, input_tokens, output_tokens,"
        " cache_5m_tokens, cache_1h_tokens, cache_read_tokens, task_id)"
        " VALUES ('s', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (key, model, at, *counts, task_id),
    )


def test_tokens_and_cost_per_task_and_per_day(report, work, mc_execute):
    demo, other = work
    _usage(mc_execute, demo.id, "a:", _local(0, 0) + 120, counts=(1000, 100, 2000, 0, 5000))
    _usage(mc_execute, demo.id, "b:", _local(3, 10) + 60)
    _usage(mc_execute, other.id, "c:", _local(1, 15) + 60, model="claude-nonesuch-9")
    data = json.loads(report("--period", "week", "--format", "json"))
    task = next(t for t in data["tasks"] if t["name"] == "demo-task")
    assert task["tokens"] == {"input": 2000, "output": 200, "cache_write": 2000, "cache_read": 5000}
    # sonnet: $3 in, $15 out, $3.75 5-minute writes, $0.30 reads per million tokens
    assert task["cost_usd"] == pytest.approx((2000 * 3 + 200 * 15 + 2000 * 3.75 + 5000 * 0.3) / 1e6)
    days = [d for d in data["days"] if d["task"] == "demo-task"]
    assert sum(d["tokens"]["input"] for d in days) == 2000
    assert sum(d["cost_usd"] for d in days) == pytest.approx(task["cost_usd"])
    unknown = next(t for t in data["tasks"] if t["name"] == "other")
    assert unknown["cost_usd"] is None and unknown["unknown_models"] == ["claude-nonesuch-9"]
    rows = list(csv.DictReader(io.StringIO(report("--format", "csv"))))
    other_row = next(r for r in rows if r["task"] == "other")
    assert (other_row["input_tokens"], other_row["cost_usd"]) == ("1000", "")  # not "0"
    text = report("--period", "week")
    assert _row(text, "other")[-2:] == ["1.1k", "unknown"]
    assert _row(text, "total")[-1] == "unknown"  # a partial sum would understate the cost


def test_a_turn_just_before_midnight_gives_the_night_to_nobody(report, mc_env, mc_task):
    """A turn ending 23:56 and the next prompt the next morning: the first day gets the
    turn alone (a day used to be computed as seen from its last instant, which moved the
    morning prompt to 23:59:59 and credited 240 s of "you" to the night)."""
    night = _local(2, 23) + 50 * 60  # 23:50 two days ago
    morning = _local(1, 8)
    sid = "night-owl"
    record_work(mc_env.data_root / "tasks.db", mc_task.id, night, [(360, 0)], session_id=sid)
    record_work(mc_env.data_root / "tasks.db", mc_task.id, morning, [(600, 0)], session_id=sid)
    data = json.loads(report("--period", "week", "--format", "json"))
    days = {d["day"]: (d["claude"], d["you"]) for d in data["days"]}
    assert days[time.strftime("%Y-%m-%d", time.localtime(night))] == (360, 0)
    assert days[time.strftime("%Y-%m-%d", time.localtime(morning))] == (600, 0)


def test_timesheet_imports_as_toggl_entries(report, work, mc_env):
    mc_env.env["MISSIONCACHE_TIMESHEET_EMAIL"] = "dev@example.com"
    rows = list(csv.DictReader(io.StringIO(report("--format", "timesheet"))))
    assert list(rows[0]) == ["Email", "Project", "Description", "Start date", "Start time",
                             "Duration"]  # fmt: skip
    today = next(r for r in rows if r["Start date"] == time.strftime("%Y-%m-%d"))
    assert today == {
        "Email": "dev@example.com",
        "Project": "demo-task",
        "Description": "Claude 56m, you 4m",
        "Start date": today["Start date"],
        "Start time": "00:01:00",
        "Duration": "01:00:00",
    }


def test_html_shows_each_days_figure_in_decimal_hours_within_700_px(report, work):
    page = report("--format", "html")
    assert ">1.00</text>" in page  # today's hour, written on its bar (not only on hover)
    assert ">0.75</text>" in page  # other's 45 minutes yesterday
    assert ">hours</text>" in page  # the axis says what it counts
    width = int(page.split('<svg xmlns="http://www.w3.org/2000/svg" width="')[1].split('"')[0])
    assert width <= 700 and "min-width:760px" not in page


def test_timesheet_cells_cannot_run_formulas_or_reorder_text(report, work, mc_env):
    """The timesheet goes through the same cells as the CSV report (cells.csv_cell): a
    task name or an email someone else chose is imported as text, never run, and a bidi
    override in it is shown escaped."""
    task, _other = work
    _rename(mc_env, task.id, "=HYPERLINK(1)\u202etxt")
    mc_env.env["MISSIONCACHE_TIMESHEET_EMAIL"] = "@evil"
    out = report("--format", "timesheet")
    assert "\u202e" not in out
    rows = list(csv.DictReader(io.StringIO(out)))
    mine = next(r for r in rows if r["Project"] != "other")
    assert mine["Project"] == "'=HYPERLINK(1)<U+202E>txt"
    assert {r["Email"] for r in rows} == {"'@evil"}


def test_a_parents_cost_holds_its_forks_once_in_the_report_and_in_time(
    report, mc_env, mc_task, mc_cli, mc_execute
):
    """demo-task 1000 input tokens, its fork fa 3000: the parent's row and ``time`` both
    name 4000 (as its time holds the fork's), the fork's row its own 3000, and the total
    row 4000, not 7000."""
    mc_cli("fork", "demo-task", "fa")
    ids = {line.split()[-1]: line for line in mc_cli("list").splitlines()}
    fork_id = int(ids["fa"].split()[0])
    start = _local(0, 0) + 60
    record_work(mc_env.data_root / "tasks.db", mc_task.id, start, [(600, 0)])
    _usage(mc_execute, mc_task.id, "p:", start + 10, counts=(1000, 0, 0, 0, 0))
    _usage(mc_execute, fork_id, "f:", start + 20, counts=(3000, 0, 0, 0, 0))
    data = json.loads(report("--period", "week", "--format", "json"))
    rows = {t["name"]: t for t in data["tasks"]}
    assert rows["demo-task"]["tokens"]["input"] == 4000
    assert rows["fa"]["tokens"]["input"] == 3000
    sonnet_input = 3 / 1e6  # dollars per input token
    assert rows["demo-task"]["cost_usd"] == pytest.approx(4000 * sonnet_input)
    assert _row(report("--period", "week"), "total")[-2:] == ["4k", "$0.01"]
    shown = mc_cli("time", "demo-task", "--period", "week").splitlines()
    assert "$0.01, 4k tokens" in shown[0], shown
    assert shown[1].endswith(", $0.01, 3k tokens"), shown  # the fork's own


def test_calendar_periods_say_which_days_they_cover(report, work):
    today = time.strftime("%Y-%m-%d")
    one_day = report("--from", today, "--to", today)
    assert one_day.startswith(f"MissionCache time report ({today} to {today}: {today} to {today})")
    assert _row(one_day, "demo-task")[1:3] == ["1h", "56m"] and "other" not in one_day
    year, week, _ = datetime.date.today().isocalendar()
    weekly = report("--period", f"{year}-W{week:02d}", "--format", "json")
    assert json.loads(weekly)["period"] == f"week {week} of {year}"
    month = json.loads(report("--period", today[:7], "--format", "json"))
    assert {t["name"] for t in month["tasks"]} >= {"demo-task"}
    assert month["start"] == today[:7] + "-01"
    assert "invalid week" in report("--period", "2026-W60", expect=1)
    assert "ends" in report("--from", today, "--to", "2000-01-01", expect=1)


def test_the_jira_key_reaches_every_format(report, mc_env, mc_cli):
    mc_cli("create-task", "ticketed", "--jira", "SHOP-7")
    task_id = json.loads(report("--period", "all", "--format", "json", "--task", "ticketed"))[
        "tasks"
    ][0]["id"]
    record_work(mc_env.data_root / "tasks.db", task_id, _local(0, 0) + 120, [(900, 0)])
    assert "ticketed [SHOP-7]" in report("--period", "today")
    assert "ticketed [SHOP-7]" in report("--period", "today", "--format", "html")
    rows = list(csv.DictReader(io.StringIO(report("--period", "today", "--format", "csv"))))
    assert [(r["task"], r["jira"], r["hours"]) for r in rows] == [("ticketed", "SHOP-7", "0.25")]
    data = json.loads(report("--period", "today", "--format", "json"))
    assert data["tasks"][0]["jira_key"] == "SHOP-7"


def test_a_part_under_a_minute_reads_as_time_writes_it(report, mc_env, mc_make_task, mc_cli):
    """42 s of Claude in a 1m 42s day: the report writes ``<1m`` where ``time`` does,
    never ``0s`` beside a total in minutes; the JSON keeps the seconds."""
    short = mc_make_task("short")
    record_work(mc_env.data_root / "tasks.db", short.id, _local(0, 0) + 60, [(20, 60), (22, 0)])
    text = report("--period", "week")
    assert _row(text, "short")[1:4] == ["1m", "<1m", "1m"]
    assert "short: 1m (Claude <1m, you 1m)" in mc_cli("time", "short", "--period", "week")
    data = json.loads(report("--period", "week", "--format", "json"))
    (row,) = [t for t in data["tasks"] if t["name"] == "short"]
    assert (row["claude"], row["you"]) == (42, 60)
