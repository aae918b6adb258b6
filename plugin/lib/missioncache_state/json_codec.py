"""``json.loads`` and ``json.dumps`` for the hooks, without importing the ``json`` package.

WHY: ``import json`` imports ``re``, which imports ``enum`` and ``functools``: about 4.6 ms
of a hook's ~27 ms, paid on every prompt. The work itself is done by CPython's C
accelerator ``_json`` (which ``json`` uses too) and that imports nothing, so this module
drives it directly: its scanner for ``loads``, its string escapers for ``dumps``. The
results are those of ``json`` with the same arguments (the tests compare both on generated
input). Where ``_json`` is missing or does not behave as expected (another Python
implementation), everything falls back to the ``json`` module: slower to import, never
different.

Errors: ``loads`` raises ValueError exactly when ``json.loads`` raises it (a plain
ValueError rather than ``json.JSONDecodeError`` when the scanner itself does not supply
one), and RecursionError for absurdly deep nesting, like ``json.loads``. Invalid text
that the scanner rejects mid-value still imports ``json.decoder`` on Python 3.9 and 3.12+
(the C scanner does that to build its error); valid text never does. ``dumps`` recurses
in Python, two frames per level, so it gives up (RecursionError) at a few hundred levels
of nesting where ``json`` goes deeper: no payload of ours comes near.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WHITESPACE = " \t\n\r"  # JSON's only whitespace: not \x0b, \x0c or any Unicode space
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class _ScannerContext:
    """The settings ``_json.make_scanner`` reads from a decoder: ``json.loads``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


class Codec:
    """JSON through an accelerator module (CPython's ``_json``) or, when it is None or
    lacks what we need, through the ``json`` module. Tests build one of each."""

    def __init__(self, accelerator: Any) -> None:
        parts = _accelerated_parts(accelerator)
        self.accelerated = parts is not None
        self._scan, self._ascii, self._unicode = parts or (None, None, None)

    def loads(self, text: str) -> Any:
        """``json.loads(text)``."""
        scan = self._scan
        if scan is None or not isinstance(text, str):  # bytes: json detects the encoding
            import json

            return json.loads(text)
        return _decode(scan, text)

    def dumps(
        self,
        obj: Any,
        *,
        indent: int | str | None = None,
        sort_keys: bool = False,
        ensure_ascii: bool = True,
        separators: tuple[str, str] | None = None,
    ) -> str:
        """``json.dumps(obj, ...)`` with these arguments (the others at their defaults)."""
        if self._scan is None:
            import json

            return json.dumps(
                obj,
                indent=indent,
                sort_keys=sort_keys,
                ensure_ascii=ensure_ascii,
                separators=separators,
            )
        escape = self._ascii if ensure_ascii else self._unicode
        encoder = _Encoder(escape, indent, sort_keys, separators)
        encoder.value(obj, 0)
        return "".join(encoder.parts)


def _accelerated_parts(module: Any) -> tuple | None:
    """(scanner, ascii escaper, unicode escaper) of ``module``, or None when it lacks them
    or they do not answer a small probe as CPython's do."""
    try:
        scan = module.make_scanner(_ScannerContext())
        ascii_escape = module.encode_basestring_ascii
        unicode_escape = module.encode_basestring
        probe = "\u00e9\n"
        if (
            scan('[1, "\\u00e9"]', 0) != ([1, "\u00e9"], 13)
            or ascii_escape(probe) != '"\\u00e9\\n"'
            or unicode_escape(probe) != '"\u00e9\\n"'
        ):
            return None
    except Exception:  # missing module or attribute, another signature: not usable
        return None
    return scan, ascii_escape, unicode_escape


def _decode(scan: Any, text: str) -> Any:
    """One JSON value filling ``text`` (whitespace around it allowed), as ``json.loads``."""
    start, end = 0, len(text)
    while start < end and text[start] in _WHITESPACE:
        start += 1
    while end > start and text[end - 1] in _WHITESPACE:
        end -= 1
    try:
        value, stop = scan(text, start)
    except StopIteration:  # no value starts where one must
        raise ValueError("Expecting value") from None
    except SystemError:
        # Python 3.10/3.11: the scanner builds its error from ``json.decoder`` only when
        # that module is already loaded, and otherwise returns no exception at all.
        raise ValueError("Invalid JSON") from None
    if stop != end:  # the value ends before the last non-whitespace character
        raise ValueError("Extra data")
    return value


def _float_text(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == float("-inf"):
        return "-Infinity"
    return float.__repr__(value)


class _Encoder:
    """``json.dumps``'s output, built recursively into ``parts`` (our payloads are small)."""

    def __init__(
        self, escape: Any, indent: Any, sort_keys: bool, separators: tuple[str, str] | None
    ) -> None:
        if indent is not None and not isinstance(indent, str):
            indent = " " * indent
        if separators is not None:
            self.item_separator, self.key_separator = separators
        else:
            self.item_separator = ", " if indent is None else ","
            self.key_separator = ": "
        self.escape = escape
        self.indent = indent
        self.sort_keys = sort_keys
        self.parts: list[str] = []
        self.markers: set[int] = set()  # containers being written: a cycle is an error

    def value(self, obj: Any, level: int) -> None:
        if isinstance(obj, str):
            self.parts.append(self.escape(obj))
        elif obj is None:
            self.parts.append("null")
        elif obj is True:
            self.parts.append("true")
        elif obj is False:
            self.parts.append("false")
        elif isinstance(obj, int):
            self.parts.append(int.__repr__(obj))
        elif isinstance(obj, float):
            self.parts.append(_float_text(obj))
        elif isinstance(obj, (list, tuple)):
            self.sequence(obj, level)
        elif isinstance(obj, dict):
            self.mapping(obj, level)
        else:
            raise TypeError(f"Object of type {obj.__class__.__name__} is not JSON serializable")

    # Two frames per level of nesting (value -> sequence/mapping -> value), so the
    # recursion limit allows a few hundred levels.

    def sequence(self, obj: Any, level: int) -> None:
        if not obj:
            self.parts.append("[]")
            return
        separator, inner = self.open(obj, level, "[")
        for index, item in enumerate(obj):
            if index:
                self.parts.append(separator)
            self.value(item, inner)
        self.close(obj, level, "]")

    def mapping(self, obj: dict, level: int) -> None:
        if not obj:
            self.parts.append("{}")
            return
        separator, inner = self.open(obj, level, "{")
        pairs = sorted(obj.items()) if self.sort_keys else obj.items()
        for index, (key, item) in enumerate(pairs):
            if index:
                self.parts.append(separator)
            self.parts.append(self.escape(_key_text(key)))
            self.parts.append(self.key_separator)
            self.value(item, inner)
        self.close(obj, level, "}")

    def open(self, obj: Any, level: int, opener: str) -> tuple[str, int]:
        """Write the opener (and a new indented line); the item separator and the level
        of the items. A container already being written is a cycle, as in ``json``."""
        if id(obj) in self.markers:
            raise ValueError("Circular reference detected")
        self.markers.add(id(obj))
        self.parts.append(opener)
        if self.indent is None:
            return self.item_separator, level
        newline = "\n" + self.indent * (level + 1)
        self.parts.append(newline)
        return self.item_separator + newline, level + 1

    def close(self, obj: Any, level: int, closer: str) -> None:
        if self.indent is not None:
            self.parts.append("\n" + self.indent * level)
        self.parts.append(closer)
        self.markers.discard(id(obj))


def _key_text(key: Any) -> str:
    """An object key as ``json`` writes it: str as is, numbers and constants as text."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float_text(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


_default: Codec | None = None


def default_codec() -> Codec:
    """The codec on ``_json``, imported once, on first use."""
    global _default
    if _default is None:
        try:
            import _json as accelerator
        except ImportError:  # not CPython: the pure-Python fallback
            accelerator = None  # type: ignore[assignment]  # a module or None, by design
        _default = Codec(accelerator)
    return _default


def loads(text: str) -> Any:
    """``json.loads(text)``, without importing ``json`` where CPython's ``_json`` works."""
    return default_codec().loads(text)


SMALL_TEXT = 2048  # characters: up to this, ``loads_small`` scans in Python


def loads_small(text: str) -> Any:
    """``json.loads(text)`` for the one small document a run reads (a hook's payload, a
    state file): up to ``SMALL_TEXT`` characters, and while ``_json`` is not loaded, it is
    scanned in Python (``missioncache_state._json_scan``), so a hook that reads nothing
    bigger never loads ``_json`` (0.3 ms). Readers of many lines (the spool, event logs)
    use ``loads``."""
    import sys

    if "_json" in sys.modules:
        return default_codec().loads(text)
    return scan_small(text)


def scan_small(text: str) -> Any:
    """``loads_small`` without the look at ``sys.modules``: the Python scanner for a small
    text, ``_json`` for a bigger or deeper one."""
    if isinstance(text, str) and len(text) <= SMALL_TEXT:
        from missioncache_state import _json_scan

        try:
            return _decode(_json_scan.scan, text)
        except _json_scan.TooDeep:
            pass
    return default_codec().loads(text)


def dumps(
    obj: Any,
    *,
    indent: int | str | None = None,
    sort_keys: bool = False,
    ensure_ascii: bool = True,
    separators: tuple[str, str] | None = None,
) -> str:
    """``json.dumps(obj, ...)`` with these arguments, without importing ``json``."""
    return default_codec().dumps(
        obj, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii, separators=separators
    )
