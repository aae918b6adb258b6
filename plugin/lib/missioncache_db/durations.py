"""Human durations: ``45s``, ``12m``, ``1h``, ``1h 5m`` (data model section 5)."""

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


def format_split(split: Iterable[int]) -> str:
    """``1h 12m (Claude 58m, you 14m)``: the total first, then who the time was spent by."""
    total, claude, you = split
    return (
        f"{format_duration(total)} (Claude {format_duration(claude)}, you {format_duration(you)})"
    )
