"""One set of Hypothesis settings for every property test in the workspace.

WHY deterministic by default: the suite gates every change, and a property test that draws
new random examples on each run turns a failure into a coin toss: a red CI run that nobody
can reproduce, and a green one that proves less than it seems. The default profile draws
the same examples every run (``derandomize``); ``explore`` draws fresh ones, many more, to
look for new failures on purpose:

    MISSIONCACHE_HYPOTHESIS=explore uv run pytest packages -k "propert or hypothesis"

A failure found by ``explore`` becomes an explicit example test beside the property.
"""

from __future__ import annotations

import os

PROFILE_ENV = "MISSIONCACHE_HYPOTHESIS"
DEFAULT = "missioncache"
EXPLORE = "explore"


def register() -> str:
    """Register both profiles and load the one ``MISSIONCACHE_HYPOTHESIS`` names; returns it."""
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        DEFAULT,
        max_examples=300,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.register_profile(
        EXPLORE, settings.get_profile(DEFAULT), max_examples=5000, derandomize=False
    )
    name = os.environ.get(PROFILE_ENV) or DEFAULT
    settings.load_profile(name)
    return name
