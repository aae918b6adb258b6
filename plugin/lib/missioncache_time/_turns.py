"""Time invested as a pure function of recorded events: turns, and the human gaps between.

A *turn* starts at a counted prompt (a heartbeat) and ends at the Stop or StopFailure
recorded with the same session and prompt id. Claude's time is the union of the turns of
a task; the human's time is every gap between one stretch of turns and the next prompt
that is within the idle timeout. The rules (docs/time.md states them for users):

- A turn with a recorded end runs to that end (the latest, when Stop fired again after a
  Stop hook continued the turn). It is never shorter than zero.
- A turn whose end never arrives (Esc, a killed process, a heartbeat from before turn
  ends were recorded) ends at the session's next prompt or after the assumed-work tail,
  whichever is earlier; the next prompt still counts the gap when it came within the
  idle timeout of the turn's *start*, which is exactly what heartbeat-only history meant.
- A turn that ended with background work running (a subagent: Stop lists it in
  ``background_tasks``) continues until the session's next prompt when that prompt is
  the work's report (a synthetic ``<task-notification>`` prompt), or for at most the
  idle timeout before a human prompt, or for the assumed-work tail when nothing follows.
- A turn that ended in StopFailure (which lists no background tasks) while an agent ran
  continues to the session's next prompt when that prompt is the agent's report.
- A prompt stamped after ``now`` (another machine's clock ran ahead) counts nothing
  until its time comes, so no figure grows while nobody works; every other epoch is
  clamped to ``now``: a clock that ran ahead never makes time that has not happened yet.

Nothing here depends on the order events arrived in or on when processing ran: the
result is a function of the set of events. No imports: this runs in SessionStart. The
split's words for people are in ``_format``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

_INF = float("inf")
SYNTHETIC, CONTROL = 1, 2  # the kind codes of a start (summary.KIND_CODE); 0 is human


class TimeSplit:
    """Whole seconds: ``total`` (the union), ``claude`` (inside turns) and ``you`` (human
    gaps within the idle timeout); ``total == claude + you``. A plain class with
    ``__slots__``: ``typing.NamedTuple`` costs imports on the hook path."""

    __slots__ = ("claude", "total", "waiting", "you")

    def __init__(self, total: int, claude: int, you: int, waiting: int = 0):
        self.total, self.claude, self.you = total, claude, you
        self.waiting = waiting  # seconds of recorded waits, already taken out of Claude's

    def less_waiting(self, seconds: float) -> TimeSplit:
        """This split with ``seconds`` of waits (inside turns) taken out of Claude's time:
        they are nobody's, and shown apart as ``waiting``."""
        waiting = min(self.claude, round(seconds))
        if waiting <= 0:
            return self
        claude = self.claude - waiting
        return TimeSplit(claude + self.you, claude, self.you, waiting)

    def __iter__(self) -> Iterator[int]:
        return iter((self.total, self.claude, self.you))

    def __getitem__(self, index: int) -> int:
        return (self.total, self.claude, self.you)[index]

    def __len__(self) -> int:
        return 3

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TimeSplit) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"TimeSplit(total={self.total}, claude={self.claude}, you={self.you})"


def turn_intervals(
    starts: Iterable[tuple],
    ends: dict,
    idle: float,
    tail: float,
    now: float,
) -> list[tuple[float, float, float]]:
    """Each turn as ``(start, end, reach)``: ``reach`` is the latest moment a next prompt
    may come for the gap before it to count as the human's.

    ``starts``: ``(epoch, session_id, prompt_id, kind)`` per counted prompt (kind 0 human,
    ``SYNTHETIC``, ``CONTROL``; a bool means synthetic or not).
    ``ends``: ``{(session_id, prompt_id): (epoch, background)}``, the latest end of each.

    A control prompt (a slash command, a bare ``y``) makes a turn only when its end
    arrived: then the turn it started is Claude's time like any other; without one it
    counts nothing (no assumed-work tail: nothing says anyone worked). Either way it is
    the next prompt of the turn before it.
    """
    first: dict = {}  # (session, prompt) -> (epoch, synthetic): a prompt counts once
    by_session: dict = {}
    for epoch, session_id, prompt_id, kind in starts:
        if epoch > now:  # a clock that ran ahead: this prompt counts once its time comes
            continue
        item = (epoch, int(kind or 0))
        if prompt_id is None:  # heartbeats from before prompt ids were recorded
            by_session.setdefault(session_id, []).append((item[0], None, item[1]))
        elif (session_id, prompt_id) not in first or item < first[session_id, prompt_id]:
            first[session_id, prompt_id] = item
    for (session_id, prompt_id), (epoch, synthetic) in first.items():
        by_session.setdefault(session_id, []).append((epoch, prompt_id, synthetic))
    turns = []
    for session_id, items in by_session.items():
        items.sort(key=lambda item: (item[0], item[1] or "", item[2]))
        for index, (start, prompt_id, kind) in enumerate(items):
            following = items[index + 1] if index + 1 < len(items) else None
            next_start = following[0] if following else _INF
            next_synthetic = following[2] == SYNTHETIC if following else False
            end = ends.get((session_id, prompt_id)) if prompt_id is not None else None
            if kind == CONTROL and end is None:
                continue
            turns.append(_turn(start, end, next_start, next_synthetic, idle, tail, now))
    return turns


def _turn(
    start: float,
    end: tuple | None,
    next_start: float,
    next_synthetic: bool,
    idle: float,
    tail: float,
    now: float,
) -> tuple[float, float, float]:
    if end is None:  # never ended: bounded, and gaps measured from the start (old meaning)
        stop = min(next_start, start + tail, now)
        return start, stop, max(stop, start + idle)
    stop = max(start, min(end[0], now))
    if end[1] < 0:  # a StopFailure: an agent it left running reports in a notification
        if next_synthetic and next_start != _INF:
            stop = max(stop, min(next_start, now))
        return start, stop, stop + idle
    if end[1]:  # background work still running when the turn ended
        if next_start == _INF:
            stop = min(now, stop + tail)
        elif next_synthetic:
            stop = max(stop, min(next_start, now))
        else:
            stop = max(stop, min(next_start, stop + idle, now))
    return start, stop, stop + idle


def merge(turns: list[tuple[float, float, float]]) -> tuple[list, list]:
    """Claude's intervals (the union of the turns) and the human's (the counted gaps)."""
    claude: list[list[float]] = []
    you: list[tuple[float, float]] = []
    reach = -_INF
    for start, end, turn_reach in sorted(turns):
        if claude and start <= claude[-1][1]:
            claude[-1][1] = max(claude[-1][1], end)
        else:
            if claude and start <= reach:
                you.append((claude[-1][1], start))
            claude.append([start, end])
        reach = max(reach, turn_reach)
    return [tuple(block) for block in claude], you


def clipped(intervals: Iterable[Sequence[float]], since: float | None, now: float) -> float:
    """Seconds of ``intervals`` inside ``[since, now]``, added one by one in order: the
    running sum a ``Sweep`` keeps reaches the same float (``sum`` compensates rounding
    on Python 3.12 and newer, which a sum resumed from a stored part could not)."""
    low = -_INF if since is None else since
    total = 0.0
    for a, b in intervals:
        total += max(0.0, min(b, now) - max(a, low))
    return total


class Sweep:
    """``merge`` and the all-time ``clipped`` sums in one pass that can stop and go on
    later: fed turns in sorted order, in one go or in several, it ends with the same
    floats, so ``Sweep().add(all)`` and a stored ``Sweep`` of the turns before a moment
    plus ``add(the rest)`` give the same ``TimeSplit`` (``missioncache_time._summary``).

    ``claude`` and ``you`` are the seconds of the closed blocks and the counted gaps so
    far; ``block`` is the last block of Claude's time (``[start, end]``, it may still
    grow); ``reach`` the latest moment a next prompt counts the gap before it."""

    __slots__ = ("block", "claude", "reach", "you")

    def __init__(
        self,
        claude: float = 0.0,
        you: float = 0.0,
        block: list[float] | None = None,
        reach: float = -_INF,
    ):
        self.claude, self.you, self.block, self.reach = claude, you, block, reach

    def add(self, turns: Iterable[tuple[float, float, float]], now: float) -> Sweep:
        """Fold ``turns`` (sorted, all starting at or after every turn added before)."""
        block, reach = self.block, self.reach
        for start, end, turn_reach in turns:
            if block is not None and start <= block[1]:
                block[1] = max(block[1], end)
            else:
                if block is not None:
                    if start <= reach:  # the same term as clipped() gives the gap
                        self.you += max(0.0, min(start, now) - block[1])
                    self.claude += max(0.0, min(block[1], now) - block[0])
                block = [start, end]
            reach = max(reach, turn_reach)
        self.block, self.reach = block, reach
        return self

    def result(self, now: float) -> TimeSplit:
        """The split ``split(..., since=None)`` gives for the turns added."""
        claude_seconds = self.claude
        if self.block is not None:
            claude_seconds += max(0.0, min(self.block[1], now) - self.block[0])
        total = round(claude_seconds + self.you)
        claude_whole = min(total, round(claude_seconds))
        return TimeSplit(total, claude_whole, total - claude_whole)


def split(
    starts: Iterable[tuple],
    ends: dict,
    idle: float,
    tail: float,
    now: float,
    since: float | None = None,
) -> TimeSplit:
    """The TimeSplit of one task's events, counting only the part inside ``[since, now]``."""
    claude, you = merge(turn_intervals(starts, ends, idle, tail, now))
    claude_seconds = clipped(claude, since, now)
    total = round(claude_seconds + clipped(you, since, now))
    claude_whole = min(total, round(claude_seconds))
    return TimeSplit(total, claude_whole, total - claude_whole)
