"""Fire one event at one or more plugins: run the hooks, then route their output.

WHY its own module: the runner knows processes and the router knows Claude Code's rules; callers
(the Session, the CLI, tests) want both in one call and one result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from missioncache_harness.plugin import Plugin, load_plugin
from missioncache_harness.routing import EventResult, route
from missioncache_harness.runner import run_event


def as_plugins(plugins: Plugin | str | Path | Sequence[Plugin | str | Path]) -> list[Plugin]:
    """Accept a Plugin, a plugin directory, or a list of either."""
    items = [plugins] if isinstance(plugins, (Plugin, str, Path)) else list(plugins)
    return [p if isinstance(p, Plugin) else load_plugin(p) for p in items]


def fire(
    plugins: Plugin | str | Path | Sequence[Plugin | str | Path],
    event: str,
    payload: Mapping[str, object],
    *,
    project_dir: str | Path,
    env: Mapping[str, str] | None = None,
) -> EventResult:
    """Run ``event``'s hooks with ``payload`` on stdin and say where their output goes."""
    runs = run_event(as_plugins(plugins), event, payload, project_dir=project_dir, env=env)
    return EventResult(event, dict(payload), runs, route(event, runs, payload))
