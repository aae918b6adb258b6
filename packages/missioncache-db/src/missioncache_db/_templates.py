"""The files a new task starts with (data model sections 7 and 8).

A task directory may already hold files (a task re-created after its row was lost, or
written by hand): they are the user's work and are never overwritten.
"""

from __future__ import annotations

from pathlib import Path

from missioncache_db._model import title_for


def context_text(
    name: str, stamp: str, jira_key: str | None, repo: str | None, fork_of: str | None = None
) -> str:
    """``<name>-context.md``: heading, ``**Last Updated:**`` stamp, the three sections.
    A fork's file says ``**Fork of:** PARENT`` on the line after the stamp (docs/forks.md):
    whoever opens the file sees where its shared layer is."""
    fork_line = f"**Fork of:** {fork_of}\n" if fork_of else ""
    about = []
    if jira_key:
        about.append(f"- JIRA: {jira_key}")
    if repo:
        about.append(f"- Repository: {repo}")
    description = "\n".join(about) + "\n\n" if about else ""
    return (
        f"# {title_for(name)} - Context\n\n"
        f"**Last Updated:** {stamp}\n{fork_line}\n"
        f"## Description\n\n{description}"
        "## Next Steps\n\n"
        "## Recent Changes\n\n"
        f"### {stamp}\n"
        f"- {'Fork of ' + fork_of + ' created' if fork_of else 'Task created'}\n"
    )


def tasks_text(name: str) -> str:
    """``<name>-tasks.md``: a heading and an empty checklist section. No example items:
    a sample ``- [ ] 1.`` line would be counted as real pending work."""
    return f"# {title_for(name)} - Tasks\n\n## Tasks\n\n"


def write_new_file(path: Path, text: str) -> bool:
    """Create ``path`` with ``text`` unless it exists (``x`` mode: no check-then-write
    race). Returns whether it was written."""
    try:
        with open(path, "x", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except FileExistsError:
        return False
    return True


def create_task_files(
    directory: Path,
    name: str,
    stamp: str,
    jira_key: str | None,
    repo: str | None,
    fork_of: str | None = None,
) -> list[Path]:
    """Create the task directory and its two files; returns the files written.

    A file is skipped when it or its bare counterpart (``context.md`` / ``tasks.md`` of an
    older layout) exists: the named file wins lookups, so creating it would hide the
    user's existing one.
    """
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "context.md": context_text(name, stamp, jira_key, repo, fork_of),
        "tasks.md": tasks_text(name),
    }
    written = []
    for suffix, text in files.items():
        path = directory / f"{name}-{suffix}"
        if not (directory / suffix).exists() and write_new_file(path, text):
            written.append(path)
    if written:
        from missioncache_state.saves import mark_never_saved

        mark_never_saved(directory)  # the template's stamp is no save
    return written
