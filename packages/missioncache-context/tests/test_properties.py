"""Property tests: arbitrary markdown in, nothing lost, nothing fenced touched.

The generator knows which lines it put inside fences, so the fence scanner is checked against
ground truth, not against itself. Edits are checked as pure insertions: the old text must be
the new text minus one contiguous piece, and that piece may only contain the lines we meant to
add.
"""

import re
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from missioncache_context import (
    add_recent_change,
    get_stamp,
    mark_done,
    parse_items,
    recent_changes,
    section,
    set_stamp,
    task_headings,
)
from missioncache_context.document import Doc, parse_heading
from missioncache_context.fences import fenced_lines

WHEN = "2099-12-31 23:59"
STAMP = "2100-01-01 00:00"

SAFE = "abcdefgxyzABC 0123456789.,:;!?()-_/'\"=<>@%&[]{}|\té😀"
HEADINGS = [
    "# Title",
    "## Recent Changes",
    "## recent CHANGES",
    "## Next Steps",
    "## Other",
    "### 2026-01-01 10:00",
    "### 2026-01-02 11:00 later",
    "### Task 5",
    "### task 54a: lettered",
    "### Task 1.2: dotted",
    "### note",
    "#### deep",
    "#tag",
]
# stamp form -> the same line after set_stamp(STAMP)
STAMPS = {
    "**Last Updated:** 2026-01-01 10:00": f"**Last Updated:** {STAMP}",
    "**Last Updated:**": f"**Last Updated:** {STAMP}",
    "**last updated:**   x  ": f"**last updated:**   {STAMP}  ",
}
ITEMS = ["- [ ] 1. one", "- [x] 2. two", "  - [ ] 2.1. sub", "* [ ] 3. three", "- [ ] 3.1. x"]
FENCED_ONLY = [
    "## Recent Changes",
    "## Next Steps",
    "### Task 900",
    "### 2100-05-05 05:05",
    "**Last Updated:** FENCED",
    "- [ ] 77. fenced item",
]

plain_line = st.one_of(
    st.text(alphabet=SAFE, max_size=20),
    st.sampled_from(HEADINGS),
    st.sampled_from(sorted(STAMPS)),
    st.sampled_from(ITEMS),
    st.just(""),
)


@st.composite
def fenced_block(draw, last):
    """(lines, closed): an opener, inner lines that never close it, and maybe a closer."""
    char = draw(st.sampled_from("`~"))
    length = draw(st.integers(3, 5))
    indent = " " * draw(st.integers(0, 3))
    info = draw(st.sampled_from(["", "python", " md title", "x~y"]))
    lines = [indent + char * length + info]
    other = "~" if char == "`" else "`"
    inner = st.one_of(
        plain_line,
        st.sampled_from(FENCED_ONLY),
        st.just(other * 3),  # the other character never closes
        st.just(char * (length - 1)) if length > 3 else st.just("text"),  # too short
        st.just(char * length + " info"),  # a closer carries no info string
        st.just("    " + char * length),  # indented four spaces
    )
    lines += draw(st.lists(inner, max_size=6))
    closed = not last or draw(st.booleans())
    if closed:
        lines.append(" " * draw(st.integers(0, 3)) + char * (length + draw(st.integers(0, 2))))
    return lines, closed


@st.composite
def markdown(draw):
    """(text, contents, fenced flags, newline) of a random document."""
    contents, fenced = [], []
    blocks = draw(st.integers(0, 6))
    for index in range(blocks):
        if draw(st.booleans()):
            lines, _closed = draw(fenced_block(last=index == blocks - 1))
            contents += lines
            fenced += [True] * len(lines)
        else:
            lines = draw(st.lists(plain_line, max_size=6))
            contents += lines
            fenced += [False] * len(lines)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    endings = [draw(st.sampled_from([newline, newline, newline, "\n", "\r\n"])) for _ in contents]
    if contents and contents[-1] and draw(st.booleans()):  # "" without ending is no line
        endings[-1] = ""
    bom = draw(st.sampled_from(["", "\ufeff"]))
    text = bom + "".join(c + e for c, e in zip(contents, endings))
    return text, contents, fenced


def split(text):
    """Line contents the way a reader would see them (independent of the library)."""
    body = text[1:] if text.startswith("\ufeff") else text
    parts = body.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [part[:-1] if part.endswith("\r") else part for part in parts]


def single_insertion(old, new):
    """The piece ``new`` adds to ``old`` when that is all it does, else None."""
    extra = len(new) - len(old)
    if extra < 0:
        return None
    prefix = 0
    while prefix < len(old) and old[prefix] == new[prefix]:
        prefix += 1
    if new[prefix + extra :] != old[prefix:]:
        return None
    return new[prefix : prefix + extra]


def newline_of(text):
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def assert_added_only(old, new, allowed):
    """``new`` is ``old`` plus one piece whose lines are all in ``allowed``, in the old
    text's newline style; nothing of ``old`` is lost."""
    assert single_insertion(old, new) is not None
    added = Counter(split(new))
    added.subtract(Counter(split(old)))
    assert all(count >= 0 for count in added.values()), "a line was lost"
    assert {line for line, count in added.items() if count} <= allowed
    if newline_of(old) == "\r\n":
        assert new.count("\n") - new.count("\r\n") == old.count("\n") - old.count("\r\n")
    else:
        assert new.count("\r\n") == old.count("\r\n")
    assert new.startswith("\ufeff") == old.startswith("\ufeff")


def expected_stamp(contents, fenced):
    for content, inside in zip(contents, fenced):
        if not inside and content in STAMPS:
            return content
    return None


@given(markdown())
def test_fences_match_ground_truth_and_hide_structure(doc):
    text, contents, fenced = doc
    assert fenced_lines(split(text)) == fenced
    stamp_line = expected_stamp(contents, fenced)
    value = get_stamp(text)
    assert value != "FENCED"
    if stamp_line is None:
        assert value is None
    else:
        assert value == stamp_line.split(":**", 1)[1].strip()
    assert "900" not in task_headings(text)
    # A fenced "### 2100-05-05" line never starts an entry (it may sit in an entry's body,
    # inside that entry's code block, which is where it belongs).
    entry_headings = [entry.split("\n", 1)[0] for entry in recent_changes(text)]
    assert not any("2100-05-05" in heading for heading in entry_headings)
    assert all(item.number != "77" for item in parse_items(text))


BODIES = [["- marker QQ1"], ["- marker QQ1", "  more QQ2"], ["```", "code QQ3"], []]


@given(markdown(), st.sampled_from(BODIES))
def test_adding_an_entry_and_stamp_adds_exactly_that(doc, body):
    text, contents, fenced = doc
    entry = [f"### {WHEN}", *body]
    closers = {line for line in contents if re.fullmatch(r" {0,3}(`{3,}|~{3,})", line)}
    closers |= {"```", "````", "`````", "~~~", "~~~~", "~~~~~"}

    added = add_recent_change(text, body, when=WHEN)
    assert_added_only(text, added, {"", "## Recent Changes", *entry} | closers)
    expected_entry = "\n".join(entry + (["```"] if body and body[0] == "```" else []))
    assert recent_changes(added) == [expected_entry, *recent_changes(text)]
    assert task_headings(added) == task_headings(text)
    assert get_stamp(added) == get_stamp(text)
    if not fenced or not fenced[-1]:  # no closer was needed, so other sections are intact
        for name in ("Next Steps", "Other"):
            assert section(added, name) == section(text, name)

    stamped = set_stamp(added, STAMP)
    assert get_stamp(stamped) == STAMP
    old_lines, new_lines = split(added), split(stamped)
    stamp_line = expected_stamp(contents, fenced)
    if stamp_line is None:
        assert_added_only(added, stamped, {"", f"**Last Updated:** {STAMP}"})
        return
    # exactly the first unfenced stamp line changed, and only its value
    nth = [i for i, (c, f) in enumerate(zip(contents, fenced)) if c == stamp_line]
    occurrence = nth.index(next(i for i in nth if not fenced[i]))
    where = [i for i, line in enumerate(old_lines) if line == stamp_line][occurrence]
    assert len(new_lines) == len(old_lines)
    assert new_lines[where] == STAMPS[stamp_line]
    assert new_lines[:where] == old_lines[:where]
    assert new_lines[where + 1 :] == old_lines[where + 1 :]
    restored = stamped.replace(STAMPS[stamp_line], stamp_line, 1)
    assert restored == added


@given(markdown(), st.sampled_from(["1", "2.1", "3", "3.1", "77", "one", "X"]))
def test_mark_done_flips_one_unfenced_box_or_nothing(doc, selector):
    text, contents, fenced = doc
    result = mark_done(text, [selector])
    pending = [f" [ ] {selector}. " in c and c in ITEMS for c, f in zip(contents, fenced) if not f]
    if any(pending):
        assert result.text != text
    if result.text == text:
        assert result.matched == result.already_done or result.unmatched == [selector]
        return
    assert len(result.text) == len(text)
    diffs = [i for i, (a, b) in enumerate(zip(text, result.text)) if a != b]
    assert len(diffs) == 1 and text[diffs[0]] == " " and result.text[diffs[0]] == "x"
    line = text[: diffs[0]].count("\n")
    assert not fenced[line]
    assert result.matched == [selector]


PIECES = ["# T", "## Next Steps", "### 2026-01-01 10:00", "#x", "    # four", "   ### three #"]
PIECES += ["```", "~~~~", "``` py", "```x`", "text", "", " ", "\r", "\ufeff", "a\rb"]
raw_text = st.one_of(
    st.text(alphabet="#`~ \t\r\nTa1", max_size=80),
    st.lists(st.sampled_from(PIECES), max_size=14).flatmap(
        lambda lines: st.lists(
            st.sampled_from(["\n", "\r\n", ""]), min_size=len(lines), max_size=len(lines)
        ).map(lambda ends: "".join(line + end for line, end in zip(lines, ends)))
    ),
)


@given(raw_text)
def test_a_parsed_text_answers_as_its_definition_says(text):
    """Lines, offsets, headings and block ends of ``Doc`` against their plain definitions:
    only ``\\n`` ends a line, a heading is a parsed line outside fences, a block ends at the
    next heading of that level or higher."""
    doc = Doc(text)
    body = text[1:] if text.startswith("\ufeff") else text
    assert "".join(doc.lines) == body
    assert doc.contents == split(text)
    assert doc.starts == [len("".join(doc.lines[:i])) for i in range(len(doc))]
    fenced = fenced_lines(doc.contents)
    expected = [None if inside else parse_heading(c) for c, inside in zip(doc.contents, fenced)]
    assert [doc.heading(i) for i in range(len(doc))] == expected
    assert doc.headings() == [(i, *h) for i, h in enumerate(expected) if h is not None]
    for start in range(len(doc)):
        later = [i for i in range(start + 1, len(doc)) if expected[i] is not None]
        for end in range(len(doc) + 1):
            assert doc.headings_between(start, end) == [i for i in later if i < end]
        for level in range(1, 7):
            ends = [i for i in later if expected[i][0] <= level]
            assert doc.block_end(start, level) == (ends[0] if ends else len(doc))
