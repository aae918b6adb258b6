"""StopFailure: a turn ended on an API error. Records the turn's end; prints nothing.

Claude Code fires StopFailure instead of Stop when a turn fails after its retries
(contract 11.3), with the same ``prompt_id`` as the turn's UserPromptSubmit, so the
turn is closed exactly as a Stop closes it: one line appended to the heartbeat spool
(``missioncache_spool.record_turn_end``), no SQLite, no task lookup. Its output is ignored by
Claude Code, so there is nothing to say. Kept tiny on purpose: in ``-p`` mode Claude
Code sends SIGTERM about 20 ms after starting this hook (contract 11.3), so there it
is best effort; a turn whose end is lost is bounded like an interrupted one
(docs/time.md). See docs/hooks.md.
"""

from __future__ import annotations


def main() -> None:
    from missioncache_hookio.payload import read_payload, well_typed

    payload = read_payload()
    if payload is None or not well_typed(payload):
        return
    from missioncache_spool import record_turn_end
    from missioncache_state.ids import prompt_id_or_none, session_id_or_none

    # The entry: the ids are parsed once, here.
    sid = session_id_or_none(payload.get("session_id"))
    prompt_id = prompt_id_or_none(payload.get("prompt_id"))
    # Its payload lists no background tasks: turns.py reads a failure as "an agent may
    # still run" and lets a following <task-notification> prompt decide (docs/time.md).
    record_turn_end(sid, prompt_id, "failure")
    transcript = payload.get("transcript_path")
    if transcript:  # best effort (see above); the next Stop reads the same lines anyway
        from missioncache_spool import record_usage

        record_usage(sid, transcript, prompt_id, catch_up=False)  # no reply is coming
