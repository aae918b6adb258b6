"""MissionCache team: the laptop's side of the team's PostgreSQL (docs/team.md).

Standard library only, Python 3.9+: the command line and the hooks import it. What talks
to the server (psycopg) is ``missioncache_teamdb``, run through ``uvx`` off the hot path.

- ``config``: the team's settings in ``<data root>/team/`` (never a password).
- ``outbox``: every event that leaves the laptop, with its id; which ones were sent.
- ``hooks``: the detached, debounced push the hooks start; the notice told once.
- ``status``: the last push's outcome and what the person is told.
"""
