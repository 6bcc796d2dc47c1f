"""supersede.Rows: a speaker's unit vectors in one growing matrix. Its latest rows
times a vector are, to the bit, what stacking the same rows gives (the cosines decide
which earlier statements are compared and the confidence of an ``updates`` edge)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trace_ros.consolidation.supersede import Rows


def _units(rng: np.random.Generator, n: int, dim: int = 384) -> list[np.ndarray]:
    rows = rng.standard_normal((n, dim)).astype(np.float32)
    return list(rows / np.linalg.norm(rows, axis=1, keepdims=True))


@settings(max_examples=40, deadline=None)
@given(first=st.integers(0, 40), added=st.integers(1, 60), seed=st.integers(0, 2**16))
def test_the_latest_rows_times_a_vector_equal_the_stacked_rows(first: int, added: int,
                                                               seed: int) -> None:
    rng = np.random.default_rng(seed)
    vecs = _units(rng, first + added)
    rows = Rows(vecs[:first])
    for k, v in enumerate(vecs[first:], start=first + 1):
        rows.append(v)
        assert len(rows) == k
        for n in {1, k // 2 or 1, k}:
            unit = vecs[k - 1]
            assert np.array_equal(rows.last(n) @ unit, np.stack(vecs[k - n:k]) @ unit)


def test_rows_keep_the_dtype_of_their_vectors_and_refuse_what_they_do_not_hold() -> None:
    rows = Rows([])
    with pytest.raises(ValueError):
        rows.last(1)
    rows.append(np.ones(3, dtype=np.float64))
    assert rows.last(1).dtype == np.float64
    with pytest.raises(ValueError):
        rows.last(2)
