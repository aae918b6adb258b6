"""Shared test helpers live in one place, the harness (docs/testing.md, "Shared test helpers").

WHY a test: the helpers once grew in three layers (the harness, a ``*_kit.py`` beside some
tests, fifteen conftests), and the same fixture was written twice. These checks hold the rule:

- a tests folder holds only ``test_*.py`` and ``conftest.py``: no helper modules beside the
  tests, so a helper two test files share can only be a harness module;
- no test or conftest puts a folder on ``sys.path`` or imports another test file or a
  conftest (the two ways a helper module beside the tests used to be reached);
- a fixture is defined in one conftest only, and no conftest redefines a harness fixture,
  but for the few names listed below with their reason;
- a conftest under ``packages/`` holds fixtures (and the types they return), not helper
  functions, but for the one listed below;
- every module of ``missioncache_harness`` is named in docs/testing.md, so a newcomer finds it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "harness" / "src" / "missioncache_harness"
TESTING_DOC = ROOT / "docs" / "testing.md"

# Fixture names more than one conftest may define, and why.
SHARED_NAMES = {
    "mc_hook_script": "the harness's mc_hook asks each hook package which script it runs",
    "mc_sources": "the harness's mc_bare asks each package which sources it finds",
    "cli": "each package's own `python -S -m <its module>`",
    "world": "tasks made in-process (the harness imports none of the product); the pm server's"
    " tests add their MCP client to it, the slash commands' run processes only",
}
# Conftests under packages/ allowed helper functions beside their fixtures, and why.
HELPERS_ALLOWED = {
    "packages/missioncache-pm/tests/conftest.py": (
        "the stdio MCP client the `world` fixture talks through (imports the product's db)"
    ),
}


def _tests_folders() -> list[Path]:
    return [*sorted(ROOT.glob("packages/*/tests")), ROOT / "harness" / "tests"]


def _python_files() -> list[Path]:
    return [path for folder in _tests_folders() for path in sorted(folder.rglob("*.py"))]


def _conftests() -> list[Path]:
    return [path for path in _python_files() if path.name == "conftest.py"]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _is_fixture(node: ast.AST) -> bool:
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr == "fixture":
            return True
        if isinstance(target, ast.Name) and target.id == "fixture":
            return True
    return False


def _fixtures(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.name for node in tree.body if _is_fixture(node)]


def _touches_sys_path(node: ast.AST) -> bool:
    """``sys.path.insert(...)``, ``sys.path.append(...)``, ``sys.path[:0] = ...`` and alike."""
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Attribute)
            and sub.attr == "path"
            and isinstance(sub.value, ast.Name)
            and sub.value.id == "sys"
        ):
            return True
    return False


def _sys_path_edits(tree: ast.Module) -> list[int]:
    """Lines where the module changes ``sys.path`` in code (strings, e.g. a child's
    program text, are not code)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("insert", "append", "extend") and _touches_sys_path(
                node.func.value
            ):
                found.append(node.lineno)
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_touches_sys_path(target) for target in targets):
                found.append(node.lineno)
    return sorted(found)


def _sibling_imports(tree: ast.Module) -> list[str]:
    """Imports of another test file or a conftest, or relative imports."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or module.split(".")[0].startswith(("test_", "conftest")):
                found.append(f"from {'.' * node.level}{module} import ...")
        elif isinstance(node, ast.Import):
            found += [
                f"import {alias.name}"
                for alias in node.names
                if alias.name.split(".")[0].startswith(("test_", "conftest"))
            ]
    return found


def test_a_tests_folder_holds_only_tests_and_conftests():
    files = _python_files()
    assert len(files) > 100  # the scan itself works: there are many test files
    strays = [
        _rel(path)
        for path in files
        if not (path.name == "conftest.py" or path.name.startswith("test_"))
    ]
    assert strays == [], (
        "a helper module beside the tests; move it into harness/src/missioncache_harness/"
        f" and list it in docs/testing.md: {strays}"
    )


def test_no_test_reaches_a_helper_through_sys_path_or_another_test_file():
    found = []
    for path in _python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{_rel(path)}:{line}: sys.path" for line in _sys_path_edits(tree)]
        found += [f"{_rel(path)}: {line}" for line in _sibling_imports(tree)]
    assert found == [], f"shared helpers are imported from missioncache_harness: {found}"


def test_the_checks_see_what_they_forbid():
    """The two AST checks above find each form they look for (and only those)."""
    code = (
        "import sys\nimport test_other\nfrom .conftest import X\nfrom conftest import Y\n"
        "sys.path.insert(0, 'x')\nsys.path[:0] = ['y']\n"
        "CHILD = 'import sys; sys.path.insert(0, sys.argv[1])'\n"
        "from missioncache_harness import forks\n"
    )
    tree = ast.parse(code)
    assert _sys_path_edits(tree) == [5, 6]
    assert _sibling_imports(tree) == [
        "import test_other",
        "from .conftest import ...",
        "from conftest import ...",
    ]


def test_a_fixture_is_defined_in_one_conftest():
    defined: dict[str, list[str]] = defaultdict(list)
    for path in _conftests():
        for name in _fixtures(path):
            defined[name].append(_rel(path))
    assert "mc_hook_script" in defined  # the scan itself works: the hooks override it
    twice = {
        name: places
        for name, places in defined.items()
        if len(places) > 1 and name not in SHARED_NAMES
    }
    assert twice == {}, f"one fixture, one definition: move it into the harness: {twice}"
    unused = [name for name in SHARED_NAMES if len(defined[name]) < 2]
    assert unused == [], f"SHARED_NAMES lists names no two conftests define: {unused}"


def test_no_conftest_redefines_a_harness_fixture():
    harness = set(_fixtures(HARNESS / "fixtures.py"))
    assert {"mc_env", "mc_plugin", "mc_roots", "mc_bare", "mc_chromium"} <= harness
    shadowed = [
        f"{_rel(path)}: {name}"
        for path in _conftests()
        for name in _fixtures(path)
        if name in harness and name not in SHARED_NAMES
    ]
    assert shadowed == [], f"a conftest redefines a harness fixture: {shadowed}"


def test_a_package_conftest_holds_fixtures_not_helpers():
    found = []
    for path in _conftests():
        rel = _rel(path)
        if not rel.startswith("packages/") or rel in HELPERS_ALLOWED:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [
            f"{rel}: {node.name}"
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_fixture(node)
        ]
    assert found == [], f"a helper function in a conftest belongs in the harness: {found}"
    for rel in HELPERS_ALLOWED:  # an allowance outlives its reason: fail then too
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        helpers = [n for n in tree.body if isinstance(n, ast.FunctionDef) and not _is_fixture(n)]
        assert helpers, f"{rel} has no helper function any more: drop it from HELPERS_ALLOWED"


def test_every_harness_module_is_named_in_the_testing_doc():
    text = TESTING_DOC.read_text(encoding="utf-8")
    modules = sorted(p.stem for p in HARNESS.glob("*.py") if p.stem != "__init__")
    assert len(modules) > 20
    missing = [name for name in modules if f"`{name}`" not in text]
    assert missing == [], f"docs/testing.md does not list these harness modules: {missing}"
