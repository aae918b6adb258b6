"""``python -m missioncache_time heartbeat-auto``: the one command the time package runs.

The UserPromptSubmit hook starts it on every prompt, so it goes straight to its own small
module. The command line for people lives a layer up, in ``missioncache_cli``
(``missioncache``, or ``python -m missioncache_cli``); this package cannot import it.
"""

from __future__ import annotations

import sys

if sys.argv[1:] != ["heartbeat-auto"]:
    sys.stderr.write(
        "python -m missioncache_time runs only heartbeat-auto; the command line is"
        " `missioncache` (python -m missioncache_cli)\n"
    )
    raise SystemExit(2)

from os.path import abspath, dirname

from missioncache_state.bytecode import install

install(dirname(dirname(dirname(abspath(__file__)))))  # the plugin of this lib
from missioncache_time._heartbeat_auto import heartbeat_auto  # noqa: E402

raise SystemExit(heartbeat_auto())
