"""Every hook is started as the same small script (``hook.py``), which runs the hook's body
beside it through ``output.run_body``: the body's byte code is then cached between runs."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from missioncache_harness.plugin import load_plugin
from missioncache_harness.polling import poll_until
from missioncache_harness.workspace import python3

HOOK_SCRIPT = Path(__file__).resolve().parents[1] / "hook.py"

BODY = """
import gc, json, sys

def main():
    on_path = any(p.endswith("hooks") for p in sys.path)
    print(json.dumps({"gc": gc.isenabled(), "folder_on_path": on_path}))
"""


def _hooks(plugin: Path, tmp_path: Path, body: str | None) -> Path:
    """A plugin folder with the built libraries and one hook: ``stop.py`` and its body."""
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "lib").symlink_to(plugin / "lib", target_is_directory=True)
    hooks = tmp_path / "plugin" / "hooks"
    hooks.mkdir()
    shutil.copyfile(HOOK_SCRIPT, hooks / "stop.py")
    if body is not None:
        (hooks / "_stop.py").write_text(body, encoding="utf-8")
    return hooks


def _start(hooks: Path, **env: str) -> subprocess.CompletedProcess:
    """The hook as the launcher runs it: the hooks' Python, ``-S``, byte code written."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return subprocess.run(
        [python3(), "-S", str(hooks / "stop.py")],
        input="{}",
        capture_output=True,
        text=True,
        env={**environ, **env},
        cwd=hooks.parent,
        timeout=60,
    )


def test_the_script_runs_its_body_with_the_collector_off_and_caches_its_byte_code(
    mc_plugin, tmp_path
):
    hooks = _hooks(mc_plugin, tmp_path, BODY)
    done = _start(hooks)
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout) == {"gc": False, "folder_on_path": True}
    # The point of the two files: the body is imported, so its compiled form is kept.
    assert list((hooks / "__pycache__").glob("_stop.*.pyc"))


def test_the_body_is_found_when_safe_path_leaves_the_folder_off(mc_plugin, tmp_path):
    hooks = _hooks(mc_plugin, tmp_path, BODY)  # Python 3.11+ honours PYTHONSAFEPATH
    done = _start(hooks, PYTHONSAFEPATH="1")
    assert done.returncode == 0
    assert json.loads(done.stdout)["folder_on_path"] is True


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("def main():\n    raise RuntimeError('boom')\n", "missioncache: RuntimeError: boom\n"),
        (None, "missioncache: ModuleNotFoundError: No module named '_stop'\n"),
    ],
)
def test_a_failing_or_missing_body_exits_zero_with_one_breadcrumb(mc_plugin, tmp_path, body, said):
    done = _start(_hooks(mc_plugin, tmp_path, body))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", said)


def test_every_built_hook_is_the_same_script_with_its_own_body(mc_plugin):
    scripts = {_started_script(spec.command) for spec in load_plugin(mc_plugin).hooks}
    assert len(scripts) == 7
    for script in scripts:
        assert (mc_plugin / "hooks" / script).read_bytes() == HOOK_SCRIPT.read_bytes()
        assert (mc_plugin / "hooks" / f"_{script}").is_file()


def _started_script(command: str) -> str:
    """``hooks/<name>.py`` that ``"${CLAUDE_PLUGIN_ROOT}/hooks/run" <name>`` starts."""
    found = re.fullmatch(r'"\$\{CLAUDE_PLUGIN_ROOT\}/hooks/run" (\w+)', command)
    assert found, command
    return f"{found.group(1)}.py"


BUNDLE_PROBE = """
import json, sys

def main():
    from missioncache_state import bytecode
    import missioncache_state.words
    loader = sys.modules["missioncache_state.words"].__spec__.loader
    print(json.dumps({"bundled": isinstance(loader, bytecode.BundleFinder), "says": SAYS}))

SAYS = "first"
"""


def test_a_hook_has_the_bundle_built_then_imports_from_it_and_never_runs_old_code(
    mc_plugin, tmp_path
):
    plugin = tmp_path / "plugin"
    shutil.copytree(mc_plugin / "lib", plugin / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    hooks = plugin / "hooks"
    hooks.mkdir()
    shutil.copyfile(HOOK_SCRIPT, hooks / "stop.py")
    (hooks / "_stop.py").write_text(BUNDLE_PROBE, encoding="utf-8")
    root = tmp_path / "data"
    root.mkdir()
    env = {"MISSIONCACHE_ROOT": str(root), "HOME": str(tmp_path)}
    bundles = plugin / "lib" / "__pycache__"

    done = _start(hooks, **env)
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout) == {"bundled": False, "says": "first"}
    assert poll_until(lambda: list(bundles.glob("missioncache.*.bundle")), timeout=30)

    done = _start(hooks, **env)
    assert json.loads(done.stdout) == {"bundled": True, "says": "first"}

    body = hooks / "_stop.py"
    body.write_text(BUNDLE_PROBE.replace('"first"', '"the edited body"'), encoding="utf-8")
    done = _start(hooks, **env)
    assert json.loads(done.stdout) == {"bundled": True, "says": "the edited body"}
