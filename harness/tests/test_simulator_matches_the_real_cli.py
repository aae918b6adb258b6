"""The simulator and the real Claude Code CLI agree, scenario by scenario, step by step.

Each scenario is played twice: through `Session` (the simulator) and through `claude -p` against
the fake API (offline), one CLI process per step. Both sides are reduced to a
`missioncache_harness.conformance.Observation` per step: the stdin each hook got (names, types,
fixed values), the hook texts that reached the model (exact prefixes), the systemMessage lines
recorded for the human, the hook records of the transcript, what was blocked, and the compaction
instructions. Any disagreement fails the step's test with the list of differences.

Layer (a): the probe plugin (`probes.cli_probe_plugin`), whose output per event is set per step
(exit codes 0/1/2 and JSON on SessionStart, UserPromptSubmit, Stop and PreCompact).
Layer (b): the BUILT MissionCache plugin (with the probe beside it, logging stdin) in a HOME with a
real task: startup turn with a Write, a resumed turn, /compact, and the turn after it.

One session per layer (module-scoped fixtures) keeps the number of CLI processes small.

The real side of layer (a) is recorded in golden/probe-scenario.json: the simulator is checked
against that recording in every run, with or without the CLI, on the steps within its scope
(`REAL_CLI_ONLY` lists the others and why); the conformance run compares the CLI with every step
of it, and re-records it when MISSIONCACHE_RECORD_GOLDEN=1 (see harness/README.md).
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from missioncache_harness import conformance as cf
from missioncache_harness.claude_cli import (
    ClaudeRun,
    claude_version,
    load_transcript,
    requires_claude,
    run_turn,
)
from missioncache_harness.fake_api import FakeAnthropicAPI, ToolUse
from missioncache_harness.fake_api import Text as ApiText
from missioncache_harness.polling import poll_until
from missioncache_harness.session import Compaction, Session, Turn, _messages
from missioncache_harness.tools import Text, Write
from missioncache_harness.workspace import McEnv, create_task, make_env

GOLDEN = Path(__file__).parent / "golden" / "probe-scenario.json"
RECORD_ENV = "MISSIONCACHE_RECORD_GOLDEN"
SUMMARY = "<analysis>\nscripted\n</analysis>\n<summary>\nCONFORMANCE-SUMMARY\n</summary>"


# ------------------------------------------------------------------ the two-sided player


@dataclass
class Step:
    """One CLI process: a prompt (or ``/compact [text]``), Claude's reply, the probe's behaviour."""

    name: str
    prompt: str
    reply: list = field(default_factory=list)
    behaviour: dict[str, Any] = field(default_factory=dict)

    @property
    def compact(self) -> str | None:
        """The custom instructions when this step is a /compact ("" for none), else None."""
        if self.prompt == "/compact" or self.prompt.startswith("/compact "):
            return self.prompt[len("/compact") :].strip()
        return None


@dataclass
class Side:
    mc: McEnv
    home: Path
    cwd: Path
    log: Path
    env: dict[str, str]
    norm: cf.Normaliser


@dataclass
class Played:
    """Both sides of a scenario: per step the two observations and the real run."""

    sid: str
    real: Side
    sim: Side
    session: Session
    api: FakeAnthropicAPI
    observed: dict[str, tuple[cf.Observation, cf.Observation]] = field(default_factory=dict)
    runs: dict[str, ClaudeRun] = field(default_factory=dict)
    outcomes: dict[str, Turn | Compaction] = field(default_factory=dict)

    def differences(self, name: str) -> list[str]:
        sim, real = self.observed[name]
        return cf.differences(sim, real, name)


def make_side(base: Path, sid: str, probe: Path) -> Side:
    env = make_env(base)
    cwd = (base / "work" / "project").resolve()
    cwd.mkdir(parents=True)
    log = base / "probe.jsonl"
    env.env["MC_PROBE_LOG"] = str(log)
    norm = cf.Normaliser(env.home, cwd, sid, (probe,))
    return Side(env, env.home, cwd, log, env.env, norm)


def api_replies(blocks: list, cwd: Path) -> list[list]:
    """The fake API's responses for a scripted reply (split as the simulator splits it)."""
    replies = []
    for message in _messages(list(blocks) or [Text("Done.")]):
        out: list = []
        for block in message:
            if isinstance(block, Text):
                out.append(ApiText(block.text))
            else:
                path = str(cwd / block.path)
                out.append(ToolUse("Write", {"file_path": path, "content": block.content}))
        replies.append(out)
    return replies


def play(
    sid: str, steps: list[Step], real: Side, sim: Side, plugins: list[Path], api: FakeAnthropicAPI
) -> Played:
    session = Session(plugins, sim.cwd, env=sim.env, session_id=sid)
    played = Played(sid, real, sim, session, api)
    for index, step in enumerate(steps):
        _play_real(played, step, plugins, first=index == 0)
        if step.name not in REAL_CLI_ONLY:
            _play_sim(played, step, first=index == 0)
    return played


def _play_real(played: Played, step: Step, plugins: list[Path], *, first: bool) -> None:
    side, api = played.real, played.api
    for reply in api_replies(step.reply, side.cwd) if step.compact is None else []:
        api.enqueue(reply)
    before = (len(api.requests), len(load_transcript(side.log)), len(_transcript(played)))
    env_extra = {k: v for k, v in side.env.items() if k.startswith(("MC_", "MISSIONCACHE"))}
    env_extra["MC_PROBE_BEHAVIOUR"] = json.dumps(step.behaviour)
    run = run_turn(
        step.prompt,
        home=side.home,
        cwd=side.cwd,
        fake_api=api,
        plugin_dirs=plugins,
        session_id=played.sid if first else None,
        resume=None if first else played.sid,
        env_extra=env_extra,
    ).check()
    played.runs[step.name] = run
    real = cf.observe_real(
        run,
        api,
        requests_before=before[0],
        log=load_transcript(side.log)[before[1] :],
        records=_transcript(played)[before[2] :],
        norm=side.norm,
        prompt=None if step.compact is not None else step.prompt,
    )
    played.observed[step.name] = (cf.Observation(), real)


def _play_sim(played: Played, step: Step, *, first: bool) -> None:
    outcome, sim = play_sim_step(played.session, played.sim, step, first=first)
    played.outcomes[step.name] = outcome
    played.observed[step.name] = (sim, played.observed[step.name][1])


def play_sim_step(
    session: Session, side: Side, step: Step, *, first: bool
) -> tuple[Turn | Compaction, cf.Observation]:
    """One step through the simulator, and what it showed reduced to an Observation."""
    session.env["MC_PROBE_BEHAVIOUR"] = json.dumps(step.behaviour)
    before = (len(load_transcript(side.log)), len(session.records()))
    session.start("startup" if first else "resume")
    outcome: Turn | Compaction
    if step.compact is not None:
        outcome = session.compact("manual", step.compact or None, summary=SUMMARY)
    else:
        outcome = session.prompt(step.prompt, reply=step.reply)
    session.end()
    return outcome, cf.observe_sim(
        outcome,
        log=load_transcript(side.log)[before[0] :],
        records=session.records()[before[1] :],
        norm=side.norm,
    )


def _transcript(played: Played) -> list[dict]:
    from missioncache_harness.claude_cli import transcript_path

    return load_transcript(transcript_path(played.real.home, played.real.cwd, played.sid))


def assert_agree(played: Played, names: list[str]) -> None:
    problems = [p for name in names for p in played.differences(name)]
    assert not problems, "simulator and real CLI disagree:\n" + "\n".join(problems)


# ------------------------------------------------------------------ layer (a): the probe plugin

WRITE_REPLY = [Text("Writing."), Write("hello.txt", "hi\n"), Text("All done.")]


def _ctx(event: str, text: str, message: str | None = None) -> dict:
    out: dict[str, Any] = {
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": text}
    }
    if message:
        out["systemMessage"] = message
    return {"json": out}


PROBE_STEPS = [
    Step(
        "startup-exit0",
        "WRITEFILE please",
        WRITE_REPLY,
        {
            "SessionStart": {"stdout": "S1-SS-{SRC}", "stderr": "S1-SS-ERR"},
            "UserPromptSubmit": {"stdout": "S1-UPS"},
            "Stop": {"json": {"systemMessage": "S1-STOP-MSG"}},
        },
    ),
    Step(
        "resume-json",
        "second prompt",
        [Text("Second answer.")],
        {
            "SessionStart": _ctx("SessionStart", "S2-SS-CTX", "S2-SS-MSG"),
            "UserPromptSubmit": _ctx("UserPromptSubmit", "S2-UPS-CTX", "S2-UPS-MSG"),
            "Stop": {"stdout": "S2-STOP-OUT"},
        },
    ),
    Step(
        "resume-exit1",
        "third prompt",
        [Text("Third answer.")],
        {
            "SessionStart": {"stdout": "S3-SS", "stderr": "S3-SS-ERR", "exit": 1},
            "UserPromptSubmit": {"stdout": "S3-UPS", "stderr": "S3-UPS-ERR", "exit": 1},
            "Stop": {"json": {"systemMessage": "S3-STOP-MSG"}, "exit": 1, "stderr": "S3-E"},
        },
    ),
    Step(
        "resume-json-exit1",
        "third and a half",
        [Text("Answer.")],
        {
            "SessionStart": {**_ctx("SessionStart", "S3J-SS-CTX", "S3J-SS-MSG"), "exit": 1},
            "UserPromptSubmit": {**_ctx("UserPromptSubmit", "S3J-UPS-CTX"), "exit": 1},
            "Stop": {"stdout": "S3J-STOP", "stderr": "S3J-STOP-ERR", "exit": 1},
        },
    ),
    Step(
        "resume-exit2-prompt-blocked",
        "fourth prompt",
        [Text("never sent")],
        {
            "SessionStart": {"stdout": "S4-SS", "stderr": "S4-SS-ERR", "exit": 2},
            "UserPromptSubmit": {"stdout": "S4-UPS", "stderr": "S4-UPS-NO", "exit": 2},
        },
    ),
    Step(
        "resume-json-prompt-blocked",
        "fifth prompt",
        [Text("never sent")],
        {"UserPromptSubmit": {"json": {"decision": "block", "reason": "S5-UPS-NO"}}},
    ),
    Step(
        "resume-stop-exit2-loops-to-the-cap",
        "sixth prompt",
        [Text("Done.")],
        {"Stop": {"stderr": "S6-STOP-MORE", "exit": 2}},
    ),
    Step(
        "compact-exit2-blocked",
        "/compact",
        behaviour={"PreCompact": {"stdout": "S10-PC", "stderr": "S10-PC-NO", "exit": 2}},
    ),
    Step(
        "compact-json-blocked",
        "/compact",
        behaviour={"PreCompact": {"json": {"decision": "block", "reason": "S11-PC-NO"}}},
    ),
    Step(
        "compact-exit0",
        "/compact",
        behaviour={
            "SessionStart": {"stdout": "S7-SS-{SRC}"},
            "PreCompact": {"stdout": "S7-PRECOMPACT"},
            "PostCompact": {"stdout": "S7-POSTCOMPACT"},
        },
    ),
    Step(
        "after-compact",
        "eighth prompt",
        [Text("Eighth answer.")],
        {"UserPromptSubmit": {"stdout": "S8-UPS"}},
    ),
    Step(
        "compact-custom-exit1",
        "/compact focus on the tests",
        behaviour={"PreCompact": {"stdout": "S9-PC", "stderr": "S9-PC-ERR", "exit": 1}},
    ),
]


# Steps the simulator is not compared on: a hook blocks or steers (exit 2, `decision: block`),
# which MissionCache never does, so the simulator only flags it (routing's `blocked`). What the
# real CLI does then (erased prompts, the Stop block cap, blocked compactions, their messages)
# is pinned by the recording, which the conformance run checks the real CLI against.
REAL_CLI_ONLY = frozenset(
    {
        "resume-exit2-prompt-blocked",
        "resume-json-prompt-blocked",
        "resume-stop-exit2-loops-to-the-cap",
        "compact-exit2-blocked",
        "compact-json-blocked",
    }
)
SIM_STEPS = [step for step in PROBE_STEPS if step.name not in REAL_CLI_ONLY]


@pytest.fixture(scope="module")
def probe_played(tmp_path_factory: pytest.TempPathFactory, cli_probe: Path) -> Played:
    base = tmp_path_factory.mktemp("conformance-probe")
    sid = str(uuid.uuid4())
    real, sim = make_side(base / "real", sid, cli_probe), make_side(base / "sim", sid, cli_probe)
    with FakeAnthropicAPI(compact_summary=SUMMARY, default_text="Done.") as api:
        return play(sid, PROBE_STEPS, real, sim, [cli_probe], api)


def golden_differences(observed: dict[str, cf.Observation], *, sim: bool) -> list[str]:
    """How a run's observations differ from the recording (``sim``: the run is the simulator's)."""
    golden = cf.read_golden(GOLDEN)
    if sim:
        golden = {name: obs for name, obs in golden.items() if name not in REAL_CLI_ONLY}
    problems = [] if list(observed) == list(golden) else [f"steps: {list(observed)}"]
    for name in set(golden) & set(observed):
        pair = (observed[name], golden[name]) if sim else (golden[name], observed[name])
        problems += cf.differences(*pair, name)
    return problems


def test_simulator_agrees_with_the_recorded_cli(tmp_path: Path, cli_probe: Path) -> None:
    """The probe scenario through the simulator alone matches the real CLI's recording."""
    sid = str(uuid.uuid4())
    side = make_side(tmp_path, sid, cli_probe)
    session = Session([cli_probe], side.cwd, env=side.env, session_id=sid)
    observed = {
        step.name: play_sim_step(session, side, step, first=index == 0)[1]
        for index, step in enumerate(SIM_STEPS)
    }
    problems = golden_differences(observed, sim=True)
    assert not problems, "simulator and recorded CLI disagree:\n" + "\n".join(problems)


@pytest.mark.conformance
@requires_claude
def test_probe_plugin_simulator_agrees_with_the_real_cli(probe_played: Played) -> None:
    """Every step in the simulator's scope agrees, the CLI still does all that was recorded;
    then a guard that the real side did see each kind of outcome.

    One test (not one per step) so that, under xdist, the scenario is played once.
    """
    assert_agree(probe_played, [s.name for s in SIM_STEPS])
    obs = {name: real for name, (_sim, real) in probe_played.observed.items()}
    if os.environ.get(RECORD_ENV) == "1":
        cf.write_golden(GOLDEN, obs, claude_version())
    problems = golden_differences(obs, sim=False)
    assert not problems, f"the real CLI no longer matches {GOLDEN.name}:\n" + "\n".join(problems)
    assert (
        "SessionStart:startup hook success: S1-SS-startup" in obs["startup-exit0"].model_text_blob
    )
    assert obs["startup-exit0"].human == [("Stop", "S1-STOP-MSG")]
    assert "SessionStart hook additional context: S2-SS-CTX" in obs["resume-json"].model_text_blob
    assert obs["resume-exit2-prompt-blocked"].blocked
    assert obs["resume-json-prompt-blocked"].blocked
    assert obs["resume-stop-exit2-loops-to-the-cap"].prefix_counts()["Stop hook feedback:\n"] == 8
    assert obs["compact-exit0"].compact_instructions == "S7-PRECOMPACT"
    assert obs["compact-custom-exit1"].compact_instructions == "focus on the tests"
    assert obs["compact-exit2-blocked"].blocked
    assert "S10-PC-NO" in (obs["compact-exit2-blocked"].result or "")
    stops = [e for e in obs["resume-stop-exit2-loops-to-the-cap"].stdin if e[0] == "Stop"]
    assert [e[2]["stop_hook_active"] for e in stops] == [False] + [True] * 8


# ------------------------------------------------------------------ layer (b): the built plugin

TASK = "conformance-task"
BUILT_STEPS = [
    Step("startup-with-a-write", "add a greeting module", WRITE_REPLY),
    Step("resume", "make it say hello", [Text("It says hello now.")]),
    Step("compact", "/compact"),
    Step("after-compact", "what is next", [Text("Next: tests.")]),
]


@pytest.fixture(scope="module")
def built_played(
    mc_plugin: Path, cli_probe: Path, tmp_path_factory: pytest.TempPathFactory
) -> Played:
    base = tmp_path_factory.mktemp("conformance-built")
    sid = str(uuid.uuid4())
    real, sim = make_side(base / "real", sid, cli_probe), make_side(base / "sim", sid, cli_probe)
    for side in (real, sim):
        create_task(mc_plugin, side.mc, TASK, side.cwd)
    plugins = [mc_plugin, cli_probe]
    with FakeAnthropicAPI(compact_summary=SUMMARY, default_text="Done.") as api:
        played = Played(sid, real, sim, Session(plugins, sim.cwd, env=sim.env), api)
        played = _play_built(played, plugins)
    return played


def _play_built(played: Played, plugins: list[Path]) -> Played:
    sid = played.sid
    played.session = Session(plugins, played.sim.cwd, env=played.sim.env, session_id=sid)
    for index, step in enumerate(BUILT_STEPS):
        if step.compact is not None:  # the turns' detached heartbeats land before compaction
            for side in (played.real, played.sim):
                wait_for_heartbeats(side, 2)
        _play_real(played, step, plugins, first=index == 0)
        _play_sim(played, step, first=index == 0)
    return played


def db_rows(side: Side, sql: str) -> list[tuple]:
    conn = sqlite3.connect(str(side.home / ".missioncache" / "tasks.db"))
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def wait_for_heartbeats(side: Side, count: int) -> None:
    """The heartbeat child is detached: poll (bounded) until ``count`` rows exist."""
    recorded = poll_until(lambda: db_rows(side, "SELECT COUNT(*) FROM heartbeats")[0][0] >= count)
    assert recorded, f"fewer than {count} heartbeats in {side.home}"


@pytest.mark.conformance
@requires_claude
def test_built_plugin_simulator_agrees_with_the_real_cli(built_played: Played) -> None:
    """Every step agrees, and what was compared is the product's output (not an empty
    agreement); the real run left a heartbeat, a stamped context file and processed time."""
    assert_agree(built_played, [s.name for s in BUILT_STEPS])
    obs = {name: real for name, (_sim, real) in built_played.observed.items()}
    startup = obs["startup-with-a-write"]
    banner = "SessionStart hook additional context: ## MissionCache: Active Task Detected"
    assert banner in startup.model_text_blob
    assert "MissionCache: tracking" not in startup.model_text_blob
    assert startup.human[0] == (
        "SessionStart:startup",
        f"MissionCache: tracking {TASK} (<DURATION> invested)",
    )
    names = [name for name, _ in startup.human]
    assert names == ["SessionStart:startup", "Stop"]
    assert "Claude changed 1 file in this turn (" in startup.human[1][1]
    assert "(resume)" in obs["resume"].model_text_blob
    assert obs["compact"].compact_instructions == (
        f'Keep the MissionCache task name "{TASK}" and its Next Steps in the summary.'
    )
    after = obs["after-compact"].model_text_blob
    assert "Where the work stands" in after
    assert "Auto-saved before compaction (<WHEN>, manual)" in after
    assert "  - User: add a greeting module" in after

    real = built_played.real
    assert {row[0] for row in db_rows(real, "SELECT session_id FROM heartbeats")} == {
        built_played.sid
    }
    assert db_rows(real, "SELECT COUNT(*) FROM heartbeats WHERE processed = 0")[0][0] <= 1
    assert db_rows(real, "SELECT COUNT(*) FROM sessions")[0][0] >= 1
    context = (real.home / ".missioncache" / "active" / TASK / f"{TASK}-context.md").read_text()
    assert "**Last Updated:** " in context
    assert "- Auto-saved before compaction (" in context and ", manual)" in context
    assert "  - User: make it say hello" in context
    assert "  - Claude: It says hello now." in context
