"""``missioncache-harness demo``: a short session against the built plugin, narrated.

WHY: the fastest way to understand what MissionCache does is to watch one session: which text
Claude receives from each hook, what the human sees, and the time that ends up recorded. Everything
happens in a throwaway HOME (your own ~/.claude and ~/.missioncache are never touched): a task is
created for a scratch project, then a scripted session plays start, two prompts with a Write and an
Edit, Stop, a manual compaction and the end, with the hooks run exactly as Claude Code runs them;
then the status line after each step, the next session (which carries the compaction's summary)
and a time report.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from missioncache_harness.children import wait_heartbeat_children
from missioncache_harness.locate import repo_root
from missioncache_harness.routing import EventResult
from missioncache_harness.session import Session
from missioncache_harness.tools import Edit, Text, Tool, Write
from missioncache_harness.workspace import McEnv, build_plugin, create_task, make_env, python3

TASK = "demo-task"
# Real seconds, so the time figures at the end are not all zero: Claude's first turn runs a
# command this long, and you read its answer this long before your next prompt.
CLAUDE_SECONDS = 4.0
READING_SECONDS = 3.0
PROMPTS = [
    (
        "Add a greeting module",
        [
            Text("I'll add greeting.py."),
            Write("greeting.py", 'def greet():\n    return "hi"\n'),
            Tool("Bash", {"command": "python3 -c 'import greeting'"}, "", seconds=CLAUDE_SECONDS),
            Text("Added greeting.py with greet()."),
        ],
    ),
    (
        "Make it say hello world",
        [Edit("greeting.py", '"hi"', '"hello world"'), Text("It now says hello world.")],
    ),
]


def main(plugin: Path | None = None) -> int:
    with tempfile.TemporaryDirectory(prefix="missioncache-demo-") as tmp:
        try:
            return play(Path(tmp), plugin)
        except (RuntimeError, FileNotFoundError) as error:
            print(f"demo: {error}", file=sys.stderr)
            return 1


def play(tmp: Path, plugin: Path | None = None) -> int:
    """Play the demo in ``tmp`` (a throwaway HOME goes there) against ``plugin``.

    Told in the order the real Claude Code screen shows things (contract section 9): your
    prompt, what MissionCache's prompt hooks did with it, Claude's work and reply, then the
    line under the reply; on ``/compact`` the PostCompact line before the new start's."""
    env = make_env(tmp)
    plugin = plugin or _plugin(tmp)
    project = tmp / "work" / "greeter"
    project.mkdir(parents=True)
    project = project.resolve()
    print(f"MissionCache demo — throwaway HOME {env.home}")
    print(f"plugin:  {plugin}")
    task = create_task(plugin, env, TASK, project)
    print(f"task:    {task.output.strip()}")
    session = Session(plugin, project, env=env.env)

    _step("Claude Code starts in the project")
    _tell(session.start())
    for number, (text, reply) in enumerate(PROMPTS):
        if number:
            _step(f"You read Claude's answer for {READING_SECONDS:.0f} s")
            time.sleep(READING_SECONDS)
        _step(f'You: "{text}"')
        turn = session.prompt(text, reply=reply)
        prompt_events = [e for e in turn.events if e.event == "UserPromptSubmit"]
        for event in prompt_events:
            _tell(event, quiet="notes the prompt (your time and Claude's count from it)")
        for tool in turn.tools:
            _line("Claude", _tool_words(tool.name, tool.input))
        _line("Claude replies", turn.result)
        for event in turn.events:
            if event not in prompt_events:
                _tell(event)
        _status_line(env, plugin, project, session.session_id)
    _step("You type /compact")
    comp = session.compact()
    by_event = {event.event: event for event in comp.events}
    for name in ("PreCompact", "PostCompact", "SessionStart"):  # the order on screen
        if name in by_event:
            _tell(by_event[name])
    _status_line(env, plugin, project, session.session_id)
    _step("You quit")
    session.end()
    _line("MissionCache", "nothing to do when a session ends; the time is already recorded")
    _step("The next day: a new session in the same project")
    nxt = Session(plugin, project, env=env.env).start()
    _tell(nxt)
    for text in nxt.routed.model_texts:
        if "### Last compaction summary" in text:
            carried = text[text.index("### Last compaction summary") :]
            _line("Claude also gets the summary", _gist(carried, 5))
    _step("Time recorded")
    wait_heartbeat_children(env.data_root)  # the last prompt's heartbeat may still be landing
    _time(env, plugin, project)
    _report(env, plugin, project)
    return 0


def _tool_words(name: str, tool_input: dict) -> str:
    file = Path(str(tool_input.get("file_path", ""))).name
    words = {"Write": f"writes {file}", "Edit": f"edits {file}", "Bash": "runs a command"}
    return words.get(name, f"uses {name}")


def _tell(result: EventResult, quiet: str = "") -> None:
    """One event in a person's words: what you see on screen, what Claude is told."""
    routed = result.routed
    for text in routed.human_texts:
        _line("You see", _screen(text))
    if routed.compact_instructions:
        _line("The summary is asked to keep", routed.compact_instructions)
    for text in routed.model_texts:
        if routed.compact_instructions and routed.compact_instructions in text:
            continue
        _line("Claude is told", _gist(text))
    if quiet and not (routed.human_texts or routed.model_texts):
        _line("MissionCache", quiet)


def _screen(text: str) -> str:
    """The line as it looks on screen, without Claude Code's framing (``⎿  Stop says: ``).
    PreCompact and PostCompact lines keep their command as written, as Claude Code
    shows it on every manual /compact."""
    return text.removeprefix("⎿  ")


def _gist(text: str, lines: int = 6) -> str:
    """The start of what Claude receives, without Claude Code's routing prefix."""
    for prefix in ("SessionStart hook additional context: ", "UserPromptSubmit hook success: "):
        text = text.removeprefix(prefix)
    kept = text.strip().splitlines()
    if len(kept) > lines:
        kept = [*kept[:lines], f"… ({len(kept) - lines} more lines)"]
    return "\n".join(kept)


def _status_line(env: McEnv, plugin: Path, project: Path, session_id: str) -> None:
    """The line under the input box, as the installed status line draws it."""
    from missioncache_harness import payloads

    transcript = payloads.transcript_path(env.claude_dir, project, session_id)
    stdin = payloads.statusline(session_id=session_id, transcript_path=str(transcript), cwd=project)
    done = subprocess.run(
        [python3(), "-S", str(plugin / "statusline" / "statusline.py")],
        input=json.dumps(stdin),
        cwd=str(project),
        env={**env.env, "NO_COLOR": "1", "COLUMNS": "120"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    _line("Status line", done.stdout.strip() or "(empty)")


def _report(env: McEnv, plugin: Path, project: Path) -> None:
    done = env.bundled(plugin, "report", "--period", "week", cwd=project)
    _line("/missioncache:report", (done.stdout or done.stderr).rstrip())


def _plugin(tmp: Path) -> Path:
    root = repo_root()
    built = root / "plugin" if root else None
    if built is not None and (built / "hooks" / "hooks.json").is_file():
        return built
    return build_plugin(tmp / "plugin")


def _time(env: McEnv, plugin: Path, project: Path) -> None:
    done = env.bundled(plugin, "time", TASK, cwd=project)
    _line("missioncache time", (done.stdout or done.stderr).strip())
    print(
        "    (each turn counts from your prompt to Claude's Stop, a few seconds here; the gap\n"
        "     before your next prompt is yours when it is within the idle timeout: docs/time.md)"
    )


def _step(title: str) -> None:
    print(f"\n== {title}")


def _line(label: str, text: str) -> None:
    lines = (text.strip() or "(empty)").splitlines()
    print(f"    {label}: {lines[0]}")
    for line in lines[1:]:
        print(f"      {line}")


if __name__ == "__main__":
    sys.exit(main())
