"""Benchmark: find_edits / recent_turns stay flat as the transcript grows.

Generates Claude Code-shaped transcripts (1 MB, 100 MB, 500 MB by default) in a temp
dir, each ending in a short exchange with an Edit, and prints a markdown table of median
timings. Not a test: numbers depend on the machine. The files are freshly written, so
they sit in the page cache (warm reads).

    uv run scripts/bench_transcript.py
    uv run scripts/bench_transcript.py --sizes 1,10 --runs 5
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "packages" / "missioncache-transcript" / "src"
sys.path.insert(0, str(SRC))

from missioncache_harness.transcript import (  # noqa: E402
    CWD,
    TranscriptBuilder,
    queue_operation,
)
from missioncache_transcript import find_edits, is_prompt, iter_records_reversed, recent_turns  # noqa: E402

MB = 1024 * 1024


def _prompt(tx: TranscriptBuilder, text: str) -> None:
    """A prompt as the CLI records it, with the big records that follow one."""
    tx.prompt(text).attachment("skill_listing", "s " * 900)
    reminder = {"type": "text", "text": "<system-reminder>" + "r" * 3000 + "</system-reminder>"}
    message = {"role": "user", "content": [reminder, {"type": "text", "text": text}]}
    tx.add({"type": "api-request-blob", "message": message})


def _exchange(tx: TranscriptBuilder, index: int, read_size: int) -> None:
    msg = f"msg_{index:08d}"
    path = f"{tx.cwd}/src/module_{index % 97}.py"
    _prompt(tx, f"Please refactor module {index} and fix the failing test.")
    tx.thinking("t" * 1500, msg).text("Let me read it first.", msg)
    read = {"type": "text", "file": {"filePath": path}}
    tx.tool(
        "Read",
        {"file_path": path},
        msg,
        result="    code line\n" * (read_size // 14),
        tool_use_result=read,
    )
    edit = {"file_path": path, "old_string": "a" * 200, "new_string": "b" * 200}
    tx.tool("Edit", {**edit, "replace_all": False}, msg + "b", result="The file has been updated.")
    tx.text("Done: " + "x" * 400, msg + "c").stop_summary()
    tx.add({"type": "last-prompt", "lastPrompt": "..."})


def build(path: Path, size: int) -> int:
    """Write a transcript of about ``size`` bytes; returns the number of records."""
    tx = TranscriptBuilder()
    index = 0
    while len(tx.data()) < min(size, MB // 2):  # ~0.5 MB of varied exchanges
        _exchange(tx, index, 300_000 if index % 25 == 24 else 6_000)  # now and then a big Read
        index += 1
    chunk, chunk_records = tx.data(), len(tx.lines)
    _prompt(tx, "Rename the helper in utils.py.")
    edit = {"file_path": f"{CWD}/utils.py", "old_string": "old", "new_string": "new"}
    tx.tool("Edit", {**edit, "replace_all": False}, "msg_final", result="updated")
    tx.text("Renamed.", "msg_final_text")
    tail = b"\n".join(tx.lines[chunk_records:]) + b"\n"
    copies = max(1, round((size - len(tail)) / len(chunk)))
    with open(path, "wb") as handle:
        for _ in range(copies):
            handle.write(chunk)
        handle.write(tail)
    return copies * chunk_records + len(tx.lines) - chunk_records


def append_turn(path: Path, number: int) -> None:
    """Append one more finished turn (its own prompt id, an Edit, a reply) to the
    transcript ``build`` wrote: a benchmark round then prompts anew, as a person does,
    instead of replaying the last prompt (which piles every round's heartbeats and turn
    ends onto one turn)."""
    tx = TranscriptBuilder()
    text = f"Round {number}: rename the next helper."
    tx.add(queue_operation("enqueue", text, tx.stamp()))
    tx.user(text, promptId=f"prompt_round_{number:06d}", permissionMode="acceptEdits")
    edit = {"file_path": f"{CWD}/utils.py", "old_string": "old", "new_string": "new"}
    tx.tool("Edit", {**edit, "replace_all": False}, f"msg_round_{number:06d}", result="updated")
    tx.text("Renamed.", f"msg_round_{number:06d}_text")
    with open(path, "ab") as handle:
        handle.write(b"\n".join(tx.lines) + b"\n")


def median_ms(func, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def bytes_back_to_prompt(path: Path) -> int:
    scan = iter_records_reversed(path)
    for record in scan:
        if is_prompt(record):
            break
    return scan.bytes_read


def bench(size_mb: float, folder: Path, runs: int) -> str:
    path = folder / f"transcript-{size_mb:g}MB.jsonl"
    records = build(path, int(size_mb * MB))
    try:
        edits = find_edits(path)
        assert [e.file_path for e in edits] == [f"{CWD}/utils.py"], edits
        edits_ms = median_ms(lambda: find_edits(path), runs)
        turns_ms = median_ms(lambda: recent_turns(path, n=3), runs)
        actual = path.stat().st_size / MB
        back = bytes_back_to_prompt(path) / 1024
        return (
            f"| {actual:,.0f} MB | {records:,} | {edits_ms:.2f} ms | {turns_ms:.2f} ms "
            f"| {back:,.0f} KiB |"
        )
    finally:
        path.unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,100,500", help="comma-separated sizes in MB")
    parser.add_argument("--runs", type=int, default=7, help="runs per measurement (median)")
    parser.add_argument("--dir", type=Path, default=None, help="where to write the transcripts")
    args = parser.parse_args(argv)
    sizes = [float(s) for s in args.sizes.split(",") if s.strip()]
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs; median of {args.runs} runs, warm page cache\n"
    )
    print("| transcript | records | find_edits | recent_turns(n=3) | read back to prompt |")
    print("|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        for size in sizes:
            print(bench(size, Path(folder), args.runs), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
