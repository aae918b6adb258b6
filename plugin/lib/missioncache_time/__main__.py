"""``heartbeat-auto``: the one command the time package runs, the UserPromptSubmit hook's
child on every prompt.

The hook starts this file as a script (``python -S <lib>/missioncache_time/__main__.py
heartbeat-auto``), not with ``-m``: ``-m`` loads ``runpy`` with ``importlib.util``,
``functools`` and ``collections``, about 32 M instructions, more than the interpreter's own
start, on a machine where the two prompt hooks are running at that moment.
``python -m missioncache_time heartbeat-auto`` works the same. The command line for people
lives a layer up, in ``missioncache_cli`` (``missioncache``, or ``python -m
missioncache_cli``); this package cannot import it.
"""

import sys

if sys.argv[1:] != ["heartbeat-auto"]:
    sys.stderr.write(
        "python -m missioncache_time runs only heartbeat-auto; the command line is"
        " `missioncache` (python -m missioncache_cli)\n"
    )
    raise SystemExit(2)

if not __package__ and sys.path:
    # Started as a script: Python put this package's own folder first on sys.path (not
    # under -I or -P, where the first entry is someone else's), and it is no import root.
    _FIRST = sys.path[0].replace("\\", "/").rstrip("/")
    if _FIRST.endswith("/missioncache_time"):
        del sys.path[0]

from missioncache_state.bytecode import install

install(__file__.replace("\\", "/").rsplit("/", 3)[0])  # <plugin>/lib/missioncache_time/
from missioncache_time._heartbeat_auto import heartbeat_auto  # noqa: E402

raise SystemExit(heartbeat_auto())
