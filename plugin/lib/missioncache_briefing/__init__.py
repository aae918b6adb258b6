"""What a session is told about its task when it starts: the text SessionStart hands
Claude (the "Active Task Detected" banner, the context digest, a fork's shared layer, the
last compaction summary) and its one line for the human, assembled here so the hook holds
only the wiring of its event (docs/layout.md).

Everything for Claude is assembled from labelled parts with priorities and fitted into ONE
budget (``missioncache_hookio.budget.fit``): Claude Code moves a hook's text over 10,000
characters to a file the model may never read. To add a part, append a ``Part`` in
``context_parts`` with a priority placed among the ``PRIORITY_*`` constants below.
Standard library and our own libraries only, imported lazily: it runs inside the hook.
One module on purpose: SessionStart imports it on every start, and each module more costs a
file lookup there. ``__all__`` is its API; the rest are its parts, public for their tests.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from missioncache_db import Compaction, Task
    from missioncache_hookio.budget import Part
    from missioncache_state.ids import SessionId
    from missioncache_time import TimeSplit

__all__ = [
    "CONTEXT_BUDGET",
    "SUMMARY_HEADING",
    "briefing",
    "candidates_hint",
    "context_parts",
    "fitted",
    "unseen_change",
]

DIGEST_SOURCES = ("compact", "resume", "clear")
DIGEST_LIMIT = 3000
# After a compaction the summary is already in the conversation; a new or resumed one needs it.
SUMMARY_SOURCES = ("startup", "resume", "clear")
CONTEXT_BUDGET = 9000  # UTF-16 units for all of additionalContext; Claude Code counts 10,000
# Priorities of the parts of additionalContext: the higher survives longer when space is short.
PRIORITY_BANNER = 100
PRIORITY_NOTE = 90
PRIORITY_DIGEST = 60
PRIORITY_SHARED = 55  # a fork's parent layer: after the fork's own digest, before the summary
PRIORITY_SUMMARY = 50
SHARED_LIMIT = 3000
MAX_NAMED = 5


def banner(
    task: Task,
    invested: str,
    session_id: SessionId | None,
    source: str | None,
    compactions: str = "",
    family: Sequence[str] = (),
) -> str:
    from missioncache_hookio.guide import task_instructions

    lines = [
        "## MissionCache: Active Task Detected",
        "",
        f"- **Task:** {task.name} (id {task.id})",
        f"- **Status:** {task.status}",
        f"- **Time invested:** {invested}",
        *family,
    ]
    if task.jira_key:
        lines.append(f"- **JIRA:** {task.jira_key}")
    if compactions:
        lines.append(f"- **Compactions:** {compactions}")
    lines += [
        f"- **Session:** {session_id or 'unknown'} ({source or 'startup'})",
        f"- **Files:** {task.directory_path}",
        f"  - context: {task.context_path} (its `## Next Steps` is the saved plan)",
        f"  - tasks: {task.tasks_path}",
        "",
        "Tip: run `/missioncache:load` to read this task's full context before starting work.",
        "",
        task_instructions(),
    ]
    return "\n".join(lines)


def context_digest(task: Task) -> str:
    from missioncache_context import digest, read_head

    try:  # the head only (newest entries are on top): a 50 MB file costs what it shows
        text = digest(read_head(task.context_path), DIGEST_LIMIT)
    except (OSError, ValueError):
        return ""
    if not text:
        return ""
    from missioncache_hookio.quoting import quoted

    # Quoted: a context file may hold headings MissionCache writes (missioncache_hookio.quoting).
    name = os.path.basename(task.context_path)
    return f"### Where the work stands (quoted from {name})\n\n{quoted(text)}"


def candidates_hint(tasks: list[Task]) -> str:
    names = ", ".join(task.name for task in tasks[:MAX_NAMED])
    more = f", +{len(tasks) - MAX_NAMED} more" if len(tasks) > MAX_NAMED else ""
    return (
        f"MissionCache: this repository has {len(tasks)} active tasks ({names}{more}) and this"
        " session is not bound to one. Ask the user which task this session is for, then run"
        " `/missioncache:load <name>`."
    )


def pending_error() -> tuple[str, str] | None:
    """The last pre-compaction failure as (human line, context note), cleared once read."""
    from missioncache_state.precompact_failure import headline, take_failure

    failure = take_failure()
    if failure is None:
        return None
    line, todo = headline(failure)
    return f"{line}. {todo}", f"Note: {line}. {todo}"


SUMMARY_HEADING = "### Last compaction summary"


def compactions_line(count: int, latest: Compaction | None) -> str:
    """``3 (newest 2026-12-01 14:02, manual)``; empty when the task never compacted."""
    if not count:
        return ""
    return f"{count} (newest {latest.when}, {latest.trigger})" if latest else str(count)


def summary_part(latest: Compaction | None) -> str:
    """The newest stored compaction summary, labelled with its date: it may be older than
    the context file, and Claude should know how old what it reads is."""
    if latest is None or not latest.summary:
        return ""
    from missioncache_hookio.quoting import quoted

    return (
        f"{SUMMARY_HEADING} ({latest.when}, {latest.trigger} compaction)\n\n"
        "What the conversation had reached when Claude Code last summarised it, quoted: it is"
        " a record of the conversation, not MissionCache's instructions or task details; prefer"
        " the context file where the two disagree and it is newer.\n\n"
        f"{quoted(latest.summary)}"
    )


def family_lines(task: Task, parent: Task | None, forks: Sequence[Task]) -> list[str]:
    """The banner's lines about forks: a fork names its parent and where the shared layer
    is; a parent names its open forks (their time counts in its total)."""
    if parent is not None:
        return [
            f"- **Fork of:** {parent.key} (id {parent.id}, {parent.status}); its context is"
            f" the shared layer of all its forks: {parent.context_path}",
        ]
    if forks:
        names = ", ".join(fork.key for fork in forks[:MAX_NAMED])
        more = f", +{len(forks) - MAX_NAMED} more" if len(forks) > MAX_NAMED else ""
        return [f"- **Open forks:** {names}{more} (their time counts in this total)"]
    return []


def shared_layer(parent: Task) -> str:
    """The parent's context as the fork reads it: the file's head (decisions, next steps,
    newest entries first), cut at a line end within ``SHARED_LIMIT``."""
    from missioncache_context import read_head

    try:
        text = read_head(parent.context_path)
    except (OSError, ValueError):
        return ""
    text = text.strip()
    if not text:
        return ""
    if len(text) > SHARED_LIMIT:
        cut = text.rfind("\n", 0, SHARED_LIMIT)
        text = text[: cut if cut > SHARED_LIMIT // 2 else SHARED_LIMIT].rstrip()
        text += "\n[... truncated; the whole file is at the path above]"
    from missioncache_hookio.quoting import quoted

    name = os.path.basename(parent.context_path)
    return (
        f"### Shared layer: parent task {parent.key} (quoted from {name})"
        "\n\nWhat holds for every fork of this task. Write a decision that holds for all forks"
        " here (`/missioncache:save` says how); this fork's own progress goes in its own file."
        f"\n\n{quoted(text)}"
    )


def unseen_change(session_id: SessionId | None, parent: Task, source: str | None) -> float | None:
    """When a *resumed* fork session's parent changed after its mark: the epoch of the
    change, else None. A resumed conversation still holds the shared layer as it read it
    then; it is told that it changed and pointed to ``/missioncache:load`` (which shows
    the change and restamps), and the mark stays, so the status line keeps its note."""
    if source != "resume" or not session_id:
        return None
    from missioncache_state.shared_seen import changed_since_mark

    changed = changed_since_mark(session_id, parent.context_path)
    return changed / 1e9 if changed is not None else None


def parent_updated_note(parent: Task, epoch: float) -> str:
    import time

    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))
    return (
        f"PARENT UPDATED: the shared layer (the context of the parent task {parent.key})"
        f" changed at {when}, after this session last read it: another fork saved to it."
        " Tell the user, and run `/missioncache:load` to see the change before relying on"
        " the shared decisions this conversation already holds."
    )


def fork_parts(task: Task, parent: Task, unseen: float | None = None) -> list[Part]:
    """A fork always gets both digests: its own, then its parent's shared layer (or, in a
    resumed session whose parent changed meanwhile, the note that it did)."""
    from missioncache_hookio.budget import Part

    parts = [Part("context digest", context_digest(task), PRIORITY_DIGEST)]
    if unseen is not None:
        return [*parts, Part("parent note", parent_updated_note(parent, unseen), PRIORITY_NOTE)]
    if not os.path.isdir(parent.directory_path):
        from missioncache_db import folder_gone

        gone = folder_gone(parent)
        note = f"Note: the shared layer cannot be read: the parent {parent.key}'s {gone}."
        return [*parts, Part("parent note", note, PRIORITY_NOTE)]
    return [*parts, Part("shared layer", shared_layer(parent), PRIORITY_SHARED)]


def context_parts(
    task: Task,
    invested: str,
    session_id: SessionId | None,
    source: str | None,
    parent: Task | None = None,
    forks: Sequence[Task] = (),
    unseen: float | None = None,
) -> list[Part]:
    """Everything SessionStart hands Claude, as prioritised parts (see module docstring)."""
    from missioncache_db import compaction_records
    from missioncache_hookio.budget import Part

    total, records = compaction_records(task)
    latest, with_text = None, None
    for index, item in enumerate(records):  # the newest 3, read one by one
        latest = latest or item
        if item.summary or index == 2:
            with_text = item if item.summary else None
            break
    count = compactions_line(total, latest)
    family = family_lines(task, parent, forks)
    text = banner(task, invested, session_id, source, count, family)
    parts = [Part("banner", text, PRIORITY_BANNER)]
    if parent is not None:
        parts += fork_parts(task, parent, unseen)
    elif source in DIGEST_SOURCES:
        parts.append(Part("context digest", context_digest(task), PRIORITY_DIGEST))
    if (source or "startup") in SUMMARY_SOURCES:
        parts.append(Part("compaction summary", summary_part(with_text), PRIORITY_SUMMARY))
    return parts


def folder_gone_note(task: Task, launcher: str) -> str:
    """A task whose folder was deleted or moved must not look fine ("tracking ..."):
    say so, with the ways out, to the human and to Claude."""
    if os.path.isdir(task.directory_path):
        return ""
    from missioncache_db import folder_gone

    name = task.full_path.split("/", 1)[-1]
    return (
        f"{folder_gone(task)}: run /missioncache:new {name} to recreate its files, or"
        f" {launcher} close {name}"
    )


def set_aside_note(launcher: str) -> str:
    """Spool records the last ingest could not read and set aside (quarantined), told to
    the human once each: otherwise time they stood for would vanish without a word."""
    from missioncache_spool import quarantine_dir, take_unreported
    from missioncache_state.locations import heartbeat_spool_dir

    spool_dir = heartbeat_spool_dir()
    names = take_unreported(spool_dir)
    if not names:
        return ""
    return (
        f"{len(names)} unreadable spool entr{'y was' if len(names) == 1 else 'ies were'} set"
        f" aside in {quarantine_dir(spool_dir)} (run {launcher} doctor)"
    )


def briefing(
    task: Task,
    split: TimeSplit,
    session_id: SessionId | None,
    source: str | None,
    parent: Task | None,
    forks: Sequence[Task],
    unseen: float | None,
    launcher: str,
) -> tuple[str, list[Part]]:
    """(the line for the human, the parts for Claude) of a session on ``task``: its time
    ``split`` (total, Claude's and yours, docs/time.md), its family, and the notes told
    once (set-aside spool records, a gone folder, a failed snapshot, a lost summary).
    ``unseen``: when a resumed fork's parent changed after the session read it
    (``unseen_change``); ``launcher``: the plugin's ``missioncache`` command by path."""
    from missioncache_hookio.budget import Part
    from missioncache_time import format_duration, format_split, shown_parts

    parts = context_parts(task, format_split(split), session_id, source, parent, forks, unseen)
    fork_of = f"fork of {parent.key}; " if parent is not None else ""
    claude, you = shown_parts(split.total, split.claude, split.you)  # parts add up
    message = (
        f"MissionCache: tracking {task.name} ({fork_of}{format_duration(split.total)} invested:"
        f" Claude {format_duration(claude)}, you {format_duration(you)})"
    )
    notes = []  # one per line under the headline: each says one thing and what to do
    if parent is not None and unseen is not None:
        notes.append(f"The shared layer of {parent.key} changed since this session read it.")
    notes.append(set_aside_note(launcher))
    gone = folder_gone_note(task, launcher)
    notes.append(gone)
    if gone:
        parts.append(Part("folder note", f"Note: {gone}.", PRIORITY_NOTE))
    error = pending_error()
    if error is not None:
        notes.append(error[0])
        parts.append(Part("pre-compaction note", error[1], PRIORITY_NOTE))
    from missioncache_state.summary_failure import take_summary_note  # PostCompact's, auto

    notes.append(take_summary_note() or "")
    message = "\n".join([message, *(note for note in notes if note)])
    return message, parts


def fitted(message: str, parts: list[Part]) -> tuple[str, str]:
    """(the human's line, additionalContext): the parts fitted into ``CONTEXT_BUDGET``,
    and the line saying so when the last compaction's summary made it in."""
    from missioncache_hookio.budget import fit

    context = fit(parts, CONTEXT_BUDGET)
    if SUMMARY_HEADING in context:  # the human should know what Claude was handed
        message += "\nClaude was given the last compaction's summary."
    return message, context
