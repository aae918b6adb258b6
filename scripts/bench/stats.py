"""Medians and percentiles, in milliseconds."""

from __future__ import annotations

import math
import statistics


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile: a value that was actually observed."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summarize(seconds: list[float]) -> dict:
    """Milliseconds: n, median, p95, min, max (inf for a run that timed out)."""
    if not seconds:
        return {"n": 0}
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 2),
        "p95_ms": round(percentile(ms, 95), 2),
        "min_ms": round(min(ms), 2),
        "max_ms": round(max(ms), 2),
    }


def ratio(value: float, base: float) -> float:
    return round(value / base, 2) if base else math.inf
