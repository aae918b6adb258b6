"""The results as JSON (everything) and markdown (the tables a README can quote)."""

from __future__ import annotations

import json
from pathlib import Path


def table(headers: list[str], rows: list[list[object]], align: str = "") -> str:
    """A markdown table; ``align`` is one char per column, ``l`` or ``r`` (default r)."""
    align = align.ljust(len(headers), "r")
    rule = ["---" if a == "l" else "---:" for a in align]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:,.0f} ms" if value >= 100 else f"{value:.1f} ms"


def machine_line(machine: dict) -> str:
    py = machine["hook_python"]
    line = (
        f"{machine['cores']} cores, {machine['cpu']}, {machine['os']}; hooks run by Python "
        f"{py['version']} ({py['executable']}, SQLite {py['sqlite']})"
    )
    if py["startup_preimports"]:
        line += (
            f". WARNING: this interpreter's startup already imports "
            f"{', '.join(py['startup_preimports'])} (a site .pth): the floor is inflated"
        )
    return line


def targets_table(targets: list[dict]) -> str:
    rows = [
        [t["name"], t["target"], t["value"], "met" if t["met"] else "**MISSED**"] for t in targets
    ]
    return table(["target", "wanted", "measured", ""], rows, "llll")


def markdown(results: dict, sections: list[str]) -> str:
    machine = results["machine"]
    parts = [
        "# MissionCache benchmarks",
        "",
        f"Machine: {machine_line(machine)}.",
        f"Load average at start {machine['loadavg_start']}, at end {machine['loadavg_end']}.",
        f"Profile: {results['config']['profile']}, {results['config']['runs']} runs per hook "
        f"figure; command: `{results['config']['command']}`.",
        "",
        "## Targets",
        "",
        targets_table(results["targets"]),
        "",
    ]
    parts += sections
    return "\n".join(parts).rstrip() + "\n"


def write(out_dir: Path, stamp: str, results: dict, text: str) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / f"bench-{stamp}.json"
    md_path = out_dir / f"bench-{stamp}.md"
    json_path.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
    md_path.write_text(text, encoding="utf-8")
    for name, path in (("latest.json", json_path), ("latest.md", md_path)):
        (out_dir / name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    return json_path, md_path
