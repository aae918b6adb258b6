"""In which unit the real Claude Code counts its 10,000-character hook text limit.

Claude Code is JavaScript, whose ``string.length`` counts UTF-16 code units: a character
outside the Basic Multilingual Plane (an emoji, a mathematical letter) is two of them. If the
limit is measured that way, a SessionStart text of 5,001 emoji (5,001 code points, 10,002
units) is moved to a file, while Python's ``len`` says it fits. MissionCache's budget
(``missioncache_hookio.budget``) counts in whatever unit this test finds; it was measured on
2.1.328 (issue 20, defect 5; contract 11.5).

Each case sends one additionalContext from a probe SessionStart hook through ``claude -p``
against the fake model API and looks at what reached the model: the text whole, or the
``<persisted-output>`` note that replaces an over-long one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from missioncache_harness.claude_cli import requires_claude, run_turn
from missioncache_harness.fake_api import FakeAnthropicAPI
from missioncache_harness.probes import probe_plugin

EMOJI = "\U0001f600"  # one code point, two UTF-16 units
MATH_A = "\U0001d400"  # MATHEMATICAL BOLD CAPITAL A: the same
CASES = {
    # name: (text, reaches the model whole?) -- what UTF-16 counting predicts
    "10000-ascii": ("a" * 10_000, True),
    "5000-emoji-is-10000-units": (EMOJI * 5_000, True),
    "5001-emoji-is-10002-units": (EMOJI * 5_001, False),
    "9999-ascii-plus-one-emoji-is-10001-units": ("a" * 9_999 + EMOJI, False),
    "9000-math-letters-is-18000-units": (MATH_A * 9_000, False),
}


def _reached_whole(tmp_path: Path, text: str) -> bool:
    hook = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    plugin = probe_plugin(tmp_path / "plug", {"SessionStart": ["A"]}, {"A": {"json": hook}})
    work = tmp_path / "work"
    work.mkdir()
    with FakeAnthropicAPI() as api:
        run_turn("hi", home=tmp_path / "home", cwd=work, fake_api=api, plugin_dirs=[plugin])
        sent = "\n".join(t.text for r in api.main_requests() for t in r.texts())
    persisted = "<persisted-output>" in sent
    assert persisted or text in sent, "the hook text reached the model neither whole nor persisted"
    return not persisted


@pytest.mark.conformance
@requires_claude
@pytest.mark.parametrize("case", list(CASES))
def test_the_hook_text_limit_counts_utf16_units(tmp_path: Path, case: str) -> None:
    text, whole = CASES[case]
    assert _reached_whole(tmp_path, text) is whole
