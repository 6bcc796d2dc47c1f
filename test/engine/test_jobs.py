"""Consolidation jobs: claim, lease, fence, backoff, deferral, one transaction per batch,
model change, generation snapshots. Real SQLite files; a small deterministic encoder."""

from __future__ import annotations

import inspect
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, ConsolidationConfig
from trace_ros.consolidation.worker import Consolidator
from trace_ros.ledger import Job, Ledger, Scope
from trace_ros.storage.postgresql import PgLedger

ALICE = Scope("alice", "r1", "s1")
PACKAGE = Path(__file__).resolve().parents[2] / "trace_ros"


class HashEncoder:
    """Deterministic unit vectors from the text; ``hook`` runs inside ``encode``."""

    def __init__(self, name: str = "hash-a", dim: int = 8,
                 hook: Callable[[], None] | None = None) -> None:
        self.name, self.dim, self.hook, self.calls = name, dim, hook, 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        if self.hook is not None:
            self.hook()
        rows = [np.random.default_rng(abs(hash(t)) % 2**32).normal(size=self.dim) for t in texts]
        out = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True).clip(1e-9)


class RecordingProjector:
    def __init__(self, fail: bool = False) -> None:
        self.fail, self.seen = fail, []

    def project(self, conn: sqlite3.Connection, jobs: list[Job]) -> list[str]:
        self.seen.extend(j.source.source_id for j in jobs)
        # Written through the batch's transaction: must vanish with it on a failure.
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('projected', ?)",
                     (str(len(self.seen)),))
        if self.fail:
            raise RuntimeError("projector crashed mid-batch")
        return ["add"] * len(jobs)


def _fill(ledger: Ledger, n: int = 3, start: int = 0) -> None:
    ingest(ledger, [Event("dialogue", ALICE, f"note number {i}", "alice", stamp=100.0 + i)
                    for i in range(start, start + n)], CaptureConfig())


def _job_rows(ledger: Ledger) -> list[tuple]:
    return ledger.query("SELECT status, attempts, last_error FROM jobs ORDER BY job_id")


# -- defect (a): a job whose worker died on its last attempt ---------------------------

def test_job_of_worker_dead_on_last_attempt_is_failed_not_running_forever(ledger: Ledger) -> None:
    _fill(ledger, 1)
    jobs = ledger.claim_jobs("dead-worker", 10, lease_s=0.0, max_attempts=1)
    assert len(jobs) == 1  # the worker dies here: its lease runs out, attempts == max
    time.sleep(0.01)
    assert ledger.claim_jobs("next-worker", 10, lease_s=60.0, max_attempts=1) == []
    (status, attempts, error), = _job_rows(ledger)
    assert status == "failed" and attempts == 1
    assert "dead-worker" in error and "lease expired" in error
    assert ledger.job_counts()["running"] == 0


def test_expired_lease_with_attempts_left_is_reclaimed(ledger: Ledger) -> None:
    _fill(ledger, 1)
    first = ledger.claim_jobs("w1", 10, lease_s=0.0, max_attempts=3)
    time.sleep(0.01)
    second = ledger.claim_jobs("w2", 10, lease_s=60.0, max_attempts=3)
    assert [j.job_id for j in second] == [first[0].job_id]
    assert second[0].attempts == 2 and second[0].fence > first[0].fence
    # The first holder's late completion is ignored: the job belongs to w2 now.
    with ledger.write() as conn:
        assert Ledger.held_jobs(conn, "w1", first) == []
        assert Ledger.held_jobs(conn, "w2", second) == second


# -- defect (b): reset_derived must not hand a live worker's jobs to another ------------

def test_reset_while_a_worker_holds_jobs_fences_its_completion(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Ledger(path) as worker_ledger, Ledger(path) as admin:
        _fill(worker_ledger, 3)
        # The reset (e.g. `trace-ros rebuild` for a new model) lands while the worker is
        # embedding the jobs it claimed.
        enc = HashEncoder("old-model", hook=lambda: admin.reset_derived(model="new-model"))
        proj = RecordingProjector()
        report = Consolidator(worker_ledger, enc, projector=proj, worker_name="A").run_once()
        assert report.claimed == 3 and report.fenced == 3 and report.done == 0
        assert proj.seen == []  # nothing projected for jobs it no longer holds
        assert worker_ledger.vector_models() == []  # no vector of the dropped model came back
        assert worker_ledger.job_counts()["pending"] == 3
        # Another worker with the new model does the work once.
        proj_b = RecordingProjector()
        Consolidator(admin, HashEncoder("new-model"), projector=proj_b, worker_name="B").drain()
        assert sorted(proj_b.seen) == sorted(s.source_id for s in admin.sources_in_scope(ALICE))
        assert admin.vector_models() == [("new-model", 8, 3)]
        assert admin.job_counts()["done"] == 3


def test_reset_requeue_keeps_old_holder_from_completing(ledger: Ledger) -> None:
    _fill(ledger, 2)
    held = ledger.claim_jobs("A", 10, lease_s=60.0, max_attempts=3)
    assert ledger.reset_derived() == 2
    taken = ledger.claim_jobs("B", 10, lease_s=60.0, max_attempts=3)
    assert len(taken) == 2
    with ledger.write() as conn:
        assert Ledger.held_jobs(conn, "A", held) == []
        assert Ledger.complete_jobs(conn, "A", held, ["add", "add"]) == 0
        assert Ledger.complete_jobs(conn, "B", taken, ["add", "add"]) == 2
    assert ledger.fail_jobs(held, "A", "late failure", 3) == 0
    assert ledger.job_counts()["done"] == 2


# -- defect (c): a change of embedding model is detected and re-embeds ----------------

def test_change_of_embedding_model_reembeds_every_source(ledger: Ledger) -> None:
    _fill(ledger, 5)
    assert Consolidator(ledger, HashEncoder("model-a", dim=8)).drain() == 5
    assert ledger.vector_models() == [("model-a", 8, 5)]
    gen = ledger.generation()
    worker = Consolidator(ledger, HashEncoder("model-b", dim=6),
                          ConsolidationConfig(batch_size=2))
    worker.drain()
    assert ledger.vector_models() == [("model-b", 6, 5)]
    # the window vectors (a source with the turns before it) follow the model too
    assert ledger.query("SELECT model, dim, count(*) FROM vectors WHERE owner_kind = 'window' "
                        "GROUP BY model, dim") == [("model-b", 6, 5)]
    assert ledger.generation() > gen
    assert ledger.job_counts()["done"] == 5  # re-embedding does not re-project


def test_same_model_is_not_reembedded(ledger: Ledger) -> None:
    _fill(ledger, 2)
    Consolidator(ledger, HashEncoder("model-a")).drain()
    enc = HashEncoder("model-a")
    report = Consolidator(ledger, enc).run_once()
    assert report.claimed == 0 and report.reembedded == 0 and enc.calls == 0


# -- defect (d): job/vector/audit SQL lives behind the Ledger ---------------------------

_TABLE_SQL = re.compile(r"\b(UPDATE|INSERT\s+(OR\s+\w+\s+)?INTO|DELETE\s+FROM|FROM|JOIN)\s+"
                        r"(jobs|vectors|audit|audit_sources)\b", re.I)


# The ledger engines, their mixin modules (their base classes), their transaction
# statements (``ledger.graph``) and their schema migrations (which move rows when a key
# changes) are where SQL lives.
_LEDGER_FILES = {Path(inspect.getsourcefile(c) or "").resolve()
                 for engine in (Ledger, PgLedger, Ledger.graph, PgLedger.graph)
                 for c in engine.__mro__
                 if c.__module__.startswith("trace_ros.")} | {
    (PACKAGE / "storage" / engine / "migrations.py").resolve()
    for engine in ("sqlite", "postgresql")}


@pytest.mark.parametrize("module", sorted(
    str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
    if p.resolve() not in _LEDGER_FILES))
def test_job_vector_audit_sql_only_in_the_ledger(module: str) -> None:
    text = (PACKAGE / module).read_text()
    assert not _TABLE_SQL.search(text), f"{module} writes job/vector/audit SQL outside the Ledger"


# -- retry with backoff, deferral, one transaction per batch -------------------------

def test_failed_batch_is_recorded_and_retried_after_backoff(ledger: Ledger) -> None:
    _fill(ledger, 2)
    cfg = ConsolidationConfig(retry_base_s=30.0, max_attempts=3)
    report = Consolidator(ledger, HashEncoder(), cfg, projector=RecordingProjector(fail=True)
                          ).run_once()
    assert report.failed == 2 and "projector crashed" in report.error
    # Nothing of the batch was written: no vectors, no projection, no generation.
    assert ledger.vector_models() == []
    assert ledger.query("SELECT count(*) FROM meta WHERE key = 'projected'")[0][0] == 0
    assert ledger.generation() == 0
    rows = ledger.query("SELECT status, attempts, last_error, not_before FROM jobs")
    now = time.time()
    for status, attempts, error, not_before in rows:
        assert status == "pending" and attempts == 1 and "projector crashed" in error
        assert now + 25 < not_before <= now + 31
    # Not due yet: the next claim finds nothing.
    assert ledger.claim_jobs("w", 10, 60.0, 3) == []
    # The second failure waits twice as long.
    ledger.conn.execute("UPDATE jobs SET not_before = 0")
    Consolidator(ledger, HashEncoder(), cfg, projector=RecordingProjector(fail=True)).run_once()
    for (not_before,) in ledger.query("SELECT not_before FROM jobs"):
        assert time.time() + 55 < not_before <= time.time() + 61
    ledger.conn.execute("UPDATE jobs SET not_before = 0")
    proj = RecordingProjector()
    assert Consolidator(ledger, HashEncoder(), cfg, projector=proj).drain() == 2
    assert ledger.job_counts()["done"] == 2 and ledger.vector_models() == [("hash-a", 8, 2)]


def test_last_failure_marks_the_job_failed(ledger: Ledger) -> None:
    _fill(ledger, 1)
    cfg = ConsolidationConfig(retry_base_s=0.0, max_attempts=2)
    for _ in range(2):
        Consolidator(ledger, HashEncoder(), cfg, projector=RecordingProjector(fail=True)).run_once()
    (status, attempts, error), = _job_rows(ledger)
    assert status == "failed" and attempts == 2 and "projector crashed" in error


class DeferGate:
    reason = "GPU admission refused: simulated"

    def __init__(self, delay: float | None) -> None:
        self.delay = delay

    def before_batch(self, jobs: list[Job]) -> float | None:
        return self.delay

    def notes(self) -> dict[int, str]:
        return {}


def test_deferred_batch_spends_no_attempt_and_waits(ledger: Ledger) -> None:
    _fill(ledger, 2)
    gate = DeferGate(60.0)
    report = Consolidator(ledger, HashEncoder(), gate=gate).run_once()
    assert report.deferred == 2 and report.done == 0
    rows = ledger.query("SELECT status, attempts, note, not_before FROM jobs")
    assert all(r[0] == "deferred" and r[1] == 0 and "admission" in r[2] for r in rows)
    assert all(r[3] > time.time() + 50 for r in rows)
    assert ledger.claim_jobs("w", 10, 60.0, 3) == []
    ledger.conn.execute("UPDATE jobs SET not_before = 0")
    gate.delay = None
    assert Consolidator(ledger, HashEncoder(), gate=gate).drain() == 2


def test_embedding_runs_outside_the_write_transaction(tmp_path: Path) -> None:
    """Capture is never blocked by the slow part of a batch: while the worker embeds,
    another connection can commit a new source at once."""
    path = tmp_path / "m.db"
    with Ledger(path) as worker_ledger:
        _fill(worker_ledger, 2)
        other = sqlite3.connect(str(path), timeout=0.0, isolation_level=None)

        def capture_now() -> None:
            other.execute("BEGIN IMMEDIATE")  # fails at once if a writer holds the file
            other.execute("ROLLBACK")

        report = Consolidator(worker_ledger, HashEncoder(hook=capture_now)).run_once()
        other.close()
        assert report.done == 2


def test_rerun_after_done_is_idempotent(ledger: Ledger) -> None:
    _fill(ledger, 3)
    Consolidator(ledger, HashEncoder()).drain()
    before = ledger.query("SELECT owner_id, vec FROM vectors ORDER BY owner_id")
    ledger.reset_derived()
    Consolidator(ledger, HashEncoder()).drain()
    assert ledger.query("SELECT owner_id, vec FROM vectors ORDER BY owner_id") == before
    assert ledger.job_counts()["done"] == 3


# -- generation fencing: a read sees one whole generation -------------------------------

def test_read_block_sees_one_generation(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Ledger(path) as reader, Ledger(path) as writer:
        _fill(writer, 2)
        Consolidator(writer, HashEncoder()).drain()
        with reader.read() as conn:
            gen = Ledger.generation_of(conn)
            _fill(writer, 2, start=10)  # a new batch commits meanwhile
            Consolidator(writer, HashEncoder()).drain()
            assert writer.generation() > gen
            assert reader.generation() == gen == Ledger.generation_of(conn)
            assert reader.count_sources() == 2
            assert reader.vector_models() == [("hash-a", 8, 2)]
        assert reader.generation() > gen and reader.count_sources() == 4


def test_full_reset_drops_the_graph_with_the_vectors(ledger: Ledger) -> None:
    _fill(ledger, 1)
    Consolidator(ledger, HashEncoder()).drain()
    with ledger.write() as conn:
        conn.execute("INSERT INTO facts (fact_id, subject_id, type, description, anchor_time, "
                     "valid_from, known_from, source_seq) VALUES ('f1', 'alice', 'observation', "
                     "'x', 1, 1, 1, 1)")
        conn.execute("INSERT INTO edges (subject_id, type, src, dst, created_at) "
                     "VALUES ('alice', 'in_session', 'f1', 'session:alice/r1/s1', 1)")
    assert ledger.reset_derived() == 1
    assert ledger.query("SELECT count(*) FROM facts")[0][0] == 0
    assert ledger.query("SELECT count(*) FROM edges")[0][0] == 0
    assert ledger.vector_models() == [] and ledger.job_counts()["pending"] == 1


# -- projection in source order (a newer fact revises an older one) ---------------------


def test_jobs_are_claimed_in_source_order_never_past_a_held_one(ledger: Ledger) -> None:
    _fill(ledger, 6)
    first = ledger.claim_jobs("w1", 2, lease_s=60.0, max_attempts=3)
    assert [j.source.text for j in first] == ["note number 0", "note number 1"]
    # w1 still holds the oldest jobs: w2 must not project newer sources before them.
    assert ledger.claim_jobs("w2", 10, lease_s=60.0, max_attempts=3) == []
    with ledger.write() as conn:
        Ledger.complete_jobs(conn, "w1", first, ["noop", "noop"])
    rest = ledger.claim_jobs("w2", 10, lease_s=60.0, max_attempts=3)
    assert [j.source.text for j in rest] == [f"note number {i}" for i in range(2, 6)]


def test_a_dead_workers_jobs_are_taken_at_once_not_after_the_lease(ledger: Ledger) -> None:
    import subprocess
    import sys

    from trace_ros.consolidation.worker import process_gone, worker_id

    child = subprocess.run([sys.executable, "-c", "from trace_ros.consolidation.worker "
                            "import worker_id; print(worker_id())"],
                           capture_output=True, text=True, check=True)
    dead = child.stdout.strip()
    assert process_gone(dead) and not process_gone(worker_id())
    assert not process_gone("otherhost:1:1.00")  # another machine's worker: its lease decides
    _fill(ledger, 3)
    assert len(ledger.claim_jobs(dead, 2, lease_s=3600.0, max_attempts=3)) == 2
    report = Consolidator(ledger, HashEncoder()).run_once()
    assert report.claimed == 3 and report.done == 3


def test_a_batch_killed_midway_leaves_the_graph_of_a_clean_rebuild(tmp_path: Path) -> None:
    """A worker dies holding the older half; the next one must not project the newer
    half first: the graph then equals a rebuild from the sources alone."""
    from trace_ros.consolidation.cpu import CpuExtractor
    from trace_ros.consolidation.project import GraphProjector

    def worker(led: Ledger, name: str) -> Consolidator:
        return Consolidator(led, HashEncoder(), ConsolidationConfig(batch_size=2),
                            worker_name=name, projector=GraphProjector(led, CpuExtractor()))

    lines = ["I live in Boston.", "The red mug is on the kitchen table.",
             "We moved to Seattle last month.", "The red mug is in the sink now."]
    events = [Event("dialogue", ALICE, text, "alice", stamp=1_700_000_000.0 + 86400 * i)
              for i, text in enumerate(lines)]
    with Ledger(tmp_path / "live.db") as live:
        ingest(live, events, CaptureConfig())
        # A lease long enough that the next worker starts inside it on a loaded machine
        # (0.05 s ran out before it, and the test then saw the jobs taken over).
        live.claim_jobs("gone-host:1:1.00", 2, lease_s=1.0, max_attempts=3)  # dies here
        worker(live, "w2").run_once()  # the older jobs are still held: nothing newer first
        assert live.job_counts()["done"] == 0
        time.sleep(1.05)  # the dead worker's lease runs out
        worker(live, "w2").drain()
        after_crash = live.graph_snapshot()
        assert live.graph_counts()["facts_by_status"].get("superseded", 0) == 2
        live.reset_derived()
        worker(live, "w3").drain()
        assert live.graph_snapshot() == after_crash


def test_jobs_not_done_search_the_status_index_without_visiting_done_jobs(
        ledger: Ledger) -> None:
    """Done jobs only accumulate (a robot that talks all day leaves millions); the count a
    node reads every second must search the status index for the other statuses, not
    scan the table or the whole index."""
    from trace_ros.storage.sqlite.jobs import NOT_DONE_COUNTS
    _fill(ledger, 3)
    assert ledger.jobs_not_done()["pending"] == 3
    with sqlite3.connect(ledger.path) as conn:
        plan = " ".join(str(row[-1]) for row in conn.execute(
            "EXPLAIN QUERY PLAN " + NOT_DONE_COUNTS))
    assert "SEARCH jobs USING COVERING INDEX jobs_status (status=?)" in plan, plan
