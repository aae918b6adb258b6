"""The pending pre-compact failure, as ``/missioncache:load`` words it.

The record itself (written by the PreCompact hook, taken once by whoever shows it first:
SessionStart or this command) belongs to ``missioncache_state.precompact_failure``.
"""

from __future__ import annotations


def take_precompact_error() -> str | None:
    """One line (when, which task, what went wrong, what to do), clearing the record;
    None when none."""
    from missioncache_state.precompact_failure import headline, take_failure

    failure = take_failure()
    if failure is None:
        return None
    line, todo = headline(failure)
    return f"{line[0].upper()}{line[1:]}. {todo}"
