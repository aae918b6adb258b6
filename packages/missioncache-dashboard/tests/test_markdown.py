"""The context file rendered for the task page: nothing in a file becomes markup."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from missioncache_dashboard.markdown import render

HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    '[x](https://a.example/"onmouseover="alert(1))',
    "`<b>` **<i>x</i>**",
    "```\n</code></pre><script>alert(1)</script>\n```",
    "> <iframe src=//evil>",
    "- [ ] <svg onload=alert(1)>",
    "# <style>*{display:none}</style>",
]


OUR_TAGS = {
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "br",
    "ul",
    "li",
    "span",
    "pre",
    "code",
    "strong",
    "em",
    "a",
    "blockquote",
    "hr",
}


class Tags(HTMLParser):
    """Every tag and attribute a browser would see in the rendered HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


@pytest.mark.parametrize("text", HOSTILE)
def test_no_tag_or_attribute_of_the_file_survives(text):
    parser = Tags()
    parser.feed(render(text))
    for tag, attrs in parser.found:
        assert tag in OUR_TAGS, tag
        assert set(attrs) <= {"class", "href", "rel"}, attrs
        assert attrs.get("href", "https://").startswith(("https://", "http://", "mailto:"))
        assert '"' not in attrs.get("href", "")


def test_structure_is_rendered():
    html = render(
        "# Title\n\n**Last Updated:** 2026-12-01 10:00\n\n## Next Steps\n"
        "- [x] 1. done\n- [ ] 2. todo\n  - nested `code`\n\nA [link](https://example.org).\n"
    )
    assert "<h1>Title</h1>" in html and "<h2>Next Steps</h2>" in html
    assert '<li class="done"><span class="box">☑</span> 1. done</li>' in html
    assert '<li class="todo"><span class="box">☐</span> 2. todo</li>' in html
    assert html.count("<ul>") == 2 and "<code>code</code>" in html
    assert '<a href="https://example.org" rel="noopener noreferrer">link</a>' in html


def test_fenced_block_is_text():
    html = render("```\n## not a heading\n<b>x</b>\n```\nafter")
    assert "<h2>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html and "<p>after</p>" in html


HEAVY = {
    "bold openers": "**a " * 25_000,
    "italic openers": "*a " * 33_000,
    "link openers": "[a](" * 25_000,
    "brackets": "[" * 100_000,
    "heading with a long blank": "# a" + " " * 100_000 + "#x",
    "rule-like": "- " * 50_000 + "x",
    "nested quotes": ">" * 400 + " deep",
}


@pytest.mark.parametrize("name", sorted(HEAVY))
def test_any_100_kb_line_renders_in_well_under_a_second(name):
    """Regression: the inline patterns were quadratic (100 KB of ``**a `` took over 6 s,
    at every page load) and 400 ``>`` recursed past Python's limit (HTTP 500). The bound
    is generous: it guards against quadratic blow-up, not for speed."""
    import time

    started = time.perf_counter()
    html = render(HEAVY[name])
    assert time.perf_counter() - started < 1.0, name
    assert "<script" not in html


def test_quotes_nest_to_a_limit_and_deeper_marks_are_text():
    html = render(">" * 400 + " deep")
    assert html.count("<blockquote>") == 8
    assert "&gt;" * 392 + " deep" in html
