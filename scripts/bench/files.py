"""What a lived-in task looks like on disk: context and tasks files, a transcript."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def context_text(repo: Path, entries: int = 25) -> str:
    """A lived-in context file (~15 KB): description, next steps, findings under
    ``### Task N`` (two of them for items still unchecked), a code fence, and a long
    Recent Changes history, so the hooks parse what users really have."""
    findings = "".join(
        f"### Task {n}\n\nFound that the parser drops the last line when {n} "
        f"records share a timestamp; fixed by a stable sort.\n\n"
        for n in (2, 3, 5, 9, 10)
    )
    changes = "".join(
        f"### 2026-11-{28 - i // 3:02d} {10 + i % 9:02d}:{(i * 7) % 60:02d}\n"
        f"- Reworked the reader for case {i}; tests added for empty and torn files\n"
        f"- Notes: ```python``` fences and `code` stay as they are\n"
        for i in range(entries)
    )
    return (
        "# Bench Task - Context\n\n**Last Updated:** 2026-11-28 17:40\n\n"
        f"## Description\n\n- Repository: {repo}\n\nMake the transcript reader fast "
        "and exact on very large files.\n\n"
        "## Next Steps\n\n- Finish the reverse reader\n- Benchmark 500 MB files\n\n"
        "## Findings\n\n" + findings + "```text\n### Task 99 inside a fence\n```\n\n"
        "## Recent Changes\n\n" + changes
    )


def tasks_text(items: int = 12) -> str:
    """A checklist where 9 and 10 have findings but are unchecked (a divergence)."""
    done = {1, 2, 3, 4, 5, 6}
    lines = "".join(
        f"- [{'x' if n in done else ' '}] {n}. Step {n} of the reader rework\n"
        for n in range(1, items + 1)
    )
    return f"# Bench Task - Tasks\n\n## Tasks\n\n{lines}"


def write_transcript(path: Path, size: int) -> int:
    """A Claude Code-shaped transcript of ``size`` bytes ending in a short exchange with
    one Edit, written by the transcript benchmark's generator."""
    sys.path.insert(0, str(REPO / "scripts"))
    import bench_transcript

    path.parent.mkdir(parents=True, exist_ok=True)
    return bench_transcript.build(path, size)


def append_turn(path: Path, number: int) -> None:
    """One more finished turn at the end of the transcript (``bench_transcript``)."""
    sys.path.insert(0, str(REPO / "scripts"))
    import bench_transcript

    bench_transcript.append_turn(path, number)
