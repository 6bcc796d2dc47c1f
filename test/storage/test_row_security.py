"""Row-level security on the PostgreSQL ledger: a role confined to its subjects cannot
read or change another subject's rows, even with hand-written SQL, and still uses its
own through ``PgLedger``.

The ledger is filled as the owner (the server's superuser) with three subjects (ann, bob,
carol: sources, jobs, sessions, vectors, audit rows and their source links, a tombstone);
``trace-ros ledger grant`` then confines a new role to ann and bob, and the test connects
AS that role.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.cli import main
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Scope
from trace_ros.storage.records import AuditRecord

psycopg = pytest.importorskip("psycopg")

CFG = CaptureConfig()
MINE = {"ann", "bob"}
_roles = itertools.count()


def _fill(led: Any) -> None:
    for subject in ("ann", "bob", "carol"):
        events = [Event("dialogue", Scope(subject, "r1", "s1"), f"{subject} turn {i}",
                        subject.title(), stamp=100.0 + i, source_id=f"{subject}-{i}")
                  for i in range(3)]
        ingest(led, events, CFG)
        led.replace_vectors("m", [(f"{subject}-{i}", subject, np.ones(4, np.float32))
                                  for i in range(3)])
    for qid, subject in enumerate(("ann", "bob", "carol"), start=1):
        led.write_audit([AuditRecord(qid, 1.0, subject, {"subject_id": subject}, "q?", {}, {},
                                     [f"{subject}-0"], [f"{subject}-0"], "a", "answered",
                                     "extractive", {})])
    led.forget(source_ids=["carol-2"])


@pytest.fixture
def confined(open_engine: Callable[[str], Any], capsys: pytest.CaptureFixture[str]
             ) -> Iterator[tuple[Any, Any, str]]:
    """(owner's ledger, the role's URL, role name) with the role granted ann and bob."""
    owner = open_engine("postgresql")
    _fill(owner)
    role = f"site_{os.getpid()}_{next(_roles)}"
    assert main(["ledger", "grant", "--ledger-url", _url(owner.url), "--role", role,
                 "--subject", "ann", "--subject", "bob", "--json"]) == 0
    capsys.readouterr()
    from dataclasses import replace

    yield owner, replace(owner.url, user=role, password=""), role


def _url(url: Any) -> str:
    host = dict(url.options).get("host", "")
    return f"postgresql://{url.user}@/{url.database}?host={host}"


def _connect(url: Any) -> Any:
    from trace_ros.storage.postgresql.base import conninfo

    return psycopg.connect(**conninfo(url), autocommit=True)


def _tables(conn: Any) -> dict[str, list[str]]:
    rows = conn.execute("SELECT table_name, column_name FROM information_schema.columns "
                        "WHERE table_schema = current_schema() ORDER BY ordinal_position")
    out: dict[str, list[str]] = {}
    for table, column in rows:
        out.setdefault(table, []).append(column)
    return out


def _counts(conn: Any) -> dict[str, int]:
    return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in _tables(conn)}


def test_the_role_reads_only_its_subjects_in_every_table(confined: tuple[Any, Any, str]) -> None:
    owner, url, _role = confined
    with _connect(owner.url) as admin, _connect(url) as conn:
        tables = _tables(admin)
        for table, columns in tables.items():
            rows = conn.execute(f'SELECT * FROM "{table}"').fetchall()
            if "subject_id" in columns:
                subjects = {r[columns.index("subject_id")] for r in rows}
                assert subjects <= MINE, (table, subjects)
                everyone = {r[0] for r in admin.execute(f'SELECT subject_id FROM "{table}"')}
                assert subjects == everyone & MINE, table  # its own rows are all there
        linked = {r[0] for r in conn.execute("SELECT source_id FROM audit_sources")}
        assert linked == {"ann-0", "bob-0"}  # confined by its own subject
        assert not conn.execute("SELECT 1 FROM sources WHERE text LIKE 'carol%' "
                                "OR subject_id = 'carol'").fetchall()
        assert conn.execute("SELECT count(*) FROM vectors v JOIN sources s "
                            "ON s.source_id = v.owner_id").fetchone()[0] == 6


def test_the_role_cannot_change_or_add_another_subjects_rows(
        confined: tuple[Any, Any, str]) -> None:
    owner, url, _role = confined
    with _connect(owner.url) as admin, _connect(url) as conn:
        before = _counts(admin)
        moved = set()
        for table, columns in _tables(admin).items():
            if "subject_id" not in columns:
                continue
            q = f'"{table}"'
            assert conn.execute(f"UPDATE {q} SET subject_id = subject_id "
                                "WHERE subject_id = 'carol'").rowcount == 0
            assert conn.execute(f"DELETE FROM {q} WHERE subject_id = 'carol'").rowcount == 0
            assert conn.execute(f"DELETE FROM {q} WHERE subject_id NOT IN ('ann', 'bob')"
                                ).rowcount == 0
            if conn.execute(f"SELECT count(*) FROM {q} WHERE subject_id = 'ann'").fetchone()[0]:
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(f"UPDATE {q} SET subject_id = 'carol' "
                                 "WHERE subject_id = 'ann'")
                moved.add(table)
        assert {"sources", "jobs", "sessions", "vectors", "audit", "subject_queues"} <= moved
        assert conn.execute("DELETE FROM audit_sources WHERE source_id LIKE 'carol%'"
                            ).rowcount == 0
        bad_inserts = (
            "INSERT INTO sources (source_id, subject_id, modality, text, source_time, "
            "known_time, content_hash) VALUES ('x-1', 'carol', 'dialogue', 'hi', 1, 1, 'h')",
            "INSERT INTO subject_queues (subject_id) VALUES ('dave')",
            "INSERT INTO sessions (subject_id, session_id, start_time, end_time) "
            "VALUES ('carol', 'sx', 1, 2)",
            "INSERT INTO jobs (subject_id, source_seq, created_at, updated_at) "
            "SELECT 'carol', seq, 1, 1 FROM sources WHERE source_id = 'ann-0'",
            "INSERT INTO audit_sources (subject_id, query_id, source_id, role) "
            "VALUES ('carol', 3, 'x', 'shown')",
            "INSERT INTO tombstones (subject_id, source_id, removed_at) VALUES ('carol', 'x', 1)",
        )
        for statement in bad_inserts:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        assert _counts(admin) == before


def test_the_role_uses_its_own_subjects_through_the_ledger(
        confined: tuple[Any, Any, str]) -> None:
    from trace_ros.errors import LedgerError
    from trace_ros.storage.postgresql import PgLedger

    owner, url, role = confined
    with PgLedger(url) as led:
        assert [r.status for r in ingest(led, [Event("dialogue", Scope("ann", "r2", "s9"),
                                                     "new turn", "Ann", stamp=300.0)], CFG)] \
            == ["accepted"]
        assert len(led.sources_in_scope(Scope("ann"))) == 4
        assert led.sources_in_scope(Scope("carol")) == []
        assert led.get_sources(["carol-0"]) == []
        assert {j.source.subject_id for j in led.claim_jobs("w", 50, 30.0, 3)} == MINE
        assert sorted(led.forget(Scope("bob"))) == ["bob-0", "bob-1", "bob-2"]
        with pytest.raises((psycopg.Error, LedgerError)):
            ingest(led, [Event("dialogue", Scope("carol", "r1", "s1"), "sneaky", "Carol",
                               stamp=400.0)], CFG)
    assert len(owner.sources_in_scope(Scope("carol"))) == 2  # untouched
    assert owner.count_sources() == 4 + 2  # ann 4, carol 2; bob forgotten by the role
    # Granting again replaces the role's subjects.
    assert main(["ledger", "grant", "--ledger-url", _url(owner.url), "--role", role,
                 "--subject", "carol"]) == 0
    with PgLedger(url) as led:
        assert led.sources_in_scope(Scope("ann")) == []
        assert len(led.sources_in_scope(Scope("carol"))) == 2


def test_the_grant_reports_which_tables_it_confines(confined: tuple[Any, Any, str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import json

    owner, _url_, role = confined
    assert main(["ledger", "grant", "--ledger-url", _url(owner.url), "--role", role,
                 "--subject", "ann", "--json"]) == 0
    grant = json.loads(capsys.readouterr().out)
    with _connect(owner.url) as admin:
        tables = _tables(admin)
    assert set(grant["confined"]) == {t for t, c in tables.items() if "subject_id" in c}
    assert {"tombstones", "audit_sources"} <= set(grant["confined"])
    assert grant["through_parent"] == []
    # Tables with no subject of their own: named so an operator sees them.
    assert set(grant["unconfined"]) == set(tables) - set(grant["confined"])
    assert grant["created"] is False


def test_tombstones_of_another_subject_are_hidden(confined: tuple[Any, Any, str]) -> None:
    owner, url, _role = confined
    owner.forget(source_ids=["ann-2"])
    with _connect(url) as conn:
        assert conn.execute("SELECT subject_id, source_id FROM tombstones").fetchall() == \
            [("ann", "ann-2")]
    with _connect(owner.url) as admin:
        assert sorted(admin.execute("SELECT subject_id, source_id FROM tombstones")) == \
            [("ann", "ann-2"), ("carol", "carol-2")]


@pytest.mark.parametrize("argv, field", [
    (["--role", "Site-A", "--subject", "ann"], "--role"),
    (["--role", "pg_site", "--subject", "ann"], "--role"),
    (["--role", "site_a"], "--subject"),
    (["--role", "site_a", "--subject", " "], "--subject"),
])
def test_bad_arguments_are_one_line(argv: list[str], field: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ledger", "grant", "--ledger-url", "postgresql://u@/db", *argv])
    err = capsys.readouterr().err
    assert code == 2 and field in err and len(err.strip().splitlines()) == 1


def test_a_sqlite_ledger_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ledger", "grant", "--ledger-url", "sqlite:///tmp/x.db", "--role", "site_a",
                 "--subject", "ann"])
    err = capsys.readouterr().err
    assert code == 2 and "--ledger-url" in err and "postgresql" in err
    assert len(err.strip().splitlines()) == 1


def test_a_superuser_cannot_be_confined(open_engine: Callable[[str], Any],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    owner = open_engine("postgresql")
    code = main(["ledger", "grant", "--ledger-url", _url(owner.url), "--role", owner.url.user,
                 "--subject", "ann"])
    err = capsys.readouterr().err
    assert code == 2 and "role" in err and "cannot" in err
