"""``missioncache-harness``: fire one hook event at a plugin, see where Claude Code routes it.

    missioncache-harness fire UserPromptSubmit --prompt "fix the tests"
    missioncache-harness fire PreCompact --trigger manual --payload @stdin.json
    missioncache-harness check plugin/        (strict hooks.json / plugin.json check, for CI)
    missioncache-harness demo                 (a short session against the built plugin)

WHY: when a hook misbehaves, the first question is "what did Claude Code do with its output?". This
answers it without a model, an API key or the real CLI: the hooks run exactly as Claude Code runs
them, against your real HOME unless ``--home`` points elsewhere.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from missioncache_harness import payloads
from missioncache_harness.locate import default_plugin
from missioncache_harness.plugin import SIMULATED_EVENTS, load_plugin, strict_check
from missioncache_harness.routing import EventResult
from missioncache_harness.runner import claude_dir_for
from missioncache_harness.session import fire

SHOW_CHARS = 2000


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    return args.func(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="missioncache-harness", description="Simulate Claude Code's hook contract."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    cmd = sub.add_parser("fire", help="fire one event at a plugin and show the routing")
    cmd.add_argument("event", choices=SIMULATED_EVENTS, metavar="EVENT")
    cmd.add_argument("--plugin", type=Path, help="plugin dir (default: the repo's built plugin/)")
    cmd.add_argument("--payload", help="stdin JSON, or @FILE; missing common fields are filled")
    cmd.add_argument("--cwd", type=Path, default=Path.cwd(), help="project dir (default: .)")
    cmd.add_argument("--prompt", default="", help="UserPromptSubmit prompt")
    cmd.add_argument("--source", default="startup", help="SessionStart source")
    cmd.add_argument("--trigger", default="manual", help="PreCompact/PostCompact trigger")
    cmd.add_argument("--home", type=Path, help="run with this HOME (and its .claude/.missioncache)")
    cmd.set_defaults(func=cmd_fire)
    check = sub.add_parser("check", help="strict plugin check: warnings count as failures")
    check.add_argument("plugin", type=Path, nargs="?")
    check.set_defaults(func=cmd_check)
    demo = sub.add_parser("demo", help="play a short session against the built plugin")
    demo.add_argument("--plugin", type=Path, help="plugin dir (default: the repo's plugin/)")
    demo.set_defaults(func=cmd_demo)
    return parser


def cmd_fire(args: argparse.Namespace) -> int:
    env = _environment(args.home)
    plugin_dir = args.plugin or default_plugin(env)
    if plugin_dir is None:
        print("no plugin found: pass --plugin DIR (or build plugin/)", file=sys.stderr)
        return 2
    plugin = load_plugin(plugin_dir)
    for problem in plugin.problems:
        print(f"plugin {problem}", file=sys.stderr)
    cwd = Path(os.path.realpath(args.cwd))
    payload = _payload(args, env, cwd)
    print(render(fire(plugin, args.event, payload, project_dir=cwd, env=env)))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    plugin_dir = args.plugin or default_plugin()
    if plugin_dir is None:
        print("no plugin found: pass a plugin directory", file=sys.stderr)
        return 2
    problems = strict_check(plugin_dir)
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{plugin_dir}: ok ({len(load_plugin(plugin_dir).hooks)} command hooks)")
    return 1 if problems else 0


def cmd_demo(args: argparse.Namespace) -> int:
    from missioncache_harness import demo

    return demo.main(plugin=args.plugin)


def _environment(home: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if home is not None:
        home = home.resolve()
        env.update(
            HOME=str(home),
            CLAUDE_CONFIG_DIR=str(home / ".claude"),
            MISSIONCACHE_ROOT=str(home / ".missioncache"),
        )
    return env


def _payload(args: argparse.Namespace, env: dict[str, str], cwd: Path) -> dict:
    """The event's stdin built from the options, or ``--payload`` over the common fields."""
    session_id, pid = payloads.new_id(), payloads.new_id()
    transcript = payloads.transcript_path(claude_dir_for(env), cwd, session_id)
    base = payloads.common(args.event, session_id=session_id, transcript_path=transcript, cwd=cwd)
    if args.payload:
        text = args.payload
        if text.startswith("@"):
            text = Path(text[1:]).read_text(encoding="utf-8")
        return {**base, **json.loads(text)}
    if args.event == "SessionStart":
        return payloads.session_start(base, args.source, prompt_id=pid)
    if args.event == "UserPromptSubmit":
        return payloads.user_prompt_submit(base, args.prompt, prompt_id=pid)
    if args.event == "Stop":
        return payloads.stop(base, prompt_id=pid, last_assistant_message="")
    if args.event == "StopFailure":
        return payloads.stop_failure(base, prompt_id=pid)
    if args.event == "SessionEnd":
        return payloads.session_end(base, prompt_id=pid)
    if args.event == "PreCompact":
        return payloads.pre_compact(base, prompt_id=pid, trigger=args.trigger)
    return payloads.post_compact(base, prompt_id=pid, trigger=args.trigger, compact_summary="")


def render(result: EventResult, *, raw: bool = True) -> str:
    """A readable report: each hook (with its raw output unless ``raw`` is false), then where
    Claude Code would send the output."""
    lines = [f"{result.event}: {len(result.hooks)} hook(s)"]
    for index, run in enumerate(result.hooks, 1):
        status = "timed out" if run.timed_out else f"exit {run.exit_code}"
        lines += [f"[{index}] {run.command}", f"    {status} in {run.duration:.3f} s"]
        for name, text in (("stdout", run.stdout), ("stderr", run.stderr)):
            if text and raw:
                lines.append(f"    {name}: {_clip(text)}")
    routed = result.routed
    lines.append("routing:")
    lines += [f"  model sees: {_clip(text)}" for text in routed.model_texts]
    lines += [f"  human sees: {_clip(text)}" for text in routed.human_texts]
    if routed.blocked:
        lines.append(f"  a hook asks to block ({routed.block_kind}): real CLI only, not simulated")
    kinds = [_record_kind(r) for r in routed.transcript_records]
    lines.append(f"  transcript: {', '.join(kinds) if kinds else 'nothing'}")
    return "\n".join(lines)


def _record_kind(record: dict) -> str:
    attachment = record.get("attachment")
    if isinstance(attachment, dict):
        return str(attachment.get("type"))
    return str(record.get("subtype") or record.get("type"))


def _clip(text: str) -> str:
    text = text.rstrip("\n").replace("\n", "\n      ")
    return text if len(text) <= SHOW_CHARS else text[:SHOW_CHARS] + f" …[{len(text)} chars]"


if __name__ == "__main__":
    sys.exit(main())
