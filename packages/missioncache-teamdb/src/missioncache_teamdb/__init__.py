"""MissionCache's team server side (docs/team.md), psycopg 3, run through ``uvx``.

- ``schema``: the tables, row-level security, the member role and the views (``--init``).
- ``push``: sending the outbox (``missioncache_team.outbox``) in one transaction.
- ``report``: the team's time and cost, through the product's time model.
- ``formats``: the report as text, CSV, JSON or HTML.
"""
