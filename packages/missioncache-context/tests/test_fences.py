import pytest

from missioncache_context.document import Doc, dominant_newline, parse_heading
from missioncache_context.fences import fenced_lines, scan_fences


def mask(text):
    return fenced_lines(text.split("\n"))


def test_backtick_and_tilde_fences_cover_opener_body_and_closer():
    assert mask("a\n```\n## x\n```\nb") == [False, True, True, True, False]
    assert mask("a\n~~~\n## x\n~~~\nb") == [False, True, True, True, False]


def test_closer_must_use_the_same_character():
    assert mask("```\n~~~\n## x\n```\nb") == [True, True, True, True, False]
    assert mask("~~~\n```\n## x\n~~~\nb") == [True, True, True, True, False]


def test_closer_may_be_longer_but_not_shorter():
    assert mask("````\n```\nx\n`````\nb") == [True, True, True, True, False]
    assert mask("~~~~~\n~~~~\nx\n~~~~~~\nb") == [True, True, True, True, False]


def test_opener_info_string_and_indent_up_to_three_spaces():
    assert mask("   ```python title\n# x\n   ```\nb") == [True, True, True, False]
    assert mask("~~~ ~weird `info`\n# x\n~~~\nb") == [True, True, True, False]
    assert mask("    ```\n# x\n") == [False, False, False]  # four spaces: not a fence


def test_closer_carries_no_info_string():
    assert mask("```\n``` python\n# x\n```\nb") == [True, True, True, True, False]
    assert mask("```\n```   \t\nb") == [True, True, False]


def test_backtick_opener_info_may_not_contain_a_backtick():
    assert mask("```a`b\n# x") == [False, False]


def test_unclosed_fence_runs_to_end_of_file_and_reports_its_closer():
    fences = scan_fences(["a", "````", "## x", "", "y"])
    assert fences.inside == [False, True, True, True, True]
    assert fences.pending == [None, "````", "````", "````", "````"]
    assert fences.open_before(0) is None
    assert fences.open_before(5) == "````"


def test_two_character_runs_are_not_fences():
    assert mask("``\n# x") == [False, False]


def test_headings_inside_fences_are_not_structure():
    doc = Doc("# T\n```\n## Recent Changes\n```\n## Next\n")
    assert doc.headings() == [(0, 1, "T"), (4, 2, "Next")]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("## Recent Changes", (2, "Recent Changes")),
        ("   ### Task 5: x ###", (3, "Task 5: x")),
        ("#", (1, "")),
        ("#tag", None),
        ("    # indented code", None),
        ("####### seven", None),
    ],
)
def test_parse_heading(line, expected):
    assert parse_heading(line) == expected


def test_dominant_newline():
    assert dominant_newline("a\r\nb\r\nc\n") == "\r\n"
    assert dominant_newline("a\nb\r\n") == "\n"
    assert dominant_newline("no newline") == "\n"


def test_doc_lines_rejoin_to_the_exact_text():
    text = "\ufeffa\r\nb\n\rc\r\n\nlast"
    doc = Doc(text)
    assert doc.bom + "".join(doc.lines) == text
    assert doc.contents == ["a", "b", "\rc", "", "last"]
