"""Which records are the main conversation, which of them are prompts, and their text.

The rules, for Claude Code 2.1.x (data model section 9, contract section 7):

- Only ``type: "user"`` and ``type: "assistant"`` records count, and only those not marked
  ``isSidechain`` (subagent records; older versions wrote them into the main file). Other
  types carry no conversation even when they hold a ``message`` (``api-request-blob``
  repeats whole API messages, ``queue-operation`` repeats the prompt).
- A user record is a *prompt* (it starts a new exchange) when it has real input: string
  content, or a list holding some block that is not a ``tool_result``. It is NOT a prompt
  when it is:
  * ``isMeta``: Stop-hook feedback, image path notes, caveats, expanded command bodies;
  * ``isCompactSummary``: the summary written after a compaction. The user did not type
    it, and an auto-compaction can happen in the middle of a turn; the file is append-only,
    so treating the summary as transparent keeps the edits made before it in the exchange.
    A manual ``/compact`` is itself a prompt (its command record), so it still separates;
  * a tool turn: its content holds a ``tool_result`` block (any text beside it is
    Claude Code's annotation of the result, not a new request);
  * command output: ``<local-command-stdout>``, ``<local-command-stderr>``,
    ``<local-command-caveat>``, ``<bash-stdout>``, ``<bash-stderr>`` wrappers;
  * Claude Code's ``[Request interrupted by user...]`` marker;
  * empty (no content, ``message: null``, blank text).
- Slash commands (``<command-name>/x</command-name>...``) and bash-mode input
  (``<bash-input>``) ARE prompts: the user typed them, so they begin a new exchange. Their
  text is rendered as ``/x args`` and ``! cmd``.
- Agent ``<task-notification>`` turns are prompts: Claude Code fires UserPromptSubmit and
  a second Stop for them, so each is an exchange of its own.

For a recap of what the human said (PreCompact's snapshot), :func:`is_typed_prompt` is
narrower: slash commands (``/exit``, ``/compact``, whether wrapped in ``<command-name>`` or
plain) and synthetic turns (``<task-notification>``, anything in a ``<local-command-…>``
wrapper) start exchanges but are not something the human said to Claude.

Tags are found with ``str.find``, not ``re``: importing ``re`` costs every hook milliseconds.
"""

from __future__ import annotations

# Tool name -> the input key holding the edited file's path: here, with the blocks, so a
# reader that only counts edits (the status line) needs none of ``edits``' imports.
EDIT_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Union

    Record = dict[str, Any]
    Content = Union[str, list[dict[str, Any]]]

_OUTPUT_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "<bash-stderr>",
    "[Request interrupted by user",
)


def role_of(record: Record) -> str | None:
    """``"user"``/``"assistant"`` for main-conversation records, else None."""
    kind = record.get("type")
    if kind not in ("user", "assistant") or record.get("isSidechain") is True:
        return None
    return "user" if kind == "user" else "assistant"


def content_of(record: Record) -> Content | None:
    """``message.content`` as a string or a list of dict blocks; None when absent."""
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return None


def message_id(record: Record) -> str | None:
    """The API message id shared by the records of one multi-block reply."""
    message = record.get("message")
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, str) and value else None


def blocks_of(record: Record, kind: str) -> list[dict[str, Any]]:
    """The content blocks of ``record`` whose ``type`` is ``kind``."""
    content = content_of(record)
    if not isinstance(content, list):
        return []
    return [block for block in content if block.get("type") == kind]


def text_parts(record: Record) -> list[str]:
    """Plain text of a record: string content or its ``text`` blocks (never thinking,
    tool_use or tool_result)."""
    content = content_of(record)
    if isinstance(content, str):
        return [content]
    if content is None:
        return []
    return [
        b["text"] for b in content if b.get("type") == "text" and isinstance(b.get("text"), str)
    ]


def is_prompt(record: Record) -> bool:
    """True when ``record`` is a user prompt that starts a new exchange (rules above)."""
    if role_of(record) != "user" or record.get("isMeta") or record.get("isCompactSummary"):
        return False
    content = content_of(record)
    if isinstance(content, list):
        kinds = [block.get("type") for block in content]
        if not kinds or "tool_result" in kinds:
            return False
        if all(kind == "text" for kind in kinds):
            content = "\n".join(text_parts(record))
    if isinstance(content, str):
        stripped = content.lstrip()
        return bool(stripped) and not stripped.startswith(_OUTPUT_PREFIXES)
    return content is not None


_SYNTHETIC_PREFIXES = ("<task-notification>", "<local-command-", "<command-message>")
# A slash command is "/" then an ASCII letter, digit or "_" (data model section 10.1: the
# same grammar the prompt hooks use; this package may not import theirs).
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def is_typed_prompt(record: Record) -> bool:
    """True for a prompt the human typed as a message to Claude (not a slash command,
    not a synthetic turn): what a "User:" line of a recap should show."""
    if not is_prompt(record):
        return False
    text = "\n".join(text_parts(record)).lstrip()
    if text.startswith(_SYNTHETIC_PREFIXES) or "<command-name>" in text:
        return False
    return not (text[:1] == "/" and text[1:2] in _WORD_CHARS and text[1:2] != "")


def prompt_text(record: Record) -> str:
    """What the user typed, readable: command wrappers rendered, images noted."""
    text = "\n".join(text_parts(record)).strip()
    name = _tag_text(text, "command-name")
    if name is not None:
        args = _tag_text(text, "command-args")
        return f"{name.strip()} {args.strip() if args is not None else ''}".strip()
    bash = _tag_text(text, "bash-input")
    if bash is not None:
        return f"! {bash.strip()}"
    if not text and blocks_of(record, "image"):
        return "[image]"
    return text


def _tag_text(text: str, tag: str) -> str | None:
    """What lies between the first ``<tag>`` and the first ``</tag>`` after it (possibly
    empty), or None when either is missing."""
    opening, closing = f"<{tag}>", f"</{tag}>"
    start = text.find(opening)
    if start < 0:
        return None
    start += len(opening)
    end = text.find(closing, start)
    return None if end < 0 else text[start:end]
