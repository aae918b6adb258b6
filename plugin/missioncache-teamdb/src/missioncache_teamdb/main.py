"""``missioncache-teamdb``: what ``missioncache team ...`` runs through uvx (docs/team.md).

``--check`` (psycopg imports), ``setup URL PERSON [--init]``, ``add-member NAME``,
``push [--auto]``, ``report --period P --by B --format F``, ``figures --period P`` (the
dashboard's team page: the report by task and by person as one JSON object). Messages go
to stderr, the report to stdout; exit 1 with one plain line when something the person can
fix is wrong.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from missioncache_teamdb.bootstrap import ensure_libraries


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="missioncache-teamdb")
    parser.add_argument("--check", action="store_true", help="check that psycopg imports")
    sub = parser.add_subparsers(dest="action")
    setup = sub.add_parser("setup")
    setup.add_argument("url")
    setup.add_argument("person")
    setup.add_argument("--init", action="store_true")
    member = sub.add_parser("add-member")
    member.add_argument("name")
    push = sub.add_parser("push")
    push.add_argument("--auto", action="store_true")
    report = sub.add_parser("report")
    report.add_argument("--period", default="month")
    report.add_argument("--by", default="task")
    report.add_argument("--format", default="text")
    figures = sub.add_parser("figures")
    figures.add_argument("--period", default="week")
    return parser


def setup(url: str, person: str, init: bool) -> int:
    import psycopg

    from missioncache_teamdb import schema
    from missioncache_teamdb.connect import connect

    conn = connect(url, person)
    try:
        if init:
            try:
                schema.init(conn)
            except psycopg.errors.InsufficientPrivilege as error:
                raise SystemExit(
                    f"the schema could not be created ({_line(error)}): run setup --init as"
                    " the database's owner, with the right to create roles (CREATEROLE)"
                ) from None
            print("the team's schema is in place (role missioncache_member)", file=sys.stderr)
        found = schema.version(conn)
        if found is None:
            raise SystemExit(
                "the server has no MissionCache schema yet: whoever administers it runs"
                " `missioncache team setup URL --person NAME --init` once, as the database's owner"
            )
        user = conn.execute("SELECT current_user").fetchone()[0]
        if user != person:
            print(
                f"note: the server knows you as {user}; your figures are recorded under {user}",
                file=sys.stderr,
            )
    finally:
        conn.close()
    return 0


def add_member(name: str) -> int:
    import psycopg

    from missioncache_team import config
    from missioncache_teamdb import schema
    from missioncache_teamdb.connect import connect

    config.valid_person(name)
    settings = config.read()
    conn = connect(settings["url"], settings["person"])
    try:
        created = schema.add_member(conn, name)
    except psycopg.errors.InsufficientPrivilege as error:
        raise SystemExit(
            f"could not add {name} ({_line(error)}): run add-member as the database's owner"
        ) from None
    finally:
        conn.close()
    what = "created and added" if created else "added"
    print(f"{name} {what} to missioncache_member; give the role a password with psql's"
          f" \\password {name}, or let pg_hba.conf say how it logs in")  # fmt: skip
    return 0


def push(auto: bool) -> int:
    from missioncache_teamdb.push import push as run_push

    outcome = run_push(tell=auto)
    if not auto:
        for line in outcome.lines():
            print(line, file=sys.stderr if outcome.error else sys.stdout)
    return 1 if outcome.error and not auto else 0


def report(period: str, by: str, fmt: str) -> int:
    from missioncache_team import config
    from missioncache_teamdb.connect import connect
    from missioncache_teamdb.formats import FORMATS, render
    from missioncache_teamdb.report import collect

    if fmt not in FORMATS:
        raise SystemExit(f"invalid format {fmt!r}: use one of {', '.join(FORMATS)}")
    settings = config.read()
    conn = connect(settings["url"], settings["person"])
    try:
        sys.stdout.write(render(collect(conn, period, by), fmt))
    finally:
        conn.close()
    return 0


def figures(period: str) -> int:
    """The dashboard's team page: the report by task and by person for ``period`` as one
    JSON object (``{"task": ..., "person": ...}``, each what ``report --format json``
    prints), over one connection."""
    import json

    from missioncache_team import config
    from missioncache_teamdb.connect import connect
    from missioncache_teamdb.report import collect

    settings = config.read()
    conn = connect(settings["url"], settings["person"])
    try:
        found = {by: collect(conn, period, by).as_json() for by in ("task", "person")}
    finally:
        conn.close()
    sys.stdout.write(json.dumps(found, ensure_ascii=False) + "\n")
    return 0


def _line(error: BaseException) -> str:
    return " ".join(str(error).split())[:300]


def main(argv: Sequence[str] | None = None) -> int:
    ensure_libraries()
    args = _parser().parse_args(argv)
    if args.check:
        import psycopg

        return 0
    import psycopg

    from missioncache_team.config import TeamError
    from missioncache_teamdb.connect import Unreachable

    try:
        if args.action == "setup":
            return setup(args.url, args.person, args.init)
        if args.action == "add-member":
            return add_member(args.name)
        if args.action == "push":
            return push(args.auto)
        if args.action == "report":
            return report(args.period, args.by, args.format)
        if args.action == "figures":
            return figures(args.period)
        _parser().print_usage(sys.stderr)
        return 2
    except (TeamError, ValueError) as error:
        message = str(error)
    except Unreachable as error:
        message = f"the team's server was not reached: {error}"
    except psycopg.Error as error:
        message = f"the team's server refused: {_line(error)}"
    except SystemExit as error:
        if isinstance(error.code, str):
            message = error.code
        else:
            raise
    print(f"missioncache team: {' '.join(message.split())}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
