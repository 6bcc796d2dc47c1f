"""Which engine a benchmark's ledger runs on: a fresh SQLite file (the default), an empty
PostgreSQL database that ``--ledger-url postgresql://…`` names, or, with ``--engine
postgresql`` and no URL, a server of the run's own (the ``pgserver`` wheel, in a temporary
folder, removed afterwards) with a fresh database on it.

A benchmark never empties a PostgreSQL database it was given: one that already holds
sources is refused with one line.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..cliargs import add_ledger_url

ENGINES = ("sqlite", "postgresql")


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """``--engine`` and ``--ledger-url`` (read back by ``postgresql_target``)."""
    parser.add_argument("--engine", choices=ENGINES, default=None,
                        help="postgresql without --ledger-url: a server of its own (pgserver) "
                             "in a temporary folder, fresh databases on it")
    add_ledger_url(parser)


def postgresql_target(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Any:
    """The PostgreSQL URL ``--ledger-url`` names (a ``LedgerURL``), or None: SQLite, or
    ``--engine postgresql`` on a server of its own. Ends the command with one line for a
    bad URL, a sqlite: URL (the benchmark makes its own file) or a disagreeing --engine."""
    if not args.ledger_url:
        return None
    from ..errors import ConfigError
    from ..storage.url import POSTGRESQL, parse_ledger_url

    try:
        url = parse_ledger_url(args.ledger_url, "--ledger-url")
    except ConfigError as exc:
        parser.error(str(exc))
    if url.engine != POSTGRESQL:
        parser.error(f"--ledger-url: {parser.prog} makes its own SQLite file; "
                     "give a postgresql:// URL or none")
    if args.engine == "sqlite":
        parser.error("--ledger-url: a postgresql:// URL and --engine sqlite disagree")
    return url


def engine_name(args: argparse.Namespace) -> str:
    """The engine a run's ledger is on: "postgresql" or "sqlite"."""
    pg = getattr(args, "pg_url", None) is not None or getattr(args, "engine", None) == "postgresql"
    return "postgresql" if pg else "sqlite"


def own_server(folder: Path, prog: str) -> tuple[Any, Any]:
    """A PostgreSQL server of this run (pgserver) in ``folder``, and its admin URL."""
    try:
        import pgserver
    except ImportError as exc:
        raise SystemExit(f"{prog}: a PostgreSQL server of its own needs pgserver ({exc}); "
                         "pip install -r requirements.txt, or give --ledger-url") from None
    from ..storage.url import parse_ledger_url

    server = pgserver.get_server(folder, cleanup_mode="delete")
    return server, parse_ledger_url(server.get_uri(), "pgserver")


def open_empty(url: Any, config: Any) -> Any:
    """The PostgreSQL ledger at ``url``, which must hold no source (``TraceError``)."""
    from ..errors import TraceError
    from ..storage import open_ledger

    ledger = open_ledger(url, config, field="--ledger-url")
    if ledger.count_sources():
        ledger.close()
        raise TraceError(f"--ledger-url: {url} is not empty; the benchmark needs an empty "
                         "database (it never deletes one)")
    return ledger


@contextmanager
def bench_ledger(args: argparse.Namespace, sqlite_path: Path, config: Any, prog: str,
                 database: str) -> Iterator[tuple[Any, str]]:
    """The fresh ledger of one benchmark run and its URL as printed (no password): the
    SQLite file ``sqlite_path`` (recreated), the empty database of ``args.pg_url``, or
    with ``--engine postgresql`` database ``database`` on a server of its own."""
    from ..ledger import Ledger
    from .resources import remove_db

    server = None
    try:
        if getattr(args, "pg_url", None) is not None:
            url = args.pg_url
        elif getattr(args, "engine", None) == "postgresql":
            from ..storage.postgresql.admin import fresh_database

            server, admin = own_server(Path(tempfile.mkdtemp(prefix="trace_ros_bench_pg_")), prog)
            url = fresh_database(admin, database)
        else:
            remove_db(sqlite_path)
            with Ledger(sqlite_path, config) as ledger:
                yield ledger, f"sqlite://{Path(sqlite_path).absolute()}"
            return
        ledger = open_empty(url, config)
        try:
            yield ledger, str(url)
        finally:
            ledger.close()
    finally:
        if server is not None:
            server.cleanup()
