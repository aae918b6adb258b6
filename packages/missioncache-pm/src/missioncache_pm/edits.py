"""The two file-editing tools: ``update_tasks_file`` and ``update_context_file``.

Every edit goes through missioncache_context: fence-aware, minimal (bytes we do not mean
to change stay identical) and written by the locked, atomic ``update_file``, so the hooks,
several sessions and these tools never lose each other's edits. Each function returns the
report Claude reads; failures raise (see ``errors.sentence``).

Where ``notes`` and ``remaining_summary`` of ``update_tasks_file`` go: they are narrative,
and narrative lives in the task's context file, so they become one dated Recent Changes
entry there (``- Notes: ...``, ``- Remaining: ...``, plus the items completed and added by
the same call), and the context file's ``**Last Updated:**`` is stamped. Without a context
file beside the tasks file, the entry goes into a ``## Recent Changes`` section of the
tasks file itself, so nothing the caller wrote is dropped.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Union

from missioncache_pm.errors import PmError
from missioncache_pm.guard import checked_file, sibling

LOCK_TIMEOUT = 5.0
_SHOWN_PENDING = 15

Selector = Union[str, int]


class Written(NamedTuple):
    """What one locked write did; ``note`` is a warning for the report ("" when none)."""

    path: str
    changed: bool
    after: str
    note: str


class TasksOutcome(NamedTuple):
    """What one pure pass over a tasks file did."""

    text: str
    flipped: list[tuple]  # (selector, TaskItem before the flip)
    already_done: list[Selector]
    unmatched: list[Selector]
    added: list[tuple]  # (number, text)
    stamped: bool


# -- inputs ----------------------------------------------------------------------------------


def as_list(value: Any, field: str) -> list:
    """A list from a list, a single value, or None (empty)."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return [value]
    raise PmError(f"{field} must be a list of strings")


def as_selectors(value: Any) -> list[Selector]:
    """Task selectors: ints and number-like strings (``3``, ``"1.2"``, ``"#3"``,
    ``"Task 54a"``) select by number; other non-empty strings select by text. Strings are
    read by the context library's task-number grammar (data model section 10.3), the one
    every other reader of a tasks file uses."""
    from missioncache_context import selector_number

    selectors: list[Selector] = []
    for item in as_list(value, "completed_tasks"):
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise PmError(
                f"completed_tasks holds {item!r}: give task numbers as integers or strings "
                '(write sub-items as "3.1"), or a piece of the task text'
            )
        if isinstance(item, str):
            item = item.strip()
            if not item:
                continue
            number = selector_number(item)
            if number is not None:
                item = number
        selectors.append(item)
    return selectors


def as_text(value: Any, field: str) -> str:
    """Free text from a string or a list of lines; empty when None."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return "\n".join(v.rstrip() for v in value).strip()
    raise PmError(f"{field} must be text")


def bulleted(text: str) -> list[str]:
    """Lines for a Recent Changes entry: each line at the margin that is not already a
    list item becomes ``- line``; indented and fenced lines stay as written. A line can
    thus never become a heading (which would end the entry or the section)."""
    from missioncache_context.fences import scan_fences

    lines = [line.rstrip() for line in _lines(text)]
    fences = scan_fences(lines)
    out = []
    for index, line in enumerate(lines):
        if not line.strip():
            out.append("")
        elif fences.inside[index] or line[:1] in (" ", "\t") or _is_list_item(line):
            out.append(line)
        else:
            out.append(f"- {line}")
    return out


def _lines(text: str) -> list[str]:
    """Lines split as Markdown does (CRLF, CR, LF), not at every break ``splitlines`` knows."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _is_list_item(line: str) -> bool:
    """Whether ``line`` starts a Markdown list item: ``-``, ``*`` or ``+``, or one to nine
    ASCII digits and ``.`` or ``)`` (other scripts' digits are text, as in every grammar
    of data model section 10), then a space, a tab or the end of the line."""
    from missioncache_context.numbers import ASCII_DIGITS

    digits = len(line) - len(line.lstrip(ASCII_DIGITS))
    if line[:1] in ("-", "*", "+"):
        rest = line[1:]
    elif 1 <= digits <= 9 and line[digits : digits + 1] in (".", ")"):
        rest = line[digits + 1 :]
    else:
        return False
    return rest[:1] in ("", " ", "\t")


def write(path: Any, transform: Callable[[str], str], saved: bool = True) -> Written:
    """``update_file`` with the tools' lock timeout. A SaveDivertedError comes AFTER our
    text landed (an editor's simultaneous save went to the replaced version and is kept
    in the history), so it is a warning on a done write, not a failure: a failure report
    would tell the user the update was lost and invite a retry that writes it twice.
    ``saved``: whether this is a save of the file's task (a fork's shared decision written
    into its parent is not: the parent's own work may still be unsaved)."""
    from missioncache_context import update_file
    from missioncache_context.update import SaveDivertedError
    from missioncache_pm.errors import diverted

    texts: list[str] = []

    def keep(text: str) -> str:
        texts.append(transform(text))
        return texts[-1]

    try:
        result = update_file(path, keep, timeout=LOCK_TIMEOUT)
    except SaveDivertedError as error:
        if saved:
            _saved(path)
        return Written(error.file, True, texts[-1], f"WARNING: {diverted(error)}.")
    if saved:
        _saved(path)
    return Written(str(result.path), result.changed, result.after, "")


def _saved(path: Any) -> None:
    """A real save: the status line's "saved HH:MM" (missioncache_state.saves)."""
    from missioncache_state.saves import record_save

    try:
        record_save(os.path.dirname(os.path.abspath(str(path))))
    except OSError:
        pass  # the file is saved; only the status line's time is older


# -- update_tasks_file ----------------------------------------------------------------------


def apply_tasks_update(
    text: str, selectors: Sequence[Selector], additions: Sequence[str], when: str
) -> TasksOutcome:
    """Check items off (each selector's flip is known), append new items,
    and stamp ``**Last Updated:**`` when the file has one and something changed."""
    from missioncache_context import append_items, get_stamp, mark_done, set_stamp

    # One parse for all selectors: parsing the file again per selector (to learn which
    # item each one flipped) took 98 s for 200 selectors on 20,000 items, under the lock.
    result = mark_done(text, list(selectors))
    flipped = list(result.flipped)
    already, unmatched = list(result.already_done), list(result.unmatched)
    text = result.text
    added: list[tuple] = []
    if additions:
        appended = append_items(text, list(additions))
        text = appended.text
        added = list(zip(appended.numbers, [" ".join(a.split()) for a in additions]))
    stamped = bool(flipped or added) and get_stamp(text) is not None
    if stamped:
        text = set_stamp(text, when)
    return TasksOutcome(text, flipped, already, unmatched, added, stamped)


def update_tasks_file(
    tasks_file: Any,
    completed_tasks: Any = None,
    new_tasks: Any = None,
    remaining_summary: Any = None,
    notes: Any = None,
    *,
    when: str | None = None,
) -> str:
    """The ``update_tasks_file`` tool; returns its report."""
    from missioncache_context import format_when

    path = checked_file(tasks_file, "tasks")
    selectors = as_selectors(completed_tasks)
    additions = [as_text(item, "new_tasks") for item in as_list(new_tasks, "new_tasks")]
    if any(not item for item in additions):
        raise PmError("new_tasks holds an empty task; give each new task some text")
    summary = as_text(remaining_summary, "remaining_summary")
    note = as_text(notes, "notes")
    if not (selectors or additions or summary or note):
        raise PmError(
            "Nothing to update: give completed_tasks, new_tasks, notes or remaining_summary"
        )
    stamp = format_when(when)
    context = sibling(path, "tasks") if (summary or note) else None
    outcome: list[TasksOutcome] = []

    def transform(text: str) -> str:
        done = apply_tasks_update(text, selectors, additions, stamp)
        outcome.append(done)
        if (summary or note) and context is None:
            return _log_entry(done.text, _entry_lines(done, note, summary), stamp)
        return done.text

    result = write(path, transform)
    done = outcome[-1]
    report = _tasks_report(path, result.changed, done)
    if result.note:
        report.append(result.note)
    if summary or note:
        report.append(_save_notes(path, context, _entry_lines(done, note, summary), stamp))
    if done.unmatched:
        report.append(_pending_line(result.after))
    return "\n".join(report)


def _entry_lines(done: TasksOutcome, note: str, summary: str) -> list[str]:
    """The Recent Changes entry of an update that carried notes or a remaining summary."""
    lines = []
    if done.flipped:
        lines.append("- Completed: " + "; ".join(_item_label(item) for _, item in done.flipped))
    if done.added:
        lines.append("- Added tasks: " + "; ".join(f"{n}. {t}" for n, t in done.added))
    if note:
        lines += bulleted(note)
    if summary:
        first, _, rest = summary.partition("\n")
        lines.append(f"- Remaining: {first.strip()}")
        if rest.strip():
            lines += [f"  {line}" if line else "" for line in bulleted(rest.strip("\n"))]
    return lines


def _save_notes(path: Any, context: Any, lines: list[str], stamp: str) -> str:
    """Log the entry in the context file. A failure here is reported, not raised: the
    tasks file is already written, and a retried call would append its new items twice."""
    from missioncache_pm.errors import sentence

    if context is None:
        return f"Notes: added a Recent Changes entry ({stamp}) to {path} (no context file)."
    try:
        result = write(context, lambda text: _log_entry(text, lines, stamp))
    except Exception as error:
        return f"Notes were NOT saved to {context}: {sentence(error)} The tasks file was updated."
    done = f"Notes: added a Recent Changes entry ({stamp}) to {context}."
    return f"{done} {result.note}" if result.note else done


def _log_entry(text: str, lines: list[str], stamp: str) -> str:
    from missioncache_context import record_change

    return record_change(text, lines, when=stamp)


def _item_label(item: Any) -> str:
    return f"{item.number}. {item.text}" if item.number else item.text


def _selector_label(selector: Selector) -> str:
    return str(selector) if isinstance(selector, int) else repr(selector)


def _tasks_report(path: Any, changed: bool, done: TasksOutcome) -> list[str]:
    from missioncache_context import normalize_number

    lines = [f"Updated {path}." if changed else f"No change to {path}."]
    if done.flipped:
        shown = []
        for selector, item in done.flipped:
            by_text = isinstance(selector, str) and normalize_number(selector) is None
            shown.append(_item_label(item) + (f" (matched {selector!r})" if by_text else ""))
        lines.append("Marked done: " + "; ".join(shown) + ".")
    if done.already_done:
        labels = ", ".join(_selector_label(s) for s in done.already_done)
        lines.append(f"Already done (left as is): {labels}.")
    if done.unmatched:
        labels = ", ".join(_selector_label(s) for s in done.unmatched)
        lines.append(
            "Not matched (no item with that number, or no unchecked item containing that "
            f"text): {labels}."
        )
    if done.added:
        lines.append("Added: " + "; ".join(f"{n}. {t}" for n, t in done.added) + ".")
    if done.stamped:
        lines.append("Last Updated stamped.")
    return lines


def _pending_line(text: str) -> str:
    from missioncache_context import parse_items

    pending = [item for item in parse_items(text) if not item.done]
    if not pending:
        return "No unchecked items remain in the file."
    shown = "; ".join(_item_label(item) for item in pending[:_SHOWN_PENDING])
    more = f" (+{len(pending) - _SHOWN_PENDING} more)" if len(pending) > _SHOWN_PENDING else ""
    return f"Unchecked items: {shown}{more}."


# -- update_context_file --------------------------------------------------------------------


def update_context_file(
    context_file: Any,
    recent_change: Any = None,
    next_steps: Any = None,
    *,
    when: str | None = None,
    shared_decision: Any = None,
    session_id: str | None = None,
) -> str:
    """The ``update_context_file`` tool: a dated Recent Changes entry and/or a new body
    for ``## Next Steps`` (created before Recent Changes when missing); the file's
    ``**Last Updated:**`` is stamped. ``shared_decision`` (for a fork's context file):
    a decision that holds for every fork, written as a dated entry of the parent's
    context, the shared layer (docs/forks.md). Returns the report."""
    path = checked_file(context_file, "context")
    entry = _given_lines(recent_change, "recent_change")
    shared = _given_lines(shared_decision, "shared_decision")
    steps = _steps_lines(next_steps)
    if not entry and steps is None and not shared:
        raise PmError("Nothing to update: give recent_change, next_steps or shared_decision")
    stamp = format_when_text(when)
    reports = []
    if shared:
        reports.append(_write_shared(path, shared, stamp, session_id))
    if entry or steps is not None:
        reports.append(_write_own(path, entry, steps, stamp, session_id))
    return "\n".join(reports)


def format_when_text(when: str | None) -> str:
    from missioncache_context import format_when

    return format_when(when)


def _given_lines(value: Any, field: str) -> list[str]:
    entry = bulleted(as_text(value, field))
    return entry if any(line.strip() for line in entry) else []


def _write_own(
    path: Any, entry: list[str], steps: list[str] | None, stamp: str, session_id: str | None
) -> str:
    from missioncache_context import record_change, set_section, set_stamp

    def transform(text: str) -> str:
        if steps is not None:
            from missioncache_context.conflicts import conflict_note, section_conflict

            if section_conflict(text, "Next Steps"):  # replacing it would drop a side
                raise PmError(conflict_note(str(path)))
            text = set_section(text, "Next Steps", steps, before="Recent Changes")
        if entry:
            return record_change(text, entry, when=stamp)
        return set_stamp(text, stamp)

    result = write(path, transform)
    from missioncache_pm.forkinfo import restamp_after_write
    from missioncache_state.words import plural

    restamp_after_write(session_id, result.path)  # when this file is the session's parent
    done = []
    if entry:
        done.append(f"added a Recent Changes entry ({stamp})")
    if steps is not None:
        done.append(f"replaced Next Steps ({plural(len([s for s in steps if s.strip()]), 'line')})")
    verb = "Updated" if result.changed else "No change to"
    report = f"{verb} {result.path}: {' and '.join(done)}; Last Updated {stamp}."
    return f"{report}\n{result.note}" if result.note else report


def _write_shared(path: Any, shared: list[str], stamp: str, session_id: str | None) -> str:
    """The decision goes to the parent's context as an entry saying which fork made it;
    the writing session's marker is restamped (it knows what it wrote)."""
    from missioncache_context import record_change
    from missioncache_pm.forkinfo import shared_target, stamp_seen

    fork, parent = shared_target(path)
    lines = [f"- Shared decision from fork {fork.key}:", *(f"  {line}" for line in shared)]
    result = write(
        parent.context_path, lambda text: record_change(text, lines, when=stamp), saved=False
    )
    if session_id:
        stamp_seen(session_id, parent)
    report = (
        f"Updated the shared layer {result.path} (parent {parent.key}): added a Recent Changes"
        f" entry ({stamp}); every fork of {parent.key} sees it."
    )
    return f"{report}\n{result.note}" if result.note else report


def _steps_lines(value: Any) -> list[str] | None:
    """None (leave Next Steps alone), or its new lines: list items become bullets, a
    string is used as written."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        lines = []
        for item in value:
            if not isinstance(item, str):
                raise PmError("next_steps must be text or a list of strings")
            lines += bulleted(item)
        return lines
    if isinstance(value, str):
        return [line.rstrip() for line in _lines(value.strip("\n"))]
    raise PmError("next_steps must be text or a list of strings")
