"""Bad input every hook must survive, in one place for every hook package's tests.

WHY shared: each hook promises the same thing at its boundary (silence or one breadcrumb,
exit 0, nothing written under a hostile name), so each is tested against the same cases;
a case added here reaches all five hooks.
"""

from __future__ import annotations

# stdin that is not one JSON object: empty, not JSON, other JSON types, cut off, not UTF-8
BAD_STDIN = (b"", b"not json", b"[]", b"[{}]", b'"text"', b"null", b"42", b'{"cwd": ', b"\xff\xfe")

# common fields of the wrong type (each hook adds its own event's fields: see ``mistyped``)
COMMON_MISTYPED = (
    {"session_id": 7},
    {"cwd": 3},
    {"transcript_path": {"a": 1}},
    {"hook_event_name": 5},
)

# session ids that must never become (part of) a file name (data model section 6)
HOSTILE_SESSION_IDS = ("../../etc/passwd", "a/b", "..", ".", "s" * 300, "x\x00y", "-lead", " ")


def mistyped(*event_fields: dict) -> list[dict]:
    """The common mistyped fields plus ``event_fields`` (the hook's own, mistyped)."""
    return [*COMMON_MISTYPED, *event_fields]
