"""Bad input: every hook fed generated stdin through the harness, as Claude Code runs it.

Each example is one firing of one event (both UserPromptSubmit hooks run together, as in
Claude Code). Payloads: bytes that are not JSON, JSON that is not an object, objects whose
every field may have the wrong type, huge strings, NUL, lone surrogates, invalid UTF-8
spliced into valid JSON, prompts as lists of content blocks, missing fields, and paths
aimed at a sentinel directory outside the allowed roots.

Every run must: exit 0 (the hook itself: the ``|| true`` suffix is stripped), finish
within its timeout, print nothing on stderr (a breadcrumb means a handled crash), block
nothing, write nothing outside the Claude dir and the data root, leave the tasks file
byte-identical and the context file grown only by PreCompact's own entries.

Fast profile: ``FUZZ_EXAMPLES`` (150) examples per event, derandomized so CI is stable.
Long profile: ``MISSIONCACHE_FUZZ_EXAMPLES=5000 uv run pytest harness/tests/reliability``
(random seeds; hypothesis prints the failing example).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from missioncache_harness.reliability import (
    FUZZ_EXAMPLES,
    LONG_PROFILE,
    SESSION_ID,
    context_grew_only_by_entries,
    diff,
    fire_raw,
    heartbeats,
    spooled,
    wait_for,
)

FIELDS = (
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "source",
    "prompt",
    "agent_id",
    "trigger",
    "custom_instructions",
    "compact_summary",
    "stop_hook_active",
    "permission_mode",
    "prompt_id",
    "model",
)

HOSTILE_TEXT = st.sampled_from(
    [
        "",
        "\x00",
        "a\x00b",
        "\ud800",
        "caf\u00e9 \U0001f600",
        "../../../../outside/secret.md",
        "..\\..\\outside\\secret.md",
        "C:\\Windows\\system32",
        "/",
        "/dev/zero",
        "/proc/self/environ",
        "~/x",
        "sess-main/../../x",
        "-rf",
        "\n### 2026-01-01 00:00\n```\n**Last Updated:** never",
        "$(touch pwned)",
        "`touch pwned`",
        "%s%n%x",
        "exit",
        "/compact",
        "!rm -rf /",
    ]
)


def huge_text() -> st.SearchStrategy[str]:
    sizes = [10_001, 100_000, 1_000_000] + ([5_000_000] if LONG_PROFILE else [])
    return st.builds(lambda n, c: c * n, st.sampled_from(sizes), st.sampled_from(["A", "\n", "é"]))


TEXT = st.one_of(st.text(max_size=200), HOSTILE_TEXT, huge_text())
JSON_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)
JSON_VALUE = st.recursive(
    JSON_SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
BLOCKS = st.lists(
    st.one_of(
        st.fixed_dictionaries({"type": st.just("text"), "text": TEXT}),
        st.fixed_dictionaries(
            {"type": st.sampled_from(["image", "tool_result", 3]), "text": JSON_VALUE}
        ),
        JSON_VALUE,
    ),
    max_size=5,
)


def field_values(scene) -> dict[str, st.SearchStrategy]:
    """Per field: the right value, a hostile one of the right type, or any JSON at all."""
    outside = str(scene.outside)
    paths = st.sampled_from(
        [
            str(scene.transcript),
            str(scene.repo),
            outside,
            f"{outside}/secret.md",
            f"{scene.repo}/../../outside",
            str(scene.env.claude_dir),
            str(scene.env.data_root / "tasks.db"),
            str(scene.context),
        ]
    )
    right = {
        "session_id": st.sampled_from([SESSION_ID, "other-session", "x" * 128, "x" * 129]),
        "transcript_path": paths,
        "cwd": paths,
        "prompt": st.one_of(TEXT, BLOCKS),
        "stop_hook_active": st.booleans(),
        "trigger": st.sampled_from(["manual", "auto", "other"]),
        "source": st.sampled_from(["startup", "resume", "compact", "clear", "other"]),
    }
    return {f: st.one_of(right.get(f, TEXT), TEXT, JSON_VALUE) for f in FIELDS}


def payloads(scene, event: str) -> st.SearchStrategy[bytes]:
    """Bytes for stdin: mostly a valid payload with fields changed or removed, sometimes
    junk, a non-object, a random object, or a valid payload with bytes spliced in."""
    values = field_values(scene)
    base = scene.payload(event)

    @st.composite
    def mutated(draw) -> dict:
        payload = dict(base)
        for key in draw(st.lists(st.sampled_from(FIELDS), max_size=4, unique=True)):
            if draw(st.booleans()):
                payload[key] = draw(values[key])
            else:
                payload.pop(key, None)
        return payload

    def encode(obj, ascii_: bool) -> bytes:
        return json.dumps(obj, ensure_ascii=ascii_).encode("utf-8", "surrogatepass")

    objects = st.one_of(
        mutated(),
        mutated(),
        mutated(),
        st.dictionaries(st.sampled_from(FIELDS), JSON_VALUE, max_size=6),
        JSON_VALUE.filter(lambda v: not isinstance(v, dict)),
    )
    encoded = st.builds(encode, objects, st.booleans())

    @st.composite
    def spliced(draw) -> bytes:
        data = draw(encoded)
        at = draw(st.integers(min_value=0, max_value=len(data)))
        junk = draw(st.sampled_from([b"\xff\xfe", b"\x00", b"\xc3(", b"\xed\xa0\x80", b"}"]))
        return data[:at] + junk + data[at:]

    junk = st.one_of(
        st.binary(max_size=300),
        st.sampled_from([b"", b"null", b"[]", b"\x00" * 64, b"{", b'{"a":' * 5000]),
    )
    return st.one_of(encoded, encoded, encoded, spliced(), junk)


def check_example(scene, plugin, event: str, stdin: bytes):
    outside_before = scene.outside_snapshot()
    tasks_before = scene.tasks.read_bytes()
    context_before = scene.context.read_text(encoding="utf-8")
    fired = fire_raw(plugin, event, stdin, project_dir=scene.repo, env=scene.env.env)
    assert fired.problems() == [], stdin[:300]
    assert diff(outside_before, scene.outside_snapshot()) == [], stdin[:300]
    assert scene.tasks.read_bytes() == tasks_before
    why = context_grew_only_by_entries(context_before, scene.context.read_text(encoding="utf-8"))
    assert why is None, why
    if event == "PreCompact":
        out = fired.stdout("pre_compact.py")
        assert "\n" not in out.strip() and not out.lstrip().startswith("{")
    if event in ("SessionStart", "Stop"):
        out = fired.stdout(".py").strip()
        assert out == "" or isinstance(json.loads(out), dict)
    assert fired.stdout("activity_tracker.py") == ""
    assert fired.stdout("post_compact.py") == ""  # anything would reach the human and model
    assert fired.stdout("stop_failure.py") == ""  # its output goes nowhere: say nothing
    return fired


SETTINGS = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    derandomize=not LONG_PROFILE,
    database=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.parametrize(
    "event",
    ["SessionStart", "UserPromptSubmit", "PreCompact", "PostCompact", "Stop", "StopFailure"],
)
def test_bad_input_never_hurts(event, scene, strict_plugin):
    spoke = []
    before = heartbeats(scene)
    spooled_before = spooled(scene)

    @SETTINGS
    @given(stdin=payloads(scene, event))
    def run(stdin: bytes) -> None:
        fired = check_example(scene, strict_plugin, event, stdin)
        if any(r.stdout for r in fired.runs):
            spoke.append(1)

    run()
    # The generator must reach the hooks' real work, not only their input guards.
    if event == "UserPromptSubmit":
        assert wait_for(lambda: heartbeats(scene) > before)
    elif event == "PostCompact":  # silent by design: its work is the stored summaries
        assert list((scene.context.parent / ".compactions").glob("*.json"))
    elif event == "StopFailure":  # silent by design: its work is the failed turn's end
        assert spooled(scene) > spooled_before
    else:
        assert spoke, f"no {event} example got past the input guards"
