"""Many sessions at once, and a user editing the context file while PreCompact writes it."""

from __future__ import annotations

import os
import threading
import time

from missioncache_harness.reliability import (
    breadcrumb_only,
    fire_event,
    heartbeats,
    process_heartbeats,
    spooled,
    wait_for,
    wait_for_lock_waiter,
)
from missioncache_harness.session import Session
from missioncache_harness.tools import Text
from missioncache_state.lock import lock_file_for

SESSIONS = 16


def test_sixteen_sessions_on_one_task(scene, strict_plugin, mc_plugin):
    """16 sessions start, prompt, compact and stop at the same moment on one task: every
    heartbeat is counted once, every snapshot is in the context file, nothing blocks."""
    process_heartbeats(scene, mc_plugin)
    base = heartbeats(scene)
    barrier = threading.Barrier(SESSIONS)
    problems: list[str] = []
    lock = threading.Lock()

    def one(index: int) -> None:
        session = Session(strict_plugin, scene.repo, env=scene.env.env, session_id=f"par-{index}")
        barrier.wait()
        results = [session.start()]
        turn = session.prompt(f"parallel prompt number {index}", reply=[Text(f"reply {index}")])
        results += turn.events
        comp = session.compact("auto")
        results += getattr(comp, "events", [])
        for result in results:
            for run in result.hooks:
                if run.exit_code != 0 or run.timed_out or run.stderr.strip():
                    with lock:
                        problems.append(f"{index} {result.event}: {run.exit_code} {run.stderr}")
            if result.routed.blocked:
                with lock:
                    problems.append(f"{index} {result.event}: blocked")

    threads = [threading.Thread(target=one, args=(i,)) for i in range(SESSIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert problems == []
    wanted = base + SESSIONS
    assert wait_for(lambda: heartbeats(scene) + spooled(scene) >= wanted, timeout=20)
    process_heartbeats(scene, mc_plugin)
    assert spooled(scene) == 0
    assert heartbeats(scene) == wanted
    for index in range(SESSIONS):
        assert heartbeats(scene, f"par-{index}") == 1, index
    text = scene.context.read_text(encoding="utf-8")
    for index in range(SESSIONS):
        assert f"  - User: parallel prompt number {index}" in text, index
    assert text.count("- Auto-saved before compaction (") >= SESSIONS


def test_user_edit_that_landed_before_the_read_survives(scene, strict_plugin):
    """PreCompact waits for the context lock (another writer holds it); meanwhile the user
    saves the file with an editor that takes no lock. The hook reads after the save, so
    both the user's edit and the hook's entry are in the file."""
    from missioncache_state.lock import FileLock

    result = {}
    with FileLock(scene.context, timeout=5):
        worker = threading.Thread(
            target=lambda: result.update(fired=fire_event(strict_plugin, scene, "PreCompact"))
        )
        worker.start()
        assert wait_for_lock_waiter(lock_file_for(scene.context)), (
            "PreCompact never waited for the lock"
        )
        text = scene.context.read_text(encoding="utf-8")
        scene.context.write_text(text + "\nUSER EDIT WHILE THE HOOK WAITED\n", encoding="utf-8")
    worker.join(timeout=60)
    assert breadcrumb_only(result["fired"]) == []
    final = scene.context.read_text(encoding="utf-8")
    assert "USER EDIT WHILE THE HOOK WAITED" in final
    assert "- Auto-saved before compaction (" in final


def _user_saves(path, stop: threading.Event, log: list) -> None:
    """An editor that reloads the file, adds one line and saves, alternating in-place
    writes and atomic renames; logs (marker, time the save completed)."""
    index = 0
    while not stop.is_set():
        marker = f"user-line-{index}"
        text = path.read_text(encoding="utf-8")
        data = text.rstrip("\n") + f"\n{marker}\n"
        if index % 2:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(data)
        else:
            tmp = path.with_name(f".edit-{index}")
            tmp.write_text(data, encoding="utf-8")
            os.replace(tmp, path)
        log.append((marker, time.monotonic()))
        index += 1
        time.sleep(0.004)


def test_user_racing_precompact_loses_only_inside_the_window(scene, strict_plugin):
    """A user saving constantly while PreCompact runs again and again: no edit is lost,
    inside or outside a hook's run. Reports the measured losses."""
    original = scene.context.read_text(encoding="utf-8")
    stop = threading.Event()
    log: list = []
    editor = threading.Thread(target=_user_saves, args=(scene.context, stop, log))
    runs = []
    editor.start()
    try:
        for _ in range(12):
            started = time.monotonic()
            fired = fire_event(strict_plugin, scene, "PreCompact")
            runs.append((started, time.monotonic(), fired))
    finally:
        stop.set()
        editor.join(timeout=30)
    for _started, _ended, fired in runs:
        assert fired.problems() == []
    final = scene.context.read_text(encoding="utf-8")
    lines = set(final.splitlines())
    lost = [(m, t) for m, t in log if m not in lines]
    outside = [m for m, t in lost if not any(s - 0.05 <= t <= e + 0.05 for s, e, _ in runs)]
    print(f"user saves {len(log)}, hook runs {len(runs)}, user lines lost {len(lost)}")
    # The user's file as it was before the race is whole (a torn read written back
    # would have replaced it with the hook's entry alone), and no save is lost at all:
    # a hook waits until the file has been quiet for QUIET_SECONDS (this editor never
    # is, so the hook leaves the file alone and says so), and a save that still reaches
    # the replaced file is put back. Before issue 12 a descheduled hook lost saves here
    # (34 over 12 runs under full-suite load).
    for line in original.splitlines():
        if line and not line.startswith("**Last Updated:**"):
            assert line in lines, line
    assert outside == []
    assert lost == []
