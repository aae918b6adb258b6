"""``missioncache uninstall [--purge] [--dry-run]`` (issue 26 item 7): every path
MissionCache keeps outside the plugin is listed, the machine state goes, the person's data
stays unless --purge, and a dry run changes nothing."""

from __future__ import annotations

import json
import os


def ok(done):
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def tree(root) -> set:
    return {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs}


def leave_traces(cli, mc_roots, mc_workdir, tmp_path) -> dict:
    """What a few sessions leave: a task, bindings, a health record, a spool entry, a
    terminal map, uv's build of the server, a status line."""
    data, claude = mc_roots
    ok(cli("create-task", "demo", "--repo", str(mc_workdir)))
    state = claude / "hooks" / "state"
    for kind in ("projects", "pm-server", "divergence"):
        (state / kind).mkdir(parents=True, exist_ok=True)
        (state / kind / "s1.json").write_text("{}")
    (state / "precompact-error.json").write_text("{}")
    (claude / "hooks-state.db").write_bytes(b"")
    other = state / "someone-elses"  # not ours: never touched
    other.mkdir()
    (other / "keep.txt").write_text("x")
    spool = data / "spool"
    spool.mkdir(exist_ok=True)
    (spool / "left.jsonl").write_text("not a heartbeat\n")
    cache = tmp_path / "uv-cache"
    build = cache / "archive-v0" / "AbC" / "lib" / "python3.11" / "site-packages"
    (build / "missioncache_pm-0.1.0.dist-info").mkdir(parents=True)
    (build / "missioncache_pm").mkdir()
    unrelated = cache / "archive-v0" / "XyZ" / "lib" / "python3.11" / "site-packages" / "mcp"
    unrelated.mkdir(parents=True)
    settings = claude / "settings.json"
    settings.write_text(json.dumps({"theme": "dark"}))
    ok(cli("statusline", "install"))
    return {"UV_CACHE_DIR": str(cache)}


def test_dry_run_lists_every_path_and_changes_nothing(cli, mc_roots, mc_workdir, tmp_path):
    env = leave_traces(cli, mc_roots, mc_workdir, tmp_path)
    data, claude = mc_roots
    before = tree(data) | tree(claude) | tree(tmp_path / "uv-cache")
    out = ok(cli("uninstall", "--purge", "--dry-run", env=env))
    after = tree(data) | tree(claude) | tree(tmp_path / "uv-cache")
    assert after == before
    state = claude / "hooks" / "state"
    for path in (
        state / "projects",
        state / "pm-server",
        state / "divergence",
        state / "precompact-error.json",
        claude / "hooks-state.db",
        tmp_path / "uv-cache" / "archive-v0" / "AbC",
        data / "tasks.db",
        data / "spool",
        data / "active",
    ):
        assert f"would remove: {path} (" in out, path
    assert "status line in " in out
    assert "someone-elses" not in out and "XyZ" not in out
    assert out.rstrip().endswith("claude plugin uninstall missioncache@missioncache")


def test_uninstall_keeps_the_data_and_purge_removes_it(cli, mc_roots, mc_workdir, tmp_path):
    env = leave_traces(cli, mc_roots, mc_workdir, tmp_path)
    data, claude = mc_roots
    out = ok(cli("uninstall", env=env))
    state = claude / "hooks" / "state"
    assert not (state / "projects").exists() and not (claude / "hooks-state.db").exists()
    assert not (state / "statusline").exists()
    assert json.loads((claude / "settings.json").read_text()) == {"theme": "dark"}
    assert not (tmp_path / "uv-cache" / "archive-v0" / "AbC").exists()
    assert (tmp_path / "uv-cache" / "archive-v0" / "XyZ").exists()
    assert (state / "someone-elses" / "keep.txt").exists()
    assert (data / "tasks.db").exists() and (data / "active" / "demo").is_dir()
    assert f"kept: {data / 'tasks.db'} (" in out and "--purge removes it" in out
    out = ok(cli("uninstall", "--purge", env=env))
    assert not (data / "tasks.db").exists() and not (data / "active").exists()
    assert not (data / "spool").exists()
    assert "kept:" not in out


def test_purge_removes_everything_missioncache_made(cli, mc_roots, mc_workdir, tmp_path):
    """Issue 35 item 1: the event logs, machine id, sync state, the dashboard's and the
    fork and token readers' state, the dashboard's uv build and the settings backups too:
    nothing is left that `doctor --rebuild` could bring the tasks back from."""
    env = leave_traces(cli, mc_roots, mc_workdir, tmp_path)
    data, claude = mc_roots
    ok(cli("sync", env=env))  # without a remote: the event log and the machine id
    assert (data / "events").is_dir() and (data / "machine-id").is_file()
    state = claude / "hooks" / "state"
    for kind in ("dashboard", "shared-seen", "usage"):
        (state / kind).mkdir(parents=True, exist_ok=True)
        (state / kind / "s1.json").write_text("{}")
    (data / "sync").mkdir()
    (data / "sync" / "status.json").write_text("{}")
    (claude / "settings.json.missioncache-dashboard").write_text("{}")
    site = tmp_path / "uv-cache" / "archive-v0" / "DsH" / "lib" / "python3.12" / "site-packages"
    (site / "missioncache_dashboard-0.1.0.dist-info").mkdir(parents=True)
    made = [
        data / "events",
        data / "machine-id",
        data / "sync",
        state / "dashboard",
        state / "shared-seen",
        state / "usage",
        claude / "settings.json.missioncache-dashboard",
        tmp_path / "uv-cache" / "archive-v0" / "DsH",
    ]
    out = ok(cli("uninstall", "--purge", "--dry-run", env=env))
    for path in made:
        assert f"would remove: {path} (" in out, (path, out)
    ok(cli("uninstall", "--purge", env=env))
    for path in made:
        assert not path.exists(), path
    assert not data.exists() or not any(data.iterdir()), list(data.iterdir())
