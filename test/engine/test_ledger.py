"""The ledger: WAL file, migrations, source + job in one transaction, forget, rebuild."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from trace_ros.capture import Event, ingest, prepare
from trace_ros.config import CaptureConfig
from trace_ros.errors import ValidationError
from trace_ros.ledger import MIGRATIONS, Ledger, Scope

ALICE = Scope("alice", "r1", "s1")


def test_file_is_wal_and_migrated(ledger: Ledger) -> None:
    assert ledger.path.exists()
    assert ledger.query("PRAGMA journal_mode")[0][0] == "wal"
    assert MIGRATIONS.pending(ledger.db) == []
    tables = {r[0] for r in ledger.query("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"sources", "jobs", "vectors", "sessions", "tombstones", "audit", "sources_fts"} <= tables
    assert ledger.integrity_check() == "ok"


def test_reopen_keeps_data_and_does_not_remigrate(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Ledger(path) as led:
        ingest(led, [Event("dialogue", ALICE, "hello", "Alice", stamp=10.0)], CaptureConfig())
    with Ledger(path) as led:
        assert led.count_sources() == 1
        assert len(MIGRATIONS.applied(led.db)) == len(MIGRATIONS.migrations)


def test_concurrent_open_of_fresh_file(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            Ledger(path).close()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []


def test_source_and_job_written_together(ledger: Ledger) -> None:
    res = ingest(ledger, [Event("dialogue", ALICE, "hi there", "Alice", stamp=5.0)], CaptureConfig())
    assert res[0].status == "accepted"
    rows = ledger.query("SELECT s.source_id, j.status FROM sources s JOIN jobs j ON j.source_seq = s.seq")
    assert rows == [(res[0].source_id, "pending")]
    sessions = ledger.query("SELECT subject_id, session_id, n_sources FROM sessions")
    assert sessions == [("alice", "s1", 1)]


def test_failed_transaction_stores_nothing(ledger: Ledger) -> None:
    item = prepare(Event("dialogue", ALICE, "one", "Alice", stamp=1.0), CaptureConfig())
    with pytest.raises(sqlite3.IntegrityError):
        # An error half-way through a write transaction rolls all of it back.
        with ledger.write() as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES ('x', '1')")
            conn.execute("INSERT INTO meta (key, value) VALUES ('x', '2')")
    assert ledger.query("SELECT count(*) FROM meta WHERE key = 'x'")[0][0] == 0
    assert ledger.store_sources([item])[0].status == "accepted"


def test_forget_removes_derived_and_leaves_tombstone(ledger: Ledger) -> None:
    events = [Event("dialogue", ALICE, f"fact number {i}", "Alice", stamp=float(i + 1)) for i in range(3)]
    events.append(Event("dialogue", Scope("bob"), "bob's own fact", "Bob", stamp=1.0))
    res = ingest(ledger, events, CaptureConfig())
    gone = res[0].source_id
    removed = ledger.forget(None, [gone])
    assert removed == [gone]
    assert ledger.get_sources([gone]) == []
    assert ledger.query("SELECT count(*) FROM sources_fts WHERE sources_fts MATCH 'number'")[0][0] == 2
    assert ledger.query("SELECT count(*) FROM jobs")[0][0] == 3
    again = ingest(ledger, [events[0]], CaptureConfig())[0]
    assert again.status == "rejected" and again.field == "source_id"
    # The caller may explicitly allow re-ingest.
    ledger.forget(None, [gone], allow_reingest=True)
    assert ingest(ledger, [events[0]], CaptureConfig())[0].status == "accepted"
    # Forgetting a subject leaves other subjects alone.
    ledger.forget(Scope("alice"))
    assert ledger.count_sources("alice") == 0
    assert ledger.count_sources("bob") == 1
    assert ledger.query("SELECT count(*) FROM sessions WHERE subject_id = 'alice'")[0][0] == 0


def test_forget_needs_a_target(ledger: Ledger) -> None:
    with pytest.raises(ValidationError) as err:
        ledger.forget(None, [])
    assert err.value.field == "scope"


def test_rebuild_fts_from_sources(ledger: Ledger) -> None:
    ingest(ledger, [Event("dialogue", ALICE, "the kettle is broken", "Alice", stamp=1.0)], CaptureConfig())
    ledger.conn.execute("INSERT INTO sources_fts (sources_fts) VALUES ('delete-all')")
    assert ledger.query("SELECT count(*) FROM sources_fts WHERE sources_fts MATCH 'kettle'")[0][0] == 0
    requeued = ledger.reset_derived()
    assert requeued == 1
    assert ledger.query("SELECT count(*) FROM sources_fts WHERE sources_fts MATCH 'kettle'")[0][0] == 1
    assert ledger.job_counts()["pending"] == 1


def test_other_process_sees_committed_rows(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    writer, reader = Ledger(path), Ledger(path)
    ingest(writer, [Event("dialogue", ALICE, "shared", "Alice", stamp=1.0)], CaptureConfig())
    assert reader.count_sources() == 1
    writer.close()
    reader.close()
