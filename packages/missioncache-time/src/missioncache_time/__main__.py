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

from __future__ import annotations

import sys
from os.path import abspath, dirname

if sys.argv[1:] != ["heartbeat-auto"]:
    sys.stderr.write(
        "python -m missioncache_time runs only heartbeat-auto; the command line is"
        " `missioncache` (python -m missioncache_cli)\n"
    )
    raise SystemExit(2)

_HERE = dirname(abspath(__file__))
if not __package__ and sys.path and abspath(sys.path[0]) == _HERE:
    del sys.path[0]  # started as a script: this package's own folder is no import root

from missioncache_state.bytecode import install  # noqa: E402

install(dirname(dirname(_HERE)))  # the plugin of this lib
from missioncache_time._heartbeat_auto import heartbeat_auto  # noqa: E402

raise SystemExit(heartbeat_auto())
