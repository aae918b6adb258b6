from missioncache_context import digest
from missioncache_context.context_digest import TRUNCATED

CONTEXT = """# D - Context

## Next Steps
- one
- two

## Recent Changes

### 2026-01-02 10:00
- newest

### 2026-01-01 10:00
- older
"""


def test_digest_combines_next_steps_and_newest_entry():
    assert digest(CONTEXT) == (
        "## Next Steps\n- one\n- two\n\n## Recent Changes (latest)\n### 2026-01-02 10:00\n- newest"
    )


def test_digest_leaves_out_missing_parts():
    assert digest("# nothing here\n") == ""
    assert digest("## next steps\n- only\n") == "## Next Steps\n- only"
    assert digest("```\n## Next Steps\n- fenced\n```\n") == ""


def test_digest_cuts_at_line_boundaries_with_a_marker():
    steps = "\n".join(f"- step {n:03d}" for n in range(400))
    text = f"## Next Steps\n{steps}\n## Recent Changes\n### 2026-01-01 10:00\n- short\n"
    result = digest(text, limit=500)
    assert len(result) <= 500
    assert result.endswith("## Recent Changes (latest)\n### 2026-01-01 10:00\n- short")
    head = result.split("\n\n## Recent Changes")[0]
    assert head.endswith(TRUNCATED)
    assert head[: -len(TRUNCATED)].splitlines()[-1].startswith("- step ")
    assert len(head[: -len(TRUNCATED)].splitlines()[-1]) == len("- step 000")


def test_digest_shares_the_limit_when_both_parts_are_long():
    long_steps = "\n".join(f"- s{n}" for n in range(1000))
    long_entry = "\n".join(f"- e{n}" for n in range(1000))
    text = f"## Next Steps\n{long_steps}\n## Recent Changes\n### 2026-01-01 10:00\n{long_entry}\n"
    result = digest(text, limit=1000)
    assert 900 < len(result) <= 1000
    assert result.count(TRUNCATED) == 2
    assert "## Recent Changes (latest)" in result


def test_digest_without_newlines_cuts_at_a_word_and_tiny_limits_hold():
    text = "## Next Steps\n" + " ".join(["word"] * 500) + "\n"
    result = digest(text, limit=200)
    assert len(result) <= 200
    assert result.endswith("word" + TRUNCATED)
    for limit in (0, 1, 5, 20, 40):
        assert len(digest(CONTEXT, limit=limit)) <= limit
