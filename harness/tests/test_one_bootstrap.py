"""One way to find the plugin's bundled ``lib``: a fitness test (docs/layout.md, "One
bootstrap").

WHY: each entry point used to compute ``<plugin>/lib`` its own way, and the three uvx
servers each had their own rule for where the libraries are; one of them drifting is a
plugin that starts in one place and not in another. The canonical texts live in
``scripts/one_bootstrap.py``; this test holds every copy to them.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from missioncache_harness.locate import repo_root
from missioncache_harness.workspace import python3

ROOT = repo_root()
assert ROOT is not None
_PATH_CHANGE = re.compile(r"sys\.path\.(insert|append|extend)\(|sys\.path\s*(\[[^]]*\])?\s*\+?=")

# Shipped modules that change sys.path for something other than ``lib``, and why.
NOT_LIB = {
    "packages/missioncache-hookio/src/missioncache_hookio/output.py": "the hook's own folder",
    "packages/missioncache-pm/src/missioncache_pm/launch.py": "pm's src, then the bootstrap",
    "packages/missioncache-cli/src/missioncache_cli/cli_dashboard.py": "the dashboard's src",
}


def _canon() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "one_bootstrap", ROOT / "scripts" / "one_bootstrap.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CANON = _canon()


def _shipped() -> list[Path]:
    """Every source file the plugin build can copy: packages (not tests) and plugin-src."""
    files = [p for p in (ROOT / "packages").rglob("*.py") if "tests" not in p.parts]
    files += [p for p in (ROOT / "plugin-src").rglob("*") if p.is_file()]
    return sorted(files)


def test_every_entry_script_carries_the_prologue_once_before_any_import_of_ours():
    for name in CANON.ENTRY_SCRIPTS:
        text = (ROOT / name).read_text(encoding="utf-8")
        assert text.count(CANON.ENTRY_PROLOGUE) == 1, f"{name} lacks the canonical prologue"
        head, _, tail = text.partition(CANON.ENTRY_PROLOGUE)
        assert "\nimport sys\n" in head, name
        assert "missioncache" not in re.sub(r'(?s)""".*?"""', "", head), name
        assert text.count('lib"') == 1, f"{name} names lib outside the prologue"
        assert "missioncache_" in tail, name


def test_the_server_bootstraps_are_one_file():
    first, *others = (ROOT / name for name in CANON.SERVER_BOOTSTRAPS)
    for other in others:
        assert other.read_bytes() == first.read_bytes(), f"{other} differs from {first}"


def test_the_server_bootstrap_tries_the_lib_variable_then_each_plugin_root(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "server_bootstrap", ROOT / CANON.SERVER_BOOTSTRAPS[0]
    )
    assert spec is not None and spec.loader is not None
    bootstrap = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bootstrap)
    env = {
        "CLAUDE_PLUGIN_ROOT": str(tmp_path / "c"),
        "MISSIONCACHE_PLUGIN_ROOT": str(tmp_path / "m"),
        "MISSIONCACHE_LIB": str(tmp_path / "l"),
    }
    assert bootstrap.candidates(env) == [
        str(tmp_path / "l"),
        str(tmp_path / "m" / "lib"),
        str(tmp_path / "c" / "lib"),
    ]
    assert bootstrap.candidates({"MISSIONCACHE_LIB": "relative/lib"}) == []


# The one module besides those that adds a ``lib``: the status line's launcher lives in the
# user's state, outside every plugin copy, and adds the lib of the newest copy it picks
# (running that copy's script instead would compile it on every refresh: 0.15 ms).
PICKS_A_COPY = {"packages/missioncache-statusline/src/missioncache_statusline/launcher.py"}


def test_no_other_shipped_module_puts_lib_on_the_path():
    allowed = {*CANON.ENTRY_SCRIPTS, *CANON.SERVER_BOOTSTRAPS, *PICKS_A_COPY}
    for path in _shipped():
        name = path.relative_to(ROOT).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if name in allowed or not _PATH_CHANGE.search(text):
            continue
        assert name in NOT_LIB, f"{name} changes sys.path: use the one bootstrap"
        assert '"lib"' not in text, f"{name} changes sys.path and names lib"


@pytest.mark.parametrize("how", ["direct", "linked", "relative", "isolated", "run_path"])
def test_the_prologue_finds_lib_however_the_script_is_started(tmp_path, how):
    """Python puts the script's folder, links resolved, first on ``sys.path``; the prologue
    takes it from there without importing ``os`` when that entry is the folder as written,
    and asks ``os`` otherwise (a link, a relative start, ``-I``, ``runpy``)."""
    plugin = tmp_path / "plugin"
    (plugin / "hooks").mkdir(parents=True)
    (plugin / "lib").mkdir()
    script = plugin / "hooks" / "probe.py"
    script.write_text(
        "import sys\n" + CANON.ENTRY_PROLOGUE + "print(_LIB, 'os' in sys.modules)\n",
        encoding="utf-8",
    )
    (tmp_path / "link").symlink_to(plugin, target_is_directory=True)
    argv, cwd = [python3(), "-S", str(script)], tmp_path
    if how == "linked":
        argv[-1] = str(tmp_path / "link" / "hooks" / "probe.py")
    elif how == "relative":
        argv[-1], cwd = "hooks/probe.py", plugin
    elif how == "isolated":
        argv.insert(1, "-I")
    elif how == "run_path":
        argv[2:] = ["-c", f"import runpy; runpy.run_path({str(script)!r}, run_name='x')"]
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lib, os_loaded = done.stdout.split()
    assert lib == str((plugin / "lib").resolve())
    assert os_loaded == str(how not in ("direct", "relative"))  # __file__ is made absolute
