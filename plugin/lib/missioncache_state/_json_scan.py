"""CPython's JSON scanner (``_json.make_scanner`` with ``json.loads``'s defaults) written in
Python, for the small texts a hook reads: its payload, a binding, a state file.

WHY: ``_json`` is an extension module on most Linux builds. Loading it walks the standard
library's folders and maps a shared library, about 0.3 ms, which a hook that reads nothing
but a few hundred characters of JSON (the activity tracker) pays on every prompt. Scanning
such a text here costs tens of microseconds. ``json_codec.loads`` sends texts up to
``json_codec.SMALL_TEXT`` characters here and larger ones, or nesting deeper than
``MAX_DEPTH``, to ``_json``; the tests hold both to ``json.loads``'s answers.

``scan(text, index)`` answers as the C scanner does: ``(value, end)``, StopIteration when
no value starts at ``index``, ValueError for a value that starts but is malformed.
"""

from missioncache_state.json_codec import _CONSTANTS, _WHITESPACE

_DIGITS = frozenset("0123456789")  # ASCII only, as the C scanner: not every Unicode digit
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
# The literals, then json's NaN and infinities, each known by its first character.
_WORDS = (("null", None), ("true", True), ("false", False), *_CONSTANTS.items())
# Characters JSON forbids raw inside a string; translating them away shows one is there.
_CONTROL = {code: None for code in range(32)}
MAX_DEPTH = 200  # deeper nesting goes to _json, whose own limit then answers


class TooDeep(Exception):
    """Nesting deeper than ``MAX_DEPTH``: let ``_json`` read this text."""


def scan(text: str, index: int) -> "tuple[object, int]":
    return _value(text, index, 0)


def _value(text: str, index: int, depth: int) -> "tuple[object, int]":
    char = text[index : index + 1]
    if char == '"':
        return _string(text, index + 1)
    if char == "{":
        return _object(text, index + 1, depth + 1)
    if char == "[":
        return _array(text, index + 1, depth + 1)
    for word, value in _WORDS:
        if char == word[0] and text.startswith(word, index):
            return value, index + len(word)
    return _number(text, index)


def _digits(text: str, index: int) -> int:
    """The index after the run of ASCII digits starting at ``index``."""
    while index < len(text) and text[index] in _DIGITS:
        index += 1
    return index


def _number(text: str, start: int) -> "tuple[object, int]":
    index = start + (text[start : start + 1] == "-")
    first = text[index : index + 1]
    if first not in _DIGITS:  # "" (the end) is no member of a set
        raise StopIteration(start)
    index = index + 1 if first == "0" else _digits(text, index)
    is_float = False
    if text[index : index + 1] == "." and text[index + 1 : index + 2] in _DIGITS:
        index, is_float = _digits(text, index + 1), True
    if text[index : index + 1] in ("e", "E"):
        after = index + 1 + (text[index + 1 : index + 2] in ("+", "-"))
        end = _digits(text, after)
        if end > after:
            index, is_float = end, True
    number = text[start:index]
    return (float(number) if is_float else int(number)), index


def _string(text: str, index: int) -> "tuple[str, int]":
    """The string whose opening quote is just before ``index``."""
    chunks = []
    while True:
        quote, backslash = text.find('"', index), text.find("\\", index)
        if quote < 0:
            raise ValueError("Unterminated string")
        stop = quote if backslash < 0 or quote < backslash else backslash
        chunk = text[index:stop]
        if len(chunk.translate(_CONTROL)) != len(chunk):
            raise ValueError("Invalid control character")
        chunks.append(chunk)
        if stop == quote:
            return "".join(chunks), quote + 1
        escape = text[stop + 1 : stop + 2]
        if escape == "u":
            character, index = _unicode_escape(text, stop + 2)
            chunks.append(character)
        elif escape in _ESCAPES:
            chunks.append(_ESCAPES[escape])
            index = stop + 2
        else:
            raise ValueError("Invalid \\escape")


def _hex4(text: str, index: int) -> int:
    digits = text[index : index + 4]
    if len(digits) != 4 or any(digit not in _HEX for digit in digits):
        raise ValueError("Invalid \\uXXXX escape")
    return int(digits, 16)


def _unicode_escape(text: str, index: int) -> "tuple[str, int]":
    """The character of ``\\uXXXX`` whose digits start at ``index``, a surrogate pair
    joined; and the index after it."""
    code = _hex4(text, index)
    index += 4
    if 0xD800 <= code <= 0xDBFF and text.startswith("\\u", index):
        low = _hex4(text, index + 2)
        if 0xDC00 <= low <= 0xDFFF:
            return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), index + 6
    return chr(code), index


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def _array(text: str, index: int, depth: int) -> "tuple[list, int]":
    if depth > MAX_DEPTH:
        raise TooDeep
    items: list = []
    index = _skip(text, index)
    if text[index : index + 1] == "]":
        return items, index + 1
    while True:
        item, index = _value(text, index, depth)
        items.append(item)
        index = _skip(text, index)
        delimiter = text[index : index + 1]
        if delimiter == "]":
            return items, index + 1
        if delimiter != ",":
            raise ValueError("Expecting ',' delimiter")
        index = _skip(text, index + 1)


def _object(text: str, index: int, depth: int) -> "tuple[dict, int]":
    if depth > MAX_DEPTH:
        raise TooDeep
    members: dict = {}
    index = _skip(text, index)
    if text[index : index + 1] == "}":
        return members, index + 1
    while True:
        if text[index : index + 1] != '"':
            raise ValueError("Expecting property name enclosed in double quotes")
        key, index = _string(text, index + 1)
        index = _skip(text, index)
        if text[index : index + 1] != ":":
            raise ValueError("Expecting ':' delimiter")
        members[key], index = _value(text, _skip(text, index + 1), depth)
        index = _skip(text, index)
        delimiter = text[index : index + 1]
        if delimiter == "}":
            return members, index + 1
        if delimiter != ",":
            raise ValueError("Expecting ',' delimiter")
        index = _skip(text, index + 1)
