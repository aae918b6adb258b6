"""Part 3: Stop and PreCompact against the transcript's size.

Transcripts come from the transcript benchmark's generator (Claude Code-shaped records:
prompts with hook attachments and request blobs, thinking, Reads with large results,
Edits), each ending in a short exchange with one Edit, so Stop finds an edit and prints
its reminder and PreCompact snapshots real turns. Both hooks read from the end of the
file, so their time should not grow with it. The files are freshly written, so they sit
in the page cache (warm reads), as a live session's transcript does.
"""

from __future__ import annotations

import random

from bench.common import Bench, Home
from bench.stats import ratio, summarize

NEEDS_HOOKS = True
KB, MB = 1024, 1024 * 1024
SIZES = (10 * KB, 10 * MB, 500 * MB)
QUICK_SIZES = (10 * KB, 10 * MB)
TARGET = 1.5


def _label(size: int) -> str:
    return f"{size / MB:,.0f} MB" if size >= MB else f"{size / KB:,.0f} KB"


def _measure(bench: Bench, home: Home) -> dict[str, list[float]]:
    def stop() -> tuple[float, bool]:
        run = home.run_hook("stop.py", home.payload("Stop"))
        return run.seconds, b"systemMessage" in run.stdout

    def pre_compact() -> tuple[float, bool]:
        home.context_file.write_text(home.context_text, encoding="utf-8")
        run = home.run_hook("pre_compact.py", home.payload("PreCompact"))
        return run.seconds, b"the MissionCache task name" in run.stdout

    def floor() -> tuple[float, bool]:
        run = home.floor()
        return run.seconds, run.returncode == 0

    cases = {"floor": floor, "stop": stop, "pre_compact": pre_compact}
    samples: dict[str, list[float]] = {name: [] for name in cases}
    worked = {name: 0 for name in cases}
    for round_no in range(2 + bench.runs):
        order = list(cases)
        random.shuffle(order)
        for name in order:
            seconds, ok = cases[name]()
            if round_no >= 2:
                samples[name].append(seconds)
                worked[name] += ok
    return {"samples": samples, "worked": worked}


def run(bench: Bench) -> dict:
    sizes = QUICK_SIZES if bench.quick else SIZES
    rows = []
    for size in sizes:
        home = bench.new_home(f"transcript-{size}", transcript_bytes=size)
        actual = home.transcript.stat().st_size
        measured = _measure(bench, home)
        home.transcript.unlink()
        stats = {name: summarize(s) for name, s in measured["samples"].items()}
        rows.append(
            {
                "size": _label(size),
                "bytes": actual,
                **{f"{name}": stats[name] for name in stats},
                "worked": measured["worked"],
            }
        )
        print(
            f"  {_label(size)}: stop {stats['stop']['median_ms']} ms, pre_compact "
            f"{stats['pre_compact']['median_ms']} ms, floor {stats['floor']['median_ms']} ms",
            flush=True,
        )
    smallest, largest = rows[0], rows[-1]
    targets = []
    if largest["bytes"] >= 400 * MB:
        for hook in ("stop", "pre_compact"):
            growth = ratio(largest[hook]["median_ms"], smallest[hook]["median_ms"])
            targets.append(
                {
                    "name": f"{hook}: {largest['size']} transcript vs {smallest['size']}",
                    "target": f"<= {TARGET:g}x",
                    "value": f"{growth:.2f}x",
                    "met": growth <= TARGET,
                }
            )
    return {"rows": rows, "targets": targets}


def markdown(result: dict) -> str:
    from bench.report import ms, table

    base = result["rows"][0]
    rows = []
    for r in result["rows"]:
        rows.append(
            [
                r["size"],
                ms(r["stop"]["median_ms"]),
                ms(r["stop"]["p95_ms"]),
                f"{ratio(r['stop']['median_ms'], base['stop']['median_ms']):.2f}x",
                ms(r["pre_compact"]["median_ms"]),
                ms(r["pre_compact"]["p95_ms"]),
                f"{ratio(r['pre_compact']['median_ms'], base['pre_compact']['median_ms']):.2f}x",
                ms(r["floor"]["median_ms"]),
                f"{r['worked']['stop']}/{r['stop']['n']}, "
                f"{r['worked']['pre_compact']}/{r['pre_compact']['n']}",
            ]
        )
    return "\n".join(
        [
            "## Stop and PreCompact against transcript size",
            "",
            "Each transcript ends in a short exchange with an Edit (warm page cache). "
            "Growth = median over the median at the smallest size.",
            "",
            table(
                [
                    "transcript",
                    "stop median",
                    "stop p95",
                    "growth",
                    "pre_compact median",
                    "pre_compact p95",
                    "growth",
                    "floor median",
                    "reminder / snapshot",
                ],
                rows,
            ),
            "",
        ]
    )
