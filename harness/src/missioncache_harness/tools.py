"""What "Claude" does in a scripted turn: text, and Write/Edit tool uses performed for real.

WHY real files: the product's Stop and PreCompact hooks look at what was edited, in the transcript
and on disk. A Session that only pretended would let a hook pass that breaks on a real edit. Only
what the product reads is modelled: the tool_use input (the edited path) and the result text;
Claude Code's structured ``toolUseResult`` details are real-CLI only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FRESH = "(file state is current in your context — no need to Read it back)"


@dataclass(frozen=True)
class Text:
    """Assistant text."""

    text: str


@dataclass(frozen=True)
class Write:
    """A Write tool use: create or overwrite ``path`` (relative paths are under the project)."""

    path: str | Path
    content: str


@dataclass(frozen=True)
class Edit:
    """An Edit tool use: replace ``old`` with ``new`` in ``path``."""

    path: str | Path
    old: str
    new: str
    replace_all: bool = False


@dataclass(frozen=True)
class Tool:
    """Any other tool use (Bash, Read...), recorded but not performed; ``result`` is its output."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)
    result: str = ""
    seconds: float = 0.0  # how long the tool runs: the simulator really waits (time tests)


Block = Text | Write | Edit | Tool


@dataclass
class ToolOutcome:
    """A performed tool use: what the model gets back."""

    name: str
    input: dict[str, Any]
    content: str
    is_error: bool = False


def tool_input(block: Block, project_dir: Path) -> dict[str, Any]:
    """The ``input`` of the tool_use block, as Claude Code records it."""
    if isinstance(block, Write):
        return {"file_path": str(_abs(block.path, project_dir)), "content": block.content}
    if isinstance(block, Edit):
        return {
            "replace_all": block.replace_all,
            "file_path": str(_abs(block.path, project_dir)),
            "old_string": block.old,
            "new_string": block.new,
        }
    if isinstance(block, Tool):
        return dict(block.input)
    raise TypeError(f"not a tool use: {block!r}")


def perform(block: Block, project_dir: Path) -> ToolOutcome:
    """Do the tool use on disk (Write/Edit) or echo its scripted result (other tools)."""
    inputs = tool_input(block, project_dir)
    if isinstance(block, Tool):
        if block.seconds > 0:  # a long command (Bash sleep 12): turn length is what time measures
            time.sleep(block.seconds)
        return ToolOutcome(block.name, inputs, block.result)
    path = Path(inputs["file_path"])
    name = type(block).__name__
    done = f"The file {path} has been updated successfully. {FRESH}"
    if isinstance(block, Write):
        if not path.is_file():
            done = f"File created successfully at: {path} {FRESH}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.content, encoding="utf-8")
        return ToolOutcome(name, inputs, done)
    original = path.read_text(encoding="utf-8") if path.is_file() else None
    count = original.count(block.old) if original is not None and block.old else 0
    if original is None or count == 0 or (count > 1 and not block.replace_all):
        problem = "File does not exist." if original is None else "String to replace not found."
        if count > 1:
            problem = f"Found {count} matches of the string to replace, but replace_all is false."
        return ToolOutcome(name, inputs, f"<tool_use_error>{problem}</tool_use_error>", True)
    updated = original.replace(block.old, block.new, -1 if block.replace_all else 1)
    path.write_text(updated, encoding="utf-8")
    return ToolOutcome(name, inputs, done)


def _abs(path: str | Path, project_dir: Path) -> Path:
    candidate = Path(path)
    return candidate if candidate.is_absolute() else project_dir / candidate
