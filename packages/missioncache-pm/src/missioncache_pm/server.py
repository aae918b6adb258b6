"""The ``pm`` MCP server (stdio): Claude's tools for MissionCache tasks and their files.

Claude Code starts it from the plugin (``.claude-plugin/plugin.json`` ``mcpServers.pm``,
through ``uvx``) and names its tools ``mcp__plugin_missioncache_pm__<tool>``. The work is
done by the standard-library modules beside this one; this module only declares the tools
and turns every failure into an MCP tool error of one sentence (no traceback ever reaches
Claude). Results are plain text: Claude Code shows a tool's structured content instead of
its text when both exist, and prose reads better than JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field, ValidationError

if TYPE_CHECKING:
    from missioncache_state.ids import SessionId

INSTRUCTIONS = (
    "MissionCache keeps a project's context (<name>-context.md) and checklist "
    "(<name>-tasks.md) under ~/.missioncache. Use update_tasks_file to check off or add "
    "items of a MissionCache tasks file (not the built-in TaskCreate/TodoWrite tools), and "
    "update_context_file to log what changed and set the next steps."
)

PathArg = Annotated[str, Field(description="Absolute path of the file (inside ~/.missioncache)")]
Selectors = Annotated[
    list[str | int] | str | int | None,
    Field(
        description=(
            'Items to check off. A number (3, "3", "1.2", "54a") flips exactly that '
            "item (3 never flips 3.1); any other text flips the first unchecked item whose "
            "text contains it (case-insensitive)."
        )
    ),
]
NewTasks = Annotated[
    list[str] | str | None,
    Field(description="Texts of new items, appended as '- [ ] N. text' after the highest number."),
]


class PmServer(MCPServer):
    """MCPServer whose tool errors are our one sentence: argument-validation errors are
    reworded, and the SDK's "Error executing tool <name>: " prefix is dropped from the
    errors our tools raise (Claude knows which tool it called)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(_invalid_arguments(name, cause)) from None
            if type(cause) is ToolError:
                raise ToolError(str(cause)) from None
            raise


def _invalid_arguments(tool: str, error: ValidationError) -> str:
    from missioncache_pm.errors import finish

    problems = error.errors()
    first = problems[0] if problems else {"loc": (), "msg": "invalid input"}
    where = ".".join(str(part) for part in first.get("loc", ()) if not _is_type_tag(part))
    message = f"Invalid argument {where or '(arguments)'} for {tool}: {first.get('msg')}"
    if first.get("type") != "missing" and "input" in first:
        message += f" (got {_short(first['input'])})"
    return finish(message)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_type_tag(part: object) -> bool:
    """Pydantic names union branches in error locations (``list[union[str,int]]``)."""
    return isinstance(part, str) and ("[" in part or part in ("str", "int", "none"))


def _call(work: Callable[[], str]) -> str:
    """Run a tool's work; any failure becomes a ToolError of one sentence."""
    try:
        return work()
    except Exception as error:
        from missioncache_pm.errors import sentence

        raise ToolError(sentence(error)) from None


def _session(ctx: Context) -> SessionId | None:
    """The calling session (see ``callsession``: right even after /clear)."""
    from missioncache_pm.callsession import calling_session

    try:
        meta = ctx.request_context.meta
    except (AttributeError, LookupError, ValueError):
        meta = None
    return calling_session(meta)


# -- tools -----------------------------------------------------------------------------------


def update_tasks_file(
    tasks_file: PathArg,
    completed_tasks: Selectors = None,
    new_tasks: NewTasks = None,
    remaining_summary: Annotated[
        str | None, Field(description="What is left to do; logged in the context file.")
    ] = None,
    notes: Annotated[
        str | list[str] | None,
        Field(description="Progress notes; logged as a dated Recent Changes entry."),
    ] = None,
) -> str:
    """Check off and add items in a MissionCache tasks file (<name>-tasks.md).

    Use this, not TaskCreate/TodoWrite, for MissionCache tasks. Reports what was marked,
    what was already done, what could not be matched (with the unchecked items) and the
    numbers given to new items; stamps the file's **Last Updated:** line when it has one.
    notes and remaining_summary go into one dated Recent Changes entry of the task's
    context file (or of the tasks file when there is no context file).
    """
    from missioncache_pm import edits

    return _call(
        lambda: edits.update_tasks_file(
            tasks_file, completed_tasks, new_tasks, remaining_summary, notes
        )
    )


def update_context_file(
    context_file: PathArg,
    recent_change: Annotated[
        str | list[str] | None,
        Field(description="What changed; added as a dated '### YYYY-MM-DD HH:MM' entry."),
    ] = None,
    next_steps: Annotated[
        str | list[str] | None,
        Field(description="New body of '## Next Steps' (replaces it; a list becomes bullets)."),
    ] = None,
) -> str:
    """Update a MissionCache context file (<name>-context.md).

    recent_change is added at the top of '## Recent Changes' under a dated heading (plain
    lines become bullets); next_steps replaces the body of '## Next Steps', which is
    created before Recent Changes when missing. **Last Updated:** is stamped.
    """
    from missioncache_pm import edits

    return _call(lambda: edits.update_context_file(context_file, recent_change, next_steps))


def find_task_for_directory(
    directory: Annotated[str, Field(description="Absolute path, usually the current working dir")],
    ctx: Context,
    session_id: Annotated[
        str | None,
        Field(description="Claude session id; defaults to this session's id."),
    ] = None,
) -> str:
    """Which MissionCache task a session in this directory is on, with its context and
    tasks files and the time invested. Resolution order: the session's binding, a
    directory inside ~/.missioncache/active/<task>, then a tracked repository with one
    active task. Changes nothing."""
    from missioncache_pm import taskinfo

    return _call(lambda: taskinfo.find_task_for_directory(directory, session_id or _session(ctx)))


def get_task(
    name: Annotated[str, Field(description="Task name, or parent/name for a subtask")],
    ctx: Context,
) -> str:
    """Load a MissionCache task by name and bind this Claude session to it (the hooks,
    statusline and time tracking then follow it). Returns its files, time invested, a
    digest of its context (Next Steps, newest Recent Changes entry) and unchecked items."""
    from missioncache_pm import taskinfo

    return _call(lambda: taskinfo.get_task(name, _session(ctx)))


def create_task(
    name: Annotated[str, Field(description="Lowercase letters, digits and '-', e.g. fix-login")],
    ctx: Context,
    repo: Annotated[
        str | None,
        Field(description="Absolute path of the repository the task belongs to, if any."),
    ] = None,
    jira_key: Annotated[str | None, Field(description="JIRA issue key, e.g. PROJ-123")] = None,
) -> str:
    """Create a MissionCache task: its database row and ~/.missioncache/active/<name>/ with
    <name>-context.md and <name>-tasks.md. Binds this Claude session to it."""
    from missioncache_pm import dashboard_notify, taskinfo

    answer = _call(lambda: taskinfo.create_task(name, repo, jira_key, _session(ctx)))
    dashboard_notify.task_created(name)
    return answer


TOOLS = (update_tasks_file, update_context_file, find_task_for_directory, get_task, create_task)
READ_ONLY = {"find_task_for_directory"}


def build_server() -> MCPServer:
    server = PmServer("pm", instructions=INSTRUCTIONS, log_level="WARNING")
    for tool in TOOLS:
        hints = ToolAnnotations(read_only_hint=True) if tool.__name__ in READ_ONLY else None
        server.add_tool(tool, structured_output=False, annotations=hints)
    return server


def main() -> None:
    """Console script ``missioncache-pm``: find the bundled libraries, serve on stdio.

    ``--check`` exits 0 once this module (and so the SDK) has imported, serving nothing:
    the plugin's launcher runs it through ``uvx --offline`` to learn whether uv's cache
    can start the server without a network, then starts exactly one server (README)."""
    import sys

    if sys.argv[1:] == ["--check"]:
        return
    from missioncache_pm.bootstrap import ensure_libraries

    ensure_libraries()
    build_server().run("stdio")
