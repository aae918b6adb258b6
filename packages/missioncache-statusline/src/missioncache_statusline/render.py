"""One short line from the facts, fitted to the terminal width, coloured or plain.

WHY variants instead of cutting: Claude Code cuts an over-long line at the width with
``…``, which would lose the end of the line (the save time) first. Dropping whole
segments in order of importance keeps what matters most readable on a narrow terminal.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RESET = "\x1b[0m"
STYLE = {
    "name": "\x1b[1;36m",  # bold cyan
    "progress": "\x1b[32m",  # green
    "diverged": "\x1b[33m",  # yellow: findings written for unchecked items
    "dim": "\x1b[90m",
    "alert": "\x1b[31m",  # red: compacted since the last save
    "parent": "\x1b[36m",  # cyan: another fork saved to the shared layer
}
SEP = " · "
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def duration(seconds: Any) -> str:
    from missioncache_time import format_duration

    return format_duration(seconds or 0)


def money(cost: Any) -> str:
    """Today's cost: ``$4.12``, ``<$0.01``, or ``$?`` when a model's price is unknown."""
    if isinstance(cost, bool) or not isinstance(cost, (int, float)):
        return "$?"
    from missioncache_cost import format_cost

    return format_cost(cost)


def _piece(text: str, style: str | None, color: bool) -> tuple[str, str]:
    """(plain, shown): width is counted on the plain text."""
    return text, f"{STYLE[style]}{text}{RESET}" if color and style else text


def segments(facts: dict, edits: dict | None, color: bool, now: float, level: int) -> list:
    """The line's segments at detail ``level`` (0 = richest); each a list of pieces."""
    name = facts.get("name") or "?"
    done, total = facts.get("done") or 0, facts.get("total") or 0
    head = [_piece("◆ ", "dim", color), _piece(name, "name", color)]
    if total:
        head.append(_piece(" ", None, color))
        head.append(_piece(f"[{done}/{total}]", "progress", color))
    if facts.get("divergent"):
        head.append(_piece(f" ✎{facts['divergent']}", "diverged", color))
    parts = [head]
    updated = facts.get("parent_updated")
    if level <= 3 and isinstance(updated, (int, float)):
        when = time.localtime(updated)
        note = f"● parent updated {when.tm_hour:02d}:{when.tm_min:02d}"
        parts.append([_piece(note, "parent", color)])
    if level <= 3:
        today = f"today {duration(facts.get('today'))}"
        if level == 0 and facts.get("today"):
            from missioncache_time import format_split

            split = (facts.get(key) or 0 for key in ("today", "claude", "you"))
            today = f"today {format_split(split)}"
        parts.append([_piece(today, None, color)])
    if level <= 2 and facts.get("tokens_today"):
        parts.append([_piece(money(facts.get("cost_today")), None, color)])
    if level <= 1 and edits is not None:
        count = edits.get("count", 0)
        plus = "+" if edits.get("partial") else ""
        parts.append(
            [_piece(f"{count}{plus} edit{'' if count == 1 and not plus else 's'}", None, color)]
        )
    if level <= 2:
        saved = saved_text(facts.get("saved_epoch"), now)
        pieces = [_piece(saved, "dim" if facts.get("saved_epoch") else "alert", color)]
        if facts.get("compactions"):
            mark = " · compacted since" if level == 0 else " ⟳"
            pieces.append(_piece(mark, "alert", color))
        parts.append(pieces)
    return parts


def saved_text(epoch: Any, now: float) -> str:
    """``saved 13:05`` today, ``saved Nov 29`` before, ``never saved`` before the first."""
    if not isinstance(epoch, (int, float)):
        return "never saved"
    when, today = time.localtime(epoch), time.localtime(now)
    if when[:3] == today[:3]:
        return f"saved {when.tm_hour:02d}:{when.tm_min:02d}"
    return f"saved {_MONTHS[when.tm_mon - 1]} {when.tm_mday}"


def _join(parts: list, color: bool) -> tuple[str, str]:
    sep = _piece(SEP, "dim", color)
    plain, shown = [], []
    for index, pieces in enumerate(parts):
        for text, styled in ([sep] if index else []) + pieces:
            plain.append(text)
            shown.append(styled)
    return "".join(plain), "".join(shown)


def render(facts: dict, edits: dict | None, width: int, color: bool, now: float) -> str:
    """The richest variant that fits ``width`` characters; the task name is shortened
    only when even the bare name and progress do not fit."""
    for level in range(5):
        plain, shown = _join(segments(facts, edits, color, now, level), color)
        if len(plain) <= width:
            return shown
    room = max(4, width - (len(plain) - len(facts.get("name") or "?")))
    short = dict(facts, name=(facts.get("name") or "?")[: room - 1] + "…")
    return _join(segments(short, edits, color, now, 4), color)[1]
