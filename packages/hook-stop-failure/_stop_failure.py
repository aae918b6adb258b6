"""StopFailure: a turn ended on an API error. Records the turn's end; prints nothing.

Claude Code fires StopFailure instead of Stop when a turn fails after its retries
(contract 11.3), with the same ``prompt_id`` as the turn's UserPromptSubmit, so the
turn is closed exactly as a Stop closes it: one line appended to the heartbeat spool
(``missioncache_db.turn_end``), no SQLite, no task lookup. Its output is ignored by
Claude Code, so there is nothing to say. Kept tiny on purpose: in ``-p`` mode Claude
Code sends SIGTERM about 20 ms after starting this hook (contract 11.3), so there it
is best effort; a turn whose end is lost is bounded like an interrupted one
(docs/time.md). See docs/hooks.md.
"""

from __future__ import annotations


def main() -> None:
    from missioncache_hookio.payload import identity, read_payload, well_typed

    payload = read_payload()
    if payload is None or not well_typed(payload):
        return
    from missioncache_db.turn_end import record_turn_end

    ident = identity(payload)  # the ids: parsed once, here
    # Its payload lists no background tasks: turns.py reads a failure as "an agent may
    # still run" and lets a following <task-notification> prompt decide (docs/time.md).
    record_turn_end(ident.session_id, ident.prompt_id, "failure")
    if ident.transcript_path:  # best effort (see above); the next Stop reads them again
        from missioncache_db.usage_record import record_usage

        record_usage(ident.session_id, ident.transcript_path, ident.prompt_id)
