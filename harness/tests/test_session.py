"""A Session fires events in Claude Code's order and writes a transcript of the real shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from missioncache_harness.probes import read_log, set_behaviours
from missioncache_harness.session import Session
from missioncache_harness.tools import Edit, Text, Write
from missioncache_harness.transcript import SAMPLE_TRANSCRIPT

ALL = [
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
]


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


def test_transcript_records_have_the_sample_shape(sim, sample):
    behaviours = {
        "A:SessionStart": {"stdout": "session context from hook"},
        "A:UserPromptSubmit": {"stdout": "prompt context from hook"},
    }
    _root, session = _session(sim, behaviours)
    session.start()
    session.prompt(
        "WRITEEDIT please create hello.txt then change hi to hello",
        reply=[Write("hello.txt", "hi\n"), Edit("hello.txt", "hi", "hello"), Text("Done editing.")],
    )
    ours = session.records()

    def pick(records, kind, nth=0, where=lambda r: True):
        return [r for r in records if _kind(r) == kind and where(r)][nth]

    is_prompt = lambda r: isinstance(r["message"]["content"], str)  # noqa: E731
    is_result = lambda r: not is_prompt(r)  # noqa: E731
    is_tool = lambda r: r["message"]["content"][0]["type"] == "tool_use"  # noqa: E731
    is_text = lambda r: not is_tool(r)  # noqa: E731
    pairs = [
        ("attachment:hook_success", 0, lambda r: True),
        ("attachment:hook_success", 1, lambda r: True),
        ("user", 0, is_prompt),
        ("user", 0, is_result),
        ("user", 1, is_result),
        ("assistant", 0, is_tool),
        ("assistant", 1, is_tool),
        ("assistant", 0, is_text),
        ("system:stop_hook_summary", 0, lambda r: True),
        ("queue-operation", 0, lambda r: True),
        ("last-prompt", 0, lambda r: True),
    ]
    for kind, nth, where in pairs:
        mine, theirs = pick(ours, kind, nth, where), pick(sample, kind, nth, where)
        assert set(mine) == set(theirs), kind
        for key in ("attachment", "message", "toolUseResult"):
            if isinstance(theirs.get(key), dict):
                assert set(mine[key]) == set(theirs[key]), f"{kind}.{key}"
        if kind == "assistant":
            assert set(mine["message"]["usage"]) == set(theirs["message"]["usage"])
            block, their_block = mine["message"]["content"][0], theirs["message"]["content"][0]
            assert set(block) == set(their_block)
            assert set(block.get("input", {})) == set(their_block.get("input", {}))
    edit_result = pick(ours, "user", 1, is_result)["toolUseResult"]
    assert (
        edit_result["structuredPatch"]
        == pick(sample, "user", 1, is_result)["toolUseResult"]["structuredPatch"]
    )
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
    assert [r["message"]["stop_reason"] for r in first] == ["tool_use"] * 3
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
    root, session = _session(sim, {"A:UserPromptSubmit": {"stderr": "nope", "exit": 2}})
    session.start()
    turn = session.prompt("WRITEFILE please", reply=[Write("f.txt", "x")])
    assert turn.blocked and turn.result.startswith("UserPromptSubmit operation blocked by hook:")
    assert turn.result.endswith("Original prompt: WRITEFILE please")
    assert not (sim.project / "f.txt").exists()
    assert "Stop" not in _events(root)
    records = session.records()
    assert not [r for r in records if r["type"] == "user"]
    assert [_kind(r) for r in records if r["type"] == "system"] == ["system:informational"]


def test_stop_blocks_loop_until_the_cap(sim):
    root, session = _session(sim, {"A:Stop": {"stderr": "keep going", "exit": 2}})
    turn = session.prompt("go", stop_replies=[[Text("round 2")]])
    assert turn.stop_rounds == 9 and turn.stop_cap_reached
    actives = [e["stdin"]["stop_hook_active"] for e in read_log(root) if e["event"] == "Stop"]
    assert actives == [False] + [True] * 8
    records = session.records()
    assert records[-2]["content"].startswith(
        "A hook blocked the turn from ending 9 consecutive times—overriding and ending turn."
    )
    feedback = [r for r in records if r.get("isMeta")]
    assert len(feedback) == 9 and feedback[0]["message"]["content"].startswith(
        "Stop hook feedback:\n["
    )
    texts = [r["message"]["content"][0]["text"] for r in records if r["type"] == "assistant"]
    assert texts[:2] == ["Done.", "round 2"]


def test_stop_hook_that_respects_stop_hook_active_runs_twice(sim):
    behaviour = {"A:Stop": {"stderr": "save first", "exit": 2, "if_not_active": True}}
    _root, session = _session(sim, behaviour)
    turn = session.prompt("go")
    assert turn.stop_rounds == 2 and not turn.stop_cap_reached
    assert turn.model_texts[-1].startswith("Stop hook feedback:\n")


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
    assert [e["event"] for e in log] == [
        "PreCompact",
        "SubagentStop",
        "SessionStart",
        "PostCompact",
    ]
    pre, sub, start, post = (e["stdin"] for e in log)
    assert pre["trigger"] == "manual" and pre["custom_instructions"] == "focus on tests"
    assert sub["agent_type"] == "" and sub["agent_transcript_path"].endswith(".jsonl")
    assert start["source"] == "compact" and start["prompt_id"] == pre["prompt_id"]
    assert start["model"] == "claude-opus-5-5"
    assert post["compact_summary"] == comp.summary and post["trigger"] == "manual"
    assert comp.instructions == "focus on tests\n\nkeep the plan"
    assert "\n\nAdditional Instructions:\nfocus on tests\n\nkeep the plan\n\n" in comp.request_text
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


def test_blocked_manual_compaction(sim):
    root, session = _session(sim, {"A:PreCompact": {"stderr": "not now", "exit": 2}})
    session.prompt("work")
    before = len(read_log(root))
    comp = session.compact()
    assert comp.blocked
    assert comp.result.startswith("Compaction blocked by PreCompact hook: [python3 ")
    assert comp.result.endswith("]: not now")
    assert _events(root)[before:] == ["PreCompact"]
    kinds = [_kind(r) for r in session.records()]
    assert "system:compact_boundary" not in kinds
    assert kinds[-1] == "system:local_command"


def test_auto_compaction_skipped_silently(sim):
    _root, session = _session(sim, {"A:PreCompact": {"stderr": "not now", "exit": 2}})
    session.prompt("work")
    records_before = len(session.records())
    comp = session.compact("auto")
    assert comp.blocked and comp.result is None and comp.human_texts == []
    assert len(session.records()) == records_before


def test_clear_ends_the_session_and_starts_a_new_one(sim):
    root, session = _session(sim)
    session.start()
    session.prompt("work")
    old_id, old_path = session.session_id, session.transcript_path
    before = len(read_log(root))
    session.clear()
    end, start = read_log(root)[before:]
    assert end["event"] == "SessionEnd" and end["stdin"]["reason"] == "clear"
    assert end["stdin"]["session_id"] == old_id
    assert start["event"] == "SessionStart" and start["stdin"]["source"] == "clear"
    assert start["stdin"]["session_id"] == session.session_id != old_id
    assert session.transcript_path != old_path
    assert session.previous_session_ids == [old_id]


def test_end_carries_the_prompt_id_and_is_not_recorded(sim):
    root, session = _session(sim, {"A:SessionEnd": {"stderr": "bye failed", "exit": 1}})
    session.start()
    turn = session.prompt("work")
    records = len(session.records())
    session.end()
    end = read_log(root)[-1]["stdin"]
    assert end["reason"] == "other" and end["prompt_id"] == turn.prompt_id
    assert len(session.records()) == records
    assert session.cli_stderr == [
        'SessionEnd hook [python3 "${CLAUDE_PLUGIN_ROOT}/hooks/probe.py" A] failed: bye failed'
    ]


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
