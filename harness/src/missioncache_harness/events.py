"""Facts about Claude Code's hook events that the loader, the runner and the router share.

WHY one module: they must agree on which events exist and how long a hook may run. Every value
comes from the contract (docs/claude-code-contract.md, measured on Claude Code 2.1.328).
"""

from __future__ import annotations

from collections.abc import Mapping

# The 18 events Claude Code 2.1.328 accepts in hooks.json (contract section 0). Anything else is an
# "unknown hook event" that Claude Code ignores with a warning, so the loader warns too. Of these,
# the simulator fires only MissionCache's and SessionEnd (the rest are real-CLI only).
KNOWN_EVENTS: tuple[str, ...] = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
    "Notification",
    "PermissionRequest",
    "InstructionsLoaded",
    "Setup",
    "PostToolBatch",
    "UserPromptExpansion",
)

# Default timeouts in seconds when a hook sets none (contract section 4.1).
DEFAULT_TIMEOUT = 600.0
EVENT_DEFAULT_TIMEOUTS: Mapping[str, float] = {"UserPromptSubmit": 30.0}
KILL_GRACE = 1.5  # SIGKILL follows SIGTERM this many seconds later

OUTPUT_LIMIT = 10_000  # characters of hook stdout passed on before it is persisted or cut
PREVIEW_CHARS = 2_000


def effective_timeout(event: str, timeout: float | None) -> float:
    """Seconds a hook may run: its explicit timeout, else the event's default."""
    return timeout if timeout is not None else EVENT_DEFAULT_TIMEOUTS.get(event, DEFAULT_TIMEOUT)


def hook_name(event: str, payload: Mapping[str, object]) -> str:
    """The name Claude Code gives a hook in records and messages, e.g. ``SessionStart:startup``."""
    if event == "SessionStart":
        return f"SessionStart:{payload.get('source', 'startup')}"
    return event
