import pytest

from missioncache_context import (
    add_recent_change,
    format_when,
    get_stamp,
    newest_recent_change,
    recent_changes,
    record_change,
    section,
    set_stamp,
    task_headings,
)

SAMPLE = """# Demo - Context

**Last Updated:** 2026-11-29 13:47

## Description
Example file.

```markdown
**Last Updated:** 1999-01-01 00:00
## Recent Changes
### 1999-01-01 00:00
```

## Next Steps
- write tests
### Sub heading
- more

## Recent Changes

### 2026-11-29 13:47
- did a thing

### 2026-11-28 09:00
- older
"""


def test_get_stamp_reads_the_first_stamp_outside_fences():
    assert get_stamp(SAMPLE) == "2026-11-29 13:47"
    fenced_first = "```\n**Last Updated:** fenced\n```\n**Last Updated:** real  \n"
    assert get_stamp(fenced_first) == "real"
    assert get_stamp("text **Last Updated:** not at line start\n") is None
    assert get_stamp("**last updated:** any case\n") == "any case"


def test_set_stamp_replaces_only_the_value_of_the_first_stamp():
    text = "**Last Updated:**  old value  \r\nx\r\n**Last Updated:** second\r\n"
    assert set_stamp(text, "2026-01-02 03:04") == (
        "**Last Updated:**  2026-01-02 03:04  \r\nx\r\n**Last Updated:** second\r\n"
    )


def test_set_stamp_skips_a_fenced_stamp_and_inserts_after_the_title():
    text = "# Title\n\n~~~\n**Last Updated:** fenced\n~~~\n"
    assert set_stamp(text, "X") == (
        "# Title\n\n**Last Updated:** X\n\n~~~\n**Last Updated:** fenced\n~~~\n"
    )


def test_set_stamp_inserts_after_title_with_blank_line_separation():
    assert set_stamp("# T\n## D\n", "X") == "# T\n\n**Last Updated:** X\n\n## D\n"
    assert set_stamp("# T\r\n\r\n## D\r\n", "X") == "# T\r\n\r\n**Last Updated:** X\r\n\r\n## D\r\n"
    assert set_stamp("# T", "X") == "# T\n\n**Last Updated:** X"


def test_set_stamp_without_title_goes_on_top():
    assert set_stamp("", "X") == "**Last Updated:** X\n"
    assert set_stamp("hello\n", "X") == "**Last Updated:** X\n\nhello\n"
    assert set_stamp("## Not a title\n", "X") == "**Last Updated:** X\n\n## Not a title\n"


def test_set_stamp_ignores_a_fenced_title():
    text = "```\n# fenced title\n```\n"
    assert set_stamp(text, "X") == "**Last Updated:** X\n\n" + text


def test_stamp_keeps_a_bom():
    assert set_stamp("\ufeff# T\n", "X") == "\ufeff# T\n\n**Last Updated:** X\n"
    assert get_stamp("\ufeff**Last Updated:** v\n") == "v"


def test_format_when():
    from datetime import datetime

    assert format_when(datetime(2026, 3, 4, 5, 6, 7)) == "2026-03-04 05:06"
    assert format_when(" 2026-03-04 05:06 ") == "2026-03-04 05:06"
    assert len(format_when()) == len("2026-03-04 05:06")
    with pytest.raises(ValueError):
        format_when("two\nlines")


def test_section_is_case_insensitive_and_ends_at_next_level_two_heading():
    assert section(SAMPLE, "next steps") == "- write tests\n### Sub heading\n- more"
    assert section(SAMPLE, "## NEXT STEPS") == section(SAMPLE, "Next Steps")
    assert section(SAMPLE, "Missing") is None
    assert section("## Next Steps\n\n# Top\n", "Next Steps") == ""


def test_section_ignores_a_fenced_heading():
    text = "```\n## Next Steps\nfake\n```\n## Next Steps\nreal\n"
    assert section(text, "Next Steps") == "real"
    assert section("~~~\n## Next Steps\nfake\n", "Next Steps") is None


def test_recent_changes_entries_in_file_order():
    assert recent_changes(SAMPLE) == [
        "### 2026-11-29 13:47\n- did a thing",
        "### 2026-11-28 09:00\n- older",
    ]
    assert newest_recent_change(SAMPLE) == "### 2026-11-29 13:47\n- did a thing"


def test_a_fenced_dated_heading_stays_in_the_body_of_the_entry_above_it():
    # Found by the property test: an unclosed fence under an entry swallows what follows.
    text = "## Recent Changes\n### 2026-01-01 10:00\n```\n### 2100-05-05 05:05\n"
    assert recent_changes(text) == ["### 2026-01-01 10:00\n```\n### 2100-05-05 05:05"]
    assert newest_recent_change(text).startswith("### 2026-01-01 10:00")


def test_newest_entry_is_the_latest_date_even_when_out_of_order():
    text = "## Recent Changes\n### 2026-01-01 10:00\na\n### 2026-02-01 10:00\nb\n### misc\nc\n"
    assert newest_recent_change(text) == "### 2026-02-01 10:00\nb"
    assert newest_recent_change("## Recent Changes\n### misc\nc\n") == "### misc\nc"
    assert newest_recent_change("## Recent Changes\n- bare bullet\n") == "- bare bullet"
    assert newest_recent_change("## Recent Changes\n\n") is None
    assert newest_recent_change("# nothing\n") is None


def test_add_recent_change_goes_on_top_of_the_entries():
    new = add_recent_change(SAMPLE, ["- first", "- second"], when="2026-12-01 08:00")
    assert new == SAMPLE.replace(
        "## Recent Changes\n\n",
        "## Recent Changes\n\n### 2026-12-01 08:00\n- first\n- second\n\n",
    )
    assert newest_recent_change(new) == "### 2026-12-01 08:00\n- first\n- second"


def test_add_recent_change_keeps_text_above_the_first_entry_above_it():
    text = "## Recent Changes\nNewest first.\n### 2026-01-01 10:00\n- a\n"
    assert add_recent_change(text, "- b", when="2026-01-02 10:00") == (
        "## Recent Changes\nNewest first.\n\n"
        "### 2026-01-02 10:00\n- b\n\n### 2026-01-01 10:00\n- a\n"
    )


def test_add_recent_change_to_a_section_without_entries():
    text = "## Recent Changes\n- legacy bullet\n\n## Later\n"
    assert add_recent_change(text, "- b", when="D") == (
        "## Recent Changes\n- legacy bullet\n\n### D\n- b\n\n## Later\n"
    )
    assert add_recent_change("## Recent Changes", "- b", when="D") == (
        "## Recent Changes\n\n### D\n- b"
    )
    assert add_recent_change("## recent changes\n## Next\n", [], when="D") == (
        "## recent changes\n\n### D\n\n## Next\n"
    )


def test_missing_section_is_created_at_the_end():
    assert add_recent_change("# T\n\ntext\n", "- b", when="D") == (
        "# T\n\ntext\n\n## Recent Changes\n\n### D\n- b\n"
    )
    assert add_recent_change("# T\r\ntext", "- b", when="D") == (
        "# T\r\ntext\r\n\r\n## Recent Changes\r\n\r\n### D\r\n- b"
    )
    assert add_recent_change("", "- b", when="D") == "## Recent Changes\n\n### D\n- b\n"


def test_fenced_recent_changes_heading_is_not_the_section():
    text = "```\n## Recent Changes\n```\n"
    assert add_recent_change(text, "- b", when="D") == (
        text + "\n## Recent Changes\n\n### D\n- b\n"
    )


def test_section_created_after_an_unclosed_fence_closes_it_first():
    text = "intro\n~~~~ md\n## Recent Changes\n"
    new = add_recent_change(text, "- b", when="D")
    assert new == text + "~~~~\n\n## Recent Changes\n\n### D\n- b\n"
    assert newest_recent_change(new) == "### D\n- b"


def test_entry_body_cannot_leave_a_fence_open():
    new = add_recent_change("## Recent Changes\n\n## Next Steps\nkeep\n", ["```", "code"], when="D")
    assert new == "## Recent Changes\n\n### D\n```\ncode\n```\n\n## Next Steps\nkeep\n"
    assert section(new, "Next Steps") == "keep"


def test_body_lines_with_newlines_are_split_and_use_the_file_newline():
    new = add_recent_change("## Recent Changes\r\n", "- a\n- b\r\n\n", when="D")
    assert new == "## Recent Changes\r\n\r\n### D\r\n- a\r\n- b\r\n"


def test_record_change_stamps_and_logs_with_one_time():
    new = record_change(SAMPLE, "- saved", when="2026-12-24 18:00")
    assert get_stamp(new) == "2026-12-24 18:00"
    assert newest_recent_change(new) == "### 2026-12-24 18:00\n- saved"
    # everything else is byte-identical
    restored = new.replace("### 2026-12-24 18:00\n- saved\n\n", "", 1).replace(
        "2026-12-24 18:00", "2026-11-29 13:47", 1
    )
    assert restored == SAMPLE


@pytest.mark.parametrize(
    ("heading", "number"),
    [
        ("### Task 5", "5"),
        ("### Task 5: title", "5"),
        ("### task 54a", "54a"),
        ("### TASK 54A - shouty", "54a"),
        ("### Task 1.2: foo", "1.2"),
        ("### Task 7. dotted", "7"),
        ("###   Task   12", "12"),
    ],
)
def test_task_headings_match_case_insensitively(heading, number):
    assert task_headings(f"# T\n{heading}\n") == [number]


@pytest.mark.parametrize(
    "heading",
    ["## Task 5", "#### Task 5", "### Tasks 5", "### Task five", "### Task 5b2", "### My Task 5"],
)
def test_not_task_headings(heading):
    assert task_headings(f"{heading}\n") == []


def test_task_headings_inside_fences_ignored_and_deduplicated():
    text = "### Task 3\n```\n### Task 4\n```\n### Task 3: again\n### Task 03.1\n"
    assert task_headings(text) == ["3", "3.1"]
