"""File edits made by the assistant in the current exchange.

WHY parse rather than grep: a tool name mentioned in text, in a Read result or inside a
JSON-looking string is not an edit. Only a ``tool_use`` block of an assistant record,
named one of the editing tools, is.
"""

from __future__ import annotations

from ._record import namedtuple
from .conversation import EDIT_TOOLS, blocks_of, role_of
from .exchange import current_exchange
from .reverse_reader import DEFAULT_MAX_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from .conversation import Record
    from .reverse_reader import PathLike


class Edit(namedtuple("Edit", "tool file_path")):
    """One edit: the tool (str) and the file it targeted (None if the input names no
    path). A light named tuple (``_record``)."""

    __slots__ = ()


def edit_of(block: dict) -> Edit | None:
    """The Edit a ``tool_use`` block makes, or None when it is not an editing tool."""
    tool = block.get("name")
    if tool not in EDIT_TOOLS:
        return None
    params = block.get("input")
    params = params if isinstance(params, dict) else {}
    path = params.get(EDIT_TOOLS[tool], params.get("file_path"))
    return Edit(tool, path if isinstance(path, str) else None)


def edits_in(records: Iterable[Record]) -> list[Edit]:
    """Edits in ``records`` (oldest first), each (tool, file) pair once, in first-seen order."""
    seen = set()
    found = []
    for record in records:
        if role_of(record) != "assistant":
            continue
        for block in blocks_of(record, "tool_use"):
            edit = edit_of(block)
            if edit is not None and edit not in seen:
                seen.add(edit)
                found.append(edit)
    return found


def find_edits(
    path: PathLike | None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    prompt_id: str | None = None,
) -> list[Edit]:
    """File edits (Write, Edit, MultiEdit, NotebookEdit) in the current exchange.

    Empty when the transcript does not exist yet. ``prompt_id`` (Stop's stdin carries it)
    pins the exchange to that prompt: Claude Code writes the transcript asynchronously,
    and when the newest prompt in the file is another one, this turn is not written yet
    and the edits found would be the previous turn's, so none are claimed. A prompt
    record without ``promptId`` (older Claude Code) is taken as it is.
    To learn whether the byte budget cut the search short, use
    ``edits_in(current_exchange(path).records)`` and its ``truncated``.
    """
    exchange = current_exchange(path, max_bytes=max_bytes)
    if prompt_id and exchange.prompt is not None:
        written = exchange.prompt.get("promptId")
        if isinstance(written, str) and written != prompt_id:
            return []
    return edits_in(exchange.records)
