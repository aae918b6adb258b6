"""The hand-written readers behave exactly like the regexes they replaced.

The package stopped importing ``re`` (it costs every hook milliseconds), so each grammar is
now a small function. Here the ORIGINAL regexes are kept as oracles and compared with those
functions on generated text: match or no match, every captured group, and the offsets the
callers use. The alphabet is the grammar's own structural characters plus Unicode that
regexes treat specially (non-ASCII decimal digits, case-folding oddities, line separators).
"""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_context import context_file, document, fences, numbers, tasks_file

# -- the oracles: the regexes exactly as the modules had them -----------------------------

NUMBER = r"\d+[A-Za-z]?(?:\.\d+[A-Za-z]?)*"
OPENER = re.compile(r" {0,3}(`{3,}|~{3,})(.*)\Z", re.DOTALL)
CLOSER = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*\Z")
ATX = re.compile(r" {0,3}(#{1,6})(?=[ \t]|\Z)(.*)\Z", re.DOTALL)
CLOSING_HASHES = re.compile(r"(?:\A|[ \t]+)#+\Z")
WHOLE = re.compile(r"[ \t]*(" + NUMBER + r")\.?[ \t]*\Z")
SEGMENT = re.compile(r"(\d+)([A-Za-z]?)\Z")
STAMP = re.compile(r"(\*\*Last Updated:\*\*)([ \t]*)(.*?)[ \t]*\Z", re.IGNORECASE | re.DOTALL)
TASK_TITLE = re.compile(r"task[ \t]+(" + NUMBER + r")\.?(?![0-9A-Za-z])", re.IGNORECASE)
DATE_TITLE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2})?")
ITEM = re.compile(
    r"(?P<indent>[ \t]*)(?P<bullet>[-*+])[ \t]+\[(?P<mark>[ xX])\](?=[ \t]|\Z)[ \t]*"
    r"(?:(?P<number>" + NUMBER + r")\.(?=[ \t]|\Z)[ \t]*)?(?P<text>.*?)[ \t]*\Z",
    re.DOTALL,
)
LIST_START = re.compile(r"(?:[-*+]|\d+[.)])(?:[ \t]|\Z)")


def old_parse_heading(content):
    if "#" not in content[:4]:
        return None
    match = ATX.match(content)
    if match is None:
        return None
    title = CLOSING_HASHES.sub("", match.group(2).strip()).strip()
    return len(match.group(1)), title


def old_normalize_number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value) if value >= 0 else None
    if not isinstance(value, str):
        return None
    match = WHOLE.match(value)
    if match is None:
        return None
    parts = [SEGMENT.match(part) for part in match.group(1).split(".")]
    return ".".join(str(int(part.group(1))) + part.group(2).lower() for part in parts)


# -- generated text ------------------------------------------------------------------------

# Unicode the regexes treat specially: decimal digits that are not ASCII ("٣", fullwidth
# "１") or are digits but not decimal ("²"); letters that fold onto ASCII ones under
# IGNORECASE ("ſ" -> s, Kelvin "K" -> k, "İ"/"ı" -> i); characters str.strip() or
# str.splitlines() treat as space or line ends but regex "[ \t]" and "." do not.
NASTY = [
    "\u0663",  # ٣ ARABIC-INDIC DIGIT THREE
    "\uff11",  # １ FULLWIDTH DIGIT ONE
    "\u00b2",  # ² SUPERSCRIPT TWO
    "\u017f",  # ſ LATIN SMALL LETTER LONG S
    "\u212a",  # K KELVIN SIGN
    "\u0130",  # İ LATIN CAPITAL LETTER I WITH DOT ABOVE
    "\u0131",  # ı LATIN SMALL LETTER DOTLESS I
    "\u00e9",  # é
    "\u0300",  # combining grave accent
    "\u00a0",  # no-break space
    "\u2028",  # LINE SEPARATOR
    "\x85",  # NEXT LINE
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1d",
    "\x1e",
    "\x1f",
    "\x00",
    "\U0001f600",  # emoji
]
STRUCTURE = list("#`~*[]xX0123456789.)-+:abkstAKST \t\n\r")
CHARS = [*STRUCTURE, *NASTY]


def grammar_text(tokens, max_pieces=12):
    """Strings glued from the grammar's tokens and single characters of CHARS."""
    piece = st.one_of(st.sampled_from(tokens), st.sampled_from(CHARS))
    return st.lists(piece, max_size=max_pieces).map("".join)


FENCE_TOKENS = ["```", "~~~", "````", "~~~~~", "`", "~", "   ", "    ", " ", "\t", "python"]
HEADING_TOKENS = ["#", "##", "###", "######", "#######", "   ", "    ", " #", "\t#", " ##"]
NUMBER_TOKENS = ["12", "054", "1.2", "3a", "54A", ".", "..", "\u0663", "\u00b2", " ", "\t"]
STAMP_MARKERS = [
    "**Last Updated:**",
    "**last updated:**",
    "**LAST UPDATED:**",
    "**La\u017ft Updated:**",
    "**Last Updated:*",
    "**Last  Updated:**",
    "**Last\tUpdated:**",
]
TASK_WORDS = ["task", "Task", "TASK", "ta\u017fk", "tas\u212a", "tasK", "tas", "tassk"]
NUMBERISH = ["1", "12", "1.2", "3a", "3b7", "1.2x3", "٣٣a5", "1٣a5", ".", "..", "a", "Z"]
DATE_TOKENS = ["2026", "-", "01", "\u0662\u0660\u0662\u0666", "T", " ", ":", "10", "1", "t"]
ITEM_TOKENS = ["-", "*", "+", " ", "\t", "[ ]", "[x]", "[X]", "[", "]", "1.", "1.2.", "54a."]
LIST_TOKENS = ["-", "*", "+", "12", "1.", "1)", " ", "\t", "\u0663.", "\u00b2)"]


# -- fences --------------------------------------------------------------------------------


def assert_fence_run_matches(line):
    opener = OPENER.match(line)
    expected = None if opener is None else (opener.group(1), opener.group(2))
    assert fences._fence_run(line) == expected
    closer = CLOSER.match(line)
    found = fences._fence_run(line)
    closing_run = found[0] if found is not None and not found[1].strip(" \t") else None
    assert closing_run == (None if closer is None else closer.group(1))


@given(grammar_text(FENCE_TOKENS))
def test_fence_run_matches_the_opener_and_closer_regexes(line):
    assert_fence_run_matches(line)


@pytest.mark.parametrize(
    "line",
    ["```", "   ```", "    ```", "``", "```\n", "``` \t", "```\t\n", "~~~ a ~", "``` a`", "\t```"],
)
def test_fence_run_examples(line):
    assert_fence_run_matches(line)


# -- headings ------------------------------------------------------------------------------


@given(grammar_text(HEADING_TOKENS))
def test_parse_heading_matches_the_regexes(content):
    assert document.parse_heading(content) == old_parse_heading(content)


@given(grammar_text([*HEADING_TOKENS, "x", "C#"]))
def test_closing_hashes_match_the_regex_substitution(title):
    assert document._without_closing_hashes(title) == CLOSING_HASHES.sub("", title)


@pytest.mark.parametrize(
    "content",
    [
        "#",
        "# ",
        "#\t",
        "#\n",  # "\n" is neither space/tab nor the end: not a heading
        "####### x",
        "    # x",
        "   # x",
        "# x #",
        "# x \t##",
        "# x#",
        "# ##",
        "# #\u00a0",
        "## C# ##",
        "# x # #",
        "#\u2028x",
        "# \x1c##",
        "# a \x1c ##",
    ],
)
def test_heading_examples(content):
    assert document.parse_heading(content) == old_parse_heading(content)


@given(grammar_text(["\r\n", "\r", "\n", "\r\r\n", "\n\r"]))
def test_split_input_lines_matches_re_split(value):
    assert document.split_input_lines(value) == re.split(r"\r\n|\r|\n", value)
    assert document.split_input_lines([value, "a\rb"]) == [
        *re.split(r"\r\n|\r|\n", value),
        "a",
        "b",
    ]


# -- numbers -------------------------------------------------------------------------------


@given(grammar_text(NUMBER_TOKENS))
def test_normalize_number_matches_the_regexes(value):
    assert numbers.normalize_number(value) == old_normalize_number(value)


@given(grammar_text(NUMBER_TOKENS), st.integers(0, 3))
def test_number_ends_give_the_longest_number_regex_finds(text, start):
    ends = numbers.number_ends(text, start)
    match = re.compile(NUMBER).match(text, start)
    assert (ends[-1] if ends else None) == (None if match is None else match.end())


@pytest.mark.parametrize(
    "value",
    ["054A.", " 1.2 ", "1..", "1. .", "1.\t.", "\u0663", "\u00b2", "\uff11\uff12b", "1\n", "."],
)
def test_normalize_number_examples(value):
    assert numbers.normalize_number(value) == old_normalize_number(value)


# -- the stamp -----------------------------------------------------------------------------


def assert_stamp_matches(content):
    match = STAMP.match(content)
    parsed = context_file._parse_stamp(content)
    if match is None:
        assert parsed is None
        return
    spacing, value = parsed
    assert (spacing, value) == (match.group(2), match.group(3))
    # set_stamp splices between these offsets
    assert match.end(1) == len(context_file.STAMP_MARKER)
    assert match.end(3) == len(context_file.STAMP_MARKER) + len(spacing) + len(value)


@given(st.sampled_from([*STAMP_MARKERS, ""]), grammar_text(["2026-01-01 10:00", " ", "\t"]))
def test_parse_stamp_matches_the_regex(marker, rest):
    assert_stamp_matches(marker + rest)


@given(grammar_text(STAMP_MARKERS))
def test_parse_stamp_matches_the_regex_on_any_text(content):
    assert_stamp_matches(content)


@pytest.mark.parametrize(
    "content",
    [
        "**LAST UPDATED:**",
        "**last updated:**\t x \t",
        "**La\u017ft Updated:** folded long s",
        "**Last Updated:** a\nb \t",
        "**Last Updated:**\u00a0x\u00a0",
        "**Last Updated:**  \t ",
        "**Last Updated:*",
        " **Last Updated:** x",
    ],
)
def test_stamp_examples(content):
    assert_stamp_matches(content)


# -- task headings -------------------------------------------------------------------------


def assert_task_title_matches(title):
    match = TASK_TITLE.match(title)
    expected = None if match is None else match.group(1)
    assert context_file._task_title_number(title) == expected


@given(
    st.sampled_from(TASK_WORDS),
    st.sampled_from(["", " ", "\t", "  \t"]),
    grammar_text(NUMBERISH, max_pieces=6),
)
def test_task_title_number_matches_the_regex(word, blanks, rest):
    assert_task_title_matches(word + blanks + rest)


@given(grammar_text([*TASK_WORDS, *NUMBERISH]))
def test_task_title_number_matches_the_regex_on_any_text(title):
    assert_task_title_matches(title)


@pytest.mark.parametrize(
    "title",
    [
        "Task 5",
        "task 54a: lettered",
        "TASK 1.2. dotted",
        "task5",
        "ta\u017fk 3",  # long s folds to s
        "tas\u212a 3",  # Kelvin sign folds to k
        "task 5\u017f",  # ...and counts as a letter in the number
        "task 12a3",  # runs on into a digit: no number
        "task 1.2x3",  # shortened to the segments before the last: "1"
        "task 1.2.a",  # dot then a letter: the number stops before the dot
        "task \u0663\u0663a5",  # shortened inside the segment: a non-ASCII digit follows
        "task 1\u0663a5",
        "task 5a\u0663",  # a non-ASCII digit is not [0-9]: may follow the number
        "task 5ab",
        "task 5.",
        "task 5.\u0663",
    ],
)
def test_task_title_examples(title):
    assert_task_title_matches(title)


def test_task_headings_keep_the_odd_cases_the_regex_gave():
    text = "### task 1.2x3\n### ta\u017fk 7\n### task \u0663\u0663a5\n### task 5\u017f\n"
    assert context_file.task_headings(text) == ["1", "7", "3"]


# -- dated entries -------------------------------------------------------------------------


@given(grammar_text(DATE_TOKENS))
def test_date_prefix_matches_the_regex(title):
    match = DATE_TITLE.match(title)
    assert context_file._date_prefix(title) == (None if match is None else match.group(0))


@pytest.mark.parametrize(
    "title",
    [
        "2026-01-02",
        "2026-01-02 10:00 later",
        "2026-01-02T10:00",
        "2026-01-02t10:00",
        "2026-01-02 10:0",
        "2026-1-02",
        "\u0662\u0660\u0662\u0666-01-02 \u0661\u0660:00",
        "2026-01-0\u00b2",
    ],
)
def test_date_prefix_examples(title):
    match = DATE_TITLE.match(title)
    assert context_file._date_prefix(title) == (None if match is None else match.group(0))


# -- checklist items -----------------------------------------------------------------------


def assert_item_matches(content):
    match = ITEM.match(content)
    parsed = tasks_file._parse_item(content)
    if match is None:
        assert parsed is None
        return
    indent, bullet, number, text = match.group("indent", "bullet", "number", "text")
    expected = (indent, bullet, match.start("mark"), number, text)
    assert parsed == expected
    assert content[parsed[2]] == match.group("mark")


@given(grammar_text(ITEM_TOKENS))
def test_parse_item_matches_the_regex(content):
    assert_item_matches(content)


@given(
    st.sampled_from(["", " ", "\t ", "  "]),
    st.sampled_from(["- [ ]", "* [x]", "+\t[X]", "-  [ ]"]),
    grammar_text([*ITEM_TOKENS, *NUMBERISH], max_pieces=8),
)
def test_parse_item_matches_the_regex_after_a_box(indent, box, rest):
    assert_item_matches(indent + box + rest)


@pytest.mark.parametrize(
    "content",
    [
        "- [ ]",
        "- [ ] 5.",
        "- [ ] 5. \t",
        "- [x]5. a",
        "-[ ] a",
        "- [ ] 1.a. x",
        "- [ ] 1.2.3. x",
        "- [ ] 1. \n",
        "- [ ] 54a.text",
        "- [ ] \u0663. arabic three",
        "- [ ] \u00b2. superscript",
        "- [ ] a \t ",
        "- [ ]\u00a0x",
        "\t* [X] \t 2.1.\tx\t",
    ],
)
def test_item_examples(content):
    assert_item_matches(content)


@given(grammar_text(LIST_TOKENS))
def test_starts_list_matches_the_regex(content):
    assert tasks_file._starts_list(content) == (LIST_START.match(content) is not None)


@pytest.mark.parametrize("content", ["-", "- x", "-x", "1.", "1)x", "12) x", "\u0663.", "\u00b2."])
def test_starts_list_examples(content):
    assert tasks_file._starts_list(content) == (LIST_START.match(content) is not None)


# -- case folding --------------------------------------------------------------------------


def test_caseless_characters_are_exactly_those_ignorecase_matches():
    """Every character IGNORECASE equates with an ASCII letter, and only those, is known."""
    caseless = re.compile("[a-z]", re.IGNORECASE)
    folded = [chr(code) for code in range(0x110000) if caseless.fullmatch(chr(code))]
    assert sorted(folded) == sorted(context_file._CASELESS_LETTERS)
    for letter in "abcdefghijklmnopqrstuvwxyz":
        pattern = re.compile(letter, re.IGNORECASE)
        expected = [char for char in folded if pattern.fullmatch(char)]
        assert [char for char in folded if context_file._same_char(char, letter)] == expected
        assert [char for char in folded if context_file._same_char(char, letter.upper())] == (
            expected
        )
    for char in "*: ":
        assert context_file._same_char(char, char)
        assert not any(context_file._same_char(other, char) for other in folded)
