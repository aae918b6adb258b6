"""Which prompts count as work, shared by both UserPromptSubmit hooks.

Conservative on purpose: a missed heartbeat costs a little time on the clock, while a
heartbeat for every "y" or slash command inflates it.

The grammar is data model section 10.1 (ASCII letters and digits, ASCII case only), read by
hand, not with ``re`` (the hook-path import policy, docs/hooks.md).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CONTROL_WORDS = ("exit", "clear", "help", "y", "yes", "n", "no")
# Prompts Claude Code submits itself: an agent's report coming back to the main session
# fires UserPromptSubmit with this text (contract 1). They continue Claude's work.
SYNTHETIC_PREFIXES = ("<task-notification>",)
_WORD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"


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
    return _is_command(text) or _is_control_word(text)


def _is_command(text: str) -> bool:
    """``/name`` or ``!name``: the sign, then an ASCII letter, digit or ``_``."""
    second = text[1:2]
    return text[:1] in ("/", "!") and second != "" and second in _WORD_CHARS


def _is_control_word(text: str) -> bool:
    """One of CONTROL_WORDS ignoring ASCII case (``YES``, not ``yeſ``), alone."""
    return text.isascii() and text.lower() in CONTROL_WORDS


def counted_prompt(payload: dict[str, Any]) -> str | None:
    """The prompt when this UserPromptSubmit counts as work, else None.

    Subagent prompts are skipped (their activity belongs to the parent session)."""
    if payload.get("agent_id"):
        return None
    prompt = flatten_prompt(payload.get("prompt"))
    if prompt is None or should_skip(prompt):
        return None
    return prompt


def control_prompt(payload: dict[str, Any]) -> str | None:
    """The prompt when it is skipped as work but may start a turn: a slash command (a
    custom command runs a prompt) or a control word (``y`` approving a plan). Its
    heartbeat is of kind ``control``: the turn counts only when its Stop arrives, as
    Claude's (docs/time.md). None for a subagent's, an empty or a counted prompt."""
    if payload.get("agent_id"):
        return None
    prompt = flatten_prompt(payload.get("prompt"))
    if prompt is None or not prompt.strip() or not should_skip(prompt):
        return None
    return prompt


def is_synthetic(prompt: str) -> bool:
    """True for a prompt Claude Code made itself (an agent finishing), not the human's:
    its turn is Claude's time, and it is no sign the human is there (docs/time.md)."""
    return prompt.lstrip().startswith(SYNTHETIC_PREFIXES)
