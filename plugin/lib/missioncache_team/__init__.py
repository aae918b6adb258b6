"""MissionCache team: the laptop's side of the team's PostgreSQL (docs/team.md).

Standard library only, Python 3.9+: the command line and the hooks import it. What talks
to the server (psycopg) is ``missioncache_teamdb``, run through ``uvx`` off the hot path.

- ``config``: the team's settings in ``<data root>/team/`` (never a password).
- ``outbox``: every event that leaves the laptop, with its id; what a push sends.
- ``ledger``: which events the server has and how far tasks.db was read, so a push
  reads what is new, not the history.
- ``hooks``: the detached, debounced push the hooks start; the notice told once.
- ``status``: the last push's outcome and what the person is told.
- ``launch``: running the server side (``missioncache_teamdb``) here or through uvx,
  with its output passed on (the command line) or captured within a deadline (the
  dashboard).
"""
