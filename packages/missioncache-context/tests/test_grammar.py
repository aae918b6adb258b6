"""Examples of the grammars the context and tasks files are read with (data model sections
7, 8 and 10): ASCII digits, keywords that ignore ASCII case only, "blank" = space or tab.

Each table is the grammar written as examples. Other scripts' digits (``٣``, ``１``, ``²``)
and letters that Unicode case folding equates with ASCII ones (``ſ``, the Kelvin sign ``K``,
``ı``, ``İ``) are ordinary characters everywhere.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_context import context_file, document, fences, numbers, tasks_file

# -- fences: up to 3 spaces, then 3 or more backticks or tildes ---------------------------


@pytest.mark.parametrize(
    ("line", "run"),
    [
        ("```", ("```", "")),
        ("   ```", ("```", "")),
        ("```python", ("```", "python")),
        ("~~~ a ~", ("~~~", " a ~")),
        ("````  ", ("````", "  ")),
        ("~~~~~\t", ("~~~~~", "\t")),
        ("    ```", None),  # four spaces: indented code, not a fence
        ("\t```", None),
        ("``", None),
    ],
)
def test_fence_runs(line, run):
    assert fences._fence_run(line) == run


def test_fenced_lines_are_text():
    text = "```\n## Next Steps\n**Last Updated:** x\n```\n## Next Steps\nreal\n"
    assert context_file.section(text, "Next Steps") == "real"
    assert context_file.get_stamp(text) is None


# -- headings: up to 3 spaces, 1-6 "#", then a blank or the end; closing hashes dropped ----


@pytest.mark.parametrize(
    ("content", "heading"),
    [
        ("#", (1, "")),
        ("# ", (1, "")),
        ("#\t", (1, "")),
        ("   # x", (1, "x")),
        ("### Task 5", (3, "Task 5")),
        ("# x #", (1, "x")),
        ("# x \t##", (1, "x")),
        ("# x#", (1, "x#")),  # a closing run needs a blank before it
        ("# ##", (1, "")),
        ("## C# ##", (2, "C#")),
        ("# x # #", (1, "x #")),
        ("#x", None),
        ("#\n", None),
        ("####### x", None),
        ("    # x", None),
    ],
)
def test_headings(content, heading):
    assert document.parse_heading(content) == heading


def test_input_lines_split_on_every_newline_form():
    assert document.split_input_lines("a\r\nb\rc\nd\r\r\ne") == ["a", "b", "c", "d", "", "e"]


# -- task numbers (section 10.3) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "number"),
    [
        ("12", "12"),
        ("007", "7"),
        ("054A.", "54a"),
        (" 1.2 ", "1.2"),
        ("1.2b", "1.2b"),
        ("3.10", "3.10"),  # text, not a float: not 3.1
        (5, "5"),
        ("54ab", None),  # one letter per segment
        ("1..", None),
        ("1. .", None),
        (".", None),
        ("1\n", None),
        ("\u0663", None),  # Arabic-Indic three
        ("\u00b2", None),  # superscript two
        ("\uff11\uff12b", None),  # fullwidth digits
        (-1, None),
        (True, None),
        (None, None),
    ],
)
def test_task_numbers(value, number):
    assert numbers.normalize_number(value) == number


@given(
    st.lists(
        st.tuples(st.integers(0, 999), st.sampled_from(["", "a", "B"])), min_size=1, max_size=4
    )
)
def test_a_written_number_normalises_to_its_segments(segments):
    written = ".".join(f"{value:03d}{letter}" for value, letter in segments)
    expected = ".".join(f"{value}{letter.lower()}" for value, letter in segments)
    assert numbers.normalize_number(written) == expected
    assert numbers.normalize_number(written + ".") == expected


# -- task selectors (section 10.3): what update_tasks_file's completed_tasks strings name --


@pytest.mark.parametrize(
    ("selector", "number"),
    [
        ("5", "5"),
        ("#5", "5"),
        ("# 5", "5"),
        ("task 5", "5"),
        ("Task\t054A.", "54a"),
        ("TASK #3.1", "3.1"),
        ("task5", "5"),
        (" task 7 ", "7"),
        ("ta\u017fk 5", None),  # long s is not s: text, not task 5
        ("tas\u212a 5", None),  # the Kelvin sign is not k
        ("Task \u0663", None),  # Arabic-Indic three is no digit
        ("Task \uff15", None),  # nor is a fullwidth five
        ("Tasks 5", None),
        ("task", None),
        ("##5", None),
        ("Write the parser", None),
    ],
)
def test_task_selectors(selector, number):
    assert numbers.selector_number(selector) == number


def test_a_selector_that_names_no_number_ticks_nothing_by_number():
    """The hooks' reader and the tools' agree: a look-alike selector is text, and no item
    of a numbered list contains it."""
    text = "- [ ] 5. Write the parser\n- [ ] 3. Ship\n"
    result = tasks_file.mark_done(text, ["ta\u017fk 5", "Task \u0663"])
    assert result.text == text and result.unmatched == ["ta\u017fk 5", "Task \u0663"]


# -- the stamp line (section 10.2) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "parsed"),
    [
        ("**Last Updated:** 2026-01-01 10:00", (" ", "2026-01-01 10:00")),
        ("**LAST UPDATED:**", ("", "")),
        ("**last updated:**\t x \t", ("\t ", "x")),
        ("**Last Updated:**  \t ", ("  \t ", "")),
        ("**Last Updated:**\u00a0x\u00a0", ("", "\u00a0x\u00a0")),  # no-break space: not blank
        ("**La\u017ft Updated:** x", None),  # long s is not s
        ("**Last Updated:*", None),
        (" **Last Updated:** x", None),  # at the very start only
    ],
)
def test_stamp_lines(content, parsed):
    assert context_file._parse_stamp(content) == parsed


def test_set_stamp_replaces_only_the_value():
    text = "# T\n\n**last UPDATED:**\t 2020-01-01 00:00  \n"
    assert context_file.set_stamp(text, "2026-02-03 04:05") == (
        "# T\n\n**last UPDATED:**\t 2026-02-03 04:05  \n"
    )


# -- Recent Changes entry dates (section 10.2) ---------------------------------------------


@pytest.mark.parametrize(
    ("title", "date"),
    [
        ("2026-01-02", "2026-01-02"),
        ("2026-01-02 10:00 later", "2026-01-02 10:00"),
        ("2026-01-02T10:00", "2026-01-02T10:00"),
        ("2026-01-02t10:00", "2026-01-02"),  # a lower-case t is not the separator
        ("2026-01-02 10:0", "2026-01-02"),
        ("2026-01-02 \u0661\u0660:00", "2026-01-02"),
        ("2026-1-02", None),
        ("\u0662\u0660\u0662\u0666-01-02", None),
        ("2026-01-0\u00b2", None),
    ],
)
def test_entry_dates(title, date):
    assert context_file._date_prefix(title) == date


# -- task headings (section 10.2) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "number"),
    [
        ("Task 5", "5"),
        ("task 54a: lettered", "54a"),
        ("TASK 1.2. dotted", "1.2"),
        ("Task\t7 - x", "7"),
        ("task 3.10", "3.10"),
        ("task 5.", "5"),
        ("task 1.2.a", "1.2"),  # the number stops before ".a"
        ("task 5\u017f", "5"),  # a non-ASCII letter may follow the number
        ("task 5a\u0663", "5a"),  # so may a non-ASCII digit
        ("task 1\u0663a5", "1"),
        ("task5", None),  # at least one blank
        ("Tasks 5", None),
        ("ta\u017fk 3", None),  # long s is not s
        ("tas\u212a 3", None),  # the Kelvin sign is not k
        ("task 12a3", None),  # runs on into a digit
        ("task 5ab", None),  # ...or a letter
        ("task 1.2x3", None),
        ("task \u0663\u0663a5", None),  # no ASCII digit: no number
    ],
)
def test_task_heading_titles(title, number):
    assert context_file._task_title_number(title) == number


@given(st.sampled_from(["task", "TASK", "Task", "tAsK"]), st.sampled_from([" ", "\t", " \t "]))
def test_task_headings_in_a_file(word, blanks):
    text = f"### {word}{blanks}3: a\n```\n### Task 9\n```\n### task 3\n#### Task 4\n### Task 12\n"
    assert context_file.task_headings(text) == ["3", "12"]


def test_section_names_ignore_ascii_case_only():
    text = "## NEXT steps\nA\n## Recent Change\u017f\nB\n"
    assert context_file.section(text, "Next Steps") == "A"
    assert context_file.section(text, "Recent Changes") is None


# -- checklist items (section 10.3) --------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "item"),
    [
        # (indent, bullet, offset of the mark, raw number, text)
        ("- [ ]", ("", "-", 3, None, "")),
        ("- [ ] 5.", ("", "-", 3, "5", "")),
        ("- [ ] 5. \t", ("", "-", 3, "5", "")),
        ("+ [X] 3. y", ("", "+", 3, "3", "y")),
        ("  - [ ] 1.2. sub", ("  ", "-", 5, "1.2", "sub")),
        ("\t* [X] \t 2.1.\tx\t", ("\t", "*", 4, "2.1", "x")),
        ("- [ ] 1.2.3. x", ("", "-", 3, "1.2.3", "x")),
        ("- [ ] 1.a. x", ("", "-", 3, None, "1.a. x")),
        ("- [ ] 54a.text", ("", "-", 3, None, "54a.text")),  # the dot needs a blank after
        ("- [ ] \u0663. arabic three", ("", "-", 3, None, "\u0663. arabic three")),
        ("- [ ] \u00b2. superscript", ("", "-", 3, None, "\u00b2. superscript")),
        ("- [ ] a \t ", ("", "-", 3, None, "a")),
        ("- [x]5. a", None),  # the box needs a blank or the end after it
        ("-[ ] a", None),  # ...and one before it
        ("- [y] 1. z", None),
    ],
)
def test_checklist_items(content, item):
    assert tasks_file._parse_item(content) == item


@pytest.mark.parametrize(
    ("content", "starts"),
    [
        ("-", True),
        ("- x", True),
        ("1.", True),
        ("12) x", True),
        ("-x", False),
        ("1)x", False),
        ("12.3", False),
        ("\u0663.", False),
        ("\u00b2.", False),
    ],
)
def test_list_starts(content, starts):
    assert tasks_file._starts_list(content) is starts
