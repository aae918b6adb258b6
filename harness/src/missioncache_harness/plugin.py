"""Load a plugin directory the way Claude Code does, and say what it would reject or ignore.

WHY: most hooks.json mistakes are not errors for Claude Code: the bad entry is dropped with a
warning and the session runs without it (contract section 5, `claude plugin validate`).
A test that loads hooks leniently would pass while the real CLI silently skips the hook, so the
loader keeps exactly what Claude Code keeps and lists everything else as a `Problem`;
`strict_check` turns every problem, warnings included, into a failure for our own CI. The
manifest itself (its fields, name rules, marketplace files) is checked by the real CLI:
`claude plugin validate` in the conformance tier.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

# The events the simulator fires: MissionCache's and SessionEnd. A hook on any other event, known
# to Claude Code (contract section 0) or not, is dropped with a warning: it never runs here, and
# what the real CLI does with it is for the conformance tier.
SIMULATED_EVENTS: tuple[str, ...] = (
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
)

ERROR = "error"
WARNING = "warning"

MANIFEST = Path(".claude-plugin") / "plugin.json"
DEFAULT_HOOKS = Path("hooks") / "hooks.json"
HOOK_TYPES = frozenset({"command", "http", "prompt", "agent"})


@dataclass(frozen=True)
class Problem:
    """One finding: ``error`` means Claude Code refuses it, ``warning`` means it drops the entry."""

    severity: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.severity}: {self.where}: {self.message}"


@dataclass(frozen=True)
class HookSpec:
    """One command hook Claude Code would run."""

    event: str
    command: str
    timeout: float | None = None


@dataclass
class Plugin:
    """A loaded plugin: its root, name, the hooks Claude Code keeps, and what it complained of."""

    root: Path
    name: str
    hooks: list[HookSpec] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    load_failed: bool = False

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    def hooks_for(self, event: str) -> list[HookSpec]:
        """The hooks an event runs, identical command strings kept once.

        WHY dedup by command text: Claude Code runs an identical command once per plugin even when
        it is listed twice (contract section 3); the first entry wins.
        """
        chosen: dict[str, HookSpec] = {}
        for spec in self.hooks:
            if spec.event == event:
                chosen.setdefault(spec.command, spec)
        return list(chosen.values())


def load_plugin(plugin_dir: str | Path) -> Plugin:
    """Read ``.claude-plugin/plugin.json`` and the hooks file(s) of a plugin directory."""
    root = Path(plugin_dir).resolve()
    plugin = Plugin(root=root, name=root.name)
    _load_manifest(root, plugin)
    if (root / DEFAULT_HOOKS).is_file():
        _load_hooks_file(root / DEFAULT_HOOKS, plugin)
    return plugin


def strict_check(plugin_dir: str | Path) -> list[Problem]:
    """Every problem, warnings included: our CI accepts a plugin only when this is empty."""
    plugin = load_plugin(plugin_dir)
    problems = list(plugin.problems)
    if not plugin.hooks and not plugin.load_failed:
        problems.append(Problem(WARNING, "hooks", "the plugin registers no command hooks"))
    return problems


def _load_manifest(root: Path, plugin: Plugin) -> None:
    """The plugin's name (its hooks' data dir and messages use it); the folder name without one."""
    path = root / MANIFEST
    if not path.is_file():
        message = "No manifest found in directory. Expected .claude-plugin/plugin.json"
        plugin.problems.append(Problem(ERROR, "directory", message))
        return
    data = _read_json(path, plugin, "manifest")
    name = data.get("name") if isinstance(data, dict) else None
    if isinstance(name, str) and name and not any(c.isspace() for c in name):
        plugin.name = name
    elif data is not None:
        plugin.problems.append(Problem(ERROR, "name", "plugin.json needs a kebab-case name"))


def _load_hooks_file(path: Path, plugin: Plugin) -> None:
    data = _read_json(path, plugin, "json")
    if data is None:
        plugin.load_failed = True
        return
    events = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(events, dict):
        where, message = ("hooks", "`hooks` must be an object of events")
        if not isinstance(data, dict) or "hooks" not in data:
            where, message = ("root", "hooks.json must have `hooks`")
        plugin.problems.append(Problem(ERROR, where, message))
        plugin.load_failed = True
        return
    for event, groups in events.items():
        if event not in SIMULATED_EVENTS:
            _warn(plugin, f"hooks.{event}", "event not simulated by the harness; entry ignored")
            continue
        for index, group in enumerate(groups if isinstance(groups, list) else [groups]):
            _load_group(event, f"hooks.{event}[{index}]", group, plugin)


def _load_group(event: str, where: str, group: object, plugin: Plugin) -> None:
    entries = group.get("hooks") if isinstance(group, dict) else None
    if not isinstance(entries, list):
        received = "undefined" if entries is None else js_type(entries)
        message = f'Hook matcher "hooks" must be an array of hook entries; received {received}'
        return _warn(plugin, where, f"{message}; entry ignored at runtime")
    if group.get("matcher") not in (None, "", "*"):
        # MissionCache registers no matchers, so the simulator does not select by them; a
        # plugin that needs them is for the real CLI (the conformance tier).
        return _warn(plugin, where, "matchers are not simulated by the harness; group ignored")
    for index, entry in enumerate(entries):
        spec = _load_entry(event, f"{where}.hooks[{index}]", entry, plugin)
        if spec is not None:
            plugin.hooks.append(spec)


def _load_entry(event: str, where: str, entry: object, plugin: Plugin) -> HookSpec | None:
    """A command hook Claude Code would run, or None with the warning it would print.

    Only command hooks run in the simulator: the product has no other kind.
    """
    kind = entry.get("type") if isinstance(entry, dict) else None
    command = entry.get("command") if isinstance(entry, dict) else None
    timeout = entry.get("timeout") if isinstance(entry, dict) else None
    bad_timeout = isinstance(timeout, bool) or not isinstance(timeout, (int, float, type(None)))
    if not isinstance(entry, dict):
        problem = "hook entry must be an object; ignored"
    elif kind not in HOOK_TYPES:
        problem = f'Unknown hook type "{kind}"; entry ignored at runtime'
    elif kind != "command":
        problem = f'"{kind}" hooks are not simulated by the harness'
    elif not isinstance(command, str) or not command.strip():
        received = "undefined" if command is None else js_type(command)
        problem = f"Invalid command hook (command: expected string, received {received})"
    elif bad_timeout:
        problem = f"Invalid command hook (timeout: expected number, received {js_type(timeout)})"
    elif timeout is not None and timeout <= 0:
        problem = "Invalid command hook (timeout: must be positive)"
    else:
        return HookSpec(event, command, float(timeout) if timeout is not None else None)
    if problem.startswith("Invalid command hook"):
        problem += "; entry ignored at runtime"
    _warn(plugin, where, problem)
    return None


def _warn(plugin: Plugin, where: str, message: str) -> None:
    plugin.problems.append(Problem(WARNING, where, message))


def _read_json(path: Path, plugin: Plugin, where: str) -> object | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        plugin.problems.append(
            Problem(
                ERROR,
                where,
                f"Invalid JSON syntax in {path.name}: {exc}. At runtime this breaks the entire "
                "plugin load.",
            )
        )
        return None


def js_type(value: object) -> str:
    """The JSON type word Claude Code prints and compares (it speaks JavaScript): int and
    float are both "number"."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if value is None:
        return "null"
    return "object"
