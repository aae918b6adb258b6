"""A scripted week of Claude Code sessions on one task, with its ground truth.

Used by the accuracy part. Everything here is pure (a seeded random generator), so the
same seed gives the same week, events and truth on every machine.

The week mixes what time tracking has to get right: short exchanges, long autonomous turns
(5 to 40 minutes of Claude working on one prompt), reading and thinking between prompts,
idle gaps (lunch, a meeting), a second session in parallel on the same task, background
subagents whose report comes back as a ``<task-notification>`` prompt, turns interrupted
with Esc (no hook fires), turns ending on an API error (StopFailure), and a session across
midnight.

Ground truth, what really was work:
- Claude: from each prompt to the moment Claude really stopped (the Stop, the API error,
  the Esc), and for background agents until their report turn ended;
- the human: reading and thinking between the end of a turn and the next prompt (gaps of
  10 s to 4 min), and reading the last answer of a session (0 to 60 s) before leaving.
  Idle gaps (10 to 90 minutes) are not work.
Time invested is the union of all of it: parallel work is counted once.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field

DAY = 86400
# Monday 2026-03-09 00:00 UTC: the replay runs with TZ=UTC, so days split at these midnights.
WEEK_START = 1_773_014_400


@dataclass(frozen=True)
class Event:
    """One hook firing: ``kind`` is prompt, notify (a synthetic prompt), stop or failure."""

    epoch: int
    kind: str
    session_id: str
    prompt_id: str
    background: int = 0


@dataclass
class Week:
    events: list[Event] = field(default_factory=list)
    claude: list[tuple[float, float]] = field(default_factory=list)
    human: list[tuple[float, float]] = field(default_factory=list)
    features: dict[str, int] = field(default_factory=dict)

    def count(self, feature: str) -> None:
        self.features[feature] = self.features.get(feature, 0) + 1


def union(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[list[float]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def length(intervals: list[tuple[float, float]], low: float = -1e18, high: float = 1e18) -> float:
    return sum(max(0.0, min(b, high) - max(a, low)) for a, b in union(intervals))


def truth(week: Week, low: float = -1e18, high: float = 1e18) -> tuple[float, float, float]:
    """(total, Claude, you) of the ground truth within ``[low, high]``."""
    total = length(week.claude + week.human, low, high)
    claude = length(week.claude, low, high)
    return total, claude, total - claude


def session(week: Week, rnd: random.Random, start: int, exchanges: int, long_share: float) -> int:
    """Play one session from ``start``; returns when its human left."""
    sid = str(uuid.UUID(int=rnd.getrandbits(128)))
    t = start
    for index in range(exchanges):
        pid = str(uuid.UUID(int=rnd.getrandbits(128)))
        week.events.append(Event(t, "prompt", sid, pid))
        roll = rnd.random()
        if roll < long_share:
            week.count("long autonomous turn")
            end = t + rnd.randint(5 * 60, 40 * 60)
            week.events.append(Event(end, "stop", sid, pid))
        elif roll < long_share + 0.08:
            week.count("background subagent")
            stop = t + rnd.randint(10, 90)
            week.events.append(Event(stop, "stop", sid, pid, background=1))
            report = stop + rnd.randint(3 * 60, 20 * 60)
            notify = str(uuid.UUID(int=rnd.getrandbits(128)))
            week.events.append(Event(report, "notify", sid, notify))
            end = report + rnd.randint(10, 40)
            week.events.append(Event(end, "stop", sid, notify))
        elif roll < long_share + 0.14:
            week.count("interrupted turn (Esc)")
            end = t + rnd.randint(20, 240)  # no hook fires
        elif roll < long_share + 0.18:
            week.count("API error (StopFailure)")
            end = t + rnd.randint(5, 120)
            week.events.append(Event(end, "failure", sid, pid))
        else:
            week.count("short exchange")
            end = t + rnd.randint(4, 150)
            week.events.append(Event(end, "stop", sid, pid))
        week.claude.append((t, end))
        if index == exchanges - 1:
            read = rnd.randint(0, 60)
            week.human.append((end, end + read))
            return end + read
        if rnd.random() < 0.12:
            week.count("idle gap")
            t = end + rnd.randint(10 * 60, 90 * 60)
        else:
            gap = rnd.randint(10, 240)
            week.human.append((end, end + gap))
            t = end + gap
    return t


def make_week(seed: int = 11, days: int = 7) -> Week:
    """Weekdays: a morning and an afternoon session; Tuesday and Thursday afternoons a
    second session in parallel; Wednesday a late session past midnight; a light weekend."""
    rnd = random.Random(seed)
    week = Week()
    for day in range(days):
        midnight = WEEK_START + day * DAY
        if day >= 5:  # weekend: one short session
            session(week, rnd, midnight + 11 * 3600 + rnd.randint(0, 3600), 5, 0.2)
            continue
        session(week, rnd, midnight + 9 * 3600 + rnd.randint(0, 1800), rnd.randint(10, 16), 0.15)
        afternoon = midnight + 14 * 3600 + rnd.randint(0, 1800)
        session(week, rnd, afternoon, rnd.randint(10, 16), 0.15)
        if day in (1, 3):
            week.count("parallel session")
            session(week, rnd, afternoon + rnd.randint(300, 1800), 4, 0.6)
        if day == 2:
            week.count("session across midnight")
            session(week, rnd, midnight + 23 * 3600 + 35 * 60, 8, 0.2)
    week.events.sort(key=lambda e: (e.epoch, e.kind != "prompt"))
    return week
