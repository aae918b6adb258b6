"""Two machines, one bare git repository: the history they share (docs/sync.md)."""

from __future__ import annotations

import shutil
import time

import pytest

from missioncache_harness.machines import A_TURNS, B_TURNS, T0, Machine, bare_remote


@pytest.fixture
def pair(tmp_path, mc_plugin):
    """Machine A with task ``demo``, B fresh; sync set up on both (A first)."""
    project = tmp_path / "project"
    project.mkdir()
    a, b = Machine(tmp_path, "A", mc_plugin), Machine(tmp_path, "B", mc_plugin)
    url = bare_remote(tmp_path / "remote.git")
    a.cli("create-task", "demo", "--repo", str(project))
    a.cli("sync", "setup", url, "--name", "laptop")
    b.cli("sync", "setup", url, "--name", "desktop")
    return a, b, url


def test_time_on_either_machine_is_the_union_of_both(pair):
    a, b, _ = pair
    assert "demo" in b.cli("list").stdout  # the task created on A is B's task too
    a.turns("demo", "sa", A_TURNS)
    b.turns("demo", "sb", B_TURNS)
    a.cli("sync")
    b.cli("sync")  # B has both now; A is one pull behind, which `time` itself makes up
    # Claude: 0-900 (A and B overlapping), 2000-2600 (A), 4000-4300 (B): 30m. The sum
    # would be 35m, either machine alone 20m or 15m.
    assert a.time("demo") == "demo: 30m (Claude 30m, you 0s), all time"
    assert b.time("demo") == a.time("demo")


def test_context_edits_in_different_sections_both_survive(pair):
    a, b, _ = pair
    text = a.file("demo").read_text()
    a.file("demo").write_text(text.replace("## Next Steps\n\n", "## Next Steps\n\n- from A\n"))
    text = b.file("demo").read_text()
    b.file("demo").write_text(text.replace("- Task created\n", "- Task created\n- from B\n"))
    a.cli("sync")
    b.cli("sync")
    a.cli("sync")
    for machine in (a, b):
        merged = machine.file("demo").read_text()
        assert "- from A\n" in merged and "- from B\n" in merged
        assert "<<<<<<<" not in merged


def test_same_line_edited_on_both_keeps_both_and_says_so(pair, tmp_path):
    a, b, _ = pair
    for machine, words in ((a, "A's plan"), (b, "B's plan")):
        path = machine.file("demo")
        path.write_text(path.read_text().replace("## Next Steps\n", f"## Next Steps: {words}\n"))
    a.cli("sync")
    said = b.cli("sync").stdout
    assert f"conflict in {b.file('demo')}:" in said  # the full path, not the data root's
    a.cli("sync")
    for machine in (a, b):
        merged = machine.file("demo").read_text()
        assert "A's plan" in merged and "B's plan" in merged
        assert "<<<<<<< version from desktop" in merged
        assert ">>>>>>> version from laptop" in merged
        doctor = machine.cli("doctor", ok=False)
        assert "demo-context.md holds both versions" in doctor.stdout
        assert doctor.returncode == 1
    told = b.session_start(tmp_path / "project")
    assert "demo-context.md has both versions of a conflicting edit" in told
    assert "has both versions" not in b.session_start(tmp_path / "project")  # once


def test_offline_turns_are_kept_and_reach_the_other_machine_later(pair, tmp_path):
    a, b, url = pair
    away = tmp_path / "remote-away.git"
    shutil.move(url, away)  # the remote is unreachable
    a.turns("demo", "sa", A_TURNS)
    said = a.cli("sync").stdout
    assert "remote not reached" in said
    assert a.time("demo").startswith("demo: 20m")
    assert "remote not reached" in a.cli("sync", "status").stdout
    shutil.move(away, url)  # back
    assert "pushed to the remote" in a.cli("sync").stdout
    today = time.strftime("%Y-%m-%d")  # when, not only how: `last sync 2026-12-04 20:59 ...`
    assert f"last sync {today} " in a.cli("sync", "status").stdout
    assert "(just now): ok" in a.cli("sync", "status").stdout
    b.cli("sync")
    assert b.time("demo").startswith("demo: 20m")


def test_rebuild_gives_the_same_figures(pair):
    a, b, _ = pair
    a.turns("demo", "sa", A_TURNS)
    b.turns("demo", "sb", B_TURNS)
    for machine in (a, b, a):
        machine.cli("sync")
    before = b.time("demo")
    said = b.cli("doctor", "--rebuild", ok=False).stdout
    assert "rebuilt from the event logs (1 task," in said
    assert b.time("demo") == before
    assert (b.root / "tasks.db.before-rebuild").is_file()


def test_tokens_cost_and_waits_of_both_machines_show_on_either_and_survive_a_rebuild(pair):
    """A's two messages of 100k input tokens each, B's two of 50k, sonnet at $3 per million:
    $0.90 and 300k tokens on either machine (each alone: $0.60 or $0.30). A 2-minute retry wait on A
    is waiting time on B too. A rebuild from the logs keeps all of it."""
    a, b, _ = pair
    a.turns("demo", "sa", A_TURNS, tokens=(100_000, 0, 0, 0, 0), waits=[(T0 + 100, 120)])
    b.turns("demo", "sb", B_TURNS, tokens=(50_000, 0, 0, 0, 0))
    assert a.time("demo").endswith("waiting 2m, $0.60, 200k tokens, all time")
    for machine in (a, b, a):
        machine.cli("sync")
    for machine in (a, b):
        assert machine.time("demo").endswith(", waiting 2m, $0.90, 300k tokens, all time")
    b.cli("doctor", "--rebuild", ok=False)
    assert b.time("demo").endswith(", waiting 2m, $0.90, 300k tokens, all time")


def test_sessions_on_b_in_its_own_clone_count_for_the_task(pair, tmp_path):
    """B's copy of the project lives at another path (same folder name, no git remote):
    B's real hooks track it as the task A created."""
    from missioncache_harness import Session, Text

    a, b, _ = pair
    clone = tmp_path / "B" / "src" / "project"
    clone.mkdir(parents=True)
    session = Session(b.plugin, clone, env=b.env.env)
    started = session.start()
    assert any("tracking demo" in text for text in started.routed.human_texts)
    session.prompt("carry on", reply=[Text("done")])
    session.end()
    b.cli("sync")
    a.cli("sync")
    assert b.cli("list").stdout.split()[-1] == str(clone)  # B's own path, remembered
    assert a.cli("list").stdout.split()[-1] == str(tmp_path / "project")  # A's stays
    events = (a.root / "events").glob("*/*.jsonl")
    prompts = [line for path in events for line in path.read_text().splitlines()]
    assert sum('"type":"heartbeat"' in line for line in prompts) == 1  # B's prompt, on A


def test_a_fork_made_on_a_is_a_fork_on_b_and_counts_in_its_parent(pair):
    """A fork's relation travels with it (docs/forks.md): on B it is listed under its
    parent, and its turns count in the parent's time there too."""
    a, b, _ = pair
    a.cli("fork", "demo", "fa")
    a.turns("fa", "sf", [(T0, T0 + 600)])
    a.cli("sync")
    b.cli("sync")
    listing = b.cli("list").stdout
    assert "└ fork fa" in listing, listing
    assert b.time("demo").startswith("demo: 10m"), b.time("demo")
