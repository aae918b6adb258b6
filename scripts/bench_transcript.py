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
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "packages" / "missioncache-transcript" / "src"
sys.path.insert(0, str(SRC))

from missioncache_transcript import find_edits, is_prompt, iter_records_reversed, recent_turns  # noqa: E402

MB = 1024 * 1024
CWD = "/home/user/project"
SID = "62092ae1-ac2b-4203-bbca-0c567d602d25"


class Records:
    """Emits realistic records (2.1.328 shapes): one call per record, ids all distinct."""

    def __init__(self) -> None:
        self.count = 0
        self.parent: str | None = None

    def _base(self, kind: str, **extra) -> dict:
        self.count += 1
        uuid = f"{self.count:08x}-0000-4000-8000-000000000000"
        record = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "type": kind,
            "uuid": uuid,
            "timestamp": "2026-11-29T13:58:09.770Z",
            "userType": "external",
            "entrypoint": "sdk-cli",
            "cwd": CWD,
            "sessionId": SID,
            "version": "2.1.328",
            "gitBranch": "main",
        }
        record.update(extra)
        self.parent = uuid
        return record

    def prompt(self, text: str) -> list[dict]:
        return [
            {"type": "queue-operation", "operation": "enqueue", "sessionId": SID, "content": text},
            self._base("user", message={"role": "user", "content": text}, promptId="p"),
            self._base("attachment", attachment={"type": "hook_success", "content": "ctx " * 50}),
            self._base("attachment", attachment={"type": "skill_listing", "content": "s " * 900}),
            {
                "type": "api-request-blob",
                "sessionId": SID,
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": "<system-reminder>" + "r" * 3000 + "</system-reminder>",
                        },
                        {"type": "text", "text": text},
                    ],
                },
            },
        ]

    def assistant(self, block: dict, msg_id: str) -> dict:
        message = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-5-5",
            "content": [block],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        return self._base("assistant", message=message, requestRef="ref")

    def tool(self, name: str, params: dict, result: str, msg_id: str) -> list[dict]:
        tool_id = f"toolu_{self.count:08d}"
        block = {"type": "tool_use", "id": tool_id, "name": name, "input": params}
        content = [{"tool_use_id": tool_id, "type": "tool_result", "content": result}]
        return [
            self.assistant(block, msg_id),
            self._base(
                "user",
                message={"role": "user", "content": content},
                toolUseResult={"type": "text", "file": {"filePath": params["file_path"]}},
            ),
        ]

    def exchange(self, index: int, read_size: int) -> list[dict]:
        msg = f"msg_{index:08d}"
        path = f"{CWD}/src/module_{index % 97}.py"
        records = self.prompt(f"Please refactor module {index} and fix the failing test.")
        records.append(self.assistant({"type": "thinking", "thinking": "t" * 1500}, msg))
        records.append(self.assistant({"type": "text", "text": "Let me read it first."}, msg))
        records += self.tool(
            "Read", {"file_path": path}, "    code line\n" * (read_size // 14), msg
        )
        edit = {
            "file_path": path,
            "old_string": "a" * 200,
            "new_string": "b" * 200,
            "replace_all": False,
        }
        records += self.tool("Edit", edit, "The file has been updated successfully.", msg + "b")
        records.append(self.assistant({"type": "text", "text": "Done: " + "x" * 400}, msg + "c"))
        records.append(self._base("system", subtype="stop_hook_summary", hookCount=1))
        records.append({"type": "last-prompt", "lastPrompt": "...", "sessionId": SID})
        return records


def _lines(records: list[dict]) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)


def build(path: Path, size: int) -> int:
    """Write a transcript of about ``size`` bytes; returns the number of records."""
    gen = Records()
    chunk_records: list[dict] = []
    index = 0
    while len(_lines(chunk_records)) < min(size, MB // 2):  # ~0.5 MB of varied exchanges
        read_size = 300_000 if index % 25 == 24 else 6_000  # now and then a big Read
        chunk_records += gen.exchange(index, read_size)
        index += 1
    chunk = _lines(chunk_records)
    final = gen.prompt("Rename the helper in utils.py.")
    final += gen.tool(
        "Edit",
        {
            "file_path": f"{CWD}/utils.py",
            "old_string": "old",
            "new_string": "new",
            "replace_all": False,
        },
        "updated",
        "msg_final",
    )
    final.append(gen.assistant({"type": "text", "text": "Renamed."}, "msg_final_text"))
    tail = _lines(final)
    copies = max(1, round((size - len(tail)) / len(chunk)))
    with open(path, "wb") as handle:
        for _ in range(copies):
            handle.write(chunk)
        handle.write(tail)
    return copies * len(chunk_records) + len(final)


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
