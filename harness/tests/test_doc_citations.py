"""Every "contract N.N" and "data model section N" in the code and docs names a real section,
and every repository path (or ``path::test``) the docs name in backticks exists.

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
# A path the docs name: `harness/...`, `packages/...`, ... up to the closing backtick.
DOC_PATH = re.compile(r"`((?:harness|packages|scripts|docs|plugin-src|plugin|\.ci)/[^`\s]*)`")
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


def _doc_files() -> list[Path]:
    readmes = [*ROOT.glob("*/README.md"), *ROOT.glob("packages/*/README.md")]
    return [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *readmes]


def _dead_path(named: str) -> bool:
    """True when a named path (``file::test_name`` included) is not in the repository."""
    if any(mark in named for mark in ("*", "<", "\u2026")):
        return False  # a pattern or a placeholder, not one path
    path, _, test = named.rstrip(".,").partition("::")
    target = ROOT / path
    if not target.exists():
        return True
    return bool(test) and f"def {test}(" not in target.read_text(encoding="utf-8")


def test_every_path_the_docs_name_exists():
    named = [
        (doc.relative_to(ROOT), match)
        for doc in _doc_files()
        for match in DOC_PATH.findall(doc.read_text(encoding="utf-8"))
    ]
    assert len(named) > 20  # the scan itself works: the docs name files often
    assert [f"{doc}: {path}" for doc, path in named if _dead_path(path)] == []


# A document of ours named anywhere: `docs/layout.md` in a comment, a config, a script.
DOC_NAME = re.compile(r"\bdocs/([A-Za-z0-9_-]+\.md)\b")
CONFIGS = ("pyproject.toml", ".ci/run", ".ci/stages.sh", "scripts")


def test_every_document_the_code_and_config_cite_exists():
    """``docs/layout.md`` was cited by pyproject.toml, .ci/run and a library for months
    before it existed: a citation of a document is checked like a section number."""
    files = _sources()
    for name in CONFIGS:
        path = ROOT / name
        files += [path] if path.is_file() else [p for p in path.rglob("*.py")]
    cited = {
        (str(path.relative_to(ROOT)), doc)
        for path in files
        for doc in DOC_NAME.findall(path.read_text(encoding="utf-8", errors="replace"))
    }
    assert ("pyproject.toml", "layout.md") in cited  # the scan itself works
    assert (
        sorted(f"{path}: docs/{doc}" for path, doc in cited if not (ROOT / "docs" / doc).is_file())
        == []
    )


def test_the_layout_names_every_package_and_its_layers_match_the_contract():
    """docs/layout.md is the newcomer's map: a package it does not name, or a layer order
    the import-linter contract does not hold, makes it wrong."""
    import tomllib

    layout = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    packages = sorted(
        p.name for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file()
    )
    missing = [
        name
        for name in packages
        if f"`packages/{name}/`" not in layout
        and not (name.startswith("hook-") and "`packages/hook-*/`" in layout)
    ]
    assert missing == []
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c for c in contracts if c["type"] == "layers"]
    assert layers.get("ignore_imports", []) == []  # the layout says: no exceptions
    assert (
        layers["layers"][0] == "missioncache_slash" and layers["layers"][-1] == "missioncache_state"
    )
    for layer in layers["layers"]:
        for module in layer.split("|"):
            assert f"`{module.strip()}`" in layout, module
