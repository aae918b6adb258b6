"""The exchanges since the last save, for the pre-compaction snapshot.

WHY not :func:`recent_turns`: that keeps the last n prompts and the last n replies
separately, so an exchange with several replies filled the list with them and pushed
earlier prompts out (a trial snapshot read ``User: … / Claude: Done. / Claude: Done.``).
Here each prompt the human typed appears once, with Claude's LAST reply to it (slash
commands and synthetic turns such as agent notifications belong to the exchange they
fall in), plus the files Claude changed in those exchanges. The scan stops at the last
save (records older than ``since``, epoch seconds), after ``max_exchanges``, or at the
byte budget.
"""

from __future__ import annotations

from ._record import namedtuple
from .conversation import blocks_of, is_prompt, is_typed_prompt, prompt_text, role_of, text_parts
from .edits import edit_of
from .records import iter_records_reversed
from .reverse_reader import DEFAULT_MAX_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .conversation import Record
    from .reverse_reader import PathLike


class Recap(namedtuple("Recap", "exchanges files more")):
    """``exchanges``: (prompt, last reply or "") oldest first; ``files``: paths Claude
    changed, first change first; ``more``: whether older exchanges since the save were
    left out (``max_exchanges``)."""

    __slots__ = ()


def epoch_of(stamp: object) -> float | None:
    """Epoch seconds of a transcript timestamp (``2026-12-01T21:44:03.120Z``), UTC."""
    if not isinstance(stamp, str) or len(stamp) < 19 or stamp[10] != "T":
        return None
    try:
        year, month, day = int(stamp[0:4]), int(stamp[5:7]), int(stamp[8:10])
        hour, minute, second = int(stamp[11:13]), int(stamp[14:16]), int(stamp[17:19])
    except ValueError:
        return None
    # Days from the civil date (proleptic Gregorian), without importing calendar.
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return float(days * 86400 + hour * 3600 + minute * 60 + second)


def _reply_text(record: Record) -> str:
    return "\n".join(part for part in text_parts(record) if part.strip())


def since_last_save(
    path: PathLike | None,
    since: float | None = None,
    max_exchanges: int = 5,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Recap:
    """The exchanges (and changed files) after ``since``, newest ``max_exchanges``."""
    if not path or max_exchanges < 1:
        return Recap((), (), False)
    exchanges: list = []  # newest first
    files: list = []  # newest first
    reply = ""  # the newest reply met in the exchange being scanned
    more = False
    for record in iter_records_reversed(path, max_bytes):
        when = epoch_of(record.get("timestamp"))
        if since is not None and when is not None and when < since:
            break
        role = role_of(record)
        if role == "assistant":
            reply = reply or _reply_text(record)
            for block in blocks_of(record, "tool_use"):
                edit = edit_of(block)
                if edit is not None and edit.file_path and edit.file_path not in files:
                    files.append(edit.file_path)
        elif role == "user" and is_typed_prompt(record):
            if len(exchanges) == max_exchanges:
                more = True
                break
            exchanges.append((prompt_text(record), reply))
            reply = ""
        elif role == "user" and is_prompt(record) and not is_typed_prompt(record):
            continue  # a command or notification: part of the exchange it falls in
    return Recap(tuple(reversed(exchanges)), tuple(reversed(files)), more)
