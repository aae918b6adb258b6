"""Durations for people (data model section 5): how every reader writes seconds, and
Claude's and your parts so that they add up to the total shown. Apart from the time model
itself, so that a reader that only shows figures (the status line) loads none of it."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


def format_duration(seconds: float) -> str:
    """Seconds only under a minute; minutes under an hour; then hours and minutes."""
    total = max(0, int(seconds))
    if total < 60:
        return f"{total}s"
    hours, minutes = divmod(total // 60, 60)
    if not hours:
        return f"{minutes}m"
    return f"{hours}h {minutes}m" if minutes else f"{hours}h"


def shown_parts(total: int, claude: int, you: int) -> tuple[int, int]:
    """Claude's and your seconds rounded to the unit the total is shown in (seconds under
    a minute, else minutes), so that the parts shown add up to the total shown: 130 s as
    ``2m (Claude 0m, you 2m)``, not ``2m (Claude 12s, you 1m)``. Each part is cut down to
    the unit; the minute those cuts lose goes to the part that lost more of it. A part
    that is not nothing but rounds to no minute is written ``<1m`` by ``format_split``."""
    total, claude, you = max(0, int(total)), max(0, int(claude)), max(0, int(you))
    unit = 1 if total < 60 else 60
    whole = total // unit
    parts = [claude // unit, you // unit]
    missing = whole - sum(parts)
    if missing > 0:
        parts[0 if claude % unit >= you % unit else 1] += missing
    elif missing < 0:  # parts larger than the total (never from time_split): trim the larger
        parts[0 if parts[0] >= parts[1] else 1] += missing
    return parts[0] * unit, parts[1] * unit


def part_texts(total: int, claude: int, you: int) -> tuple[str, str]:
    """Claude's and your part as every reader writes them (``time``, the report, the
    dashboard): rounded as the total is (``shown_parts``), and ``<1m`` for a part that is
    not nothing but rounds to no minute, never ``0s`` beside a total in minutes."""
    shown = shown_parts(total, claude, you)
    claude_text, you_text = (
        "<1m" if part == 0 and exact > 0 and total >= 60 else format_duration(part)
        for part, exact in zip(shown, (claude, you))
    )
    return claude_text, you_text


def format_split(split: Iterable[int]) -> str:
    """``1h 12m (Claude 58m, you 14m)``: the total first, then who the time was spent by;
    the parts shown add up to the total shown (``part_texts``)."""
    total, claude, you = split
    claude_text, you_text = part_texts(total, claude, you)
    return f"{format_duration(total)} (Claude {claude_text}, you {you_text})"
