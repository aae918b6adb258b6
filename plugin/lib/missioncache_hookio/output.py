"""Writing a hook's output where its audience reads it, and the never-raise guard.

Claude Code routes by event (docs/hooks.md, contract sections 2 and 9): plain stdout of
SessionStart and UserPromptSubmit reaches the model; a JSON ``systemMessage`` is the only
exit-0 channel a human sees; stderr on exit 0 reaches nobody but the transcript.
"""

from __future__ import annotations

import sys

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


def emit(text: str) -> None:
    """Write text to stdout as UTF-8 whatever the locale, ignoring a closed pipe."""
    if not text:
        return
    try:
        sys.stdout.buffer.write(text.encode("utf-8", errors="replace"))
        sys.stdout.buffer.flush()
    except (OSError, ValueError):
        pass


def emit_json(obj: dict[str, Any]) -> None:
    from missioncache_state.json_codec import dumps

    emit(dumps(obj, ensure_ascii=False))


def hook_json(
    event: str, *, additional_context: str | None = None, system_message: str | None = None
) -> dict[str, Any]:
    """The JSON object for model context plus a line the human sees, in one output."""
    out: dict[str, Any] = {}
    if system_message:
        out["systemMessage"] = system_message
    if additional_context:
        out["hookSpecificOutput"] = {
            "hookEventName": event,
            "additionalContext": additional_context,
        }
    return out


def breadcrumb(message: str) -> None:
    """One line on stderr: recorded in the transcript, never shown, never blocking."""
    try:
        sys.stderr.write("missioncache: " + " ".join(message.split()) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def run_hook(main: Callable[[], None]) -> None:
    """Run a hook's main and exit 0 whatever happens.

    Exit 2 would block the user's prompt or compaction, and a traceback helps nobody at
    the prompt, so every failure becomes one breadcrumb and exit 0. ``os._exit`` skips
    interpreter teardown, which also keeps a hung non-daemon thread from holding us."""
    try:
        main()
    except BaseException as exc:
        if not isinstance(exc, (SystemExit, KeyboardInterrupt)):
            breadcrumb(f"{type(exc).__name__}: {exc}")
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    os._exit(0)


def run_body(script: str) -> None:
    """Run ``main`` of the hook body ``_<script>`` beside the started ``script`` (the
    plugin's ``hooks/<script>.py``, ``packages/missioncache-hookio/hook.py``, which passes
    its own path already resolved), as ``run_hook`` does: exit 0 whatever happens.

    WHY two files: Python compiles the script it starts from source on every run, but
    reads an imported module's byte code from ``__pycache__``; compiling Stop's or the
    task tracker's 150 lines cost about 0.5 ms of every turn, SessionStart's 300 about
    1.5 ms. The folder goes on ``sys.path`` last when ``-P`` or ``PYTHONSAFEPATH`` left it
    off. The cyclic garbage collector is off: the process lives for tens of milliseconds
    and leaves no cycles worth collecting, while the collector's passes over all it
    imports cost up to a millisecond. The rest of the hook's modules come from the
    plugin's compiled bundle when it has one (``missioncache_state.bytecode``, installed
    by the script before this module is imported; ``install`` here is for any other
    caller and costs nothing twice); a hook that found none starts its build once it has
    done its work."""
    import gc

    gc.disable()
    folder, name = os.path.split(script)
    if folder not in sys.path:
        sys.path.append(folder)
    plugin = os.path.dirname(folder)
    from missioncache_state.bytecode import install

    install(plugin)
    body = "_" + os.path.splitext(name)[0]

    def main() -> None:
        __import__(body).main()
        _build_bundle_if_needed(plugin)

    run_hook(main)


def _build_bundle_if_needed(plugin: str) -> None:
    """Start the bundle's build, detached, when this run imported without it (or found
    part of it stale), at most once every ``BUILD_DEBOUNCE`` seconds. Quiet on failure:
    a plugin folder the user cannot write just keeps importing as usual."""
    from missioncache_state import bytecode

    if not bytecode.needs_build():
        return
    stamp = bytecode.stamp_path(plugin)
    folder = os.path.dirname(stamp)
    try:
        if not os.access(folder if os.path.isdir(folder) else os.path.dirname(folder), os.W_OK):
            return  # checked first: this costs no import on every run of such a plugin
        from missioncache_hookio.spawn import start_debounced

        os.makedirs(folder, exist_ok=True)
        start_debounced(["missioncache_state.bytecode", plugin], stamp, bytecode.BUILD_DEBOUNCE)
    except Exception:
        pass
