"""A Session fires events in Claude Code's order and writes a transcript of the real shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from missioncache_harness.probes import read_log, set_behaviours
from missioncache_harness.session import Session
from missioncache_harness.tools import Edit, Text, Write
from missioncache_harness.transcript import SAMPLE_TRANSCRIPT

ALL = ["SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostCompact", "SessionEnd"]


@pytest.fixture
def sample() -> list[dict]:
    return [json.loads(line) for line in SAMPLE_TRANSCRIPT.read_text().splitlines()]


def _session(sim, behaviours=None, events=ALL):
    root = sim.plugin({event: ["A"] for event in events}, behaviours or {})
    return root, Session(root, sim.project, env=sim.env.env)


def _kind(record: dict) -> str:
    attachment = record.get("attachment")
    if attachment:
        return f"attachment:{attachment['type']}"
    return record["type"] + (f":{record['subtype']}" if "subtype" in record else "")


def _events(root) -> list[str]:
    return [entry["event"] for entry in read_log(root)]


def test_records_the_product_reads_have_the_sample_shape(sim, sample):
    """The prompt (its ``promptId``), the assistant records and their tool_use blocks are what
    the product reads; they carry the real CLI's keys. Other keys are real-CLI only."""
    _root, session = _session(sim)
    session.prompt(
        "WRITEEDIT please create hello.txt then change hi to hello",
        reply=[Write("hello.txt", "hi\n"), Edit("hello.txt", "hi", "hello"), Text("Done editing.")],
    )
    ours = session.records()

    def first(records, kind, test):
        return next(r for r in records if r["type"] == kind and test(r["message"]["content"]))

    def tool(content):
        return isinstance(content, list) and content[0]["type"] == "tool_use"

    prompt = first(ours, "user", lambda c: isinstance(c, str))
    assert {"promptId", "message", "uuid", "parentUuid", "sessionId", "cwd"} <= set(prompt)
    for test in (tool, lambda c: not tool(c)):
        mine, theirs = first(ours, "assistant", test), first(sample, "assistant", test)
        assert set(mine["message"]) == set(theirs["message"])
        block, their_block = mine["message"]["content"][0], theirs["message"]["content"][0]
        assert set(block) == set(their_block)
        assert set(block.get("input", {})) == set(their_block.get("input", {}))
    assert (sim.project / "hello.txt").read_text() == "hello\n"


def test_transcript_chain_and_order(sim):
    _root, session = _session(sim, {"A": {"stdout": "x"}})
    session.start()
    session.prompt("go", reply=[Text("thinking"), Write("a.txt", "1"), Write("b.txt", "2")])
    records = session.records()
    kinds = [_kind(r) for r in records]
    assert kinds[:5] == [
        "queue-operation",
        "queue-operation",
        "attachment:hook_success",
        "user",
        "attachment:hook_success",
    ]
    chained = [r for r in records if "uuid" in r]
    for before, after in zip(chained, chained[1:]):
        assert after["parentUuid"] == before["uuid"]
    first = [r for r in records if r["type"] == "assistant"][:3]
    assert len({r["message"]["id"] for r in first}) == 1, "one response shares message.id"
    last = [r for r in records if r["type"] == "assistant"][-1]
    assert last["message"]["content"] == [{"type": "text", "text": "Done."}]
    assert all(r["sessionId"] == session.session_id for r in records)
    assert all(r["cwd"] == str(sim.project) for r in chained)


def test_transcript_exists_only_once_the_prompt_is_recorded(sim):
    root, session = _session(sim)
    session.start()
    assert not session.transcript_path.exists()
    session.prompt("go", reply=[Write("a.txt", "x"), Text("ok")])
    seen = [(e["event"], e["transcript_exists"]) for e in read_log(root)]
    assert seen == [("SessionStart", False), ("UserPromptSubmit", False), ("Stop", True)]
    path = Path(read_log(root)[0]["stdin"]["transcript_path"])
    assert path == session.transcript_path
    assert path.parent.name == "-" + str(sim.project).strip("/").replace("/", "-").replace("_", "-")


def test_prompt_turn_reports_what_the_model_and_human_saw(sim):
    behaviours = {
        "A:SessionStart": {"stdout": "S"},
        "A:UserPromptSubmit": {"stdout": "U"},
        "A:Stop": {"json": {"systemMessage": "saved?"}},
    }
    root, session = _session(sim, behaviours)
    session.start()
    turn = session.prompt("hello", reply=[Text("hi there")])
    assert turn.model_texts == [
        "SessionStart:startup hook success: S",
        "UserPromptSubmit hook success: U",
    ]
    assert turn.human_texts == ["⎿  Stop says: saved?"]
    assert turn.result == "hi there"
    stop = next(e for e in read_log(root) if e["event"] == "Stop")["stdin"]
    assert stop["last_assistant_message"] == "hi there"
    assert stop["stop_hook_active"] is False
    second = session.prompt("again")
    assert second.model_texts == ["UserPromptSubmit hook success: U"], "SessionStart text once"


def test_blocked_prompt_leaves_no_user_record_and_no_stop(sim):
    """Flagged where Claude Code would act on it; its messages are real-CLI only (golden file)."""
    root, session = _session(sim, {"A:UserPromptSubmit": {"stderr": "nope", "exit": 2}})
    session.start()
    turn = session.prompt("WRITEFILE please", reply=[Write("f.txt", "x")])
    assert turn.blocked and turn.block_kind == "exit 2" and turn.result == ""
    assert not (sim.project / "f.txt").exists()
    assert "Stop" not in _events(root)
    assert not [r for r in session.records() if r["type"] == "user"]


def test_a_stop_hook_asking_to_continue_is_flagged_and_not_looped(sim):
    root, session = _session(sim, {"A:Stop": {"stderr": "keep going", "exit": 2}})
    turn = session.prompt("go", reply=[Text("first")])
    assert turn.blocked and turn.block_kind == "exit 2"
    assert _events(root) == ["UserPromptSubmit", "Stop"]  # once: no continuation loop
    assert turn.result == "first"


def test_compaction_fires_in_claude_codes_order(sim):
    behaviours = {
        "A:PreCompact": {"stdout": "keep the plan"},
        "A:SessionStart": {"stdout": "task context"},
        "A:PostCompact": {"stdout": "post"},
    }
    root, session = _session(sim, behaviours)
    session.start()
    session.prompt("work", reply=[Write("a.txt", "1")])
    before = len(read_log(root))
    comp = session.compact(custom_instructions="focus on tests")
    log = read_log(root)[before:]
    assert [e["event"] for e in log] == ["PreCompact", "SessionStart", "PostCompact"]
    pre, start, post = (e["stdin"] for e in log)
    assert pre["trigger"] == "manual" and pre["custom_instructions"] == "focus on tests"
    assert start["source"] == "compact" and start["prompt_id"] == pre["prompt_id"]
    assert start["model"] == "claude-opus-5-5"
    assert post["compact_summary"] == comp.summary and post["trigger"] == "manual"
    assert comp.instructions == "focus on tests\n\nkeep the plan"
    kinds = [_kind(r) for r in session.records()]
    boundary = kinds.index("system:compact_boundary")
    records = session.records()
    assert records[boundary]["parentUuid"] is None
    assert records[boundary]["compactMetadata"]["trigger"] == "manual"
    assert records[boundary + 1]["isCompactSummary"] is True
    assert records[-1]["message"]["content"].startswith(
        "<local-command-stdout>Compacted (ctrl+o to see full summary)\nPreCompact ["
    )
    turn = session.prompt("next")
    assert turn.model_texts[0] == "SessionStart:compact hook success: task context"
    assert "PostCompact [" in turn.model_texts[1]


@pytest.mark.parametrize("trigger", ["manual", "auto"])
def test_blocked_compaction_does_not_run(sim, trigger):
    root, session = _session(sim, {"A:PreCompact": {"stderr": "not now", "exit": 2}})
    session.prompt("work")
    before = (len(read_log(root)), len(session.records()))
    comp = session.compact(trigger)
    assert comp.blocked and comp.block_kind == "exit 2" and comp.instructions is None
    assert _events(root)[before[0] :] == ["PreCompact"]
    assert len(session.records()) == before[1]


def test_end_carries_the_prompt_id_and_is_not_recorded(sim):
    root, session = _session(sim, {"A:SessionEnd": {"stderr": "bye failed", "exit": 1}})
    session.start()
    turn = session.prompt("work")
    records = len(session.records())
    session.end()
    end = read_log(root)[-1]["stdin"]
    assert end["reason"] == "other" and end["prompt_id"] == turn.prompt_id
    assert len(session.records()) == records


def test_session_end_without_a_prompt_has_no_prompt_id(sim):
    root, session = _session(sim)
    session.end()
    assert "prompt_id" not in read_log(root)[-1]["stdin"]


def test_large_hook_output_is_persisted_beside_the_transcript(sim):
    root, session = _session(sim, {"A:SessionStart": {"stdout_chars": 12_000}})
    session.start()
    turn = session.prompt("go")
    assert turn.model_texts[0].startswith("SessionStart:startup hook success: <persisted-output>")
    saved = list((session.transcript_path.parent / session.session_id / "tool-results").iterdir())
    assert len(saved) == 1 and saved[0].read_text() == "x" * 12_000
    set_behaviours(root, {})


def test_edit_failures_are_tool_errors(sim):
    _root, session = _session(sim)
    (sim.project / "f.txt").write_text("aa aa")
    turn = session.prompt("go", reply=[Edit("f.txt", "aa", "b"), Edit("f.txt", "zz", "b")])
    multiple, missing = turn.tools
    assert multiple.is_error and "Found 2 matches" in multiple.content
    assert missing.is_error and "String to replace not found" in missing.content
    assert (sim.project / "f.txt").read_text() == "aa aa"


def test_list_prompt_is_kept_in_the_transcript_and_flattened_for_the_hook(sim):
    root, session = _session(sim, events=["UserPromptSubmit"])
    blocks = [{"type": "text", "text": "first block"}, {"type": "text", "text": "second block"}]
    session.prompt(blocks)
    assert read_log(root)[0]["stdin"]["prompt"] == "first block\nsecond block"
    user = next(r for r in session.records() if r["type"] == "user")
    assert user["message"]["content"] == blocks
