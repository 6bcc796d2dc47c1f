"""The SQLite schema's versioned migrations, and ledgers written before the storage split.

``data/ledger_main_0b75e99.db`` was written by main at 0b75e99 (before ``trace_ros.storage``
existed): five events captured and consolidated, one forgotten, one question asked.
``data/ledger_main_0b75e99.json`` holds what that code read back from it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import MIGRATIONS, Ledger, Scope
from trace_ros.storage.sqlite.migrations import LEGACY_TABLE, SCHEMA_TABLE, Migration, Migrations
from trace_ros.storage.sqlite.readonly import open_read_only

DATA = Path(__file__).with_name("data")
LEGACY = DATA / "ledger_main_0b75e99.db"


def _plain(value: Any) -> Any:
    """``value`` as the fixture's JSON holds it."""
    return json.loads(json.dumps(value, default=str))


def _versions(path: Path) -> list[tuple[int, str]]:
    con = sqlite3.connect(path)
    try:
        return con.execute(f"SELECT version, name FROM {SCHEMA_TABLE} ORDER BY version").fetchall()
    finally:
        con.close()


def test_a_new_ledger_records_every_version(tmp_path: Path) -> None:
    with Ledger(tmp_path / "m.db") as led:
        assert MIGRATIONS.pending(led.db) == []
        names = [m.name for m in MIGRATIONS.migrations]
        # The pre-split record is kept in step, so builds before the split can open it.
        assert [r[0] for r in led.query(f"SELECT name FROM {LEGACY_TABLE} ORDER BY id")] == names
    assert _versions(tmp_path / "m.db") == [(m.version, m.name) for m in MIGRATIONS.migrations]


def test_a_ledger_from_before_the_split_is_adopted_and_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copy(LEGACY, path)
    expected = json.loads(LEGACY.with_suffix(".json").read_text())
    # The explorer opens it read-only before anything migrated it.
    with open_read_only(path) as ro:
        assert ro.count_sources() == expected["stats"]["sources"]
    with Ledger(path, create=False) as led:
        stats = led.stats()
        for key in ("db_path", "db_bytes"):
            stats.pop(key)
        assert _plain(stats) == expected["stats"]
        assert _plain(led.graph_snapshot()) == expected["graph"]
        sources = led.sources_in_scope(Scope("alice")) + led.sources_in_scope(Scope("bob"))
        assert _plain([s.__dict__ for s in sources]) == expected["sources"]
        # The same rows in the same order; the scores are the subject's own BM25 since
        # migration m007 (the old build's were FTS5's, over every subject's text).
        found = led.search_sources(Scope("alice"), "seattle OR boston", 5)
        assert [r[:2] for r in _plain(found)] == [r[:2] for r in expected["search"]]
        assert list(led.marks()) == expected["marks"]
        assert _plain(led.query("SELECT question, status FROM audit")) == expected["audit_rows"]
        assert led.integrity_check() == "ok"
        # It keeps working: capture, a refused tombstoned replay, forget.
        res = ingest(led, [Event("dialogue", Scope("alice", "r1", "s3"), "I got a dog.",
                                 "Alice", stamp=200000.0)], CaptureConfig())
        assert res[0].status == "accepted" and res[0].sequence == expected["marks"][1] + 1
        replay = ingest(led, [Event("dialogue", Scope("bob", "r2", "s1"),
                                    "Forget what I said about the garage.", "Bob",
                                    stamp=2100.0)], CaptureConfig())
        assert replay[0].status == "rejected" and "forgotten" in replay[0].reason
        assert led.job_counts()["pending"] == 1
        assert led.forget(Scope("bob")) and led.count_sources("bob") == 0
    assert _versions(path) == [(m.version, m.name) for m in MIGRATIONS.migrations]
    with Ledger(path, create=False) as again:  # adopted once; reopening changes nothing
        assert MIGRATIONS.pending(again.db) == [] and again.count_sources() == 4


def test_a_failed_migration_leaves_no_trace(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    Ledger(path).close()
    bad = Migrations([*MIGRATIONS.migrations, Migration(
        len(MIGRATIONS.migrations) + 1, "m999_broken",
        "CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1);")])
    con = sqlite3.connect(path, isolation_level=None)
    try:
        with pytest.raises(sqlite3.OperationalError):
            bad.apply(con)
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
        assert "half_done" not in tables and not con.in_transaction
        assert [m.name for m in bad.pending(con)] == ["m999_broken"]
    finally:
        con.close()


def test_versions_must_be_consecutive() -> None:
    with pytest.raises(ValueError, match="1..n"):
        Migrations([Migration(2, "m002", "")])


def test_a_newer_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    Ledger(path).close()
    con = sqlite3.connect(path)
    con.execute(f"INSERT INTO {SCHEMA_TABLE} (version, name, applied_at) "
                "VALUES (99, 'm099_from_the_future', 0)")
    con.commit()
    con.close()
    with pytest.raises(Exception, match="newer trace_ros.*m099_from_the_future"):
        Ledger(path)
