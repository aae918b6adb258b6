"""Issue 12, items 1-7, against the built plugin: hostile files, bad spool entries, a
non-UTF-8 working directory, huge files, and an editor paused in the middle of a save.

Each case failed before its fix (see docs/reliability.md): the hooks hung on a FIFO,
read /dev/zero until memory ran out, failed silently in a non-UTF-8 directory, stopped
counting time after one bad spool line, took longer than the task tracker's timeout on a
big tasks file, and wrote half a save back over the user's context file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from missioncache_harness.reliability import (
    EVENTS,
    INSTRUCTION,
    LONG_PROFILE,
    fire_event,
    fire_raw,
    heartbeats,
    pending_failure,
    snapshots,
    wait_for,
)

# -- item 2: paths that are not regular files ------------------------------------------


def _special(path, kind: str) -> None:
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.symlink_to("/dev/zero")


@pytest.mark.parametrize("which", ["context", "tasks"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_a_special_file_at_the_context_or_tasks_path(kind, which, scene, strict_plugin):
    path = scene.context if which == "context" else scene.tasks
    _special(path, kind)
    before = os.lstat(path)
    for event in EVENTS:
        fired = fire_event(strict_plugin, scene, event)
        assert fired.problems() == [], (event, kind, which)
    after = os.lstat(path)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    if which == "tasks":  # the context file is still saved before compaction
        assert "- Auto-saved before compaction" in scene.context.read_text(encoding="utf-8")


# -- item 3: bad spool entries -----------------------------------------------------------


def test_bad_spool_entries_never_stop_time_tracking(scene, strict_plugin, mc_plugin):
    spool = scene.env.data_root / "spool"
    spool.mkdir(exist_ok=True)
    deep = "[" * 5000 + "]" * 5000
    lines = [
        f'{{"uid": "ab", "task_id": {scene.task_id}, "epoch": 1700000000, "context": {deep}}}',
        json.dumps({"uid": "cd", "task_id": scene.task_id, "epoch": 10**18}),
        json.dumps({"uid": "ef", "task_id": 10**30, "epoch": 1700000000}),
    ]
    (spool / "1-bad.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.mkfifo(spool / "2-fifo.jsonl")
    for round_ in range(3):
        before = heartbeats(scene)
        fired = fire_event(strict_plugin, scene, "UserPromptSubmit", prompt=f"go on {round_}")
        assert fired.problems() == []
        assert wait_for(lambda before=before: heartbeats(scene) == before + 1), round_
        saved_before = snapshots(scene)
        fired = fire_event(strict_plugin, scene, "PreCompact")
        assert fired.problems() == []
        assert snapshots(scene) == saved_before + 1 and pending_failure(scene) is None
    assert sorted(p.name for p in spool.iterdir()) == ["quarantine"]
    quarantined = sorted(p.name for p in (spool / "quarantine").iterdir())
    assert quarantined[-1] == "2-fifo.jsonl" and len(quarantined) == 2
    assert quarantined[0].startswith("1-bad.") and quarantined[0].endswith(".claimed.bad")
    assert (spool / "quarantine" / quarantined[0]).read_text().count("\n") == len(lines)


# -- item 4: a working directory named with non-UTF-8 bytes ------------------------------


def test_a_non_utf8_working_directory_gets_banner_heartbeat_and_snapshot(scene, strict_plugin):
    raw = os.fsencode(scene.repo) + b"/caf\xe9-\xff"
    os.mkdir(raw)
    cwd = os.fsdecode(raw)  # lone surrogates: what Python makes of the bytes
    shown = raw.decode("utf-8", "replace")  # what Claude Code's JSON carries (U+FFFD)
    env = scene.env.env
    outputs = {}
    session = "sess-unbound"  # found from the cwd, not from a binding
    saved_before = snapshots(scene)
    for event in EVENTS:
        data = json.dumps(scene.payload(event, cwd=shown, session_id=session)).encode()
        fired = fire_raw(strict_plugin, event, data, project_dir=cwd, env=env, session_id=session)
        assert fired.problems() == [], event
        outputs[event] = "".join(r.stdout for r in fired.runs)
    assert "Active Task Detected" in outputs["SessionStart"]
    assert outputs["PreCompact"] == INSTRUCTION
    assert snapshots(scene) == saved_before + 1 and pending_failure(scene) is None
    assert wait_for(lambda: heartbeats(scene, session) >= 1)


# -- items 5 and 7: a huge tasks file and a huge context file ----------------------------


def test_a_100k_item_tasks_file_stays_within_the_tracker_timeout(scene, strict_plugin):
    """Regression: 67 s at 100,000 items against a 5 s timeout. The reminder names a
    bounded number of items, whatever the file holds."""
    items = "".join(f"- [ ] {n}. item {n}\n" for n in range(2, 100_001))
    with scene.tasks.open("a", encoding="utf-8") as handle:
        handle.write(items)
    with scene.context.open("a", encoding="utf-8") as handle:
        handle.write("".join(f"\n### Task {n}\nfound\n" for n in range(2, 3000)))
    fired = fire_event(strict_plugin, scene, "UserPromptSubmit", prompt="next one")
    assert fired.problems() == []
    said = fired.stdout("task_tracker")
    assert "and " in said and " more." in said
    assert len(said) < 10_000  # Claude Code's hook-output limit


def _max_rss_of(command: list[str], stdin: bytes, env: dict, cwd) -> tuple[int, bytes]:
    """(peak resident kB of the child, its stdout), measured in a fresh parent so no
    earlier child's peak counts."""
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], input=sys.stdin.buffer.read(), capture_output=True)\n"
        "sys.stdout.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) + '\\n')\n"
        "sys.stdout.flush(); sys.stdout.buffer.write(done.stdout)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *command],
        input=stdin,
        env=env,
        cwd=cwd,
        capture_output=True,
        timeout=120,
        check=True,
    )
    first, _, rest = done.stdout.partition(b"\n")
    return int(first), rest


def test_a_50mb_context_file_is_not_read_whole(scene, strict_plugin, mc_plugin):
    """Regression: ~10x the file's size in memory and ~1.8 s on every prompt. The digest
    comes from the head (entries are newest first); memory stays near a bare hook's."""
    text = scene.context.read_text(encoding="utf-8")
    text = text.replace("## Next Steps\n", "## Next Steps\n- ship the parser fix\n", 1)
    filler = "".join(f"- old finding {n} " + "x" * 80 + "\n" for n in range(550_000))
    scene.context.write_text(text + "\n## Findings\n\n" + filler, encoding="utf-8")
    assert scene.context.stat().st_size > 50_000_000
    env = dict(scene.env.env, CLAUDE_PROJECT_DIR=str(scene.repo))
    for script, event in (("session_start", "SessionStart"), ("task_tracker", "UserPromptSubmit")):
        stdin = json.dumps(scene.payload(event, source="compact")).encode()
        command = ["python3", "-S", str(mc_plugin / "hooks" / f"{script}.py")]
        peak_kb, out = _max_rss_of(command, stdin, env, scene.repo)
        assert peak_kb < 60_000, (script, peak_kb)
        if script == "session_start":
            assert b"ship the parser fix" in out


# -- item 1: an editor paused in the middle of its save ----------------------------------

PAUSES_MS = (1, 5, 20, 50)
BURST = 10  # saves in a burst, 10 ms apart; then the editor idles IDLE seconds
BURSTS = 15 if LONG_PROFILE else 2  # the long profile makes 150 saves per pause
IDLE = 1.5


def _paused_saves(path, pause: float, log: list, stop: threading.Event) -> None:
    """An editor that saves in place: truncate, write the first half, pause, write the
    rest. Saves come in bursts (a user saving again and again, an auto-save) with idle
    time between them, so a hook can find the file at rest."""
    for burst in range(BURSTS):
        for index in range(BURST):
            if stop.is_set():
                return
            marker = f"user-save-{burst}-{index}-{int(pause * 1000)}ms"
            data = (path.read_text(encoding="utf-8").rstrip("\n") + f"\n{marker}\n").encode()
            with open(path, "wb") as handle:
                handle.write(data[: len(data) // 2])
                handle.flush()
                time.sleep(pause)
                handle.write(data[len(data) // 2 :])
            log.append(marker)
            time.sleep(0.01)
        time.sleep(IDLE)


def _diverted_reported(scene) -> int:
    """1 when PreCompact recorded a diverted save for the next SessionStart (taken)."""
    record = scene.env.claude_dir / "hooks" / "state" / "precompact-error.json"
    try:
        said = record.read_text(encoding="utf-8")
    except FileNotFoundError:
        return 0
    record.unlink()
    return int("could not be put back" in said)


@pytest.mark.parametrize("pause_ms", PAUSES_MS)
def test_an_editor_paused_mid_save_loses_nothing(pause_ms, scene, strict_plugin):
    """The issue measured 1 in 150 saves lost at a 1 ms pause, 4/60 at 5 ms, 10/60 at
    20 ms, 27/60 at 50 ms, each with the rest of the file. Now: none, and PreCompact
    either saves its entry or says it could not."""
    original = [
        line
        for line in scene.context.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("**Last Updated:**")
    ]
    log: list = []
    stop = threading.Event()
    editor = threading.Thread(
        target=_paused_saves, args=(scene.context, pause_ms / 1000, log, stop)
    )
    editor.start()
    runs = saved = reported = 0
    try:
        while editor.is_alive():
            saved_before = snapshots(scene)
            fired = fire_event(strict_plugin, scene, "PreCompact")
            assert fired.problems() == []
            runs += 1
            saved += snapshots(scene) > saved_before  # its entry is in the file
            reported += _diverted_reported(scene)
    finally:
        stop.set()
        editor.join(timeout=120)
    lines = set(scene.context.read_text(encoding="utf-8").splitlines())
    history = scene.context.parent / ".missioncache-history" / scene.context.name
    kept = set()
    for version in history.iterdir() if history.is_dir() else ():
        kept.update(version.read_text(encoding="utf-8", errors="replace").splitlines())
    # A save that reached the version a hook replaced and could not be put back is
    # kept in the history and reported (SaveDivertedError); lost means neither.
    diverted = [marker for marker in log if marker not in lines and marker in kept]
    lost = [marker for marker in log if marker not in lines and marker not in kept]
    print(
        f"pause {pause_ms} ms: saves {len(log)}, lost {len(lost)}, kept in history and"
        f" reported {len(diverted)}, hook runs {runs}, saved {saved}"
    )
    assert lost == []
    assert reported >= (1 if diverted else 0)
    assert [line for line in original if line not in lines] == []
    assert saved >= 1
