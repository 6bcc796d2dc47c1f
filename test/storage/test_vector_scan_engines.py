"""The currentness stage's later near neighbours of a source (``SubjectVectors.later_near``)
are what scoring the subject's whole matrix gave, on every engine: with the rows in sequence
order (only the rows after the source's are scored) and out of it (a replaced vector comes
last), for several thresholds."""

from __future__ import annotations

from typing import Any

import numpy as np

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Scope
from trace_ros.storage import coarse
from trace_ros.storage.vectorindex import VectorIndex

CFG = CaptureConfig()
DIM = 24
MODEL = "m1"


def _vectors(seed: int, n: int) -> np.ndarray:
    """Clustered unit vectors with a shared mean (as sentence embeddings are), some close
    enough for every threshold below."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((12, DIM)) + 2.0 * rng.standard_normal(DIM)
    m = centres[rng.integers(0, len(centres), n)] + 0.6 * rng.standard_normal((n, DIM))
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def _store(ledger: Any, sources: list[Any], seed: int) -> None:
    vecs = _vectors(seed, len(sources))
    with ledger.write() as tx:
        ledger.put_vectors(tx, "source", MODEL, [(s.source_id, s.subject_id, v)
                                                 for s, v in zip(sources, vecs, strict=True)])
        ledger.bump_generation(tx)


def _whole_matrix(sv: Any, seq: int, threshold: float, limit: int) -> dict[int, float]:
    """What the currentness stage computed before: every row scored, the later ones kept
    (by the product the index scores with, ``coarse.dot``: BLAS's ``@`` sums in another
    order, and near ties of its last bit would order otherwise)."""
    rows = np.flatnonzero(sv.seqs == seq)
    if not rows.size:
        return {}
    sims = coarse.dot(sv.matrix, sv.matrix[rows[0]])
    later = np.flatnonzero((sv.seqs > seq) & (sims >= threshold))
    later = later[np.argsort(-sims[later])][:limit]
    return {int(sv.seqs[r]): float(sims[r]) for r in later}


def _check(sv: Any, seqs: list[int]) -> int:
    found = 0
    for seq in [*seqs, 10**9]:
        for threshold in (0.5, 0.8, 0.93, -1.0):
            for limit in (1, 20, 1000):
                got = sv.later_near(seq, threshold, limit)
                want = _whole_matrix(sv, seq, threshold, limit)
                assert list(got) == list(want)  # the same sources, closest first
                np.testing.assert_allclose(list(got.values()), list(want.values()),
                                           rtol=0, atol=1e-6)
                found += len(got)
    return found


def test_later_near_is_what_the_whole_matrix_gave(ledger: Any) -> None:
    events = [Event("dialogue", Scope("ann", f"r{i % 2}", f"s{i % 5}"), f"turn {i}", "Ann",
                    stamp=float(i + 1), source_id=f"ann-{i}") for i in range(300)]
    sources = [ledger.get_sources([r.source_id])[0] for r in ingest(ledger, events, CFG)]
    _store(ledger, sources, 0)
    index = VectorIndex(ledger, MODEL)
    sv = index.refresh("ann")
    assert sv.order().in_rows
    assert _check(sv, [s.seq for s in sources[::7]]) > 0

    # A replaced vector is read after the others: the rows are out of sequence order.
    _store(ledger, sources[:10], seed=2)
    sv = index.refresh("ann")
    assert not sv.order().in_rows
    assert _check(sv, [s.seq for s in sources[::7]]) > 0
