"""``update_tasks_file`` over a real stdio MCP connection."""

from __future__ import annotations

import re

import pytest

TASKS = """# Demo - Tasks

**Last Updated:** 2020-01-01 00:00

## Tasks

- [ ] 1. Write the parser
- [x] 2. Set up CI
- [ ] 3. Deploy to staging
  - [ ] 3.1. Deploy the database
- [ ] 4. Write docs for deploy scripts
- [ ] 54a. Lettered item

```markdown
- [ ] 9. Fenced example, never an item
```
"""

STAMP = re.compile(r"\*\*Last Updated:\*\* (\d{4}-\d\d-\d\d \d\d:\d\d)\n")


@pytest.fixture
def demo(world):
    task = world.task("demo", repo=world.repo)
    world.write(task.tasks_file, TASKS)
    return task


def test_a_number_flips_exactly_that_item_and_text_the_first_unchecked_match(world, demo):
    reply = world.call(
        "update_tasks_file",
        {"tasks_file": str(demo.tasks_file), "completed_tasks": [3, "DEPLOY", "54A"]},
    )
    assert not reply.is_error, reply.text
    text = demo.tasks_file.read_text()
    assert "- [x] 3. Deploy to staging" in text
    # "DEPLOY": 3 is flipped by then, so the first unchecked item containing it is 3.1.
    assert "  - [x] 3.1. Deploy the database" in text
    assert "- [ ] 4. Write docs for deploy scripts" in text
    assert "- [x] 54a. Lettered item" in text
    assert "- [ ] 9. Fenced example" in text
    assert "Marked done: 3. Deploy to staging; 3.1. Deploy the database (matched 'DEPLOY')" in (
        reply.text
    )


def test_number_three_never_flips_three_point_one(world, demo):
    world.call("update_tasks_file", {"tasks_file": str(demo.tasks_file), "completed_tasks": [3]})
    text = demo.tasks_file.read_text()
    assert "- [x] 3. Deploy to staging" in text
    assert "  - [ ] 3.1. Deploy the database" in text


def test_string_numbers_and_task_prefixes_select_by_number(world, demo):
    reply = world.call(
        "update_tasks_file",
        {"tasks_file": str(demo.tasks_file), "completed_tasks": ["3.1", "Task 4", "#1"]},
    )
    assert not reply.is_error, reply.text
    text = demo.tasks_file.read_text()
    assert "- [ ] 3. Deploy to staging" in text
    assert "  - [x] 3.1. Deploy the database" in text
    assert "- [x] 4. Write docs" in text
    assert "- [x] 1. Write the parser" in text


def test_look_alike_selectors_tick_nothing(world, demo):
    """``taſk 5`` (long s) and ``Task ٣`` (Arabic-Indic three) name no task number in the
    grammar the hooks read tasks files with (data model section 10.3): the tool used to
    read them as 5 and 3 with a Unicode-aware regular expression and tick those items."""
    selectors = ["ta\u017fk 4", "Task \u0663", "TASK \u0663"]
    reply = world.call(
        "update_tasks_file",
        {"tasks_file": str(demo.tasks_file), "completed_tasks": selectors},
    )
    assert not reply.is_error, reply.text
    assert demo.tasks_file.read_text() == TASKS
    assert "Not matched" in reply.text and "'ta\u017fk 4'" in reply.text


def test_selectors_are_read_by_the_context_librarys_grammar():
    from missioncache_context import normalize_number
    from missioncache_pm.edits import as_selectors

    assert as_selectors(["ta\u017fk 5", "Task \u0663", "Task #54A.", " # 3.1 ", 7]) == [
        "ta\u017fk 5",
        "Task \u0663",
        "54a",
        "3.1",
        7,
    ]
    assert normalize_number(as_selectors(["task 12"])[0]) == "12"


def test_only_the_check_marks_and_the_stamp_change(world, demo):
    world.call("update_tasks_file", {"tasks_file": str(demo.tasks_file), "completed_tasks": [1]})
    text = demo.tasks_file.read_text()
    stamp = STAMP.search(text).group(1)
    assert stamp != "2020-01-01 00:00"
    expected = TASKS.replace("- [ ] 1. Write", "- [x] 1. Write").replace("2020-01-01 00:00", stamp)
    assert text == expected


def test_unmatched_and_already_done_are_reported_with_the_pending_items(world, demo):
    reply = world.call(
        "update_tasks_file",
        {"tasks_file": str(demo.tasks_file), "completed_tasks": [2, 77, "no such words"]},
    )
    assert not reply.is_error
    assert "No change to" in reply.text
    assert "Already done (left as is): 2." in reply.text
    assert "Not matched" in reply.text and "77, 'no such words'" in reply.text
    assert "Unchecked items: 1. Write the parser; 3. Deploy to staging" in reply.text
    assert demo.tasks_file.read_text() == TASKS  # nothing changed, not even the stamp


def test_new_items_are_numbered_after_the_highest(world, demo):
    reply = world.call(
        "update_tasks_file",
        {"tasks_file": str(demo.tasks_file), "new_tasks": ["Release  it", "Announce"]},
    )
    assert not reply.is_error
    assert "Added: 55. Release it; 56. Announce." in reply.text
    text = demo.tasks_file.read_text()
    assert "- [ ] 54a. Lettered item\n- [ ] 55. Release it\n- [ ] 56. Announce\n" in text


def test_a_single_string_is_accepted_for_either_list(world, demo):
    reply = world.call(
        "update_tasks_file",
        {"tasks_file": str(demo.tasks_file), "completed_tasks": "3", "new_tasks": "Retro"},
    )
    assert not reply.is_error, reply.text
    assert "- [x] 3. Deploy" in demo.tasks_file.read_text()
    assert "55. Retro" in reply.text


def test_a_file_without_stamp_gets_none(world, demo):
    world.write(demo.tasks_file, "- [ ] 1. a\n")
    world.call("update_tasks_file", {"tasks_file": str(demo.tasks_file), "completed_tasks": [1]})
    assert demo.tasks_file.read_text() == "- [x] 1. a\n"


def test_notes_and_summary_become_a_recent_changes_entry_in_the_context_file(world, demo):
    reply = world.call(
        "update_tasks_file",
        {
            "tasks_file": str(demo.tasks_file),
            "completed_tasks": [1],
            "new_tasks": ["Benchmark"],
            "notes": "Parser handles CRLF now\n## not a heading",
            "remaining_summary": "Deploy and docs\nthen release",
        },
    )
    assert not reply.is_error, reply.text
    context = demo.context_file.read_text()
    entry = re.search(r"### (\d{4}-\d\d-\d\d \d\d:\d\d)\n((?:.+\n)+)", context)
    assert entry.group(2) == (
        "- Completed: 1. Write the parser\n"
        "- Added tasks: 55. Benchmark\n"
        "- Parser handles CRLF now\n"
        "- ## not a heading\n"
        "- Remaining: Deploy and docs\n"
        "  - then release\n"
    )
    assert f"**Last Updated:** {entry.group(1)}" in context
    assert context.index(entry.group(0)) < context.index("- Task created")  # newest first
    assert f"to {demo.context_file}" in reply.text


def test_without_a_context_file_notes_go_into_the_tasks_file(world, demo):
    demo.context_file.unlink()
    reply = world.call(
        "update_tasks_file", {"tasks_file": str(demo.tasks_file), "notes": "Paused for review"}
    )
    assert not reply.is_error, reply.text
    text = demo.tasks_file.read_text()
    assert text.endswith("## Recent Changes\n\n" + text.split("## Recent Changes\n\n")[1])
    assert "- Paused for review\n" in text
    assert "(no context file)" in reply.text


def test_a_bare_tasks_md_pairs_with_a_bare_context_md(world, demo):
    bare = world.write(demo.directory / "sub" / "tasks.md", "- [ ] 1. a\n")
    context = world.write(demo.directory / "sub" / "context.md", "# Sub\n")
    reply = world.call("update_tasks_file", {"tasks_file": str(bare), "notes": "note"})
    assert not reply.is_error, reply.text
    assert "- note" in context.read_text()


# -- errors --------------------------------------------------------------------------------


def _one_sentence(reply):
    assert reply.is_error
    assert "\n" not in reply.text and "Traceback" not in reply.text
    assert reply.text.endswith("."), reply.text
    return reply.text


def test_a_path_outside_the_data_root_is_refused(world, demo, tmp_path):
    outside = world.write(tmp_path / "elsewhere" / "x-tasks.md", "- [ ] 1. a\n")
    text = _one_sentence(
        world.call("update_tasks_file", {"tasks_file": str(outside), "completed_tasks": [1]})
    )
    assert "outside the MissionCache data root" in text
    assert outside.read_text() == "- [ ] 1. a\n"


def test_a_symlink_inside_the_root_that_leads_outside_is_refused(world, demo, tmp_path):
    outside = world.write(tmp_path / "elsewhere" / "x-tasks.md", "- [ ] 1. a\n")
    link = demo.directory / "evil-tasks.md"
    link.symlink_to(outside)
    text = _one_sentence(
        world.call("update_tasks_file", {"tasks_file": str(link), "completed_tasks": [1]})
    )
    assert "outside the MissionCache data root" in text
    assert outside.read_text() == "- [ ] 1. a\n"


def test_dot_dot_cannot_climb_out_of_the_root(world, demo, tmp_path):
    outside = world.write(tmp_path / "home" / "x-tasks.md", "- [ ] 1. a\n")
    sneaky = f"{world.root}/active/../../x-tasks.md"
    text = _one_sentence(
        world.call("update_tasks_file", {"tasks_file": sneaky, "completed_tasks": [1]})
    )
    assert "outside" in text
    assert outside.read_text() == "- [ ] 1. a\n"


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"tasks_file": "relative/demo-tasks.md", "completed_tasks": [1]}, "absolute"),
        ({"tasks_file": "{root}/active/demo/gone-tasks.md", "completed_tasks": [1]}, "no tasks"),
        ({"tasks_file": "{ctx}", "completed_tasks": [1]}, "is not a tasks file"),
        ({"tasks_file": "{tasks}"}, "Nothing to update"),
        ({"tasks_file": "{tasks}", "new_tasks": ["  "]}, "empty task"),
        ({"tasks_file": "{tasks}", "completed_tasks": [3.5]}, "completed_tasks"),
        ({"tasks_file": "{tasks}", "completed_tasks": {"a": 1}}, "completed_tasks"),
        ({"completed_tasks": [1]}, "tasks_file"),
    ],
)
def test_bad_calls_get_one_sentence(world, demo, arguments, words):
    values = {"root": world.root, "ctx": demo.context_file, "tasks": demo.tasks_file}
    arguments = {k: v.format(**values) if isinstance(v, str) else v for k, v in arguments.items()}
    text = _one_sentence(world.call("update_tasks_file", arguments))
    assert words.lower() in text.lower(), text
    assert demo.tasks_file.read_text() == TASKS


def test_a_file_that_is_not_utf8_is_left_untouched(world, demo):
    demo.tasks_file.write_bytes(b"- [ ] 1. caf\xe9\n")
    text = _one_sentence(
        world.call("update_tasks_file", {"tasks_file": str(demo.tasks_file), "new_tasks": ["x"]})
    )
    assert "not valid UTF-8" in text
    assert demo.tasks_file.read_bytes() == b"- [ ] 1. caf\xe9\n"
