"""Counted nouns, and no ``(s)`` plural left in anything the plugin prints."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from missioncache_state.words import plural

PACKAGES = Path(__file__).resolve().parents[2]
REPO = PACKAGES.parent
BRACKETED = re.compile(r"[A-Za-z]\(s\)")  # ``task(s)``; a JavaScript ``(s) =>`` is not one


def test_one_is_singular_and_the_rest_plural():
    assert plural(1, "task") == "1 task"
    assert plural(0, "task") == "0 tasks"
    assert plural(131, "event") == "131 events"
    assert plural(2, "entry", "entries") == "2 entries"


def printed_sources() -> list[Path]:
    """Every product source: the packages (tests left out), the hand-written plugin files
    and the dashboard's page."""
    files = [
        p
        for p in PACKAGES.rglob("*")
        if p.suffix in {".py", ".js", ".html"}
        and "tests" not in p.relative_to(PACKAGES).parts
        and ".venv" not in p.parts
    ]
    files += [p for p in (REPO / "plugin-src").rglob("*") if p.is_file()]
    return files


def strings_of(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return [text]
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    kinds = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    return [tok.string for tok in tokens if tok.type in kinds]


def test_no_message_says_s_in_brackets():
    """``1 task(s)``, ``2 session binding(s)``: a count reads as a sentence, through
    :func:`plural`."""
    found = [
        f"{path.relative_to(REPO)}: {literal.strip()[:80]}"
        for path in printed_sources()
        for literal in strings_of(path)
        if BRACKETED.search(literal)
    ]
    assert found == []
