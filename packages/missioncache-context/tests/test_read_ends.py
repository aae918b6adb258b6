"""read_ends: a bounded read of a file that grows at the bottom (the task tracker's)."""

from __future__ import annotations

from missioncache_context import divergent_tasks, read_ends


def test_a_small_file_is_one_whole_text(tmp_path):
    path = tmp_path / "t-tasks.md"
    path.write_bytes(b"\xef\xbb\xbf- [ ] 1. a\n- [ ] 2. b\n")
    assert read_ends(path, limit=14) == ["- [ ] 1. a\n- [ ] 2. b\n"]  # 28 bytes <= 2 x 14


def test_a_large_file_is_its_head_and_its_tail_cut_at_whole_lines(tmp_path):
    path = tmp_path / "t-tasks.md"
    lines = [f"- [ ] {n}. item number {n}\n" for n in range(1, 1001)]
    path.write_text("".join(lines), encoding="utf-8")
    head, tail = read_ends(path, limit=100)
    assert head == "".join(lines[:4])  # 4 x 23 bytes; the 5th line is cut, so left out
    assert tail.endswith(lines[-1]) and tail.startswith("- [ ] ") and len(tail) <= 100
    assert divergent_tasks("### Task 2\n### Task 1000\n### Task 500\n", head, tail) == [
        "2",
        "1000",
    ]


def test_a_number_in_both_parts_is_named_once(tmp_path):
    assert divergent_tasks("### Task 1\n", "- [ ] 1. a\n", "- [ ] 1. again\n") == ["1"]
