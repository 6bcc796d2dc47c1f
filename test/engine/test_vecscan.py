"""The int8 first pass of a vector scan (``query/vecscan.py``) finds what the float32 scan finds.

Matrices of several shapes (isotropic, clustered with near duplicates, sharing a large mean
as sentence embeddings do, exact duplicates, small integers with many exact ties, zero rows),
scoped to random subsets, any k: the bounds hold every row's float32 score, the top k are the
float32 scan's rows in its order (up to scores equal within float32 rounding, where the
float32 scan's own order is arbitrary), the threshold scan keeps the same rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trace_ros.query import vecscan

TOL = 1e-5
KINDS = ("iso", "clustered", "mean", "duplicates", "integers", "zeros")


def _matrix(seed: int, n: int, d: int, kind: str) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "clustered":
        centres = rng.standard_normal((max(1, n // 20), d))
        m = centres[rng.integers(0, len(centres), n)] + 0.01 * rng.standard_normal((n, d))
    elif kind == "mean":
        m = 3.0 * rng.standard_normal(d) + rng.standard_normal((n, d))
    elif kind == "duplicates":
        m = rng.standard_normal((max(1, n // 3), d))[rng.integers(0, max(1, n // 3), n)]
    elif kind == "integers":
        m = rng.integers(-2, 3, (n, d)).astype(np.float64)
    else:
        m = rng.standard_normal((n, d))
        if kind == "zeros":
            m[rng.random(n) < 0.3] = 0.0
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return (m / np.where(norms > 0, norms, 1.0)).astype(np.float32)


@st.composite
def cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    n = draw(st.integers(1, 300))
    d = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    m = _matrix(seed, n, d, draw(st.sampled_from(KINDS)))
    rng = np.random.default_rng(seed + 1)
    q = draw(st.sampled_from(("row", "random", "zero")))
    qvec = (m[rng.integers(0, n)].copy() if q == "row" else np.zeros(d, np.float32)
            if q == "zero" else rng.standard_normal(d).astype(np.float32))
    idx = None
    if draw(st.booleans()):
        idx = np.flatnonzero(rng.random(n) < draw(st.floats(0.0, 1.0)))
    return m, qvec, idx, draw(st.integers(1, n + 3))


@settings(max_examples=300, deadline=None)
@given(cases())
def test_the_bounds_hold_every_rows_float32_score(case: tuple) -> None:
    m, q, _, _ = case
    quant = vecscan.Quantized.of(m)
    assert quant is not None
    lo, hi = quant.bounds(q)
    full = m @ q
    assert (lo <= full).all() and (full <= hi).all()
    start = len(m) // 2
    lo2, hi2 = quant.bounds(q, start)
    assert (lo2 <= full[start:]).all() and (full[start:] <= hi2).all()


@settings(max_examples=300, deadline=None)
@given(cases())
def test_top_k_is_the_float32_scans(case: tuple) -> None:
    m, q, idx, k = case
    quant = vecscan.Quantized.of(m)
    assert quant is not None
    rows, sims = vecscan.top_k(m, quant, q, k, idx)
    full = m @ q
    eligible = np.arange(len(m)) if idx is None else idx
    ref = eligible[np.lexsort((eligible, -full[eligible]))]
    want = ref[:k]
    assert len(rows) == len(want)
    if not len(rows):
        return
    np.testing.assert_allclose(sims, full[rows], rtol=0, atol=TOL)
    assert (np.diff(sims) <= TOL).all()  # best first
    # Nothing left out scores above what was kept.
    rest = np.setdiff1d(eligible, rows)
    assert not rest.size or full[rest].max() <= sims.min() + TOL
    # Where the float32 scan's order is not a matter of rounding, it is the same order.
    top = full[ref[:k + 1]]
    if (-np.diff(top) > TOL).all():
        assert rows.tolist() == want.tolist()


@settings(max_examples=300, deadline=None)
@given(cases(), st.floats(-1.0, 1.0))
def test_at_least_keeps_the_float32_scans_rows(case: tuple, threshold: float) -> None:
    m, q, _, _ = case
    quant = vecscan.Quantized.of(m)
    assert quant is not None
    start = len(m) // 3
    rows, sims = vecscan.at_least(m, quant, q, threshold, start)
    full = m @ q
    want = np.flatnonzero(full[start:] >= threshold) + start
    clear = np.abs(full[start:] - threshold) > TOL  # not a matter of rounding
    clear_rows = set((np.flatnonzero(clear) + start).tolist())
    assert {r for r in rows.tolist() if r in clear_rows} == \
        {r for r in want.tolist() if r in clear_rows}
    assert (np.diff(rows) > 0).all() and (sims >= threshold).all()
    np.testing.assert_allclose(sims, full[rows], rtol=0, atol=TOL)


def test_the_random_vectors_of_bench_scale_rank_the_same() -> None:
    """At the size the first pass is kept for, on the benchmark's kind of vector (seeded
    unit vectors of 384: no structure, the hardest case for the bounds)."""
    m = _matrix(7, vecscan.QUANTIZE_FROM + 100, 384, "iso")
    quant = vecscan.Quantized.of(m)
    assert quant is not None
    for i in range(5):
        q = _matrix(100 + i, 1, 384, "iso")[0]
        rows, sims = vecscan.top_k(m, quant, q, 50)
        full = m @ q
        assert rows.tolist() == np.lexsort((np.arange(len(m)), -full))[:50].tolist()
        np.testing.assert_allclose(sims, full[rows], rtol=0, atol=TOL)


def test_a_copy_extended_is_the_copy_of_the_whole() -> None:
    m = _matrix(3, 500, 24, "mean")
    a, b, whole = vecscan.Quantized.of(m[:321]), vecscan.Quantized.of(m[321:]), \
        vecscan.Quantized.of(m)
    assert a is not None and b is not None and whole is not None
    both = a.extend(b)
    for field in ("codes", "scale", "slack"):
        assert np.array_equal(getattr(both, field), getattr(whole, field))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_row_that_is_not_finite_keeps_the_float32_scan(bad: float) -> None:
    m = _matrix(4, 50, 8, "iso")
    m[17, 3] = bad
    assert vecscan.Quantized.of(m) is None
