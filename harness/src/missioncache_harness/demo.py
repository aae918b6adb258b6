"""``missioncache-harness demo``: a short session against the built plugin, narrated.

WHY: the fastest way to understand what MissionCache does is to watch one session: which text
Claude receives from each hook, what the human sees, and the time that ends up recorded. Everything
happens in a throwaway HOME (your own ~/.claude and ~/.missioncache are never touched): a task is
created for a scratch project, then a scripted session plays start, two prompts with a Write and an
Edit, Stop, a manual compaction and the end, with the hooks run exactly as Claude Code runs them.
"""

from __future__ import annotations

import sys
import tempfile
import textwrap
import time
from pathlib import Path

from missioncache_harness.children import wait_heartbeat_children
from missioncache_harness.cli import render
from missioncache_harness.locate import repo_root
from missioncache_harness.routing import EventResult
from missioncache_harness.session import Session
from missioncache_harness.tools import Edit, Text, Tool, Write
from missioncache_harness.workspace import McEnv, build_plugin, create_task, make_env

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
    """Play the demo in ``tmp`` (a throwaway HOME goes there) against ``plugin``."""
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

    _step("Claude Code starts in the project (SessionStart)")
    _show_event(session.start())
    for number, (text, reply) in enumerate(PROMPTS):
        if number:
            _step(f"You read Claude's answer for {READING_SECONDS:.0f} s")
            time.sleep(READING_SECONDS)
        _step(f'You: "{text}"')
        turn = session.prompt(text, reply=reply)
        for tool in turn.tools:
            _line("Claude uses", f"{tool.name} {Path(tool.input.get('file_path', '')).name}")
        _line("Claude replied", turn.result)
        for event in turn.events:
            _show_event(event)
    _step("You type /compact (PreCompact, then the compaction hooks)")
    comp = session.compact()
    for event in comp.events:
        _show_event(event)
    _line("compaction instructions", comp.instructions or "(none)")
    _step("You quit (SessionEnd)")
    _show_event(session.end())
    _step("Time recorded")
    wait_heartbeat_children(env.data_root)  # the last prompt's heartbeat may still be landing
    _time(env, plugin, project)
    return 0


def _plugin(tmp: Path) -> Path:
    root = repo_root()
    built = root / "plugin" if root else None
    if built is not None and (built / "hooks" / "hooks.json").is_file():
        return built
    return build_plugin(tmp / "plugin")


def _show_event(result: EventResult) -> None:
    print(textwrap.indent(render(result, raw=False), "    "))


def _time(env: McEnv, plugin: Path, project: Path) -> None:
    done = env.bundled(plugin, "time", TASK, cwd=project)
    _line("missioncache-db time", (done.stdout or done.stderr).strip())
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
