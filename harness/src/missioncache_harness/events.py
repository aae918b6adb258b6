"""Facts about Claude Code's hook events that several harness modules share.

WHY one module: the plugin loader, the runner and the router must agree on which events exist,
which payload field a matcher is compared with and how long a hook may run. Every value here
comes from the contract (docs/claude-code-contract.md, measured on Claude Code 2.1.328); where
the contract says "not measured" the value is our best guess and says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# The 18 events Claude Code 2.1.328 accepts in hooks.json (contract section 0). Anything else is an
# "unknown hook event" that Claude Code ignores with a warning, so the loader warns too. The
# simulator routes only the events MissionCache registers and those fired around them.
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

# Which stdin field a group's `matcher` is compared with, for the simulated events; the others
# ignore matchers here.
MATCHER_FIELD: Mapping[str, str] = {
    "SessionStart": "source",
    "PreCompact": "trigger",
    "PostCompact": "trigger",
    "SessionEnd": "reason",
    "SubagentStop": "agent_type",
}

# Turn-level events get CLAUDE_EFFORT in their environment (contract section 5).
TURN_EVENTS = frozenset({"Stop", "SubagentStop"})

# Default timeouts in seconds when a hook sets none (contract section 4.1). 600 s is the presumed
# value behind "more than 70 s"; SessionEnd is capped separately (see `effective_timeout`).
DEFAULT_TIMEOUT = 600.0
EVENT_DEFAULT_TIMEOUTS: Mapping[str, float] = {"UserPromptSubmit": 30.0}
SESSION_END_CAP_ENV = "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"
SESSION_END_CAP = 1.5
KILL_GRACE = 1.5  # SIGKILL follows SIGTERM this many seconds later

# hookSpecificOutput.hookEventName values the output schema accepts, in the order Claude Code's
# error message lists them. Measured: SessionEnd, PreCompact and PostCompact are rejected
# (PostCompact: contract 11.4, about 40 lines of validation error on manual /compact);
# Stop is accepted.
ACCEPTED_OUTPUT_EVENT_NAMES: tuple[str, ...] = (
    "PreToolUse",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "Setup",
    "PreModelSwitch",
    "SubagentStart",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Stop",
    "SubagentStop",
    "StopFailure",
    "Notification",
    "PermissionRequest",
    "InstructionsLoaded",
)

STOP_BLOCK_CAP = 9
STOP_BLOCK_CAP_ENV = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"
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
    field = MATCHER_FIELD.get(event)
    if field is None:
        return None
    value = payload.get(field)
    return value if isinstance(value, str) else None


def session_end_cap(env: Mapping[str, str]) -> float:
    """SessionEnd's hard cap in seconds, from Claude Code's own override variable when set."""
    raw = env.get(SESSION_END_CAP_ENV, "")
    try:
        value = float(raw) / 1000.0
    except ValueError:
        return SESSION_END_CAP
    return value if value > 0 else SESSION_END_CAP


def effective_timeout(event: str, timeout: float | None, env: Mapping[str, str]) -> float:
    """Seconds a hook may run: explicit timeout, else the event default; SessionEnd is capped."""
    if event == "SessionEnd":
        cap = session_end_cap(env)
        return min(timeout, cap) if timeout is not None else cap
    if timeout is not None:
        return timeout
    return EVENT_DEFAULT_TIMEOUTS.get(event, DEFAULT_TIMEOUT)


def stop_block_cap(env: Mapping[str, str]) -> int:
    """How many consecutive Stop blocks Claude Code tolerates before it ends the turn anyway."""
    try:
        value = int(env.get(STOP_BLOCK_CAP_ENV, ""))
    except ValueError:
        return STOP_BLOCK_CAP
    return value if value > 0 else STOP_BLOCK_CAP


def hook_name(event: str, payload: Mapping[str, object]) -> str:
    """The name Claude Code gives a hook in records and messages, e.g. ``SessionStart:startup``."""
    if event == "SessionStart":
        return f"SessionStart:{payload.get('source', 'startup')}"
    return event
