"""Every member ``pyproject.toml`` declares the workspace packages its code imports.

WHY a test: 11 of 18 members once imported packages they never named, so a package's
manifest could not be trusted to say what it stands on (and ``uv`` could install one
without what it needs). The imports are read from the source (module-level and the lazy
ones inside functions alike, as ``lint-imports`` counts them), tests left out. The ``pm``
server and the dashboard are installed by uvx alone and take our libraries from the
plugin's ``lib/`` at run time, so they list them under ``[tool.missioncache] bundled``.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MEMBERS = sorted([*(ROOT / "packages").glob("*/pyproject.toml"), ROOT / "harness/pyproject.toml"])


def imported_packages(folder: Path) -> set[str]:
    """The ``missioncache-*`` distributions the code under ``folder`` imports."""
    found = set()
    for file in folder.rglob("*.py"):
        parts = file.relative_to(folder).parts
        if "tests" in parts or "__pycache__" in parts:
            continue
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            found |= {
                name.split(".")[0].replace("_", "-")
                for name in names
                if name.startswith("missioncache_")
            }
    return found


def declared(manifest: dict) -> set[str]:
    names = {re.split(r"[<>=!~ \[;]", d)[0] for d in manifest["project"].get("dependencies", [])}
    return names | set(manifest.get("tool", {}).get("missioncache", {}).get("bundled", []))


@pytest.mark.parametrize("pyproject", MEMBERS, ids=lambda p: p.parent.name)
def test_a_member_declares_the_workspace_packages_it_imports(pyproject: Path):
    manifest = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    own = manifest["project"]["name"]
    missing = imported_packages(pyproject.parent) - declared(manifest) - {own}
    assert not missing, f"{pyproject.relative_to(ROOT)} imports {sorted(missing)} undeclared"


def test_the_reader_sees_lazy_imports(tmp_path: Path):
    (tmp_path / "body.py").write_text(
        "def main():\n    from missioncache_db.turn_end import record_turn_end\n"
        "import missioncache_state.ids\nfrom . import sibling\n"
    )
    assert imported_packages(tmp_path) == {"missioncache-db", "missioncache-state"}
