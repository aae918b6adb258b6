"""The other tools, the tool listing and concurrency, over a real stdio MCP connection."""

from __future__ import annotations

import re

import pytest

from missioncache_time import record_heartbeat

EXPECTED_TOOLS = {
    "update_tasks_file",
    "update_context_file",
    "find_task_for_directory",
    "get_task",
    "create_task",
    "get_context_digest",
}


def _one_sentence(reply):
    assert reply.is_error, reply.text
    assert "\n" not in reply.text and "Traceback" not in reply.text
    assert reply.text.endswith("."), reply.text
    return reply.text


# -- listing -------------------------------------------------------------------------------


def test_the_server_lists_the_six_tools_with_descriptions_and_schemas(world):
    tools = {tool.name: tool for tool in world.list_tools()}
    assert set(tools) == EXPECTED_TOOLS
    for tool in tools.values():
        assert len(tool.description or "") > 40, tool.name
    schema = tools["update_tasks_file"].input_schema
    assert schema["required"] == ["tasks_file"]
    assert set(schema["properties"]) == {
        "tasks_file",
        "completed_tasks",
        "new_tasks",
        "remaining_summary",
        "notes",
    }
    assert tools["find_task_for_directory"].annotations.read_only_hint is True
    assert "TaskCreate" in tools["update_tasks_file"].description


# -- update_context_file ---------------------------------------------------------------------

CONTEXT = """# Demo - Context

**Last Updated:** 2020-01-01 00:00

## Description
Build it.

```markdown
## Next Steps
- fenced sample, not the section
```

## Next Steps
- old step

## Recent Changes

### 2020-01-01 00:00
- Task created
"""


@pytest.fixture
def demo(world):
    task = world.task("demo", repo=world.repo)
    world.write(task.context_file, CONTEXT)
    return task


def test_context_update_adds_a_dated_entry_and_replaces_next_steps(world, demo):
    reply = world.call(
        "update_context_file",
        {
            "context_file": str(demo.context_file),
            "recent_change": ["Wrote the parser", "- Tests pass"],
            "next_steps": ["Deploy", "Write docs"],
        },
    )
    assert not reply.is_error, reply.text
    text = demo.context_file.read_text()
    stamp = re.search(r"\*\*Last Updated:\*\* (.+)\n", text).group(1)
    assert stamp != "2020-01-01 00:00"
    assert text == CONTEXT.replace("2020-01-01 00:00", stamp, 1).replace(
        "## Next Steps\n- old step\n", "## Next Steps\n\n- Deploy\n- Write docs\n"
    ).replace(
        "## Recent Changes\n\n",
        f"## Recent Changes\n\n### {stamp}\n- Wrote the parser\n- Tests pass\n\n",
    )
    assert "added a Recent Changes entry" in reply.text and "replaced Next Steps" in reply.text


def test_only_ascii_numbered_lines_count_as_list_items(world, demo):
    """``2. Ship`` and ``3) Rest`` are list items and stay as written; ``٣. x`` (an Arabic-Indic
    three) is text, as in every grammar of data model section 10, and gets its bullet."""
    lines = "2. Ship\r\n3) Rest\r٣. later\n1234567890. too long\n-nospace"
    reply = world.call(
        "update_context_file", {"context_file": str(demo.context_file), "recent_change": lines}
    )
    assert not reply.is_error, reply.text
    entry = demo.context_file.read_text().split("## Recent Changes\n\n### ")[1]
    assert entry.split("\n")[1:6] == [
        "2. Ship", "3) Rest", "- ٣. later", "- 1234567890. too long", "- -nospace",
    ]  # fmt: skip


def test_next_steps_alone_stamps_and_keeps_recent_changes(world, demo):
    reply = world.call(
        "update_context_file",
        {"context_file": str(demo.context_file), "next_steps": "1. Ship\n   ### not ok?\n2. Rest"},
    )
    assert not reply.is_error, reply.text
    text = demo.context_file.read_text()
    assert "## Next Steps\n\n1. Ship\n   ### not ok?\n2. Rest\n\n## Recent Changes" in text
    assert text.count("### ") == CONTEXT.count("### ") + 1
    assert "2020-01-01 00:00" not in text.split("## Description")[0]


def test_a_missing_next_steps_section_is_created_before_recent_changes(world, demo):
    world.write(demo.context_file, "# Demo\n\n## Recent Changes\n\n### 2020-01-01 00:00\n- x\n")
    world.call("update_context_file", {"context_file": str(demo.context_file), "next_steps": ["a"]})
    text = demo.context_file.read_text()
    assert "## Next Steps\n\n- a\n\n## Recent Changes" in text
    assert text.index("**Last Updated:**") < text.index("## Next Steps")


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"context_file": "{ctx}"}, "Nothing to update"),
        ({"context_file": "{ctx}", "recent_change": "  \n "}, "Nothing to update"),
        ({"context_file": "{ctx}", "next_steps": "## Heading"}, "cannot hold the heading"),
        ({"context_file": "{tasks}", "recent_change": "x"}, "is not a context file"),
        ({"context_file": "/tmp/x-context.md", "recent_change": "x"}, "outside"),
        ({"context_file": "{ctx}", "next_steps": 5}, "next_steps"),
    ],
)
def test_bad_context_updates_get_one_sentence(world, demo, arguments, words):
    values = {"ctx": demo.context_file, "tasks": demo.tasks_file}
    arguments = {k: v.format(**values) if isinstance(v, str) else v for k, v in arguments.items()}
    text = _one_sentence(world.call("update_context_file", arguments))
    assert words.lower() in text.lower(), text
    assert demo.context_file.read_text() == CONTEXT


# -- find_task_for_directory ------------------------------------------------------------------


def test_a_directory_in_a_tracked_repository_finds_its_task(world, demo):
    sub = world.repo / "src" / "deep"
    sub.mkdir(parents=True)
    reply = world.call(
        "find_task_for_directory", {"directory": str(sub)}, CLAUDE_CODE_SESSION_ID=""
    )
    assert not reply.is_error, reply.text
    assert "Resolved through the directory" in reply.text
    assert "**Task:** demo (id " in reply.text
    assert f"**Context file:** {demo.context_file}" in reply.text
    assert f"**Tasks file:** {demo.tasks_file}" in reply.text
    assert "**Time invested:** 0s in total" in reply.text
    assert world.binding() is None  # looking up binds nothing


def test_time_invested_counts_heartbeats_folded_by_the_lookup(world, demo):
    from missioncache_db import TaskDB

    with TaskDB() as db:
        base = 1_700_000_000
        for offset in (0, 60, 600):
            record_heartbeat(db, demo.id, world.sid, timestamp=base + offset)
    reply = world.call("find_task_for_directory", {"directory": str(world.repo)})
    # 0 -> 60 is one session (60 s + 120 s assumed tail); 600 starts another (closed: +120 s).
    assert "**Time invested:** 5m in total" in reply.text, reply.text


def test_the_session_binding_wins_over_the_directory(world, demo):
    other = world.task("other")
    world.call("get_task", {"name": "other"})
    reply = world.call("find_task_for_directory", {"directory": str(world.repo)})
    assert f"Resolved through the binding of session {world.sid}" in reply.text
    assert f"**Task:** other (id {other.id}" in reply.text
    explicit = world.call(
        "find_task_for_directory", {"directory": str(world.repo), "session_id": "someone-else"}
    )
    assert "**Task:** demo (id" in explicit.text


def test_no_task_is_an_answer_not_an_error(world, demo, tmp_path):
    reply = world.call("find_task_for_directory", {"directory": str(tmp_path)})
    assert not reply.is_error
    assert reply.text.startswith(f"No MissionCache task for {tmp_path}.")
    assert "Open tasks: demo" in reply.text


def test_several_tasks_in_one_repository_are_named(world, demo):
    world.task("second", repo=world.repo)
    reply = world.call(
        "find_task_for_directory", {"directory": str(world.repo)}, CLAUDE_CODE_SESSION_ID=""
    )
    assert not reply.is_error
    assert "2 active tasks (demo, second)" in reply.text
    assert "/missioncache:load <name>" in reply.text


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"directory": "relative/dir"}, "absolute"),
        ({"directory": "/no/such/dir/anywhere"}, "no directory"),
        ({"directory": "/", "session_id": "../../etc"}, "not a valid claude session id"),
    ],
)
def test_bad_lookups_get_one_sentence(world, arguments, words):
    text = _one_sentence(world.call("find_task_for_directory", arguments))
    assert words in text.lower(), text


# -- get_task ----------------------------------------------------------------------------------


def test_get_task_binds_this_session_and_summarises(world, demo):
    world.write(demo.tasks_file, "## Tasks\n- [x] 1. done\n- [ ] 2. Next thing\n")
    reply = world.call("get_task", {"name": "demo"})
    assert not reply.is_error, reply.text
    assert f"This session ({world.sid}) is now bound to demo." in reply.text
    assert "Unchecked tasks (1):\n- [ ] 2. Next thing" in reply.text
    assert "- old step" in reply.text  # the digest carries Next Steps
    binding = world.binding()
    assert binding["taskId"] == demo.id and binding["projectName"] == "demo"


def test_get_task_without_a_valid_session_id_binds_nothing(world, demo):
    for value in ("", "../escape", "x" * 200):
        reply = world.call("get_task", {"name": "demo"}, CLAUDE_CODE_SESSION_ID=value)
        assert not reply.is_error
        assert "This session was not bound: Claude Code gave no valid session id." in reply.text
    assert not (world.claude / "hooks" / "state" / "projects").exists()


def test_a_completed_task_is_shown_but_not_bound(world, demo):
    from missioncache_db import TaskDB

    with TaskDB() as db:
        db.set_status(demo.id, "completed")
    reply = world.call("get_task", {"name": "demo"})
    assert "not bound: demo is completed" in reply.text
    assert world.binding() is None


def test_a_subtask_is_found_by_parent_slash_name(world, demo):
    from missioncache_db import TaskDB

    with TaskDB() as db:
        sub = db.create_task("api", parent="demo")
    reply = world.call("get_task", {"name": "demo/api"})
    assert f"**Task:** api (id {sub.id}, active, active/demo/api)" in reply.text


@pytest.mark.parametrize(
    ("name", "words"),
    [("nope", "No task named 'nope'. Open tasks: demo."), ("Bad Name", "invalid task name")],
)
def test_get_task_errors(world, demo, name, words):
    text = _one_sentence(world.call("get_task", {"name": name}))
    assert words.lower() in text.lower()
    assert world.binding() is None


# -- create_task -------------------------------------------------------------------------------


def test_create_task_makes_the_files_and_binds_the_session(world):
    reply = world.call(
        "create_task", {"name": "new-thing", "repo": str(world.repo), "jira_key": "PROJ-7"}
    )
    assert not reply.is_error, reply.text
    directory = world.root / "active" / "new-thing"
    assert (directory / "new-thing-context.md").is_file()
    assert (directory / "new-thing-tasks.md").is_file()
    assert "**JIRA:** PROJ-7" in reply.text and f"**Repository:** {world.repo}" in reply.text
    assert world.binding()["projectName"] == "new-thing"
    found = world.call("find_task_for_directory", {"directory": str(world.repo)})
    assert "**Task:** new-thing" in found.text


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"name": "demo"}, "already exists"),
        ({"name": "UPPER"}, "invalid task name"),
        ({"name": "x", "repo": "/no/such/repo"}, "is not a directory"),
        ({"name": "x", "repo": "relative"}, "absolute"),
    ],
)
def test_create_task_errors(world, demo, arguments, words):
    text = _one_sentence(world.call("create_task", arguments))
    assert words in text.lower(), text
    assert world.binding() is None


def test_a_broken_database_is_one_sentence(world):
    (world.root / "tasks.db").write_bytes(b"this is not a database" * 100)
    text = _one_sentence(world.call("get_task", {"name": "demo"}))
    assert "database" in text.lower()


# -- concurrency -------------------------------------------------------------------------------


def test_two_clients_updating_one_tasks_file_lose_nothing(world, demo):
    """Two servers (as two Claude sessions would run) x 20 calls each, interleaved: every
    check mark, every new item (with a distinct number) and every note survives."""
    seeds = "".join(f"- [ ] {n}. seed {n}\n" for n in range(1, 41))
    world.write(demo.tasks_file, "## Tasks\n\n" + seeds)

    def script(who, numbers):
        return [
            (
                "update_tasks_file",
                {
                    "tasks_file": str(demo.tasks_file),
                    "completed_tasks": [n],
                    "new_tasks": [f"{who} item {n}"],
                    "notes": f"{who} note {n}",
                },
            )
            for n in numbers
        ]

    replies = world.concurrently(script("A", range(1, 21)), script("B", range(21, 41)))
    assert all(not r.is_error for rs in replies for r in rs), replies
    text = demo.tasks_file.read_text()
    assert text.count("- [ ] ") == 40 and text.count("- [x] ") == 40
    numbers = [int(n) for n in re.findall(r"- \[ \] (\d+)\. [AB] item", text)]
    assert sorted(numbers) == list(range(41, 81))
    for n in range(1, 41):
        assert f"- [x] {n}. seed {n}\n" in text
        assert f"item {n}\n" in text
    context = demo.context_file.read_text()
    for who, numbers in (("A", range(1, 21)), ("B", range(21, 41))):
        for n in numbers:
            assert f"- {who} note {n}\n" in context


# -- which session is calling ------------------------------------------------------------------


def _transcript(world, sid, text):
    """A session transcript where Claude Code keeps it for the server's project dir."""
    folder = world.claude / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(world.repo))
    return world.write(folder / f"{sid}.jsonl", text)


def test_the_calling_session_is_found_through_the_tool_use_id_after_clear(world, demo):
    """After /clear the server's environment still names the old session; the transcript
    holding this call's tool_use id names the new one, and that one is bound."""
    new_sid = "9a8b7c6d-0000-4000-8000-00000000c1ea"
    _transcript(world, world.sid, '{"type":"assistant","id":"toolu_OLD"}\n')
    _transcript(world, new_sid, '{"content":[{"type":"tool_use","id":"toolu_01NEW"}]}\n')
    reply = world.call(
        "get_task",
        {"name": "demo"},
        meta={"claudecode/toolUseId": "toolu_01NEW"},
        CLAUDE_PROJECT_DIR=str(world.repo),
    )
    assert f"This session ({new_sid}) is now bound to demo." in reply.text
    assert world.binding(new_sid)["taskId"] == demo.id
    assert world.binding() is None


def test_an_unknown_tool_use_id_falls_back_to_the_environment(world, demo):
    _transcript(world, "9a8b7c6d-0000-4000-8000-00000000c1ea", '{"id":"toolu_01OTHER"}\n')
    for meta in ({"claudecode/toolUseId": "toolu_01NOWHERE"}, {"claudecode/toolUseId": "../x"}):
        reply = world.call("get_task", {"name": "demo"}, meta=meta)
        assert f"This session ({world.sid}) is now bound" in reply.text
