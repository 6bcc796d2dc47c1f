"""Reliability defects of issue 8, each reproduced on a real ledger file (no ROS).

Deep JSON, NUL bytes, bad JSONL lines, unusable database files, time views,
waits with deadlines, and forget (audit rows, FTS tokens, WAL, secure_delete,
the race with consolidation).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trace_ros.capture import Event, GroupCommitWriter, ingest, prepare
from trace_ros.cli import main
from trace_ros.config import CaptureConfig, LedgerConfig
from trace_ros.consolidation.worker import Consolidator
from trace_ros.errors import LedgerError, ValidationError
from trace_ros.formats import read_jsonl
from trace_ros.ledger import Ledger, Scope, StoreResult
from trace_ros.query.answer import QueryEngine, QueryRequest

SC = Scope("alice", "r1", "s1")
DEEP = 10_000


# -- 1. deep JSON ----------------------------------------------------------------


@pytest.mark.parametrize("payload", ["[" * DEEP + "]" * DEEP,
                                     '{"a":' * DEEP + "1" + "}" * DEEP], ids=["array", "object"])
def test_deep_payload_json_is_rejected_not_raised(payload: str) -> None:
    with pytest.raises(ValidationError) as err:
        prepare(Event("dialogue", SC, "hi", "A", payload=payload), CaptureConfig())
    assert err.value.field == "payload_json" and "deep" in err.value.reason


def test_deep_payload_dict_is_rejected_not_raised() -> None:
    deep: dict = {}
    node = deep
    for _ in range(DEEP):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(ValidationError) as err:
        prepare(Event("dialogue", SC, "hi", "A", payload=deep), CaptureConfig())
    assert err.value.field == "payload_json"


def test_writer_answers_an_event_prepare_cannot_handle(ledger: Ledger) -> None:
    """Anything ``prepare`` raises is answered as a rejection; the writer keeps going."""
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=1.0))
    got: list[StoreResult] = []
    done = threading.Event()

    def cb(res: StoreResult) -> None:
        got.append(res)
        if len(got) == 3:
            done.set()

    writer.submit(Event("perception", SC, "mug", "cam", pose="not a dict"), cb)  # type: ignore[arg-type]
    writer.submit(Event("dialogue", SC, "hi", "A", payload="[" * DEEP + "]" * DEEP), cb)
    writer.submit(Event("dialogue", SC, "still here", "A", stamp=5.0), cb)
    assert done.wait(10)
    writer.close()
    assert [r.status for r in got] == ["rejected", "rejected", "accepted"]
    assert got[0].field == "pose" and got[1].field == "payload_json"


# -- 5. NUL bytes -------------------------------------------------------------------


@pytest.mark.parametrize("field", ["text", "speaker", "subject_id", "robot_id", "session_id",
                                   "source_id", "label", "payload"])
def test_nul_is_rejected_in_every_string_field(field: str) -> None:
    kwargs = {"text": "hello", "speaker": "A", "label": "mug", "source_id": "id-1",
              "payload": '{"k": "v"}'}
    scope = {"subject_id": "alice", "robot_id": "r", "session_id": "s"}
    if field in scope:
        scope[field] = scope[field] + "\x00evil"
    elif field == "payload":
        kwargs["payload"] = '{"k": "v\x00w"}'
    else:
        kwargs[field] = kwargs[field] + "\x00evil"
    event = Event("perception", Scope(**scope), confidence=0.5, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValidationError) as err:
        prepare(event, CaptureConfig())
    assert "NUL" in err.value.reason
    assert err.value.field.endswith({"text": "description", "speaker": "actor",
                                     "payload": "payload_json"}.get(field, field))


# -- 4. trace-ros ingest -------------------------------------------------------------


def _write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


BAD_LINES: list[tuple[bytes, str]] = [
    (b'{"subject_id": "a", "text": "caf\xe9 bad byte", "speaker": "A"}', "line"),
    (b'{"subject_id": "a", "text": "x", "modality": "perception", "confidence": "abc"}',
     "confidence"),
    (b'{"subject_id": "a", "text": "x", "modality": "perception", "pose": "here"}', "pose"),
    (b'{"subject_id": "a", "text": "x", "modality": "perception", "pose": [1, 2]}', "pose"),
    (b'{"subject_id": "a", "text": "x", "modality": "perception", '
     b'"pose": {"frame_id": "map", "x": "1"}}', "pose"),
    (b'{"subject_id": "a", "text": "x", "payload": ' + b"[" * DEEP + b"]" * DEEP + b"}",
     "record"),
    (b"[" * DEEP + b"]" * DEEP, "record"),
    (b'{"subject_id": null, "text": "x", "speaker": "A"}', "scope.subject_id"),
    (b'{"subject_id": "a", "text": null, "speaker": "A"}', "text"),
    (b'{"subject_id": {"name": "a"}, "text": "x", "speaker": "A"}', "scope.subject_id"),
    (b'{"subject_id": "a", "text": "x", "speaker": ["A"]}', "speaker"),
    (b'{"subject_id": "a", "text": "x", "stamp": true}', "stamp"),
    (b'{"subject_id": "a", "text": "x", "stamp": NaN}', "stamp"),
    (b'{"subject_id": "a", "text": "x", "source_id": 17}', "source_id"),
    (b'{"subject_id": "a", "text": "x", "modality": 3}', "modality"),
    (b'"just a string"', "record"),
    (b'{"subject_id": "a", "text": "x", "payload": "{\\"deep\\": ' + b"[" * DEEP + b"]" * DEEP
     + b'}"}', "payload_json"),
]


def test_ingest_reports_bad_lines_and_stores_good_ones(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[bytes] = []
    good = 0
    for i, (bad, _field) in enumerate(BAD_LINES):
        lines.append(json.dumps({"subject_id": "good", "speaker": "G", "stamp": 1000 + i,
                                 "text": f"good line {i}"}).encode())
        good += 1
        lines.append(bad)
    path = _write_lines(tmp_path / "mixed.jsonl", lines)
    db = str(tmp_path / "m.db")
    rc = main(["ingest", "--db", db, "--format", "jsonl", "--no-consolidate", str(path)])
    out = capsys.readouterr()
    assert rc == 1
    counts = json.loads(out.out.strip().splitlines()[-1])
    assert counts["accepted"] == good and counts["rejected"] == len(BAD_LINES)
    assert "Traceback" not in out.err
    for i, (_bad, field) in enumerate(BAD_LINES):
        line_no = 2 * i + 2
        match = [ln for ln in out.err.splitlines() if ln.startswith(f"rejected line {line_no}:")]
        assert match, f"line {line_no} not reported:\n{out.err}"
        assert f" {field}: " in match[0], match[0]
    with Ledger(db) as ledger:
        assert ledger.count_sources() == good
        assert ledger.count_sources("None") == 0


def test_read_jsonl_never_raises_on_bad_bytes(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "x.jsonl", [b"\xff\xfe", b'{"subject_id": "a", "text": "ok"}'])
    items = list(read_jsonl(path))
    assert len(items) == 2 and isinstance(items[1], Event)


@pytest.mark.parametrize(("content", "field"), [
    (b'{"x": 1', "locomo"), (b"\xff\xfe", "locomo"), (b'{"a": 1}', "locomo"),
    (b'[{"no_sample": 1}]', "locomo[0]"),
    (b'[{"sample_id": "c1", "conversation": {"session_1": [{"text": "hi"}]}}]', "c1:session_1"),
])
def test_malformed_locomo_file_is_one_clear_error(tmp_path: Path, content: bytes, field: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "conv.json"
    path.write_bytes(content)
    rc, err = _cli_err(capsys, ["ingest", "--db", str(tmp_path / "m.db"), "--format", "locomo",
                                str(path)])
    assert rc == 2 and err.startswith(f"error: {field}:") and "Traceback" not in err


# -- 6. unusable databases --------------------------------------------------------------


def _cli_err(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    rc = main(argv)
    err = capsys.readouterr().err
    return rc, err


def test_not_sqlite_is_refused_untouched(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"hello, I am not a database\n" * 100)
    before = path.read_bytes()
    rc, err = _cli_err(capsys, ["stats", "--db", str(path)])
    assert rc == 2 and "not a SQLite" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert path.read_bytes() == before
    with pytest.raises(LedgerError):
        Ledger(path)


def test_other_programs_sqlite_is_refused_untouched(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    con.commit()
    con.close()
    rc, err = _cli_err(capsys, ["ingest", "--db", str(path), "--format", "jsonl",
                                str(_write_lines(tmp_path / "e.jsonl", [b'{"subject_id": "a", '
                                                                       b'"text": "x"}']))])
    assert rc == 2 and "not a trace_ros ledger" in err
    con = sqlite3.connect(path)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    con.close()
    assert tables == {"customers"}


def test_newer_schema_is_refused_untouched(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.db"
    Ledger(path).close()
    con = sqlite3.connect(path)
    con.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
                "VALUES ('trace_ros', 'm999_from_the_future', '2030-01-01')")
    con.commit()
    con.close()
    before = path.read_bytes()
    rc, err = _cli_err(capsys, ["ingest", "--db", str(path), "--format", "jsonl", "--no-consolidate",
                                str(_write_lines(tmp_path / "e.jsonl", [b'{"subject_id": "a", '
                                                                       b'"text": "x"}']))])
    assert rc == 2 and "newer" in err and "m999_from_the_future" in err
    assert path.read_bytes() == before


def test_stats_on_a_new_path_creates_nothing(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sub" / "none.db"
    rc, err = _cli_err(capsys, ["stats", "--db", str(path)])
    assert rc == 2 and "no ledger" in err
    assert not path.exists() and not path.parent.exists()


@contextmanager
def _read_only(path: Path) -> Iterator[None]:
    """``path`` read-only for this process: mode bits, or for root (who ignores them) the
    immutable attribute."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    if shutil.which("chattr") is None or subprocess.run(
            ["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("running as root and chattr +i is not available to make a file read-only")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_read_only_file_and_directory_give_a_clear_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ro" / "m.db"
    Ledger(path).close()
    with _read_only(path):
        rc, err = _cli_err(capsys, ["stats", "--db", str(path)])
    assert rc == 2 and "read-only" in err and "Traceback" not in err
    with _read_only(path.parent):
        rc, err = _cli_err(capsys, ["stats", "--db", str(path)])
    assert rc == 2 and "read-only" in err


def test_directory_as_ledger_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, err = _cli_err(capsys, ["stats", "--db", str(tmp_path)])
    assert rc == 2 and "is a directory" in err


# -- 7. time views -----------------------------------------------------------------------


def _engine(ledger: Ledger) -> QueryEngine:
    return QueryEngine(ledger, None, audit=False)


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"as_of_valid": float("nan")}, "as_of_valid"),
    ({"as_of_valid": -5.0}, "as_of_valid"),
    ({"as_of_known": float("inf")}, "as_of_known"),
])
def test_bad_time_views_are_rejected(ledger: Ledger, kwargs: dict, field: str) -> None:
    with pytest.raises(ValidationError) as err:
        _engine(ledger).ask(QueryRequest(SC, "what?", **kwargs))
    assert err.value.field == field


def test_cli_as_of_valid_nan_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.db")
    Ledger(db).close()
    rc, err = _cli_err(capsys, ["query", "--db", db, "--subject", "a", "--as-of-valid", "nan",
                                "what?"])
    assert rc == 2 and "as_of_valid" in err


def test_tiny_token_budget_says_so(ledger: Ledger) -> None:
    ingest(ledger, [Event("dialogue", SC, "The red mug is in the kitchen.", "A", stamp=10.0)],
           CaptureConfig())
    res = _engine(ledger).ask(QueryRequest(SC, "Where is the red mug?", token_budget=1))
    assert res.status != "missing"
    assert "token_budget" in res.message and "no source in scope" not in res.message


# -- 8. waits with deadlines ----------------------------------------------------------------


def test_full_capture_queue_is_rejected_after_the_deadline(ledger: Ledger) -> None:
    cfg = CaptureConfig(queue_depth=1, enqueue_timeout_s=0.2, group_commit_ms=1.0)
    writer = GroupCommitWriter(ledger, cfg)
    got: list[StoreResult] = []
    with ledger.write():  # the writer thread blocks on the ledger lock
        writer.submit(Event("dialogue", SC, "first", "A", stamp=1.0), got.append)
        time.sleep(0.1)  # the writer took it and now waits for the lock
        started = time.monotonic()
        for i in range(3):
            writer.submit(Event("dialogue", SC, f"e{i}", "A", stamp=float(i + 2)), got.append)
        waited = time.monotonic() - started
    writer.close()
    rejected = [r for r in got if r.status == "rejected"]
    assert rejected and all(r.field == "queue" and "full" in r.reason for r in rejected)
    assert waited < 5.0


def test_migration_lock_has_a_deadline(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    lock = open(path.with_name(path.name + ".migrate.lock"), "a")  # noqa: SIM115
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        started = time.monotonic()
        with pytest.raises(LedgerError, match="lock"):
            Ledger(path, LedgerConfig(lock_timeout_s=0.3))
        assert time.monotonic() - started < 5.0
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()


# -- 3. forget removes audit rows exactly, FTS tokens, WAL copies -----------------------------


def _audit_row(ledger: Ledger, subject: str, question: str, ids: list[str]) -> None:
    with ledger.write() as conn:
        conn.execute(
            "INSERT INTO audit (asked_at, subject_id, scope, question, plan, routes, evidence_ids, "
            "cited_ids, answer, status, reader, timings) VALUES (?, ?, '{}', ?, '{}', '{}', ?, ?, "
            "'', 'answered', 'x', '{}')",
            (time.time(), subject, question, json.dumps(ids), json.dumps(ids)))


def test_forget_matches_audit_rows_exactly(ledger: Ledger) -> None:
    ids = ["bob_1", "boba1", "Bob_1", 'q"uote', "caf\u00e9-\u732b"]
    ingest(ledger, [Event("dialogue", Scope(f"s{i}"), f"text {i}", "A", stamp=1.0, source_id=s)
                    for i, s in enumerate(ids)], CaptureConfig())
    for i, sid in enumerate(ids):
        _audit_row(ledger, f"s{i}", f"question about {sid}", [sid])
    ledger.forget(None, ["bob_1", 'q"uote', "caf\u00e9-\u732b"])
    left = sorted(r[0] for r in ledger.query("SELECT question FROM audit"))
    assert left == ["question about Bob_1", "question about boba1"]


def test_forget_leaves_no_token_in_fts_or_wal_and_sets_secure_delete(ledger: Ledger) -> None:
    secret = "zanzibarquokka"
    events = [Event("dialogue", SC, f"ordinary line number {i}", "A", stamp=float(i + 1))
              for i in range(50)]
    events.append(Event("dialogue", Scope("carol"), f"my password is {secret}", "Carol",
                        stamp=99.0, source_id="secret-1"))
    ingest(ledger, events, CaptureConfig())
    assert ledger.query("PRAGMA secure_delete")[0][0] == 1
    # The source postings hold the secret's stem too (storage/postings.py).
    assert ledger.query("SELECT count(*) FROM source_postings WHERE stem = ?", (secret,)) == [(1,)]
    ledger.forget(Scope("carol"))
    ledger.close()
    for path in ledger.path.parent.glob(ledger.path.name + "*"):
        assert secret.encode() not in path.read_bytes(), path.name
    wal = ledger.path.with_name(ledger.path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0


# -- 2. forget racing consolidation ------------------------------------------------------------


class _SlowEncoder:
    """Encodes after a pause, so a forget can land between claim and commit."""

    name = "slow-test-encoder"
    dim = 4

    def __init__(self, during: callable) -> None:  # type: ignore[valid-type]
        self.during = during

    def encode(self, texts: list[str]) -> np.ndarray:
        self.during()
        return np.ones((len(texts), self.dim), dtype=np.float32)


def test_consolidation_writes_nothing_for_sources_forgotten_meanwhile(ledger: Ledger) -> None:
    ingest(ledger, [Event("dialogue", SC, f"line {i}", "A", stamp=float(i + 1), source_id=f"x{i}")
                    for i in range(10)], CaptureConfig())

    def forget_and_reuse() -> None:
        ledger.forget(SC, allow_reingest=True)
        ingest(ledger, [Event("dialogue", Scope("bob"), "bob's line", "B", stamp=1.0,
                              source_id="x0")], CaptureConfig())

    report = Consolidator(ledger, _SlowEncoder(forget_and_reuse)).run_once()
    assert report.claimed == 10
    rows = ledger.query("SELECT owner_id, subject_id FROM vectors")
    assert rows == [], rows  # bob's x0 has its own job; nothing of alice's was written
    assert ledger.job_counts()["pending"] == 1


class _Waits:
    """The writer's not-full condition, recording how long each wait for room may last."""

    def __init__(self, cond: threading.Condition) -> None:
        self.cond, self.timeouts = cond, []

    def __enter__(self) -> Any:
        return self.cond.__enter__()

    def __exit__(self, *exc: object) -> None:
        self.cond.__exit__(*exc)

    def wait_for(self, predicate: Any, timeout: float | None = None) -> bool:
        self.timeouts.append(timeout)
        return self.cond.wait_for(predicate, timeout)

    def notify_all(self) -> None:
        self.cond.notify_all()


def test_a_batch_waits_for_room_one_deadline_in_all(ledger: Ledger) -> None:
    """A batch that finds the queue full waits at most one enqueue timeout for all its
    events together, not one per event (a DDS callback must not block for N of them)."""
    cfg = CaptureConfig(queue_depth=1, enqueue_timeout_s=0.2, group_commit_ms=1.0)
    writer = GroupCommitWriter(ledger, cfg)
    waits = _Waits(writer._not_full)
    writer._not_full = waits  # type: ignore[assignment]
    got: list[StoreResult] = []
    with ledger.write():  # the writer thread blocks on the ledger lock
        writer.submit(Event("dialogue", SC, "first", "A", stamp=1.0), got.append)
        time.sleep(0.1)  # the writer took it and now waits for the lock
        writer.submit_many([(Event("dialogue", SC, f"e{i}", "A", stamp=float(i + 2)),
                             got.append) for i in range(5)])
    writer.close()
    # Only an event that finds the queue full waits (one with room goes in at once, as
    # submit's did): the batch's first found room, the second waited out the deadline,
    # the rest wait for nothing.
    batch = waits.timeouts
    assert len(batch) == 4 and all(t is not None and t <= cfg.enqueue_timeout_s for t in batch)
    assert batch[1:] == [0.0, 0.0, 0.0]
    assert any(r.status == "rejected" and r.field == "queue" for r in got)
