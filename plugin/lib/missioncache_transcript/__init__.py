"""Reads Claude Code session transcripts from the end: current exchange, edits, recent turns.

``from missioncache_transcript import find_edits, recent_turns`` works, but nothing is
imported until a name is first used (PEP 562): hooks run on every prompt and should pay
only for what they touch.
"""

from __future__ import annotations

from missioncache_state import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    # the names __getattr__ serves, for the type checker
    from .conversation import EDIT_TOOLS as EDIT_TOOLS
    from .conversation import is_prompt as is_prompt
    from .conversation import is_typed_prompt as is_typed_prompt
    from .edits import Edit as Edit
    from .edits import edits_in as edits_in
    from .edits import find_edits as find_edits
    from .exchange import Exchange as Exchange
    from .exchange import current_exchange as current_exchange
    from .recap import Recap as Recap
    from .recap import since_last_save as since_last_save
    from .records import iter_records_reversed as iter_records_reversed
    from .records import parse_record as parse_record
    from .reverse_reader import DEFAULT_BLOCK_SIZE as DEFAULT_BLOCK_SIZE
    from .reverse_reader import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
    from .reverse_reader import iter_lines_reversed as iter_lines_reversed
    from .turns import RecentTurns as RecentTurns
    from .turns import Turn as Turn
    from .turns import read_recent_turns as read_recent_turns
    from .turns import recent_turns as recent_turns

_EXPORTS = {
    "find_edits": "edits",
    "edits_in": "edits",
    "Edit": "edits",
    "EDIT_TOOLS": "conversation",
    "recent_turns": "turns",
    "read_recent_turns": "turns",
    "Turn": "turns",
    "RecentTurns": "turns",
    "current_exchange": "exchange",
    "Exchange": "exchange",
    "iter_records_reversed": "records",
    "parse_record": "records",
    "iter_lines_reversed": "reverse_reader",
    "DEFAULT_BLOCK_SIZE": "reverse_reader",
    "DEFAULT_MAX_BYTES": "reverse_reader",
    "since_last_save": "recap",
    "Recap": "recap",
    "is_prompt": "conversation",
    "is_typed_prompt": "conversation",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
