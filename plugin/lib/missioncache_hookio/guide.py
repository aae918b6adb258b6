"""What MissionCache tells Claude about working on a task, in one place.

Earlier versions put this in ``~/.claude/rules/missioncache.md``, which Claude Code loads
into every session of every project and keeps loading after the plugin is uninstalled.
Now it travels only where a task is in play: the SessionStart context of a session that
has a task, and the reports of ``/missioncache:load`` and ``/missioncache:new`` for a
session that takes one on later. Everything SessionStart hands Claude shares a budget of
10,000 characters (contract 11.5), so this text is kept short and exposed as one
function whose length a caller can count.
"""

from __future__ import annotations

UPDATE_TASKS_TOOL = "mcp__plugin_missioncache_pm__update_tasks_file"
UPDATE_CONTEXT_TOOL = "mcp__plugin_missioncache_pm__update_context_file"

_INSTRUCTIONS = (
    "**Working on a MissionCache task:** the context file is the narrative (Description,"
    " `## Next Steps`, a dated `## Recent Changes` log, newest first; findings for item N go"
    " under `### Task N`); the tasks file is the checklist (`- [ ] N. text`). Check an item"
    f" off with `{UPDATE_TASKS_TOOL}` the moment it is done, in the turn you write its"
    " findings; the built-in TaskCreate / todo tools are Claude Code's in-conversation list,"
    " not the MissionCache tasks file. Record progress with"
    f" `{UPDATE_CONTEXT_TOOL}`. Before a long pause, or when the user asks, run"
    " `/missioncache:save` (it also works when those tools are unavailable)."
)


def task_instructions() -> str:
    """The instructions, one paragraph of markdown (about 700 characters)."""
    return _INSTRUCTIONS


def launcher_command(plugin_root: str) -> str:
    """The plugin's ``missioncache`` command (``bin/missioncache``) by its full path, quoted
    when it holds a blank: what the user pastes into a terminal, with no PYTHONPATH."""
    from missioncache_state import lean_os as os

    path = os.path.join(plugin_root, "bin", "missioncache")
    return f'"{path}"' if " " in path else path


def slash_helper(plugin_root: str) -> str:
    """The commands' standard-library helper, which can also save without the server."""
    from missioncache_state import lean_os as os

    return os.path.join(plugin_root, "slash", "slash.py")


def helper_command(script: str) -> str:
    """How Claude runs the commands' helper ``script``: through the plugin's launcher
    (``hooks/launch.sh`` finds a Python where ``python3`` is missing or is the Store's stub,
    on Windows), as the command files run it. Forward slashes: Git Bash, where Claude's
    commands run on Windows, may eat backslashes."""
    from missioncache_state import lean_os as os

    plugin = os.path.dirname(os.path.dirname(script))  # <plugin>/slash/slash.py
    launcher = os.path.join(plugin, "hooks", "launch.sh")
    script, launcher = (path.replace(os.sep, "/") for path in (script, launcher))
    return f'sh "{launcher}" "{script}"'


def fallback_line(script: str) -> str:
    """What Claude runs instead of the two update tools when the ``pm`` server is down."""
    return (
        "FALLBACK: the MCP tools are unavailable in this session; to update the files, run"
        f" `{helper_command(script)} apply` with options for the same arguments: --context-file"
        " PATH, --recent-change TEXT, --next-step TEXT (once per step), --tasks-file PATH,"
        " --done N (once per item), --new-task TEXT (once per item), --shared-decision TEXT"
        " (a fork only: a decision for every fork, written to its parent)."
    )
