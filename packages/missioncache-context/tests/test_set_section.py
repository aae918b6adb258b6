import pytest
from hypothesis import given
from hypothesis import strategies as st

from missioncache_context import get_stamp, recent_changes, section, set_section

SAMPLE = """# Demo - Context

**Last Updated:** 2026-11-29 13:47

## Description
Example.

```markdown
## Next Steps
- fenced, not the section
```

## next steps
- old step
### Phase 2
- old sub step

## Recent Changes

### 2026-11-29 13:47
- did a thing
"""


def test_replaces_only_the_body_of_the_real_section():
    new = set_section(SAMPLE, "Next Steps", ["- new one", "- new two"])
    assert section(new, "Next Steps") == "- new one\n- new two"
    assert new == SAMPLE.replace(
        "## next steps\n- old step\n### Phase 2\n- old sub step\n\n",
        "## next steps\n\n- new one\n- new two\n\n",
    )
    assert "- fenced, not the section" in new
    assert get_stamp(new) == get_stamp(SAMPLE)
    assert recent_changes(new) == recent_changes(SAMPLE)


def test_a_string_body_is_split_into_lines_and_trimmed():
    new = set_section("## Next Steps\nold\n## Later\n", "## NEXT STEPS", "\n\n- a\n  - b\r\n\n")
    assert new == "## Next Steps\n\n- a\n  - b\n\n## Later\n"


def test_level_three_headings_stay_inside_the_section():
    new = set_section("## Next Steps\n## Later\nkeep\n", "Next Steps", "### Phase 1\n- a")
    assert section(new, "Next Steps") == "### Phase 1\n- a"
    assert section(new, "Later") == "keep"


@pytest.mark.parametrize("bad", ["## Recent Changes", "# Title", "  ## indented heading"])
def test_a_body_that_would_end_the_section_is_refused(bad):
    with pytest.raises(ValueError):
        set_section(SAMPLE, "Next Steps", ["- a", bad])


def test_a_heading_inside_a_fenced_body_is_text():
    body = ["```markdown", "## Not a heading", "```"]
    new = set_section("## Next Steps\n## Later\nkeep\n", "Next Steps", body)
    assert section(new, "Next Steps") == "\n".join(body)
    assert section(new, "Later") == "keep"


def test_a_body_leaving_a_fence_open_gets_it_closed():
    new = set_section("## Next Steps\n## Later\nkeep\n", "Next Steps", ["~~~~", "code"])
    assert new == "## Next Steps\n\n~~~~\ncode\n~~~~\n\n## Later\nkeep\n"


def test_an_empty_body_empties_the_section():
    assert set_section("## Next Steps\n- a\n\n## Later\n", "Next Steps", []) == (
        "## Next Steps\n\n## Later\n"
    )
    assert set_section("## Next Steps\n- a\n", "Next Steps", "") == "## Next Steps\n"


def test_the_last_section_keeps_the_files_final_newline_convention():
    assert set_section("## Next Steps\n- old", "Next Steps", "- a") == "## Next Steps\n\n- a"
    assert set_section("## Next Steps", "Next Steps", "- a") == "## Next Steps\n\n- a"
    assert set_section("## Next Steps\n- old\n", "Next Steps", "- a") == "## Next Steps\n\n- a\n"


def test_crlf_and_bom_are_kept():
    text = "\ufeff# T\r\n## Next Steps\r\n- old\r\n## R\r\n"
    assert set_section(text, "Next Steps", "a\nb") == (
        "\ufeff# T\r\n## Next Steps\r\n\r\na\r\nb\r\n\r\n## R\r\n"
    )


def test_a_missing_section_is_created_before_the_named_one():
    text = "# T\n\n## Description\nd\n## Recent Changes\nx\n"
    new = set_section(text, "Next Steps", "- a", before="Recent Changes")
    assert new == "# T\n\n## Description\nd\n\n## Next Steps\n\n- a\n\n## Recent Changes\nx\n"


def test_a_missing_section_goes_at_the_end_without_its_anchor():
    assert set_section("# T\n", "Next Steps", "- a", before="Recent Changes") == (
        "# T\n\n## Next Steps\n\n- a\n"
    )
    assert set_section("", "Next Steps", "- a") == "## Next Steps\n\n- a\n"


def test_a_fenced_heading_is_not_the_section_to_replace_or_the_anchor():
    text = "```\n## Next Steps\n## Recent Changes\n```\n"
    new = set_section(text, "Next Steps", "- a", before="Recent Changes")
    assert new == text + "\n## Next Steps\n\n- a\n"


def test_creating_after_an_unclosed_fence_closes_it_first():
    new = set_section("intro\n```\ncode\n", "Next Steps", "- a")
    assert new == "intro\n```\ncode\n```\n\n## Next Steps\n\n- a\n"
    assert section(new, "Next Steps") == "- a"


SAFE = "abcdefgxyz ABC0123456789.,:;!?()-_/'\"=<>@%&[]{}|é😀"
LINES = st.one_of(
    st.text(alphabet=SAFE, max_size=15),
    st.sampled_from(["## Next Steps", "## Other", "### Sub", "- [ ] 1. item", "```", "~~~", ""]),
)
BODY_LINES = st.one_of(
    st.text(alphabet=SAFE, max_size=15).map(lambda s: "- " + s),
    st.sampled_from(["### Phase", "  - sub", "plain words"]),
)


@given(st.lists(LINES, max_size=12), st.lists(LINES, max_size=6), st.lists(BODY_LINES, max_size=4))
def test_only_the_section_body_changes(before, after, body):
    head = "\n".join(before)
    tail = "\n".join(after)
    text = f"{head}\n```\n## Next Steps\n```\n## Next Steps\nold body\n## Tail\n{tail}\n"
    if section(text, "Next Steps") != "old body":
        return  # an unclosed fence in the prefix swallowed the structure: nothing to check
    new = set_section(text, "Next Steps", body)
    assert section(new, "Next Steps") == "\n".join(body)
    prefix, _, _ = text.partition("## Next Steps\nold body\n")
    assert new.startswith(prefix + "## Next Steps\n")
    assert new.endswith(f"## Tail\n{tail}\n")
