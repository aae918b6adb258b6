"""``json.loads`` for transcript lines, without importing the ``json`` package.

WHY: ``import json`` imports ``re``, ``enum`` and ``functools``, milliseconds of every
Stop and PreCompact run. CPython's C accelerator ``_json`` does the parsing for ``json``
and imports nothing, so its scanner is driven directly; where it is missing or misbehaves
(another Python implementation) ``json`` itself is used. WHY a copy of the loader in
``missioncache_state.json_codec``: this package imports nothing of ours (docs/layout.md),
so it keeps its own, reduced to ``loads``. Same results as ``json.loads`` for every str:
ValueError exactly when it fails, RecursionError for absurd nesting (tests compare them).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

_WHITESPACE = " \t\n\r"  # JSON's only whitespace
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class _ScannerContext:
    """The settings ``_json.make_scanner`` reads: ``json.loads``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


def make_loads(accelerator: Any) -> Callable[[str], Any]:
    """A ``json.loads`` on ``accelerator`` (CPython's ``_json``), or ``json.loads`` itself
    when that is None or does not answer a probe as CPython's does."""
    try:
        scan = accelerator.make_scanner(_ScannerContext())
        usable = scan('[1, "\\u00e9"]', 0) == ([1, "\u00e9"], 13)
    except Exception:  # missing module or attribute, another signature
        usable = False
    if not usable:
        return _json_loads

    def loads(text: str) -> Any:
        if not isinstance(text, str):
            return _json_loads(text)
        start, end = 0, len(text)
        while start < end and text[start] in _WHITESPACE:
            start += 1
        while end > start and text[end - 1] in _WHITESPACE:
            end -= 1
        try:
            value, stop = scan(text, start)
        except StopIteration:  # no value starts where one must
            raise ValueError("Expecting value") from None
        except SystemError:  # 3.10/3.11 without json.decoder loaded: an error, unnamed
            raise ValueError("Invalid JSON") from None
        if stop != end:
            raise ValueError("Extra data")
        return value

    return loads


def _json_loads(text: Any) -> Any:
    import json

    return json.loads(text)


_loads: Callable[[str], Any] | None = None


def loads(text: str) -> Any:
    """``json.loads(text)``; ``_json`` is imported once, on first use."""
    global _loads
    if _loads is None:
        try:
            import _json as accelerator
        except ImportError:  # not CPython: the pure-Python fallback
            accelerator = None  # type: ignore[assignment]  # a module or None, by design
        _loads = make_loads(accelerator)
    return _loads(text)
