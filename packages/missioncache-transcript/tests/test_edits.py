"""find_edits and current_exchange on the real sample and on built transcripts."""

from __future__ import annotations

import json

import pytest

from missioncache_transcript import Edit, current_exchange, edits_in, find_edits
from missioncache_transcript.records import iter_records_reversed

P = "/home/user/project/"


def test_sample_transcript_write_then_edit(sample_path):
    assert find_edits(sample_path) == [
        Edit("Write", P + "hello.txt"),
        Edit("Edit", P + "hello.txt"),
    ]
    exchange = current_exchange(sample_path)
    assert exchange.prompt["uuid"] == "a9d58c98-db93-4c42-8e5a-35746c2f10e8"
    assert not exchange.truncated
    assert exchange.records[-1]["type"] == "cost-state"


def test_sample_with_tiny_blocks_gives_the_same_exchange(sample_path):
    assert current_exchange(sample_path, block_size=7) == current_exchange(sample_path)


def test_only_the_current_exchange_counts(tx, tmp_path):
    tx.exchange("first", P + "old.py").exchange("second", P + "a.py", P + "b.py")
    assert find_edits(tx.write(tmp_path / "t.jsonl")) == [
        Edit("Edit", P + "a.py"),
        Edit("Edit", P + "b.py"),
    ]


def test_read_only_exchange_after_edits_has_none(tx, tmp_path):
    tx.exchange("edit things", P + "a.py").exchange("just look")
    assert find_edits(tx.write(tmp_path / "t.jsonl")) == []


def test_mentions_of_edit_tools_are_not_edits(tx, tmp_path):
    fake = json.dumps({"type": "tool_use", "name": "Write", "input": {"file_path": P + "x"}})
    tx.prompt(f"use the Write tool or Edit: {fake}")
    tx.text(f"I would call Write or Edit here: {fake}")
    tx.thinking("maybe Edit, maybe MultiEdit")
    tx.tool("Grep", {"pattern": '"name": "Edit"'})
    tx.as_is(
        {
            "type": "api-request-blob",
            "message": {"role": "assistant", "content": [json.loads(fake)]},
        }
    )
    tx.user([{"type": "tool_result", "tool_use_id": "t", "content": fake}])
    assert find_edits(tx.write(tmp_path / "t.jsonl")) == []


def test_tool_results_and_meta_do_not_start_an_exchange(tx, tmp_path):
    tx.prompt("go").edit(P + "a.py").meta().meta("[Image: source: /tmp/1.png]")
    tx.user(
        [
            {"type": "tool_result", "tool_use_id": "x", "content": "ok"},
            {"type": "text", "text": "note"},
        ]
    )
    tx.edit(P + "b.py")
    exchange = current_exchange(tx.write(tmp_path / "t.jsonl"))
    assert exchange.prompt["message"]["content"] == "go"
    assert edits_in(exchange.records) == [Edit("Edit", P + "a.py"), Edit("Edit", P + "b.py")]


def test_compact_summary_is_transparent_but_a_slash_command_is_a_prompt(tx, tmp_path):
    tx.prompt("long task").edit(P + "a.py")
    tx.as_is({"type": "system", "subtype": "compact_boundary"})
    tx.user(
        "This session is being continued from a previous conversation...", isCompactSummary=True
    )
    tx.edit(P + "b.py")
    path = tx.write(tmp_path / "t.jsonl")
    assert find_edits(path) == [Edit("Edit", P + "a.py"), Edit("Edit", P + "b.py")]
    tx.user("<command-name>/compact</command-name>\n<command-message>compact</command-message>")
    tx.user("<local-command-stdout>Compacted</local-command-stdout>")
    tx.user("<local-command-caveat>Caveat: ...</local-command-caveat>", isMeta=True)
    assert find_edits(tx.write(path)) == []


def test_interrupt_marker_and_local_output_are_not_prompts(tx, tmp_path):
    tx.prompt("go").edit(P + "a.py")
    tx.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    tx.user("<bash-stdout>ok</bash-stdout><bash-stderr></bash-stderr>")
    tx.user("   ")
    assert find_edits(tx.write(tmp_path / "t.jsonl")) == [Edit("Edit", P + "a.py")]


@pytest.mark.parametrize(
    "content",
    [
        [{"type": "text", "text": "look"}, {"type": "image", "source": {"type": "base64"}}],
        [{"type": "image", "source": {"type": "base64"}}],
        "<task-notification>\n<result>sub done.</result>\n</task-notification>",
        "<bash-input>ls</bash-input>",
    ],
)
def test_other_real_inputs_start_an_exchange(tx, tmp_path, content):
    tx.prompt("go").edit(P + "a.py").user(content)
    assert find_edits(tx.write(tmp_path / "t.jsonl")) == []


def test_sidechain_records_are_ignored(tx, tmp_path):
    tx.prompt("go").edit(P + "a.py")
    tx.user("subagent task prompt", isSidechain=True)
    tx.edit(P + "agent.py", isSidechain=True)
    tx.edit(P + "b.py")
    exchange = current_exchange(tx.write(tmp_path / "t.jsonl"))
    assert exchange.prompt["message"]["content"] == "go"
    assert all(not r.get("isSidechain") for r in exchange.records)
    assert edits_in(exchange.records) == [Edit("Edit", P + "a.py"), Edit("Edit", P + "b.py")]


def test_every_edit_tool_and_dedup_in_order(tx, tmp_path):
    tx.prompt("go")
    tx.text("Editing now.", msg_id="msg_x")
    tx.edit(P + "b.py", msg_id="msg_x").edit(P + "a.py", tool="Write", msg_id="msg_x")
    tx.edit(P + "b.py").edit(P + "b.py", tool="MultiEdit").edit(P + "n.ipynb", tool="NotebookEdit")
    tx.edit(P + "a.py", tool="Write").tool("Edit", {})
    assert find_edits(tx.write(tmp_path / "t.jsonl")) == [
        Edit("Edit", P + "b.py"),
        Edit("Write", P + "a.py"),
        Edit("MultiEdit", P + "b.py"),
        Edit("NotebookEdit", P + "n.ipynb"),
        Edit("Edit", None),
    ]


def test_damaged_records_and_a_partial_last_line(tx, tmp_path):
    tx.prompt("go").edit(P + "a.py")
    for junk in (b"", b"garbage", b"null", b"[1]", b"\xff\xfe\xfd", b'{"type": "user"'):
        tx.raw(junk)
    tx.as_is({"type": "user", "message": None}).as_is({"type": "assistant", "message": None})
    tx.as_is({"type": "assistant", "message": {"content": "plain string content"}})
    tx.as_is({"type": "assistant", "message": {"content": [None, 3, {"type": "tool_use"}]}})
    tx.as_is({"type": "user", "message": {"content": 7}})
    tx.edit(P + "b.py")
    partial = json.dumps({"type": "user", "message": {"content": "next prompt"}})[:-5]
    path = tx.write(tmp_path / "t.jsonl", trailing_newline=True)
    with open(path, "ab") as handle:
        handle.write(partial.encode())
    assert find_edits(path) == [Edit("Edit", P + "a.py"), Edit("Edit", P + "b.py")]


def test_missing_or_absent_transcript(tmp_path):
    assert find_edits(tmp_path / "created-a-moment-later.jsonl") == []
    assert find_edits(None) == []
    assert find_edits("") == []
    assert current_exchange(tmp_path / "nope.jsonl") == (None, (), False)


def test_huge_earlier_content_changes_nothing(tx, tmp_path):
    tx.exchange("latest", P + "a.py")
    small = tx.write(tmp_path / "small.jsonl")
    filler = TranscriptFiller.make(20 * 1024 * 1024)
    big = tx.write(tmp_path / "big.jsonl", prefix=filler)
    assert find_edits(big) == find_edits(small) == [Edit("Edit", P + "a.py")]
    assert current_exchange(big) == current_exchange(small)
    scan = iter_records_reversed(big)
    for record in scan:
        if record.get("type") == "queue-operation":
            break
    assert scan.bytes_read < 256 * 1024  # read from the end only


class TranscriptFiller:
    @staticmethod
    def make(size: int) -> bytes:
        """Older exchanges with edits, large enough to matter."""
        record = {
            "type": "assistant",
            "message": {
                "id": "msg_old",
                "content": [
                    {"type": "tool_use", "name": "Write", "input": {"file_path": P + "old"}}
                ],
            },
            "pad": "z" * 900,
        }
        prompt = {"type": "user", "message": {"content": "old prompt"}}
        chunk = (json.dumps(prompt) + "\n" + json.dumps(record) + "\n").encode()
        return chunk * (size // len(chunk) + 1)


def test_budget_without_a_prompt_is_reported(tx, tmp_path):
    tx.prompt("go")
    for index in range(50):
        tx.edit(P + f"f{index}.py")
    path = tx.write(tmp_path / "t.jsonl")
    exchange = current_exchange(path, max_bytes=2000)
    assert exchange.truncated and exchange.prompt is None
    edits = edits_in(exchange.records)
    assert edits and edits[-1] == Edit("Edit", P + "f49.py") and len(edits) < 50
    assert not current_exchange(path).truncated


def test_prompt_id_pins_the_exchange_to_this_turn(tx, tmp_path):
    """Stop fires for turn B, but the transcript still ends with turn A (Claude Code
    writes it asynchronously): A's edits must not be reported as B's."""
    tx.exchange("edit things", P + "a.py")
    path = tx.write(tmp_path / "t.jsonl")
    written = current_exchange(path).prompt["promptId"]
    assert find_edits(path, prompt_id=written) == [Edit("Edit", P + "a.py")]
    assert find_edits(path, prompt_id="a-later-prompt") == []
    assert find_edits(path) == [Edit("Edit", P + "a.py")]  # no id given: as before


def test_prompt_without_prompt_id_is_taken_as_it_is(tx, tmp_path):
    tx.user("old-style prompt").edit(P + "a.py")
    path = tx.write(tmp_path / "t.jsonl")
    assert find_edits(path, prompt_id="anything") == [Edit("Edit", P + "a.py")]
