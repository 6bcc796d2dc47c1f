"""The query's vector index ranks the same through its int8 first pass as through the float32
scan, on every engine: the dense route's top k under every scope (robot, session, time
views) and the currentness stage's later near neighbours, with the copy kept up to date as
vectors are added and made again when one is replaced."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Scope
from trace_ros.query import vecscan
from trace_ros.query.recall import VectorIndex

CFG = CaptureConfig()
DIM = 24
MODEL = "m1"


def _vectors(seed: int, n: int) -> np.ndarray:
    """Clustered unit vectors with a shared mean (as sentence embeddings are), some of them
    close enough for the currentness stage's threshold."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((12, DIM)) + 2.0 * rng.standard_normal(DIM)
    m = centres[rng.integers(0, len(centres), n)] + 0.6 * rng.standard_normal((n, DIM))
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def _fill(ledger: Any, n: int, start: int = 0, seed: int = 0) -> list[Any]:
    events = [Event("dialogue", Scope("ann", f"r{i % 2}", f"s{i % 5}"), f"turn {i}", "Ann",
                    stamp=float(i + 1), source_id=f"ann-{i}") for i in range(start, start + n)]
    sources = [ledger.get_sources([r.source_id])[0] for r in ingest(ledger, events, CFG)]
    _store(ledger, sources, seed)
    return sources


def _store(ledger: Any, sources: list[Any], seed: int) -> None:
    vecs = _vectors(seed, len(sources))
    with ledger.write() as tx:
        ledger.put_vectors(tx, "source", MODEL, [(s.source_id, s.subject_id, v)
                                                 for s, v in zip(sources, vecs, strict=True)])
        ledger.bump_generation(tx)


def _searches(index: VectorIndex, sources: list[Any]) -> list[Any]:
    """Every scope and view of a few questions, and the later near neighbours of a few
    sources: the (seq, source ID) found in order, and their scores."""
    out: list[Any] = []
    times = sorted(s.source_time for s in sources)
    views = [(None, None), (times[len(times) // 2], None), (None, times[len(times) // 3])]
    scopes = [Scope("ann"), Scope("ann", "r1"), Scope("ann", "r0", "s2"), Scope("ann", "", "s3")]
    for q in [*_vectors(99, 4), index.current("ann").matrix[7]]:
        for scope in scopes:
            for view in views:
                for k in (1, 5, 40, 10_000):
                    hits = index.search(scope, q, k, *view)
                    out.append(([(h.seq, h.source_id) for h in hits], [h.score for h in hits]))
    sv = index.current("ann")
    for s in sources[::17]:
        for threshold in (0.5, 0.8, 0.93, -1.0):
            near = sv.later_near(s.seq, threshold, 20)
            out.append((list(near), list(near.values())))
    return out


def _same(found: list[Any], expected: list[Any]) -> None:
    """The same sources in the same order; scores equal up to float32's last bits (a few
    rows' product may round differently from the whole matrix's)."""
    assert [f[0] for f in found] == [e[0] for e in expected]
    for (_, got), (_, want) in zip(found, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)


def test_the_int8_first_pass_ranks_as_the_float32_scan(ledger: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    sources = _fill(ledger, 300)
    monkeypatch.setattr(vecscan, "QUANTIZE_FROM", 10**9)
    plain = VectorIndex(ledger, MODEL)
    plain.refresh("ann")
    expected = _searches(plain, sources)
    assert plain.current("ann").quantized() is None
    monkeypatch.setattr(vecscan, "QUANTIZE_FROM", 100)
    index = VectorIndex(ledger, MODEL)
    index.refresh("ann")
    _same(_searches(index, sources), expected)
    assert isinstance(index.current("ann").quant, vecscan.Quantized)

    # New vectors: the copy is extended by their rows only, and equals one made anew.
    sources += _fill(ledger, 60, start=300, seed=1)
    index.refresh("ann")
    plain.refresh("ann")
    sv = index.current("ann")
    assert isinstance(sv.quant, vecscan.Quantized) and len(sv.quant) == 360
    whole = vecscan.Quantized.of(sv.matrix)
    assert whole is not None and np.array_equal(sv.quant.codes, whole.codes)
    assert np.array_equal(sv.quant.slack, whole.slack)
    monkeypatch.setattr(vecscan, "QUANTIZE_FROM", 10**9)
    expected = _searches(plain, sources)
    monkeypatch.setattr(vecscan, "QUANTIZE_FROM", 100)
    _same(_searches(index, sources), expected)

    # A replaced vector: the copy is made again on the next scan, from the new rows.
    _store(ledger, sources[:10], seed=2)
    index.refresh("ann")
    plain.refresh("ann")
    assert index.current("ann").quant is None
    monkeypatch.setattr(vecscan, "QUANTIZE_FROM", 10**9)
    expected = _searches(plain, sources)
    monkeypatch.setattr(vecscan, "QUANTIZE_FROM", 100)
    _same(_searches(index, sources), expected)
