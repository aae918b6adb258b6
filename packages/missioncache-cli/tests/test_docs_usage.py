"""The usage lines the docs give name every choice the command line takes."""

from __future__ import annotations

from pathlib import Path

from missioncache_cli.cli_report import FORMATS
from missioncache_time import PERIODS

DOCS = Path(__file__).resolve().parents[3] / "docs"


def test_recovery_lists_every_period_of_time():
    (line,) = [x for x in (DOCS / "recovery.md").read_text().splitlines() if "time NAME" in x]
    assert all(period in line for period in PERIODS), line


def test_reports_usage_lists_every_format():
    usage = (DOCS / "reports.md").read_text().split("--format ", 1)[1].split("]", 1)[0]
    assert set(usage.strip("[").split("|")) == set(FORMATS)
