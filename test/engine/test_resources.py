"""Resources: three processes on one ledger, and a full disk (``max_page_count``)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from trace_ros.capture import Event, GroupCommitWriter, ingest
from trace_ros.config import CaptureConfig
from trace_ros.errors import LedgerError
from trace_ros.ledger import Ledger, Scope, StoreResult

ROUNDS = 25


# Each process captures, consolidates, queries and forgets on the shared ledger, as a node would.
WORKER = """
import sys
from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.consolidation.worker import Consolidator
from trace_ros.ledger import Ledger, Scope
from trace_ros.query.answer import QueryEngine, QueryRequest

class Encoder:
    name, dim = "test-encoder", 4
    def encode(self, texts):
        return np.ones((len(texts), self.dim), dtype=np.float32)

db, k, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with Ledger(db) as ledger:
    worker = Consolidator(ledger, Encoder(), worker_name=f"w{k}")
    engine = QueryEngine(ledger, None)
    for r in range(rounds):
        scope = Scope(f"p{k}", "", f"s{r}")
        res = ingest(ledger, [Event("dialogue", scope, f"process {k} round {r} line {i}", "A",
                                    stamp=1.0 + r * 100 + i, source_id=f"p{k}-{r}-{i}")
                              for i in range(40)], CaptureConfig())
        assert all(x.status == "accepted" for x in res), res[:2]
        worker.run_once()
        engine.ask(QueryRequest(Scope(f"p{k}"), f"what happened in round {r}?"))
        ledger.forget(None, [f"p{k}-{r}-0"])
"""


def test_three_processes_share_a_ledger_without_lock_errors(tmp_path: Path) -> None:
    db = str(tmp_path / "shared.db")
    Ledger(db).close()
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, db, str(k), str(ROUNDS)],
                              stderr=subprocess.PIPE, text=True) for k in range(3)]
    errors = [(p.wait(180), p.stderr.read() if p.stderr else "") for p in procs]
    assert all(code == 0 for code, _ in errors), errors
    assert not any("locked" in err for _, err in errors), errors
    with Ledger(db) as ledger:
        assert ledger.count_sources() == 3 * ROUNDS * 39
        assert ledger.integrity_check() == "ok"


def _fill(ledger: Ledger, start: int, n: int) -> list[StoreResult]:
    return ingest(ledger, [Event("dialogue", Scope("full"), f"{i} " + "filler text " * 300, "A",
                                 stamp=1.0 + i, source_id=f"fill-{i}")
                           for i in range(start, start + n)], CaptureConfig(), batch_size=20)


def test_full_disk_is_a_clear_error_with_no_partial_write_and_recovers(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "m.db")
    _fill(ledger, 0, 10)
    pages = ledger.query("PRAGMA page_count")[0][0]
    ledger.conn.execute(f"PRAGMA max_page_count = {pages + 30}")
    stored = ledger.count_sources()
    with pytest.raises(LedgerError, match="full") as err:
        for start in range(10, 2000, 20):
            _fill(ledger, start, 20)
            stored = ledger.count_sources()
    assert "nothing of this write was stored" in str(err.value)
    assert ledger.count_sources() == stored  # the failed batch left nothing behind
    jobs = ledger.query("SELECT count(*) FROM jobs")[0][0]
    assert jobs == stored and ledger.integrity_check() == "ok"

    # The node's writer answers every event of a failed batch as rejected, never accepted.
    writer = GroupCommitWriter(ledger, CaptureConfig(group_commit_ms=50.0))
    got: list[StoreResult] = []
    done = threading.Event()

    def cb(res: StoreResult) -> None:
        got.append(res)
        if len(got) == 40:
            done.set()

    for i in range(40):
        writer.submit(Event("dialogue", Scope("full"), f"{i} " + "y " * 7000, "A",
                            stamp=5e6 + i, source_id=f"w-{i}"), cb)
    assert done.wait(30)
    writer.close()
    rejected = [r for r in got if r.status == "rejected"]
    assert rejected and all("full" in r.reason for r in rejected)
    assert not ledger.get_sources([r.source_id for r in rejected])
    stored = ledger.count_sources()

    ledger.conn.execute("PRAGMA max_page_count = 1073741823")  # space is back
    assert all(r.status == "accepted" for r in _fill(ledger, 5000, 20))
    assert ledger.count_sources() == stored + 20 and ledger.integrity_check() == "ok"
    ledger.close()
