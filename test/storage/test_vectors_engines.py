"""The ledger contract's vectors, run on every engine (SQLite BLOBs, PostgreSQL pgvector).

What the consolidation worker and the query's in-memory index rely on: vectors round-trip
bit for bit as float32 bytes, a replaced vector comes after the watermark again, a model
change finds what to re-embed, and forget drops a source's vectors and the window
vectors that embedded it.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Scope

CFG = CaptureConfig()
DIM = 8


def _turns(ledger: Any, subject: str, n: int, session: str = "s1") -> list[Any]:
    events = [Event("dialogue", Scope(subject, "r1", session), f"{subject} turn {i}", "Ann",
                    stamp=float(i + 1), source_id=f"{subject}-{session}-{i}") for i in range(n)]
    return [ledger.get_sources([r.source_id])[0] for r in ingest(ledger, events, CFG)]


def _vec(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)


def _settled_after(ledger: Any, subject: str, model: str, after: int,
                   owner_kind: str = "source", wait_s: float = 10.0) -> list[Any]:
    """``source_vectors_after`` once it returns rows, or after ``wait_s``. On PostgreSQL a
    vector is read only once every transaction that began before it has ended
    (``storage/postgresql/settled``); any transaction on the server counts, the
    autovacuum's ANALYZE of another test's database too, so a row written a moment ago
    may settle a little later (one CI run read none)."""
    end = time.monotonic() + wait_s
    while True:
        rows = ledger.source_vectors_after(subject, model, after, owner_kind)
        if rows or time.monotonic() > end:
            return list(rows)
        time.sleep(0.05)


def _store(ledger: Any, kind: str, model: str, sources: list[Any], seed: int = 0) -> None:
    with ledger.write() as tx:
        ledger.put_vectors(tx, kind, model, [(s.source_id, s.subject_id, _vec(seed + s.seq))
                                            for s in sources])


def test_vectors_round_trip_as_float32_bytes(ledger: Any) -> None:
    sources = _turns(ledger, "ann", 3)
    _turns(ledger, "bob", 1)
    _store(ledger, "source", "m1", sources)
    rows = _settled_after(ledger, "ann", "m1", 0)
    assert [r[2] for r in rows] == [s.source_id for s in sources]
    for row, src in zip(rows, sources, strict=True):
        assert row[1] == src.seq and row[8] == "Ann" and row[5] == src.source_time
        assert np.frombuffer(row[7], dtype=np.float32).tobytes() == _vec(src.seq).tobytes()
    assert ledger.source_vectors_after("bob", "m1", 0) == []
    assert ledger.vector_models() == [("m1", DIM, 3)]


def test_a_replaced_vector_comes_after_the_watermark_again(ledger: Any) -> None:
    sources = _turns(ledger, "ann", 2)
    _store(ledger, "source", "m1", sources)
    watermark = _settled_after(ledger, "ann", "m1", 0)[-1][0]
    assert ledger.source_vectors_after("ann", "m1", watermark) == []
    _store(ledger, "source", "m1", sources[:1], seed=100)
    again = _settled_after(ledger, "ann", "m1", watermark)
    assert [r[2] for r in again] == [sources[0].source_id]
    assert np.frombuffer(again[0][7], dtype=np.float32).tobytes() == \
        _vec(100 + sources[0].seq).tobytes()


def test_a_model_change_finds_what_to_reembed(ledger: Any) -> None:
    sources = _turns(ledger, "ann", 3)
    jobs = ledger.claim_jobs("w", 10, lease_s=60.0, max_attempts=3)
    with ledger.write() as tx:
        ledger.complete_jobs(tx, "w", jobs, ["add"] * len(jobs))
    _store(ledger, "source", "old", sources)
    assert ledger.model_changed("new", DIM) and not ledger.model_changed("old", DIM)
    todo = ledger.sources_to_reembed("new", DIM, 10)
    assert [s.source_id for s in todo] == [s.source_id for s in sources]
    generation = ledger.generation()
    ledger.replace_vectors("new", [(s.source_id, s.subject_id, _vec(s.seq)) for s in todo[:2]])
    assert ledger.generation() == generation + 1
    assert [s.source_id for s in ledger.sources_to_reembed("new", DIM, 10)] == \
        [sources[2].source_id]
    assert sorted(ledger.vector_models()) == [("new", DIM, 2), ("old", DIM, 1)]
    assert ledger.drop_other_vectors("new", DIM) == 1
    assert ledger.vector_models() == [("new", DIM, 2)]


def test_windows_missing_and_stored(ledger: Any) -> None:
    sources = _turns(ledger, "ann", 3)
    _store(ledger, "source", "m1", sources)
    missing = ledger.sources_without_window("m1", 10)
    assert [s.source_id for s in missing] == [s.source_id for s in sources]
    before = ledger.session_before("ann", "r1", "s1", sources[2].seq, 2)
    assert [s.source_id for s in before] == [s.source_id for s in sources[:2]]
    ledger.put_window_vectors("m1", [(s.source_id, s.subject_id, _vec(s.seq)) for s in missing])
    assert ledger.sources_without_window("m1", 10) == []
    assert len(_settled_after(ledger, "ann", "m1", 0, "window")) == 3


def test_forget_drops_the_vectors_that_embedded_the_text(ledger: Any) -> None:
    sources = _turns(ledger, "ann", 4)
    other = _turns(ledger, "ann", 2, session="s2")
    for kind in ("source", "window"):
        _store(ledger, kind, "m1", sources + other)
    epoch = ledger.meta_value("vectors_epoch")
    ledger.forget(source_ids=[sources[1].source_id])
    assert ledger.meta_value("vectors_epoch") != epoch
    kept_sources = {r[2] for r in _settled_after(ledger, "ann", "m1", 0)}
    kept_windows = {r[2] for r in _settled_after(ledger, "ann", "m1", 0, "window")}
    ids = [s.source_id for s in sources]
    assert kept_sources == {ids[0], ids[2], ids[3]} | {s.source_id for s in other}
    # Turns 2 and 3 embedded turn 1 in their windows (two turns before each); turn 0 did not,
    # nor did the other session.
    assert kept_windows == {ids[0]} | {s.source_id for s in other}


def test_vectors_sent_by_postgresql_convert_as_one_block_or_row_by_row() -> None:
    from trace_ros.storage.postgresql.vectors import _sent_float32_bytes, _sent_float32_rows

    def sent(v: np.ndarray) -> bytes:
        return len(v).to_bytes(2, "big") + b"\0\0" + v.astype(">f4").tobytes()

    same = [sent(_vec(i)) for i in range(5)]
    assert _sent_float32_rows(same) == [_vec(i).tobytes() for i in range(5)]
    mixed = same + [sent(_vec(9)[:3])]
    assert _sent_float32_rows(mixed) == [_sent_float32_bytes(b) for b in mixed]
    assert _sent_float32_rows([]) == []
