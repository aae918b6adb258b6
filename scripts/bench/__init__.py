"""The parts of ``scripts/bench.py``, one module each, by the name ``--parts`` uses.

Each part module has ``run(bench) -> dict`` (figures plus ``targets``) and
``markdown(result) -> str``; ``NEEDS_HOOKS`` marks parts that run hook scripts.
"""

from __future__ import annotations

from bench import (
    accuracy,
    bigfiles,
    contention,
    heartbeats,
    history,
    hooks,
    instructions,
    sessionstart,
    statusline,
    transcripts,
)

PARTS = {
    "hooks": hooks,
    "instructions": instructions,
    "contention": contention,
    "transcripts": transcripts,
    "heartbeats": heartbeats,
    "sessionstart": sessionstart,
    "bigfiles": bigfiles,
    "statusline": statusline,
    "accuracy": accuracy,
    "history": history,
}
