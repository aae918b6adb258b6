"""The status-line simulator follows what Claude Code 2.1.328 was measured to do (contract
11.1.5): exit != 0 or empty stdout hides the row, empty lines are dropped and each line
trimmed, a long line is cut at the width with "…", and the command gets COLUMNS, LINES
and CLAUDE_PROJECT_DIR but no CLAUDE_PLUGIN_ROOT."""

from __future__ import annotations

import pytest

from missioncache_harness.statusline import run_status_line, strip_ansi

PAYLOAD = {"session_id": "s1", "cwd": "/x"}


@pytest.fixture
def show(tmp_path):
    def run(command: str, **options):
        env = {"PATH": "/usr/bin:/bin", "CLAUDE_PLUGIN_ROOT": "/plugin", **options.pop("env", {})}
        return run_status_line(command, PAYLOAD, cwd=tmp_path, env=env, **options)

    return run


def test_lines_are_trimmed_and_empty_ones_dropped(show):
    assert show("printf 'LINE1\\n\\n   LINE2-indented\\nLINE3\\n'").rows == [
        "LINE1",
        "LINE2-indented",
        "LINE3",
    ]


@pytest.mark.parametrize(
    "command", ["echo OUT; exit 1", "echo OUT; exit 2", "true", "echo ERR >&2"]
)
def test_failure_or_no_output_hides_the_row(show, command):
    assert show(command).rows == []


def test_a_long_line_is_cut_at_the_width(show):
    assert show("printf '%0315d\\n' 0", columns=80).rows == ["0" * 79 + "…"]


def test_colours_are_kept_and_plain_rows_drop_them(show):
    run = show("printf '\\033[31mRED\\033[0m ok\\n'")
    assert run.rows == ["\x1b[31mRED\x1b[0m ok"] and run.plain_rows == ["RED ok"]
    assert strip_ansi("\x1b[1;36mname\x1b[0m") == "name"


def test_environment_and_stdin(show, tmp_path):
    command = 'echo "$COLUMNS $LINES $CLAUDE_PROJECT_DIR ${CLAUDE_PLUGIN_ROOT:-none} $(cat)"'
    [row] = show(command, columns=150).rows
    assert row == f'150 50 {tmp_path} none {{"session_id": "s1", "cwd": "/x"}}'
