"""The team's PostgreSQL schema: tables, row-level security, the member role, the views.

``init`` (``missioncache team setup URL --init``, run as the database's owner) creates and
migrates it; ``add_member`` makes a login role a member. The rules the server enforces,
whatever a client sends:

- every table has ``person``, which defaults to ``current_user``; a policy for the group
  role ``missioncache_member`` lets a member see, insert, change and delete only rows whose
  person is its own role (``USING`` and ``WITH CHECK``): a client that sends another
  person's name is refused, one that tries to change or delete another's row finds none;
- members read the team's figures through views (owned by the owner, so they see every
  person's rows): ``team_time_per_day``, ``team_cost_per_task``, ``team_time_per_person``,
  and the two the team report reads, ``team_turn_events`` and ``team_messages``.

The time views are the product's time model (``missioncache_time``) in SQL, with the
default idle timeout and assumed-work tail (``missioncache.settings``); the team report
computes the same figures in Python from ``team_turn_events``.
"""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = 2  # 2: waits (retry back-offs, usage limits), taken out of the time
MEMBER_ROLE = "missioncache_member"
TABLES = ("tasks", "turn_starts", "turn_ends", "messages", "waits")
MEMBER_VIEWS = (
    "team_turn_events",
    "team_messages",
    "team_wait_events",
    "team_waits",
    "team_turns",
    "team_time_per_person",
    "team_time_per_day",
    "team_cost_per_task",
)

_ROLE = f"""
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{MEMBER_ROLE}') THEN
        CREATE ROLE {MEMBER_ROLE} NOLOGIN;
    END IF;
END $$
"""

_PERSON = "person text NOT NULL DEFAULT current_user"
_ID = "id text NOT NULL CHECK (length(id) <= 64)"
_MACHINE = "machine text NOT NULL CHECK (length(machine) <= 64)"
_SESSION = "session_id text NOT NULL CHECK (length(session_id) <= 128)"
_PROMPT = "prompt_id text CHECK (length(prompt_id) <= 128)"
_EPOCH = "epoch double precision NOT NULL CHECK (epoch >= 0 AND epoch < 1e11)"

_V1 = [
    "CREATE SCHEMA IF NOT EXISTS missioncache",
    "CREATE TABLE IF NOT EXISTS missioncache.meta (key text PRIMARY KEY, value text NOT NULL)",
    """CREATE TABLE IF NOT EXISTS missioncache.settings (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        idle_seconds double precision NOT NULL DEFAULT 300,
        tail_seconds double precision NOT NULL DEFAULT 120)""",
    "INSERT INTO missioncache.settings DEFAULT VALUES ON CONFLICT DO NOTHING",
    f"""CREATE TABLE IF NOT EXISTS missioncache.tasks (
        {_PERSON},
        uid text NOT NULL CHECK (length(uid) <= 64),
        {_MACHINE},
        name text NOT NULL CHECK (length(name) <= 200),
        team_key text NOT NULL CHECK (length(team_key) <= 200),
        client text CHECK (length(client) <= 80),
        fork_parent text CHECK (length(fork_parent) <= 64),
        private boolean NOT NULL DEFAULT false,
        changed double precision NOT NULL,
        PRIMARY KEY (person, uid))""",
    f"""CREATE TABLE IF NOT EXISTS missioncache.turn_starts (
        {_PERSON}, {_ID}, {_MACHINE},
        task_uid text NOT NULL CHECK (length(task_uid) <= 64),
        {_SESSION}, {_PROMPT}, {_EPOCH},
        kind smallint NOT NULL CHECK (kind IN (0, 1, 2)),
        PRIMARY KEY (person, id))""",
    f"""CREATE TABLE IF NOT EXISTS missioncache.turn_ends (
        {_PERSON}, {_ID}, {_MACHINE}, {_SESSION},
        prompt_id text NOT NULL CHECK (length(prompt_id) <= 128), {_EPOCH},
        background smallint NOT NULL CHECK (background BETWEEN -1 AND 1000),
        PRIMARY KEY (person, id))""",
    f"""CREATE TABLE IF NOT EXISTS missioncache.messages (
        {_PERSON}, {_ID}, {_MACHINE},
        task_uid text NOT NULL CHECK (length(task_uid) <= 64),
        {_SESSION}, {_PROMPT}, {_EPOCH},
        model text CHECK (length(model) <= 200),
        speed text CHECK (length(speed) <= 40),
        input_tokens bigint NOT NULL CHECK (input_tokens >= 0),
        output_tokens bigint NOT NULL CHECK (output_tokens >= 0),
        cache_5m_tokens bigint NOT NULL CHECK (cache_5m_tokens >= 0),
        cache_1h_tokens bigint NOT NULL CHECK (cache_1h_tokens >= 0),
        cache_read_tokens bigint NOT NULL CHECK (cache_read_tokens >= 0),
        cost_usd double precision CHECK (cost_usd >= 0),
        PRIMARY KEY (person, id))""",
    "CREATE INDEX IF NOT EXISTS turn_ends_prompt"
    " ON missioncache.turn_ends (person, session_id, prompt_id)",
    "CREATE INDEX IF NOT EXISTS turn_starts_task ON missioncache.turn_starts (person, task_uid)",
    "CREATE INDEX IF NOT EXISTS messages_task ON missioncache.messages (person, task_uid)",
]

# Version 2: the waits (docs/time.md, "Waiting is nobody's"), each a span of one session.
_V2 = [
    f"""CREATE TABLE IF NOT EXISTS missioncache.waits (
        {_PERSON}, {_ID}, {_MACHINE},
        task_uid text NOT NULL CHECK (length(task_uid) <= 64),
        {_SESSION}, {_EPOCH},
        seconds double precision NOT NULL CHECK (seconds > 0 AND seconds < 1e7),
        PRIMARY KEY (person, id))""",
    "CREATE INDEX IF NOT EXISTS waits_task ON missioncache.waits (person, task_uid)",
]

# The raw figures the team report reads: one row per turn start, with its latest end.
_TURN_EVENTS = """CREATE OR REPLACE VIEW missioncache.team_turn_events AS
SELECT s.person, s.id, s.task_uid, coalesce(t.team_key, s.task_uid) AS task, t.client,
       s.session_id, s.prompt_id, s.epoch AS started, s.kind,
       e.epoch AS ended, e.background
FROM missioncache.turn_starts s
LEFT JOIN missioncache.tasks t ON t.person = s.person AND t.uid = s.task_uid
LEFT JOIN LATERAL (
    SELECT x.epoch, x.background FROM missioncache.turn_ends x
    WHERE s.prompt_id IS NOT NULL AND x.person = s.person
      AND x.session_id = s.session_id AND x.prompt_id = s.prompt_id
    ORDER BY x.epoch DESC, x.background DESC LIMIT 1) e ON true"""

_MESSAGES = """CREATE OR REPLACE VIEW missioncache.team_messages AS
SELECT m.person, coalesce(t.team_key, m.task_uid) AS task, t.client, m.epoch, m.model,
       m.speed, m.input_tokens, m.output_tokens, m.cache_5m_tokens, m.cache_1h_tokens,
       m.cache_read_tokens, m.cost_usd
FROM missioncache.messages m
LEFT JOIN missioncache.tasks t ON t.person = m.person AND t.uid = m.task_uid"""

_WAIT_EVENTS = """CREATE OR REPLACE VIEW missioncache.team_wait_events AS
SELECT w.person, coalesce(t.team_key, w.task_uid) AS task, w.session_id, w.epoch, w.seconds
FROM missioncache.waits w
LEFT JOIN missioncache.tasks t ON t.person = w.person AND t.uid = w.task_uid"""

# missioncache_time.wait_union in SQL: each person's waits on a team task as disjoint
# blocks (a, b), cut at the present (two sessions waiting in one minute wait one minute).
_WAITS = """CREATE OR REPLACE VIEW missioncache.team_waits AS
WITH w AS (
    SELECT person, task, epoch AS a,
           least(epoch + seconds, extract(epoch FROM clock_timestamp())::double precision) AS b
    FROM missioncache.team_wait_events),
o AS (
    SELECT w.*, max(b) OVER (PARTITION BY person, task ORDER BY a, b
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_b
    FROM w WHERE b > a),
n AS (
    SELECT o.*, sum(CASE WHEN prev_b IS NULL OR a > prev_b THEN 1 ELSE 0 END) OVER (
               PARTITION BY person, task ORDER BY a, b ROWS UNBOUNDED PRECEDING) AS block
    FROM o)
SELECT person, task, min(a) AS a, max(b) AS b FROM n GROUP BY person, task, block"""

# missioncache_time.turn_intervals in SQL: each turn as (start, stop, reach).
_TURNS = """CREATE OR REPLACE VIEW missioncache.team_turns AS
WITH s AS (
    SELECT idle_seconds AS idle, tail_seconds AS tail,
           extract(epoch FROM clock_timestamp())::double precision AS now
    FROM missioncache.settings),
firsts AS (
    SELECT DISTINCT ON (e.person, e.task_uid, e.session_id, coalesce(e.prompt_id, 'h:' || e.id))
           e.person, e.task_uid, e.task, e.session_id, e.prompt_id,
           least(e.started, s.now) AS start, e.kind, e.ended, e.background
    FROM missioncache.team_turn_events e, s
    ORDER BY e.person, e.task_uid, e.session_id, coalesce(e.prompt_id, 'h:' || e.id),
             least(e.started, s.now), e.kind),
ordered AS (
    SELECT f.*, lead(f.start) OVER w AS next_start, lead(f.kind) OVER w AS next_kind
    FROM firsts f
    WINDOW w AS (PARTITION BY f.person, f.task_uid, f.session_id
                 ORDER BY f.start, coalesce(f.prompt_id, '') COLLATE "C", f.kind)),
shaped AS (
    SELECT o.*, s.idle, s.tail, s.now,
           CASE WHEN o.ended IS NULL
                THEN least(coalesce(o.next_start, 'Infinity'), o.start + s.tail, s.now)
                ELSE greatest(o.start, least(o.ended, s.now)) END AS base
    FROM ordered o, s
    WHERE NOT (o.kind = 2 AND o.ended IS NULL)),
turns AS (
    SELECT person, task_uid, task, session_id, start, ended IS NULL AS open, idle,
           CASE
             WHEN ended IS NULL THEN base
             WHEN background < 0 THEN CASE WHEN next_kind = 1
                  THEN greatest(base, least(next_start, now)) ELSE base END
             WHEN background > 0 THEN CASE
                  WHEN next_start IS NULL THEN least(now, base + tail)
                  WHEN next_kind = 1 THEN greatest(base, least(next_start, now))
                  ELSE greatest(base, least(next_start, base + idle, now)) END
             ELSE base END AS stop
    FROM shaped)
SELECT person, task_uid, task, session_id, start, stop,
       CASE WHEN open THEN greatest(stop, start + idle) ELSE stop + idle END AS reach
FROM turns"""

# missioncache_time.merge in SQL: Claude's blocks and the human's counted gaps, per
# person and team task (one person's sessions and machines counted once).
_SPANS = """CREATE OR REPLACE VIEW missioncache.team_spans AS
WITH o AS (
    SELECT person, task, start, stop, reach,
           max(stop) OVER w AS prev_stop, max(reach) OVER w AS prev_reach
    FROM missioncache.team_turns
    WINDOW w AS (PARTITION BY person, task ORDER BY start, stop, reach
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)),
n AS (SELECT o.*, (prev_stop IS NULL OR start > prev_stop) AS new_block FROM o),
b AS (SELECT n.*, sum(CASE WHEN new_block THEN 1 ELSE 0 END) OVER (
          PARTITION BY person, task ORDER BY start, stop, reach ROWS UNBOUNDED PRECEDING) AS block
      FROM n)
SELECT person, task, 'claude' AS part, min(start) AS a, max(stop) AS b
FROM b GROUP BY person, task, block
UNION ALL
SELECT person, task, 'you', prev_stop, start
FROM n WHERE new_block AND prev_stop IS NOT NULL AND start <= prev_reach"""

# TimeSplit.less_waiting in SQL: a task's waits come out of Claude's time (never more).
_PER_PERSON = """CREATE OR REPLACE VIEW missioncache.team_time_per_person AS
WITH sums AS (
    SELECT person, task,
           coalesce(sum(b - a) FILTER (WHERE part = 'claude'), 0) AS claude,
           coalesce(sum(b - a) FILTER (WHERE part = 'you'), 0) AS you
    FROM missioncache.team_spans GROUP BY person, task),
waited AS (SELECT person, task, sum(b - a) AS waiting FROM missioncache.team_waits
           GROUP BY person, task),
r AS (
    SELECT s.person, s.task, round(s.claude + s.you) AS total,
           least(round(s.claude + s.you), round(s.claude)) AS claude_whole,
           greatest(0, least(least(round(s.claude + s.you), round(s.claude)),
                             round(coalesce(w.waiting, 0)))) AS waiting
    FROM sums s LEFT JOIN waited w ON w.person = s.person AND w.task = s.task)
SELECT person, task, (total - waiting)::bigint AS seconds,
       (claude_whole - waiting)::bigint AS claude_seconds,
       (total - claude_whole)::bigint AS you_seconds, waiting::bigint AS waiting_seconds
FROM r"""

# Each day as the report's ``--by day``: Claude's and your time inside the day, less the
# waits inside the day.
_PER_DAY = """CREATE OR REPLACE VIEW missioncache.team_time_per_day AS
WITH pieces AS (
    SELECT sp.person, sp.task, sp.part, d.day::date AS day,
           greatest(0, least(sp.b, extract(epoch FROM d.day + interval '1 day'))
                       - greatest(sp.a, extract(epoch FROM d.day))) AS seconds
    FROM missioncache.team_spans sp,
         generate_series(date_trunc('day', to_timestamp(sp.a)),
                         date_trunc('day', to_timestamp(sp.b)), interval '1 day') AS d(day)),
days AS (
    SELECT day, person, task,
           coalesce(sum(seconds) FILTER (WHERE part = 'claude'), 0) AS claude,
           coalesce(sum(seconds) FILTER (WHERE part = 'you'), 0) AS you
    FROM pieces GROUP BY day, person, task),
wait_pieces AS (
    SELECT wt.person, wt.task, d.day::date AS day,
           greatest(0, least(wt.b, extract(epoch FROM d.day + interval '1 day'))
                       - greatest(wt.a, extract(epoch FROM d.day))) AS seconds
    FROM missioncache.team_waits wt,
         generate_series(date_trunc('day', to_timestamp(wt.a)),
                         date_trunc('day', to_timestamp(wt.b)), interval '1 day') AS d(day)),
waited AS (SELECT day, person, task, sum(seconds) AS waiting FROM wait_pieces
           GROUP BY day, person, task),
r AS (
    SELECT d.day, d.person, d.task, round(d.claude + d.you) AS total,
           greatest(0, least(least(round(d.claude + d.you), round(d.claude)),
                             round(coalesce(w.waiting, 0)))) AS waiting
    FROM days d LEFT JOIN waited w
         ON w.day = d.day AND w.person = d.person AND w.task = d.task)
SELECT day, person, task, (total - waiting)::bigint AS seconds,
       waiting::bigint AS waiting_seconds
FROM r WHERE total - waiting > 0"""

_COST = """CREATE OR REPLACE VIEW missioncache.team_cost_per_task AS
SELECT task, max(client) AS client, count(DISTINCT person) AS people,
       count(*) AS messages,
       sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
       sum(cache_5m_tokens + cache_1h_tokens)::bigint AS cache_write_tokens,
       sum(cache_read_tokens)::bigint AS cache_read_tokens,
       sum(cost_usd) AS cost_usd,
       count(*) FILTER (WHERE cost_usd IS NULL) AS unpriced_messages
FROM missioncache.team_messages GROUP BY task"""

VIEWS = [
    _TURN_EVENTS,
    _MESSAGES,
    _WAIT_EVENTS,
    _WAITS,
    _TURNS,
    _SPANS,
    _PER_PERSON,
    _PER_DAY,
    _COST,
]


def _grants() -> list[str]:
    statements = [f"GRANT USAGE ON SCHEMA missioncache TO {MEMBER_ROLE}"]
    for table in TABLES:
        qualified = f"missioncache.{table}"
        statements += [
            f"ALTER TABLE {qualified} ENABLE ROW LEVEL SECURITY",
            f"DROP POLICY IF EXISTS own_rows ON {qualified}",
            f"CREATE POLICY own_rows ON {qualified} FOR ALL TO {MEMBER_ROLE}"
            " USING (person = current_user) WITH CHECK (person = current_user)",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON {qualified} TO {MEMBER_ROLE}",
        ]
    statements += [f"GRANT SELECT ON missioncache.{view} TO {MEMBER_ROLE}" for view in MEMBER_VIEWS]
    statements.append(f"GRANT SELECT ON missioncache.settings, missioncache.meta TO {MEMBER_ROLE}")
    return statements


def init(conn: Any) -> int:
    """Create or migrate the schema (one transaction, under an advisory lock); returns the
    version now in place. Raises psycopg's error when the role lacks a right."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(4242390001)")
        conn.execute(_ROLE)
        for statement in _V1 + _V2 + VIEWS + _grants():
            conn.execute(statement)
        conn.execute(
            "INSERT INTO missioncache.meta(key, value) VALUES ('schema_version', %s)"
            " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (str(SCHEMA_VERSION),),
        )
    return SCHEMA_VERSION


def version(conn: Any) -> int | None:
    """The schema version on the server, or None when there is no schema."""
    row = conn.execute("SELECT to_regclass('missioncache.meta')").fetchone()
    if row is None or row[0] is None:
        return None
    found = conn.execute(
        "SELECT value FROM missioncache.meta WHERE key = 'schema_version'"
    ).fetchone()
    return int(found[0]) if found else None


def add_member(conn: Any, name: str) -> bool:
    """Make ``name`` a login role in ``missioncache_member``; returns whether the role was
    created (False: it existed and was granted the membership)."""
    from psycopg import sql

    with conn.transaction():
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(name)))
        conn.execute(
            sql.SQL("GRANT {} TO {}").format(sql.Identifier(MEMBER_ROLE), sql.Identifier(name))
        )
    return not exists
