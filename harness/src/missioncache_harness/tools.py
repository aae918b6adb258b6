"""What "Claude" does in a scripted turn: text, and Write/Edit tool uses performed for real.

WHY real files: the product's Stop and PreCompact hooks look at what was edited, in the transcript
and on disk. A Session that only pretended would let a hook pass that breaks on a real edit. The
results mirror Claude Code's own (`toolUseResult` shapes from the sample transcript).
"""

from __future__ import annotations

import difflib
import re
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
    """A performed tool use: what the model gets back and the structured result."""

    name: str
    input: dict[str, Any]
    content: str
    is_error: bool = False
    result: Any = None  # toolUseResult in the transcript, tool_response for PostToolUse


def tool_name(block: Block) -> str:
    return block.name if isinstance(block, Tool) else type(block).__name__


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
    if isinstance(block, Write):
        return _write(Path(inputs["file_path"]), block.content, inputs)
    if isinstance(block, Edit):
        return _edit(Path(inputs["file_path"]), block, inputs)
    if block.seconds > 0:  # a long command (Bash sleep 12): turn length is what time measures
        time.sleep(block.seconds)
    return ToolOutcome(tool_name(block), inputs, block.result, result=block.result)


def _write(path: Path, content: str, inputs: dict[str, Any]) -> ToolOutcome:
    original = path.read_text(encoding="utf-8") if path.is_file() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    if original is None:
        message = f"File created successfully at: {path} {FRESH}"
    else:
        message = f"The file {path} has been updated successfully. {FRESH}"
    result = {
        "type": "create" if original is None else "update",
        "filePath": str(path),
        "content": content,
        "structuredPatch": structured_patch(original or "", content) if original else [],
        "originalFile": original,
        "userModified": False,
    }
    return ToolOutcome("Write", inputs, message, result=result)


def _edit(path: Path, block: Edit, inputs: dict[str, Any]) -> ToolOutcome:
    if not path.is_file():
        return _error("Edit", inputs, "File does not exist.")
    original = path.read_text(encoding="utf-8")
    count = original.count(block.old) if block.old else 0
    if count == 0:
        return _error("Edit", inputs, f"String to replace not found in file.\nString: {block.old}")
    if count > 1 and not block.replace_all:
        return _error(
            "Edit",
            inputs,
            f"Found {count} matches of the string to replace, but replace_all is false. To "
            "replace all occurrences, set replace_all to true. To replace only one occurrence, "
            f"please provide more context to uniquely identify the instance.\nString: {block.old}",
        )
    updated = original.replace(block.old, block.new, -1 if block.replace_all else 1)
    path.write_text(updated, encoding="utf-8")
    result = {
        "filePath": str(path),
        "oldString": block.old,
        "newString": block.new,
        "originalFile": original,
        "structuredPatch": structured_patch(original, updated),
        "userModified": False,
        "replaceAll": block.replace_all,
    }
    message = f"The file {path} has been updated successfully. {FRESH}"
    return ToolOutcome("Edit", inputs, message, result=result)


def _error(name: str, inputs: dict[str, Any], text: str) -> ToolOutcome:
    return ToolOutcome(
        name,
        inputs,
        f"<tool_use_error>{text}</tool_use_error>",
        is_error=True,
        result=f"Error: {text}",
    )


_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def structured_patch(old: str, new: str) -> list[dict[str, Any]]:
    """Hunks like Claude Code's ``structuredPatch``: 3 lines of context, lines without newlines."""
    hunks: list[dict[str, Any]] = []
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), n=3, lineterm="")
    for line in diff:
        match = _HUNK.match(line)
        if match:
            a, b, c, d = match.groups()
            hunks.append(
                {
                    "oldStart": int(a),
                    "oldLines": int(b) if b is not None else 1,
                    "newStart": int(c),
                    "newLines": int(d) if d is not None else 1,
                    "lines": [],
                }
            )
        elif hunks:  # the ---/+++ header lines come before the first hunk
            hunks[-1]["lines"].append(line)
    return hunks


def _abs(path: str | Path, project_dir: Path) -> Path:
    candidate = Path(path)
    return candidate if candidate.is_absolute() else project_dir / candidate
