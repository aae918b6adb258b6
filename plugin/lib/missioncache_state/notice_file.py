"""A notice told once: lines a background child appends, taken whole by the next hook.

Sync and the team push each keep one such file; whichever hook takes it first tells it,
so two sessions starting at once never tell the same thing twice.
"""

from __future__ import annotations

from missioncache_state import lean_os as os


def take_notice(path: str, limit: int) -> str:
    """The notice at ``path`` (its first ``limit`` bytes) as one line, then gone; "" when
    there is none or another process took it first. Never raises."""
    claimed = f"{path}.{os.getpid()}.taken"
    try:
        os.rename(path, claimed)  # atomic: of two takers, one gets it
    except OSError:
        return ""
    try:
        with open(claimed, "rb") as handle:
            raw = handle.read(limit).decode("utf-8", "replace")
    except OSError:
        raw = ""
    finally:
        try:
            os.unlink(claimed)
        except OSError:
            pass
    return "; ".join(line.strip() for line in raw.splitlines() if line.strip())
