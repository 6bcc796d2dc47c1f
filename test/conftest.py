"""Run-wide checks: a skipped test has not passed.

Every skip is compared with ``test/expected_skips.txt``. Unexpected skips are listed
at the end of the run; with ``TRACE_ROS_STRICT_SKIPS=1`` (``make test``, so CI) they
fail it, so CI cannot go green with the ROS, DDS or model tests skipped.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

EXPECTED_FILE = Path(__file__).with_name("expected_skips.txt")
STRICT_ENV = "TRACE_ROS_STRICT_SKIPS"


def load_expected(path: Path = EXPECTED_FILE) -> list[tuple[str, str]]:
    """(node-ID prefix, reason fragment) pairs; '#' starts a comment."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            prefix, _, reason = (part.strip() for part in line.partition("|"))
            pairs.append((prefix, reason))
    return pairs


def is_expected(nodeid: str, reason: str, expected: list[tuple[str, str]]) -> bool:
    return any(nodeid.startswith(prefix) and fragment in reason for prefix, fragment in expected)


def _reason(report: Any) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


class SkipGuard:
    def __init__(self) -> None:
        self.expected = load_expected()
        self.unexpected: list[tuple[str, str]] = []

    def _note(self, report: Any) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = _reason(report)
            if not is_expected(report.nodeid, reason, self.expected):
                self.unexpected.append((report.nodeid, reason))

    def pytest_runtest_logreport(self, report: Any) -> None:
        self._note(report)

    def pytest_collectreport(self, report: Any) -> None:
        self._note(report)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.unexpected:
            return
        terminalreporter.section("unexpected skips (not in test/expected_skips.txt)")
        for nodeid, reason in self.unexpected:
            terminalreporter.line(f"{nodeid}: {reason}")
        if os.environ.get(STRICT_ENV) == "1":
            terminalreporter.line(f"{STRICT_ENV}=1: the run fails because of these skips")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.unexpected and os.environ.get(STRICT_ENV) == "1" and exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SkipGuard(), "trace_ros_skip_guard")


# -- a PostgreSQL server for the tests that run something on both engines -------------------

@pytest.fixture(scope="session")
def pg_admin_url() -> Any:
    """A PostgreSQL server for the run: ``TRACE_ROS_TEST_PG_URL`` (a server the tests may
    create databases on), else one from the ``pgserver`` wheel in a temporary folder, with
    autovacuum off: the run creates hundreds of small databases, and an ANALYZE of one
    holds a transaction ID that keeps rows of another test's database from settling
    (``storage/postgresql/settled``) for a moment, where a test reads what it just wrote."""
    given = os.environ.get("TRACE_ROS_TEST_PG_URL")
    from trace_ros.storage.url import parse_ledger_url

    if given:
        yield parse_ledger_url(given, "TRACE_ROS_TEST_PG_URL")
        return
    pytest.importorskip("pgserver", reason="PostgreSQL tests need pgserver (requirements.txt)")
    import tempfile

    import psycopg

    from trace_ros.bench.engines import own_server
    from trace_ros.storage.postgresql.base import conninfo

    server, admin = own_server(Path(tempfile.mkdtemp(prefix="trace_ros_pg_")), "tests")
    try:
        with psycopg.connect(**conninfo(admin), autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET autovacuum = off")
            conn.execute("SELECT pg_reload_conf()")
        yield admin
    finally:
        server.cleanup()


@pytest.fixture
def pg_database(pg_admin_url: Any) -> Any:
    """``pg_database(name)`` -> the URL of a new, empty database on the run's server."""
    from trace_ros.storage.postgresql.admin import fresh_database

    def make(name: str) -> Any:
        return fresh_database(pg_admin_url, f"{name}_{os.getpid()}")

    return make
