import os
import subprocess
import sys
from pathlib import Path

import pytest

import missioncache_context
from missioncache_harness.import_cost import heavy_from, measuring
from missioncache_harness.workspace import python3


def test_every_export_resolves():
    for name in missioncache_context.__all__:
        assert getattr(missioncache_context, name) is not None
    with pytest.raises(AttributeError):
        missioncache_context.no_such_name  # noqa: B018


def test_digest_is_the_function_whatever_was_imported_first():
    code = (
        "import missioncache_context.context_digest\n"
        "from missioncache_context import digest\n"
        "assert callable(digest), digest\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_importing_the_package_loads_no_submodule():
    code = (
        "import sys, missioncache_context\n"
        "print(sorted(m for m in sys.modules if m.startswith('missioncache')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    # missioncache_state's front is the shared lazy-export helper, no submodule of it
    assert out.stdout.strip() == "['missioncache_context', 'missioncache_state']"


PACKAGES = Path(__file__).resolve().parents[2]


def test_hook_path_imports_nothing_heavy(tmp_path):
    """What the hooks do with context and tasks files costs no pathlib/typing/tempfile
    imports: each is milliseconds of a ~12 ms interpreter start, on every hook run."""
    context = tmp_path / "demo-context.md"
    context.write_text(
        "# Demo\n\n**Last Updated:** 2026-01-01 10:00\n\n## Next Steps\n\n- go\n\n"
        "### Task 2\n\nfound it\n\n## Recent Changes\n\n### 2026-01-01 10:00\n- made\n"
    )
    tasks = tmp_path / "demo-tasks.md"
    tasks.write_text("# Demo\n\n## Tasks\n\n- [x] 1. one\n- [ ] 2. two\n")
    code = (
        "from missioncache_context import (digest, divergent_tasks, format_when, read_file,\n"
        "    record_change, update_file)\n"
        "context, tasks = sys.argv[1], sys.argv[2]\n"
        "assert divergent_tasks(read_file(context), read_file(tasks)) == ['2']\n"
        "assert digest(read_file(context), 3000)\n"
        "when = format_when()\n"
        "result = update_file(context, lambda t: record_change(t, ['- saved'], when=when))\n"
        "assert result.changed and result.file == os.path.realpath(context)\n"
    )
    source = [
        str(PACKAGES / name / "src") for name in ("missioncache-context", "missioncache-state")
    ]
    env = {"PYTHONPATH": os.pathsep.join(source), "PATH": os.defpath}
    done = subprocess.run(
        [python3(), "-S", "-c", measuring(code), str(context), str(tasks)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert heavy_from(done.stderr) == []
    assert "- saved" in context.read_text()


def test_the_type_checker_sees_every_export():
    """The names the TYPE_CHECKING block imports for mypy are the names ``__getattr__``
    serves, from the same modules: a new export missed there is typed ``object``."""
    import ast

    tree = ast.parse(Path(missioncache_context.__file__).read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If))
    seen = {
        alias.name: node.module
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert seen == missioncache_context._EXPORTS
