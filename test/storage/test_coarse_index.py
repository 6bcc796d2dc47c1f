"""The coarse partition of a subject's vectors (``storage.coarse``), on every engine.

Below its threshold a subject is scanned exactly (the searches are what they were);
above it a search scores the rows of the nearest lists: on a seeded clustered set the
top 10 stay within a recall bound of the exact ones, a narrow scope is still scored
exactly, a forgotten source leaves the partition with its row, and the partition kept
up to date as vectors arrive is the one a fresh build with the same centroids gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Scope
from trace_ros.storage import coarse, packing
from trace_ros.storage.vectorindex import VectorIndex
from trace_ros.storage.vectorpack import VectorPack, read_pack, write_pack

CFG = CaptureConfig()
DIM = 32
MODEL = "m1"
N = 900


@pytest.fixture
def small_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lists of 30 rows (30 of them for ``N`` rows), 4 probed: a partition at test size."""
    monkeypatch.setattr(coarse, "ROWS_PER_LIST", 30)


def _vectors(seed: int, n: int) -> np.ndarray:
    """Clustered unit vectors with a shared mean, as sentence embeddings are."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, DIM)) + 1.5 * rng.standard_normal(DIM)
    m = centres[rng.integers(0, len(centres), n)] + 0.7 * rng.standard_normal((n, DIM))
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def _fill(ledger: Any, n: int = N, start: int = 0) -> list[Any]:
    events = [Event("dialogue", Scope("ann", f"r{i % 2}", f"s{i % 9}"), f"turn {i}", "Ann",
                    stamp=float(i + 1), source_id=f"ann-{i}") for i in range(start, start + n)]
    return [ledger.get_sources([r.source_id])[0] for r in ingest(ledger, events, CFG)]


def _store(ledger: Any, sources: list[Any], vecs: np.ndarray) -> None:
    with ledger.write() as tx:
        ledger.put_vectors(tx, "source", MODEL, [(s.source_id, s.subject_id, v)
                                                 for s, v in zip(sources, vecs, strict=True)])
        ledger.bump_generation(tx)


def _exact(index: VectorIndex, scope: Scope, q: np.ndarray, k: int, **view: Any) -> list[int]:
    """The top ``k`` by scoring every row: the index without a partition."""
    exact = VectorIndex(index.ledger, index.model, coarse_from=10**9)
    return [h.seq for h in exact.search(scope, q, k, **view)]


def test_below_the_threshold_the_scan_is_exact(ledger: Any) -> None:
    sources = _fill(ledger, 300)
    _store(ledger, sources, _vectors(0, len(sources)))
    index = VectorIndex(ledger, MODEL)  # the default threshold: far above 300 rows
    assert index.refresh("ann").coarse is None
    for q in _vectors(5, 10):
        want = [int(i) for i in np.argsort(-(index.current("ann").matrix @ q),
                                           kind="stable")[:20]]
        got = [h.seq for h in index.search(Scope("ann"), q, 20)]
        assert got == [int(index.current("ann").seqs[i]) for i in want]


def test_above_the_threshold_recall_is_bounded(ledger: Any, small_lists: None) -> None:
    sources = _fill(ledger)
    _store(ledger, sources, _vectors(0, N))
    index = VectorIndex(ledger, MODEL, coarse_from=500)
    sv = index.refresh("ann")
    assert sv.coarse is not None and len(sv.coarse.centroids) == N // 30
    overlap = []
    for q in _vectors(0, N)[::37] + 0.05 * _vectors(9, len(range(0, N, 37))):
        q = q / np.linalg.norm(q)
        got = [h.seq for h in index.search(Scope("ann"), q, 10)]
        assert len(got) == 10
        overlap.append(len(set(got) & set(_exact(index, Scope("ann"), q, 10))) / 10)
    # 1.00 on this set (4 of 30 lists probed); the bound leaves room for a change of seed.
    assert np.mean(overlap) >= 0.9


def test_a_narrow_scope_is_scored_exactly(ledger: Any, small_lists: None) -> None:
    sources = _fill(ledger)
    _store(ledger, sources, _vectors(0, N))
    index = VectorIndex(ledger, MODEL, coarse_from=500)
    assert index.refresh("ann").coarse is not None
    for q in _vectors(3, 5):
        for scope in (Scope("ann", "r1", "s4"), Scope("ann", session_id="s2")):
            got = [h.seq for h in index.search(scope, q, 20)]
            assert got == _exact(index, scope, q, 20)
        # A wide view still returns k rows, all in the view.
        got = index.search(Scope("ann", "r0"), q, 50, as_of_valid=400.0)
        assert len(got) == 50
        assert all(int(h.source_id.split("-")[1]) % 2 == 0 for h in got)
        stamps = {s.seq: s.source_time for s in sources}
        assert all(stamps[h.seq] <= 400.0 for h in got)


def test_forget_removes_the_row_from_the_partition(ledger: Any, small_lists: None) -> None:
    sources = _fill(ledger)
    vecs = _vectors(0, N)
    _store(ledger, sources, vecs)
    index = VectorIndex(ledger, MODEL, coarse_from=500)
    assert index.refresh("ann").coarse is not None
    gone = sources[123]
    assert gone.seq in [h.seq for h in index.search(Scope("ann"), vecs[123], 5)]
    ledger.forget(source_ids=[gone.source_id])
    sv = index.refresh("ann")
    assert sv.coarse is not None and len(sv.coarse.lists) == len(sv.ids) == N - 1
    assert gone.seq not in sv.seqs.tolist()
    assert sorted(sv.coarse.order.tolist()) == list(range(N - 1))
    assert gone.seq not in [h.seq for h in index.search(Scope("ann"), vecs[123], 50)]
    assert gone.seq not in sv.later_near(sources[0].seq, -1.0, 10 * N)


def test_incremental_partition_equals_a_rebuild(ledger: Any, engine: str,
                                                small_lists: None) -> None:
    sources = _fill(ledger)
    _store(ledger, sources, _vectors(0, N))
    index = VectorIndex(ledger, MODEL, coarse_from=500)
    first = index.refresh("ann").coarse
    assert first is not None
    more = _fill(ledger, 200, start=N)
    _store(ledger, more, _vectors(1, 200))
    _store(ledger, sources[:5], _vectors(2, 5))  # replaced vectors: stored again, last
    sv = index.refresh("ann")
    assert sv.coarse is not None and sv.coarse.centroids is first.centroids  # extended
    assert len(sv.coarse.lists) == len(sv.ids) == N + 200
    fresh = coarse.build(sv.matrix, sv.seqs, sv.coarse.centroids)
    np.testing.assert_array_equal(sv.coarse.lists, fresh.lists)
    np.testing.assert_array_equal(sv.coarse.order, fresh.order)
    np.testing.assert_array_equal(sv.coarse.bounds, fresh.bounds)
    # A fresh index of the same ledger (a restart): the pack kept the partition (the rows
    # after it join it as above), on both engines.
    packing.wait()
    again_sv = VectorIndex(ledger, MODEL, coarse_from=500).refresh("ann")
    again = again_sv.coarse
    assert again is not None
    np.testing.assert_array_equal(again.centroids, first.centroids)
    np.testing.assert_array_equal(again.lists, coarse.assign(again_sv.matrix, again.centroids))


def test_later_near_finds_the_same_vector_stored_later(ledger: Any, small_lists: None) -> None:
    sources = _fill(ledger)
    vecs = _vectors(0, N)
    vecs[700] = vecs[100]  # the same text said again
    vecs[850] = vecs[100]
    _store(ledger, sources, vecs)
    index = VectorIndex(ledger, MODEL, coarse_from=500)
    sv = index.refresh("ann")
    assert sv.coarse is not None
    near = sv.later_near(sources[100].seq, 0.999, 10)
    assert set(near) == {sources[700].seq, sources[850].seq}
    exact = VectorIndex(ledger, MODEL, coarse_from=10**9).refresh("ann")
    for i in range(0, 600, 50):
        got = sv.later_near(sources[i].seq, 0.6, 1000)
        want = exact.later_near(sources[i].seq, 0.6, 1000)
        assert set(got) <= set(want)
        assert all(abs(got[s] - want[s]) < 1e-6 for s in got)


def test_the_partition_is_a_function_of_the_rows() -> None:
    m = _vectors(4, 3000)
    seqs = np.arange(1, 3001, dtype=np.int64) * 3
    a = coarse.build(m, seqs)
    perm = np.random.default_rng(1).permutation(3000)
    b = coarse.build(m[perm], seqs[perm])  # the same rows kept in another order
    np.testing.assert_array_equal(a.centroids, b.centroids)
    np.testing.assert_array_equal(a.lists[perm], b.lists)
    # Laid out by list, a list's rows are one run, scored as slices: the same scores.
    order, laid = coarse.layout(a)
    q = m[17]
    for j in range(len(laid.centroids)):
        lo, hi = int(laid.bounds[j]), int(laid.bounds[j + 1])
        np.testing.assert_array_equal(laid.order[lo:hi], np.arange(lo, hi))
    rows = laid.rows(q, laid.probes)
    np.testing.assert_allclose(coarse.scores(m[order], rows, q), m[order][rows] @ q,
                               rtol=0, atol=1e-6)
    assert coarse.fit(m[:100], seqs[:100], None, min_rows=500) is None
    assert coarse.fit(m, seqs, a, min_rows=500) is a
    part = coarse.fit(m[:1000], seqs[:1000], None, min_rows=500)
    assert part is not None and part.trained == 1000
    grown = part.extend(slice(None), m[1000:2500])
    assert coarse.fit(m[:2500], seqs[:2500], grown, min_rows=500) is not grown  # doubled


def _never(*args: Any) -> Any:
    raise AssertionError("the partition was built again")


def test_a_restarted_index_finds_what_the_first_found(ledger: Any, engine: str,
                                                     small_lists: None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The subject's pack is saved laid out by list with its partition (SQLite: a file
    beside the ledger, PostgreSQL: in the database), and a fresh index reads it: no
    vector row read one by one, nothing built."""
    sources = _fill(ledger)
    _store(ledger, sources, _vectors(0, N))
    first = VectorIndex(ledger, MODEL, coarse_from=500)
    sv = first.refresh("ann")
    packing.wait()
    pack = ledger.load_vector_pack("ann", MODEL, "source", ledger.meta_value("vectors_epoch") or "")
    assert pack is not None and pack.lists is not None  # the rows laid out, the partition
    assert pack.seqs.tolist() == sv.seqs.tolist() and pack.last_id == sources[-1].source_id
    again = VectorIndex(ledger, MODEL, coarse_from=500)
    read = ledger.source_vectors_after
    rows: list[int] = []
    monkeypatch.setattr(ledger, "source_vectors_after",
                        lambda *a, **k: rows.extend([0] * len(got := read(*a, **k))) or got)
    monkeypatch.setattr(coarse, "train", _never)
    sv2 = again.refresh("ann")
    assert rows == []
    assert sv2.coarse is not None and sv.coarse is not None
    np.testing.assert_array_equal(sv2.coarse.centroids, sv.coarse.centroids)
    assert sv2.seqs.tolist() == sv.seqs.tolist()  # laid out by list, as saved
    for q in _vectors(6, 8):
        assert [h.seq for h in again.search(Scope("ann"), q, 20)] == \
            [h.seq for h in first.search(Scope("ann"), q, 20)]


def test_a_pack_keeps_the_partition(tmp_path: Any) -> None:
    m = _vectors(4, 400)
    seqs = np.arange(1, 401, dtype=np.int64)
    part = coarse.build(m, seqs, coarse.train(m[:200], seqs[:200]))
    text = np.array(["x"] * 400, dtype=object)
    pack = VectorPack("ann", MODEL, "source", "e1", 400, seqs, [f"s{i}" for i in range(400)],
                      text, text, seqs * 1.0, seqs * 1.0, text, m, centroids=part.centroids,
                      lists=part.lists, trained=200)
    write_pack(tmp_path / "p", pack)
    got = read_pack(tmp_path / "p")
    assert got is not None and got.trained == 200
    np.testing.assert_array_equal(got.centroids, part.centroids)
    np.testing.assert_array_equal(got.lists, part.lists)
    np.testing.assert_array_equal(got.matrix, m)
    pack.centroids = pack.lists = None  # a pack without one reads as before
    write_pack(tmp_path / "q", pack)
    plain = read_pack(tmp_path / "q")
    assert plain is not None and plain.centroids is None and plain.lists is None
    np.testing.assert_array_equal(plain.matrix, m)


def test_a_forget_drops_the_packs(ledger: Any, small_lists: None) -> None:
    """A forget moves the vectors epoch and deletes every pack with it (SQLite: the files;
    PostgreSQL: the rows, in the forget's transaction); a pack read under the old epoch
    is not kept when it is saved after the forget."""
    sources = _fill(ledger)
    _store(ledger, sources, _vectors(0, N))
    first = VectorIndex(ledger, MODEL, coarse_from=500)
    sv = first.refresh("ann")
    packing.wait()
    old = ledger.meta_value("vectors_epoch") or ""
    assert ledger.load_vector_pack("ann", MODEL, "source", old) is not None
    stale = VectorPack("ann", MODEL, "source", old, sv.watermark, sv.seqs, sv.ids, sv.robot,
                       sv.session, sv.source_time, sv.known_time, sv.speaker, sv.matrix,
                       last_id=sv.last_id)
    ledger.forget(source_ids=[sources[7].source_id])
    new = ledger.meta_value("vectors_epoch") or ""
    assert new != old
    assert ledger.load_vector_pack("ann", MODEL, "source", old) is None
    assert ledger.load_vector_pack("ann", MODEL, "source", new) is None
    assert ledger.save_vector_pack(stale) is False
    assert ledger.load_vector_pack("ann", MODEL, "source", old) is None
    sv2 = VectorIndex(ledger, MODEL, coarse_from=500).refresh("ann")
    assert sources[7].source_id not in sv2.ids.tolist() and len(sv2.ids) == N - 1


def test_the_exact_scan_scores_on_the_calling_thread(ledger: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Below the threshold the dense search and the currentness near-scan score every row
    with ``coarse.dot`` (numpy's own loop, not OpenBLAS's threads): the same cosines as
    ``matrix @ q``, for a whole matrix, a side of it, an empty block and a read-only one."""
    sources = _fill(ledger, 300)
    _store(ledger, sources, _vectors(0, len(sources)))
    index = VectorIndex(ledger, MODEL)
    sv = index.refresh("ann")
    assert sv.coarse is None
    blocks: list[int] = []
    real = coarse.dot
    monkeypatch.setattr(coarse, "dot", lambda b, q: blocks.append(len(b)) or real(b, q))
    q = _vectors(5, 1)[0]
    hits = index.search(Scope("ann"), q, 5)
    later = sv.later_near(sources[10].seq, -1.0, 1000)
    assert blocks[0] == 300 and 289 in blocks  # the whole matrix; the 289 rows after seq 10
    want = np.sort(sv.matrix @ q)[::-1][:5]
    np.testing.assert_allclose([h.score for h in hits], want, rtol=0, atol=1e-6)
    assert set(later) == {s.seq for s in sources[11:]}
    frozen = np.array(sv.matrix)
    frozen.flags.writeable = False
    np.testing.assert_allclose(real(frozen, q), frozen @ q, rtol=0, atol=1e-6)
    assert real(frozen[:0], q).shape == (0,)
