"""Which prompts count as work, shared by both UserPromptSubmit hooks.

Conservative on purpose: a missed heartbeat costs a little time on the clock, while a
heartbeat for every "y" or slash command inflates it.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs ms on every prompt
    from typing import Any

SKIP_PATTERNS = (
    re.compile(r"^/\w+"),  # slash commands
    re.compile(r"^!\w+"),  # shell commands
    re.compile(r"^(exit|clear|help|y|yes|n|no)$", re.IGNORECASE),  # one-word control prompts
)


def flatten_prompt(raw: Any) -> str | None:
    """The prompt as text. Claude Code sends a string today, but a list of content blocks
    (image attachments) has been seen in the past: its text blocks are joined with a
    newline, as Claude Code itself does. Anything else is None."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        parts = [
            block["text"]
            for block in raw
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ]
        return "\n".join(parts)
    return None


def should_skip(prompt: str) -> bool:
    """True for prompts that are not work: empty, slash/shell commands, control words."""
    text = prompt.strip()
    if not text:
        return True
    return any(pattern.match(text) for pattern in SKIP_PATTERNS)


def counted_prompt(payload: dict[str, Any]) -> str | None:
    """The prompt when this UserPromptSubmit counts as work, else None.

    Subagent prompts are skipped (their activity belongs to the parent session)."""
    if payload.get("agent_id"):
        return None
    prompt = flatten_prompt(payload.get("prompt"))
    if prompt is None or should_skip(prompt):
        return None
    return prompt
