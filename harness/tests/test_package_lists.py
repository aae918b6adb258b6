"""The workspace's packages are named once, in ``[tool.missioncache]`` of the root
``pyproject.toml``; every other list of them must agree with it.

WHY a test: the same list was written in nine places (the root's dependencies and uv
sources, isort's first-party modules, the import contracts, mypy's files, the coverage
paths, .ci/run's vermin and hook-side lists, the plugin build), and a package added to
some of them and not the others goes unchecked (no 3.9 pass, no import contract) or
unshipped without a word. ``scripts/build_plugin.py`` reads the list itself.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
TOOL = PYPROJECT["tool"]
NAMED = TOOL["missioncache"]
LIBRARIES: list[str] = NAMED["libraries"]
EVERY = LIBRARIES + NAMED["servers"] + NAMED["tools"]


def module(package: str) -> str:
    return package.replace("-", "_")


def test_every_workspace_package_is_named_once_and_exists():
    assert len(set(EVERY)) == len(EVERY), "a package is named twice in [tool.missioncache]"
    on_disk = {p.name for p in (ROOT / "packages").glob("missioncache-*") if p.is_dir()}
    assert on_disk | {"missioncache-harness"} == set(EVERY)


def test_the_roots_dependencies_and_uv_sources_are_the_named_packages():
    names = {re.split(r"[<>=!~ \[]", d)[0] for d in PYPROJECT["project"]["dependencies"]}
    assert names == set(EVERY)
    assert set(TOOL["uv"]["sources"]) == set(EVERY)


def test_isort_and_the_import_contracts_know_every_package():
    modules = {module(p) for p in EVERY}
    assert set(TOOL["ruff"]["lint"]["isort"]["known-first-party"]) == modules
    linter = TOOL["importlinter"]
    assert set(linter["root_packages"]) == modules
    layered = {
        name.strip()
        for contract in linter["contracts"]
        if contract["type"] == "layers"
        for layer in contract["layers"]
        for name in layer.split("|")
    }
    assert layered == modules - {"missioncache_harness"}
    for contract in linter["contracts"]:
        if contract["type"] == "forbidden":  # "X imports none of the others" / "none imports X"
            sides = set(contract["source_modules"]) | set(contract["forbidden_modules"])
            # A package left out is one the contract allows; only the bottom layer may be.
            assert sides <= modules and modules - sides <= {"missioncache_state"}, contract["name"]


def test_mypy_and_coverage_cover_every_library_and_server():
    files = set(TOOL["mypy"]["files"])
    paths = TOOL["coverage"]["paths"]
    for package in LIBRARIES + NAMED["servers"]:
        assert f"packages/{package}/src" in files, package
        assert module(package) in paths, package
    for package in LIBRARIES:
        assert f"*/lib/{module(package)}" in paths[module(package)], package


def test_ci_checks_every_library_under_python_3_9():
    vermin = CI[CI.index('stage "vermin') : CI.index('stage "lint-imports"')]
    hook_side = CI[CI.index("hook_side_tests=(") : CI.index(")", CI.index("hook_side_tests=("))]
    for package in LIBRARIES:
        assert f"packages/{package}/src" in vermin, f"{package} not in .ci/run's vermin list"
        assert re.search(rf"packages/{package}(\s|\))", hook_side + ")"), (
            f"{package} not in .ci/run's hook-side tests"
        )


def test_every_path_ci_checks_under_python_3_9_exists():
    """A path gone from the tree (a moved script) would leave vermin a literal glob to fail
    on, or check nothing where something was meant to be checked."""
    vermin = CI[CI.index('stage "vermin') : CI.index('stage "lint-imports"')]
    for word in re.findall(r"packages/\S+", vermin):
        braces = re.fullmatch(r"(.*)\{(.*)\}(.*)", word)
        words = (
            [braces[1] + part + braces[3] for part in braces[2].split(",")] if braces else [word]
        )
        for path in words:
            assert list(ROOT.glob(path)), f".ci/run's vermin list names {path}, which is not there"


def test_the_plugin_bundles_exactly_the_libraries():
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_plugin", ROOT / "scripts/build_plugin.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    assert {p: module(p) for p in LIBRARIES} == build.LIBRARIES
