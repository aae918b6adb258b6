"""What hooks use from this package costs no heavy imports, and its string twins agree
with the Path API.

Hooks run on every prompt, in a fresh interpreter: ``pathlib`` (with the URL parser it
imports) alone costs 4 to 8 ms of a ~12 ms start, ``typing`` and ``tempfile`` a few more.
"""

import os
import subprocess
from pathlib import Path

import pytest

from missioncache_harness.import_cost import heavy_from, measuring
from missioncache_harness.workspace import python3
from missioncache_state import bindings, locations, lock, statefile, terminal

SRC = Path(__file__).resolve().parents[1] / "src"

HOOK_PATH = r"""
from missioncache_state import atomic, bindings, hooks_state_db, ids, locations, lock
from missioncache_state import rules, statefile, terminal
bindings.write_session_binding("s1", "demo", 1)
assert bindings.read_session_binding("s1")["taskId"] == 1
statefile.save_state("divergence", {"n": [1]}, "s1")
assert statefile.load_state("divergence", "s1") == {"n": [1]}
statefile.clear_state("divergence", "s1")
terminal.record_terminal_session({"TERM_SESSION_ID": "w0t0p0:abc"}, "s1")
with lock.FileLock(os.path.join(locations.data_root(), "f.md"), timeout=1):
    atomic.atomic_write_text(os.path.join(locations.data_root(), "f.md"), "x")
rules.remove_legacy_rules(sys.argv[1])
"""


def test_hook_path_functions_import_nothing_heavy(mc_roots, tmp_path):
    rules_src = tmp_path / "rules"
    rules_src.mkdir()
    (rules_src / "missioncache.md").write_text("<!-- missioncache-plugin:managed -->\nrule\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "COV"))}
    env["PYTHONPATH"] = str(SRC)
    done = subprocess.run(
        [
            python3(),
            "-S",
            "-c",
            measuring(HOOK_PATH),
            str(rules_src),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert heavy_from(done.stderr) == []
    data, claude = mc_roots
    assert (data / "f.md").read_text() == "x"  # the functions really ran
    assert not (rules_src / "missioncache.md").exists()
    assert (claude / "hooks" / "state" / "term-sessions" / "w0t0p0-abc").is_file()


WHERE = {  # data model section 1: (root, relative path)
    "data_root": ("data", ""),
    "tasks_db_path": ("data", "tasks.db"),
    "heartbeat_spool_dir": ("data", "spool"),
    "claude_dir": ("claude", ""),
    "state_dir": ("claude", "hooks/state"),
    "projects_dir": ("claude", "hooks/state/projects"),
    "term_sessions_dir": ("claude", "hooks/state/term-sessions"),
    "hooks_state_db_path": ("claude", "hooks-state.db"),
    "rules_dir": ("claude", "rules"),
}


@pytest.mark.parametrize("name", sorted(WHERE))
def test_locations_are_strings_under_their_root(mc_roots, name):
    data, claude = mc_roots
    root, relative = WHERE[name]
    text = getattr(locations, name)()
    assert isinstance(text, str)
    assert Path(text) == ({"data": data, "claude": claude}[root] / relative)


@pytest.mark.parametrize("name", ["data_root", "claude_dir"])
def test_locations_default_under_home(monkeypatch, tmp_path, name):
    monkeypatch.delenv("MISSIONCACHE_ROOT", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    expected = {"data_root": ".missioncache", "claude_dir": ".claude"}[name]
    assert getattr(locations, name)() == str(tmp_path / expected)


def test_hook_path_file_names(mc_roots):
    assert bindings.binding_file("s1") == os.path.join(locations.projects_dir(), "s1.json")
    assert bindings.binding_file("../x") is None
    assert statefile.state_path("k", "s1") == os.path.join(locations.state_dir(), "k", "s1.json")
    assert statefile.state_path("k") == os.path.join(locations.state_dir(), "k.json")
    assert statefile.state_path("k", "../x") is None
    assert lock.lock_file_for("/a/b/f.md") == "/a/b/f.md.lock"
    env = {"TERM_SESSION_ID": "w0t1p0:ABC"}
    assert terminal.record_terminal_session(env, "s2") == os.path.join(
        locations.term_sessions_dir(), "w0t1p0-ABC"
    )
    assert terminal.record_terminal_session({}, "s1") is None
