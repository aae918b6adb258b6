"""Each library is reached through its front door (docs/layout.md, "Front doors").

WHY a test: the store once had 30 flat modules of which other packages imported 20
directly; nobody could tell which of them was safe to change. A library's ``__init__`` is
now its API (``__all__``), its implementation modules are ``_``-prefixed, and these checks
hold the rule:

- no file outside a package imports a ``_private`` module of it (``from missioncache_db._db
  import TaskDB``, ``import missioncache_time._turns``, ``from missioncache_cost import
  _tokens``): it imports the front, or a module the library documents as public;
- every name a front serves lazily (``_EXPORTS``) is in its ``__all__`` and comes from one
  of its own private modules, and at most four modules of the store are imported by
  other packages;
- the fronts share one lazy-export helper (``missioncache_state.lazy_exports``) instead of
  each carrying its own ``__getattr__``.

Code inside strings (a child process's program) is not read: the child is a process
of its own, like a user's script.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ROOT / "packages"
# The libraries whose __init__ serves a lazy API through the shared helper.
FRONTS = (
    "missioncache_spool", "missioncache_db", "missioncache_cost", "missioncache_time",
    "missioncache_sync", "missioncache_context", "missioncache_transcript",
)  # fmt: skip
# Of those, the libraries whose every implementation module is private.
PRIVATE_INSIDE = ("missioncache_spool", "missioncache_db", "missioncache_cost", "missioncache_time")
MAX_STORE_MODULES = 4


def _owner(path: Path) -> str | None:
    """The top-level module of the package ``path`` belongs to (None: a hook, the harness,
    a script: they own no library)."""
    rel = path.relative_to(ROOT).parts
    if rel[0] == "harness":
        return "missioncache_harness"
    if rel[0] != "packages":
        return None
    src = PACKAGES / rel[1] / "src"
    if not src.is_dir():
        return None
    found = [p.name for p in src.iterdir() if p.is_dir() and p.name.isidentifier()]
    return found[0] if found else None


def _python_files() -> list[Path]:
    roots = [PACKAGES, ROOT / "harness", ROOT / "scripts"]
    return sorted(p for root in roots for p in root.rglob("*.py") if ".venv" not in p.parts)


def _imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, dotted module) of every import, ``from a import _b`` giving ``a._b``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [
                (node.lineno, f"{node.module}.{alias.name}")
                for alias in node.names
                if alias.name.startswith("_") and not alias.name.startswith("__")
            ]
    return found


def _is_private(module: str) -> bool:
    return any(p.startswith("_") and not p.startswith("__") for p in module.split(".")[1:])


def _cross_package_imports() -> list[tuple[Path, int, str]]:
    out = []
    for path in _python_files():
        owner = _owner(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, module in _imported_modules(tree):
            top = module.split(".")[0]
            if top.startswith("missioncache_") and top != owner:
                out.append((path, line, module))
    return out


def test_no_package_imports_another_packages_private_module() -> None:
    private = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path, line, module in _cross_package_imports()
        if _is_private(module)
    ]
    assert private == []


def test_at_most_four_modules_of_the_store_are_imported_from_outside() -> None:
    used: dict[str, set[str]] = defaultdict(set)
    for path, _, module in _cross_package_imports():
        if module.split(".")[0] == "missioncache_db":
            used[".".join(module.split(".")[:2])].add(str(path.relative_to(ROOT)))
    assert len(used) <= MAX_STORE_MODULES, sorted(used)


def test_every_front_serves_its_names_through_the_one_helper() -> None:
    for name in FRONTS:
        (init,) = PACKAGES.glob(f"*/src/{name}/__init__.py")
        text = init.read_text(encoding="utf-8")
        assert "lazy_exports(__name__, _EXPORTS)" in text, name
        assert "def __getattr__" not in text, name
        exports = dict(re.findall(r'^    "(\w+)": "(\w+)",$', text, re.M))
        assert exports, name
        for public, module in exports.items():
            assert module.startswith("_") or name not in PRIVATE_INSIDE, (name, public, module)
            source = (init.parent / f"{module}.py").read_text(encoding="utf-8")
            defined = rf"^(def|class) {public}\b|^{public}\b.*=|\b{public}\b"
            assert re.search(defined, source, re.M), (name, public, module)
        assert "__all__ = sorted(_EXPORTS)" in text, name


def test_the_lazy_fronts_work_and_load_nothing_until_a_name_is_used() -> None:
    import subprocess
    import sys

    from missioncache_harness.workspace import sources_path

    code = (
        "import sys\n"
        f"names = {list(FRONTS)!r}\n"
        "for name in names:\n"
        "    module = __import__(name)\n"
        "    loaded = [m for m in sys.modules if m.startswith(name + '._')]\n"
        "    assert loaded == [], (name, loaded)\n"
        "    for public in module.__all__:\n"
        "        getattr(module, public)\n"
        "    assert set(module.__all__) <= set(dir(module)), name\n"
        "print('ok')\n"
    )
    packages = [p.name for p in PACKAGES.iterdir() if (p / "src").is_dir()]
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env={"PYTHONPATH": sources_path(*packages)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "ok", done.stderr
