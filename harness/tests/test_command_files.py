"""What the slash command files tell Claude to offer the user must exist in an installed
plugin: ``missioncache-db`` was once a console script of the development workspace only,
and no command file may send a user to it."""

from __future__ import annotations

import re
from pathlib import Path

COMMAND = re.compile(r"`missioncache-db\b")


def test_no_command_file_offers_a_development_only_command(mc_plugin: Path):
    files = sorted((mc_plugin / "commands").glob("*.md"))
    assert files
    for file in files:
        assert not COMMAND.search(file.read_text(encoding="utf-8")), file.name


def test_the_report_command_offers_the_file_formats_through_the_plugins_launcher(mc_plugin):
    text = (mc_plugin / "commands" / "report.md").read_text(encoding="utf-8")
    assert '`"${CLAUDE_PLUGIN_ROOT}/bin/missioncache" report --format html' in text
    assert (mc_plugin / "bin" / "missioncache").is_file()
