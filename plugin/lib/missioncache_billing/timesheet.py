"""Timesheets in the CSV import columns of the tools people bill from: Toggl Track,
Clockify and Harvest (docs/billing.md lists each one's columns and where they are
published). One entry per task per day as the invoice bills it (a fork billed apart from
its parent is an entry of its own), its hours rounded by the client's rule, the client
named, the JIRA key carried, and a description of what was worked on that day (the task's
Recent Changes entries of that day) rather than the Claude/you split.
"""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING

from missioncache_billing.compute import (
    billed_seconds,
    entry_hours,
    forks_apart,
    rounded_seconds,
    split_family,
)
from missioncache_billing.settings import Client, TaskBilling, clients, sender, task_billing

if TYPE_CHECKING:
    from missioncache_db import Task, TaskDB
    from missioncache_report import Report

TOOLS = ("toggl", "clockify", "harvest")
HEADERS = {
    # Toggl Track's CSV import: Email, Start date, Start time and Duration make an entry.
    "toggl": [
        "Email",
        "Client",
        "Project",
        "Description",
        "Billable",
        "Start date",
        "Start time",
        "Duration",
        "Tags",
    ],
    # Clockify's CSV import: Email, Start date, Start time and Duration are required;
    # Duration as decimal hours (the workspace's "Decimal" duration format).
    "clockify": [
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
    ],
    # Harvest's time import.
    "harvest": ["Date", "Client", "Project", "Task", "Notes", "Hours", "First name", "Last name"],
}
NO_CLIENT = Client(name="")  # a task without a client: its time unrounded, no client named


def person_email() -> str:
    """``billing setup --email``, else ``MISSIONCACHE_TIMESHEET_EMAIL``, else git's
    ``user.email`` (global too, wherever the command runs); a ValueError saying how to set
    one when none is found: an entry without an email cannot be imported."""
    found = sender().email or os.environ.get("MISSIONCACHE_TIMESHEET_EMAIL", "")
    if not found:
        try:
            done = subprocess.run(
                ["git", "config", "--get", "user.email"],
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
                cwd=os.path.expanduser("~"),
            )
            found = done.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            found = ""
    if not found:
        raise ValueError(
            "no email for the timesheet (Toggl and Clockify file each entry under a user's "
            "email): set it with `missioncache billing setup --email you@example.com`"
        )
    return found


def _names() -> tuple[str, str]:
    name = sender().name.strip()
    if not name:
        raise ValueError(
            "Harvest files each entry under a person's first and last name: set yours with "
            "`missioncache billing setup --name 'First Last'`"
        )
    first, _, last = name.partition(" ")
    return first, last.strip()


def worked_on(entries: list[str] | None, task_name: str, day: str) -> str:
    """What was worked on: the first line of each Recent Changes entry (``entries``, from
    ``recent_entries``) saved that day."""
    if entries is None:
        return f"Work on {task_name}"
    notes = []
    for entry in entries:
        heading, _, body = entry.partition("\n")
        if heading.lstrip("#").strip().startswith(day):
            first = next((ln.strip(" -*\t") for ln in body.splitlines() if ln.strip()), "")
            if first and first not in notes:
                notes.append(first)
    return "; ".join(notes)[:900] if notes else f"Work on {task_name}"


def billed_rows(db: TaskDB, days: list, tasks: dict, settings: dict[str, TaskBilling]) -> list:
    """The report's day rows as the invoice bills them. A report's parent row holds its
    family's union; a fork billed apart (its own client or rate) leaves it for a row of its
    own that day, split by the invoice's own rule (``compute.split_family``), so a
    client's timesheet hours per day are its invoice's. Forks billed with their parent
    stay in its row."""
    by_task: dict[str, list] = {}
    for row in days:
        by_task.setdefault(row.task, []).append(row)
    out = []
    for name, rows in by_task.items():
        task = tasks.get(name)
        apart = forks_apart(db, task, settings) if task is not None else []
        parent, forks = split_family(db, rows, apart)
        out += parent
        for fork_rows in forks:
            out += fork_rows
    out.sort(key=lambda d: (d.day, d.task))
    return out


def recent_entries(task: Task | None) -> list[str] | None:
    """The Recent Changes entries of a task's context file; None without one."""
    from missioncache_context import read_file, recent_changes

    if task is None or not os.path.isfile(task.context_path):
        return None
    try:
        return recent_changes(read_file(task.context_path))
    except (OSError, ValueError):
        return []


def timesheet(db: TaskDB, report: Report, tool: str) -> str:
    """The report's days as ``tool``'s import CSV, every cell guarded like the reports'."""
    from missioncache_report.cells import csv_rows
    from missioncache_report.data import shown_name

    if tool not in TOOLS:
        raise ValueError(f"invalid timesheet tool {tool!r}: use one of {', '.join(TOOLS)}")
    known, settings = clients(), task_billing()
    tasks = {shown_name(t): t for t in db.list_tasks()}
    jira = {name: t.jira_key or "" for name, t in tasks.items()}
    email = person_email() if tool != "harvest" else ""
    first, last = _names() if tool == "harvest" else ("", "")
    rows = []
    entries: dict[str, list[str] | None] = {}
    for day in billed_rows(db, report.days, tasks, settings):
        own = settings.get(day.task)
        client = known.get(own.client, NO_CLIENT) if own else NO_CLIENT
        billed = billed_seconds(day, client)
        seconds = rounded_seconds(billed, client)
        if not seconds:
            continue
        hours = str(entry_hours(billed, client))
        clock = f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
        if day.task not in entries:  # each context file read once, whatever its days
            entries[day.task] = recent_entries(tasks.get(day.task))
        note = worked_on(entries[day.task], day.task, day.day)
        billable = "Yes" if client.name else "No"
        key = jira.get(day.task, "")
        if tool == "toggl":
            rows.append(
                [email, client.name, day.task, note, billable, day.day, day.first, clock, key]
            )
        elif tool == "clockify":
            rows.append(
                [day.task, client.name, note, "", email, key, billable, day.day, day.first, hours]
            )
        else:
            notes = f"{key}: {note}" if key else note
            rows.append([day.day, client.name, day.task, "Development", notes, hours, first, last])
    return str(csv_rows(HEADERS[tool], rows))
