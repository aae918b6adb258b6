"""Every "contract N.N" and "data model section N" in the code and docs names a real section.

WHY a test: comments cite the two documents by section number, and a renumbered or missing
section turns a citation into a dead end for the next reader; only a check keeps them true.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = {
    "contract": ROOT / "docs" / "claude-code-contract.md",
    "data model": ROOT / "docs" / "data-model.md",
}
CITATION = re.compile(
    r"\b(contract|data[- ]model(?:\.md)?)\)?,?(?: section| §)? ?(\d+(?:\.\d+)*)",
    re.IGNORECASE,
)
HEADING = re.compile(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", re.MULTILINE)
SEARCHED = ("packages", "harness", "scripts", "docs", "README.md", "plugin-src")


def _sections(doc: Path) -> set[str]:
    return set(HEADING.findall(doc.read_text(encoding="utf-8")))


def _sources() -> list[Path]:
    files: list[Path] = []
    for name in SEARCHED:
        path = ROOT / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += [p for p in path.rglob("*") if p.suffix in (".py", ".md")]
    return [p for p in files if ".venv" not in p.parts]


def _citations() -> list[tuple[str, str, str]]:
    found = []
    for path in _sources():
        for match in CITATION.finditer(path.read_text(encoding="utf-8", errors="replace")):
            kind = "contract" if match[1].lower() == "contract" else "data model"
            found.append((str(path.relative_to(ROOT)), kind, match[2]))
    return found


def test_both_documents_exist_in_the_repository():
    for doc in DOCS.values():
        assert doc.is_file(), doc


def test_every_section_citation_resolves():
    sections = {kind: _sections(doc) for kind, doc in DOCS.items()}
    citations = _citations()
    assert len(citations) > 50  # the scan itself works: the code cites both documents often
    dead = [
        f"{path}: {kind} {number}"
        for path, kind, number in citations
        if number not in sections[kind]
    ]
    assert dead == []
