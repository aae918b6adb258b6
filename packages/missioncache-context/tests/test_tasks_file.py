import pytest

from missioncache_context import (
    append_items,
    divergent_tasks,
    mark_done,
    normalize_number,
    parse_items,
    pending_numbers,
)
from missioncache_context.tasks_file import TaskItem

TASKS = """# Demo - Tasks

- [ ] 1. Set up the repo
- [x] 2. Write the parser
  - [ ] 2.1. Handle fences
  - [X] 2.2. Handle CRLF
* [ ] 3. Ship it
- [ ] 3.1. Sub of three
- [ ] 5. Five
- [ ] 54a. Inserted later

```markdown
- [ ] 9. fenced example
- [ ] 3. fenced three
```
"""


def test_parse_items_numbers_text_done_and_line():
    assert parse_items(TASKS) == [
        TaskItem("1", "Set up the repo", False, 2),
        TaskItem("2", "Write the parser", True, 3),
        TaskItem("2.1", "Handle fences", False, 4),
        TaskItem("2.2", "Handle CRLF", True, 5),
        TaskItem("3", "Ship it", False, 6),
        TaskItem("3.1", "Sub of three", False, 7),
        TaskItem("5", "Five", False, 8),
        TaskItem("54a", "Inserted later", False, 9),
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- [ ] 5. text", ("5", "text", False)),
        ("+ [x] 1.2. text", ("1.2", "text", True)),
        ("\t- [X] 54a. text  ", ("54a", "text", True)),
        ("- [ ] 3.5 million users", (None, "3.5 million users", False)),
        ("- [ ] no number", (None, "no number", False)),
        ("- [ ] 7.", ("7", "", False)),
        ("- [ ]", (None, "", False)),
    ],
)
def test_item_shapes(line, expected):
    (item,) = parse_items(line + "\n")
    assert (item.number, item.text, item.done) == expected


@pytest.mark.parametrize("line", ["-[ ] 1. x", "- [] 1. x", "- [y] 1. x", "[ ] 1. x", "- [ ]x"])
def test_not_items(line):
    assert parse_items(line) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [(5, "5"), ("5", "5"), ("5.", "5"), (" 054A ", "54a"), ("1.02", "1.2"), ("3.10", "3.10")],
)
def test_normalize_number(value, expected):
    assert normalize_number(value) == expected


@pytest.mark.parametrize("value", [True, -1, 3.0, None, "", "a5", "5..", "1.2.x", "fix bug"])
def test_not_numbers(value):
    assert normalize_number(value) is None


def test_pending_numbers_ignores_fenced_items():
    assert pending_numbers(TASKS) == ["1", "2.1", "3", "3.1", "5", "54a"]


def test_divergence_is_headed_and_still_unchecked():
    context = (
        "# C\n### Task 2: done already\n### task 3\n### TASK 54A\n### Task 6\n"
        "```\n### Task 1\n```\n"
    )
    assert divergent_tasks(context, TASKS) == ["3", "54a"]  # not 3.1, not fenced 1


def test_mark_done_by_number_flips_exactly_that_item():
    result = mark_done(TASKS, [3])
    assert result.text == TASKS.replace("* [ ] 3. Ship it", "* [x] 3. Ship it")
    assert result.matched == [3] and result.unmatched == [] and result.already_done == []
    sub = mark_done(TASKS, ["3.1"])
    assert sub.text == TASKS.replace("- [ ] 3.1. Sub", "- [x] 3.1. Sub")
    assert mark_done(TASKS, ["54A"]).text == TASKS.replace("- [ ] 54a.", "- [x] 54a.")


def test_mark_done_by_text_flips_first_unchecked_match_case_insensitively():
    result = mark_done(TASKS, ["handle"])
    assert result.text == TASKS.replace("- [ ] 2.1. Handle", "- [x] 2.1. Handle")
    two = mark_done(TASKS, ["THREE", "three"])
    assert two.matched == ["THREE", "three"]
    assert "- [x] 3.1. Sub of three" in two.text


def test_mark_done_reports_unmatched_and_already_done():
    result = mark_done(TASKS, [2, "Handle CRLF", 9, "fenced example", "", None, 4, "nope"])
    assert result.text == TASKS
    assert result.matched == [2, "Handle CRLF"]
    assert result.already_done == [2, "Handle CRLF"]
    assert result.unmatched == [9, "fenced example", "", None, 4, "nope"]


def test_mark_done_accepts_a_single_selector_and_keeps_crlf_and_bom():
    text = "\ufeff- [ ] 1. a\r\n- [ ] 2. b\r\n"
    assert mark_done(text, 2).text == "\ufeff- [ ] 1. a\r\n- [x] 2. b\r\n"


def test_append_items_numbers_after_highest_top_level_and_sits_after_last_item():
    result = append_items(TASKS, ["New one", "multi\nline   text"])
    assert result.numbers == ["55", "56"]
    assert result.text == TASKS.replace(
        "- [ ] 54a. Inserted later\n",
        "- [ ] 54a. Inserted later\n- [ ] 55. New one\n- [ ] 56. multi line text\n",
    )


def test_append_ignores_sub_item_numbers_and_fenced_items():
    text = "- [ ] 1. a\n  - [ ] 7.9. sub\n```\n- [ ] 99. fenced\n```\n"
    result = append_items(text, "b")
    assert result.numbers == ["2"]
    assert result.text == "- [ ] 1. a\n  - [ ] 7.9. sub\n- [ ] 2. b\n```\n- [ ] 99. fenced\n```\n"


def test_append_keeps_continuation_lines_with_their_item_and_uses_its_bullet():
    text = "* [ ] 1. a\n  details\n  ```\n\n  code\n  ```\n\n## Notes\n"
    result = append_items(text, "b")
    assert result.text == "* [ ] 1. a\n  details\n  ```\n\n  code\n  ```\n* [ ] 2. b\n\n## Notes\n"


def test_append_without_items_goes_at_the_end():
    assert append_items("# Tasks\n", ["a"]).text == "# Tasks\n\n- [ ] 1. a\n"
    assert append_items("", ["a"]).text == "- [ ] 1. a\n"
    assert append_items("# Tasks\r\n```\r\n", ["a"]).text == (
        "# Tasks\r\n```\r\n```\r\n\r\n- [ ] 1. a\r\n"
    )


def test_append_after_last_item_without_trailing_newline():
    assert append_items("- [x] 4. a", ["b"]).text == "- [x] 4. a\n- [ ] 5. b"
    assert append_items("- [x] 4. a\r\n- [ ] 5. b", ["c"]).text == (
        "- [x] 4. a\r\n- [ ] 5. b\r\n- [ ] 6. c"
    )


def test_append_refuses_empty_text():
    with pytest.raises(ValueError):
        append_items(TASKS, ["ok", "  \n "])
    assert append_items(TASKS, []).text == TASKS
