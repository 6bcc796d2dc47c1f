"""Ledgers of every engine for the contract tests: SQLite (a real WAL file in a temp dir)
and PostgreSQL (the run's server, ``pg_admin_url`` of test/conftest.py: the ``pgserver``
wheel's, started once per run in a temp dir; one fresh database per test).

``TRACE_ROS_TEST_PG_URL`` names an existing server instead (a database the tests may
create databases on). Where neither is available the PostgreSQL cases are skipped with
the reason.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from trace_ros.storage.url import LedgerURL

ENGINES = ("sqlite", "postgresql")
_counter = itertools.count()


def _create_database(admin: LedgerURL) -> LedgerURL:
    import psycopg

    from trace_ros.storage.postgresql.base import conninfo

    name = f"trace_ros_t{os.getpid()}_{next(_counter)}"
    with psycopg.connect(**conninfo(admin), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return LedgerURL(admin.engine, user=admin.user, password=admin.password, host=admin.host,
                     port=admin.port, database=name, options=admin.options)


@pytest.fixture
def fresh_pg_url(pg_admin_url: LedgerURL) -> LedgerURL:
    """The URL of a new, empty PostgreSQL database (no ledger opened on it)."""
    return _create_database(pg_admin_url)


@pytest.fixture
def open_engine(request: pytest.FixtureRequest, tmp_path: Path
                ) -> Iterator[Callable[[str], Any]]:
    """``open_engine(engine)`` -> a fresh ledger of that engine (closed at teardown)."""
    opened: list[Any] = []

    def make(engine: str) -> Any:
        if engine == "sqlite":
            from trace_ros.ledger import Ledger

            led: Any = Ledger(tmp_path / f"m{len(opened)}.db")
        else:
            from trace_ros.storage.postgresql import PgLedger

            led = PgLedger(_create_database(request.getfixturevalue("pg_admin_url")))
        opened.append(led)
        return led

    yield make
    for led in opened:
        led.close()


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def ledger(engine: str, open_engine: Callable[[str], Any]) -> Any:
    return open_engine(engine)


@pytest.fixture
def grant(capsys: pytest.CaptureFixture[str]) -> Callable[[Any, Sequence[str]], LedgerURL]:
    """``grant(owner_ledger, subjects)`` -> the URL of a new database role that
    ``trace-ros ledger grant`` confined to ``subjects`` on the owner's PostgreSQL ledger."""
    from dataclasses import replace

    from trace_ros.cli import main

    def make(owner: Any, subjects: Sequence[str]) -> LedgerURL:
        role = f"role_{os.getpid()}_{next(_counter)}"
        host = dict(owner.url.options).get("host", "")
        url = f"postgresql://{owner.url.user}@/{owner.url.database}?host={host}"
        argv = ["ledger", "grant", "--ledger-url", url, "--role", role, "--json"]
        for subject in subjects:
            argv += ["--subject", subject]
        assert main(argv) == 0
        capsys.readouterr()
        return replace(owner.url, user=role, password="")

    return make
