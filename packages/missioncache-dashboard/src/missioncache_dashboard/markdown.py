"""A small Markdown renderer for the task page, escaping everything.

WHY our own and escaping first: the context file is text anyone (Claude, the user, a tool)
wrote, and the page must never run what it holds. Every character of the file goes through
``html.escape`` before any markup is added, and the only markup added is a fixed set of
tags without attributes, except a link's ``href``, which is kept only for ``http``,
``https`` and ``mailto`` targets. So ``<script>`` in a file is shown as the text
``<script>``. The page's Content-Security-Policy forbids inline script on top of this.

Covered: ``#`` headings, paragraphs, ``-``/``*``/``+`` and numbered lists (with ``[ ]`` and
``[x]`` boxes, one level of indent), fenced code, block quotes, rules, and inline code,
bold, italics and links. Anything else is shown as text.

WHY every pattern is linear: the page renders the file on every load, and the file can be
anything. A lazy ``.+?`` between delimiters retried from each opener was quadratic (a
100 KB line of ``**a `` took over 6 s), so no pattern's middle may run past the next
delimiter of its kind, and headings are cut by hand. Block quotes nest at most
``MAX_QUOTE_DEPTH`` deep (400 ``>`` recursed past Python's limit); deeper marks are text.
"""

from __future__ import annotations

import html
import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$")
_BOX = re.compile(r"^\[([ xX])\](?:[ \t]+|$)")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(?=[^\s*])([^*]+?)(?<=\S)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*]+?)(?<=\S)\*(?![\w*])")
_LINK = re.compile(r"\[([^\[\]]+)\]\(([^()\s\[\]]+)\)")
MAX_QUOTE_DEPTH = 8
_SAFE_SCHEMES = ("http://", "https://", "mailto:")


def _link(match: re.Match[str]) -> str:
    text, target = match.group(1), match.group(2)
    raw = html.unescape(target)
    if not raw.lower().startswith(_SAFE_SCHEMES) or any(c in raw for c in "\"'<>`"):
        return match.group(0)
    # ``target`` is already escaped text, so it is safe inside the quoted attribute.
    return f'<a href="{target}" rel="noopener noreferrer">{text}</a>'


def inline(text: str) -> str:
    """Escape ``text``, then mark up code spans, bold, italics and links."""
    parts = _CODE.split(html.escape(text, quote=True))
    out = []
    for index, part in enumerate(parts):
        if index % 2:
            out.append(f"<code>{part}</code>")
            continue
        part = _LINK.sub(_link, part)
        part = _BOLD.sub(r"<strong>\1</strong>", part)
        out.append(_ITALIC.sub(r"<em>\1</em>", part))
    return "".join(out)


def _item(body: str) -> str:
    box = _BOX.match(body)
    if box is None:
        return f"<li>{inline(body)}</li>"
    done = box.group(1) in "xX"
    mark = "☑" if done else "☐"
    css = "done" if done else "todo"
    return f'<li class="{css}"><span class="box">{mark}</span> {inline(body[box.end() :])}</li>'


class _Blocks:
    """Lines to HTML blocks, one pass; open lists and paragraphs are closed in order."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.out: list[str] = []
        self.paragraph: list[str] = []
        self.lists: list[int] = []  # indent of each open <ul>
        self.quote: list[str] = []

    def close_paragraph(self) -> None:
        if self.paragraph:
            self.out.append(f"<p>{'<br>'.join(inline(p) for p in self.paragraph)}</p>")
            self.paragraph = []

    def close_lists(self, deeper_than: int = -1) -> None:
        while self.lists and self.lists[-1] > deeper_than:
            self.lists.pop()
            self.out.append("</ul>")

    def close_quote(self) -> None:
        if self.quote:
            inner = render(chr(10).join(self.quote), self.depth + 1)
            self.out.append(f"<blockquote>{inner}</blockquote>")
            self.quote = []

    def close_all(self) -> None:
        self.close_paragraph()
        self.close_lists()
        self.close_quote()

    def item(self, indent: int, body: str) -> None:
        self.close_paragraph()
        self.close_quote()
        self.close_lists(indent)
        if (not self.lists or self.lists[-1] < indent) and len(self.lists) < 6:
            self.lists.append(indent)
            self.out.append("<ul>")
        self.out.append(_item(body))


def _heading(raw: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line, its closing ``#`` run taken off; by hand,
    since a pattern for the closing run backtracked quadratically over long blanks."""
    found = _HEADING.match(raw)
    if found is None:
        return None
    text = raw[found.end() :].strip(" \t")
    bare = text.rstrip("#")
    if not bare or bare[-1] in " \t":
        text = bare.rstrip(" \t")
    return len(found.group(1)), text


def render(text: str, depth: int = 0) -> str:
    """``text`` (Markdown) as HTML in which nothing of the text is markup."""
    blocks = _Blocks(depth)
    fence: str | None = None
    code: list[str] = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        if fence is not None:
            stripped = raw.strip()
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                blocks.out.append(f"<pre><code>{html.escape(chr(10).join(code))}</code></pre>")
                fence, code = None, []
            else:
                code.append(raw)
            continue
        opened = _FENCE.match(raw)
        if opened:
            blocks.close_all()
            fence = opened.group(1)
            continue
        if raw.lstrip().startswith(">") and depth < MAX_QUOTE_DEPTH:
            blocks.close_paragraph()
            blocks.close_lists()
            blocks.quote.append(raw.lstrip()[1:].removeprefix(" "))
            continue
        blocks.close_quote()
        if not raw.strip():
            blocks.close_paragraph()
            blocks.close_lists()
            continue
        heading = _heading(raw)
        if heading:
            blocks.close_all()
            level, title = heading
            blocks.out.append(f"<h{level}>{inline(title)}</h{level}>")
            continue
        if _RULE.match(raw):
            blocks.close_all()
            blocks.out.append("<hr>")
            continue
        item = _ITEM.match(raw)
        if item:
            blocks.item(len(item.group(1).expandtabs(4)), item.group(2))
            continue
        blocks.close_lists()
        blocks.paragraph.append(raw.strip())
    if fence is not None:  # an unclosed fence runs to the end, as in CommonMark
        blocks.out.append(f"<pre><code>{html.escape(chr(10).join(code))}</code></pre>")
    blocks.close_all()
    return "\n".join(blocks.out)
