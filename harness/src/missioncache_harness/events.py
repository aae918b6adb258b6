"""Facts about Claude Code's hook events that the loader, the runner and the router share.

WHY one module: they must agree on which events exist, which payload field a matcher is compared
with and how long a hook may run. Every value comes from the contract (docs/claude-code-contract.md,
measured on Claude Code 2.1.328).
"""

from __future__ import annotations

import re
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

# Which stdin field a group's `matcher` is compared with; the other simulated events ignore it.
MATCHER_FIELD: Mapping[str, str] = {
    "SessionStart": "source",
    "PreCompact": "trigger",
    "PostCompact": "trigger",
    "SessionEnd": "reason",
}

# Default timeouts in seconds when a hook sets none (contract section 4.1).
DEFAULT_TIMEOUT = 600.0
EVENT_DEFAULT_TIMEOUTS: Mapping[str, float] = {"UserPromptSubmit": 30.0}
KILL_GRACE = 1.5  # SIGKILL follows SIGTERM this many seconds later

OUTPUT_LIMIT = 10_000  # characters of hook stdout passed on before it is persisted or cut
PREVIEW_CHARS = 2_000

_SIMPLE_MATCHER = re.compile(r"[A-Za-z0-9_|]+")


def matcher_matches(matcher: object, value: str | None) -> bool:
    """True when a group's matcher selects ``value``.

    WHY two forms: Claude Code treats a plain word list (``Write|Edit``) as exact names and
    anything else as a regular expression searched in the value; a missing, empty or ``*``
    matcher matches all.
    """
    if value is None or matcher is None or matcher in ("", "*"):
        return True
    if not isinstance(matcher, str):
        return False
    if _SIMPLE_MATCHER.fullmatch(matcher):
        return value in matcher.split("|")
    try:
        return re.search(matcher, value) is not None
    except re.error:
        return False


def match_value(event: str, payload: Mapping[str, object]) -> str | None:
    """The payload value an event's matchers are compared with (None: matchers are ignored)."""
    value = payload.get(MATCHER_FIELD.get(event, ""))
    return value if isinstance(value, str) else None


def effective_timeout(event: str, timeout: float | None) -> float:
    """Seconds a hook may run: its explicit timeout, else the event's default."""
    return timeout if timeout is not None else EVENT_DEFAULT_TIMEOUTS.get(event, DEFAULT_TIMEOUT)


def hook_name(event: str, payload: Mapping[str, object]) -> str:
    """The name Claude Code gives a hook in records and messages, e.g. ``SessionStart:startup``."""
    if event == "SessionStart":
        return f"SessionStart:{payload.get('source', 'startup')}"
    return event
