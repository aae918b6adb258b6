"""A short digest of a context file: what to do next and what happened last.

(The module is not called ``digest`` so that ``missioncache_context.digest`` is always the
function, whatever was imported first.)

SessionStart injects this into Claude's context (after a compaction, a resume or a clear),
where every character costs, so the digest has a hard length limit. When both parts do not
fit, each keeps a fair share (a short part lends its unused share to the other) and is cut at a line
or word boundary with a visible marker, so a reader knows there is more in the file.
"""

from __future__ import annotations

from .context_file import NEXT_STEPS, newest_recent_change, section
from .document import Doc

TRUNCATED = "\n[... truncated]"
_SEPARATOR = "\n\n"


def digest(text: str, limit: int = 3000) -> str:
    """``## Next Steps`` body plus the newest Recent Changes entry, at most ``limit`` chars.

    Missing parts are left out; an empty string means neither exists.
    """
    parts = []
    doc = Doc(text)  # parsed once for both parts
    steps = section(doc, NEXT_STEPS)
    if steps:
        parts.append(f"## {NEXT_STEPS}\n{steps}")
    newest = newest_recent_change(doc)
    if newest:
        parts.append(f"## Recent Changes (latest)\n{newest}")
    whole = _SEPARATOR.join(parts)
    if len(whole) <= limit:
        return whole
    available = limit - len(_SEPARATOR) * (len(parts) - 1)
    if available < 2 * len(TRUNCATED):
        return _cut(whole, max(limit, 0))
    budgets = _shares([len(part) for part in parts], available)
    return _SEPARATOR.join(_cut(part, budget) for part, budget in zip(parts, budgets))


def _shares(lengths: list[int], available: int) -> list[int]:
    """Split ``available`` between parts: an equal share each, unused share passed on."""
    if len(lengths) == 1:
        return [available]
    half = available // 2
    first, second = lengths
    if first <= half:
        return [first, available - first]
    if second <= available - half:
        return [available - second, second]
    return [half, available - half]


def _cut(part: str, budget: int) -> str:
    """``part`` within ``budget`` chars, cut at a line (else word) boundary, marked."""
    if len(part) <= budget:
        return part
    if budget <= len(TRUNCATED):
        return part[:budget]
    room = budget - len(TRUNCATED)
    cut = part.rfind("\n", 0, room + 1)
    if cut < room // 2:  # a line boundary that far back would waste the budget
        cut = part.rfind(" ", 0, room + 1)
    if cut < room // 2:
        cut = room
    return part[:cut].rstrip() + TRUNCATED
