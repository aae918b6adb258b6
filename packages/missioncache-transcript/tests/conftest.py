"""Transcripts for the reader's tests come from the harness's one builder (2.1.328 shapes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from missioncache_harness.transcript import SAMPLE_TRANSCRIPT, TranscriptBuilder


@pytest.fixture
def tx() -> TranscriptBuilder:
    return TranscriptBuilder()


@pytest.fixture
def sample_path() -> Path:
    return SAMPLE_TRANSCRIPT
