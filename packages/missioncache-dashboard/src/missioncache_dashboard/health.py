"""The health banner: what ``missioncache doctor`` would report, read without repairing.

Doctor's checks of the database, the task folders and our parts of settings.json only
read. Its spool and binding checks also repair (fold heartbeats in, drop stale bindings):
a page refresh must not change anything, so they are left to ``doctor`` itself, which the
banner names.
"""

from __future__ import annotations

LAUNCHER = "missioncache"


def findings() -> list[dict]:
    """Doctor's findings as ``{"status", "area", "text", "fix"}``; a check that fails
    outright is one finding saying so."""
    from missioncache_db import checks

    try:
        db, found = checks.check_database(LAUNCHER)
        try:
            found += checks.check_task_folders(db, LAUNCHER)
        finally:
            if db is not None:
                db.close()
        found += checks.check_settings(LAUNCHER)
    except Exception as error:
        return [{"status": "problem", "area": "doctor", "text": str(error), "fix": ""}]
    return [f._asdict() for f in found]
