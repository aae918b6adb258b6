"""Appending to the spool: one file per process, safe against an ingester's claim."""

import os
from pathlib import Path

from missioncache_spool import _pending_records as spool
from missioncache_state import locations


def heartbeat_spool_dir() -> Path:
    return Path(locations.heartbeat_spool_dir())


def test_writer_reappends_when_its_file_was_claimed_meanwhile(mc_roots, monkeypatch):
    """The rename of an ingester can land between a writer's open and its write; the
    writer notices and appends again to a fresh file."""
    directory = heartbeat_spool_dir()
    real_write = os.write
    moved = []

    def write_then_claim(fd, data):
        written = real_write(fd, data)
        if not moved:
            (target,) = list(directory.iterdir())
            moved.append(target.rename(directory / "claimed-by-someone.claimed"))
        return written

    monkeypatch.setattr(spool.os, "write", write_then_claim)
    path = spool.append(directory, {"uid": "ab", "n": 1})
    assert Path(path).read_text() == moved[0].read_text() == '{"n":1,"uid":"ab"}\n'
