"""Exact cosine scans of a large vector matrix with a first pass over an int8 copy.

At 1,000,000 sources a subject holds 125,000 vectors of 384 float32 (192 MB), and a question
scanned them two or three times (the dense and window routes, then the currentness stage's
``near``): each scan reads the whole matrix, 20-30 ms on a 2-core machine, and OpenBLAS's
threads slow down when the other core is busy (31 -> 83 ms beside a thread running Python).
numpy has no int8 BLAS, but ``einsum`` sums an int8 matrix's products with a float32 vector
in one call, reading a quarter of the bytes (``Quantized.approx``).

The copy is not an approximation of the answer. Each row ``x`` is stored as ``s * c`` (``c``
int8, ``s`` the row's own scale, ``max |x| / 127``) and its error is bounded per row:
``|q.x - s (c.q)| <= |q| (|x - s c| + margin)``, the margin covering float32 rounding of
both products (Higham's ``gamma_d`` bound for a sum of ``d`` products, doubled). The first
pass gives every row an interval that holds its float32 score; only rows whose interval
reaches the k-th best lower bound (or the threshold) are scored again from their float32
rows. So the rows found and their order are those of the full float32 scan; the scores are
the float32 rows' own, computed on the gathered rows (OpenBLAS may round the last bit of a
row's product differently for a few rows than for many, so two scores that tie to the last
bit may order differently, as ties already did under ``argpartition``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Rows quantised per step (1,024: 140 ms for 125,000 x 384 under load, 300 ms by 4,096).
STEP = 1024
# Below this many rows the float32 scan is a millisecond or two and the copy is not kept.
QUANTIZE_FROM = 8192


@dataclass(frozen=True)
class Quantized:
    """An int8 copy of a float32 matrix: ``codes`` (n, d), each row's ``scale`` and its
    ``slack``, the bound on ``|q.x - approx(q)|`` per unit of ``|q|``."""

    codes: np.ndarray
    scale: np.ndarray
    slack: np.ndarray

    @classmethod
    def of(cls, matrix: np.ndarray) -> Quantized | None:
        """The copy of ``matrix`` (float32, n x d); None when a row is not finite (the
        float32 scan then decides what such a row's score is)."""
        n, d = matrix.shape
        codes = np.empty((n, d), dtype=np.int8)
        scale = np.empty(n, dtype=np.float32)
        slack = np.empty(n, dtype=np.float32)
        # Float32 rounding of a d-term product, for the first pass and for the float32
        # scan it stands for (gamma_d = d u / (1 - d u) each, u = 2^-24), and of the
        # residual's own computation below; doubled again.
        margin = np.float32(8.0 * (d + 4) * 2.0 ** -24)
        for i in range(0, n, STEP):
            x = matrix[i:i + STEP]
            amax = np.abs(x).max(axis=1) if d else np.zeros(len(x), dtype=np.float32)
            if not np.isfinite(amax).all():
                return None
            s = np.where(amax > 0, amax / np.float32(127.0), np.float32(1.0))
            c = np.rint(x / s[:, None])
            np.clip(c, -127, 127, out=c)
            residual = np.sqrt(np.einsum("ij,ij->i", r := x - c * s[:, None], r))
            norm = np.sqrt(np.einsum("ij,ij->i", x, x))
            codes[i:i + len(x)] = c
            scale[i:i + len(x)] = s
            slack[i:i + len(x)] = residual * np.float32(1.001) + margin * norm
        return cls(codes, scale, slack)

    def __len__(self) -> int:
        return len(self.scale)

    def extend(self, more: Quantized) -> Quantized:
        """This copy with ``more``'s rows after its own."""
        return Quantized(np.concatenate([self.codes, more.codes]),
                         np.concatenate([self.scale, more.scale]),
                         np.concatenate([self.slack, more.slack]))

    def approx(self, q: np.ndarray, start: int = 0) -> np.ndarray:
        """The first pass's score of rows ``start:`` for the float32 vector ``q``.

        One ``einsum`` call: numpy casts the int8 rows to float32 a buffer at a time and
        sums their products with ``q`` in C, without coming back to Python. A loop over
        blocks of rows (convert, then BLAS) was as fast alone but needed the GIL back
        after every block, and while the lexical route ran Python on the other thread
        it took 74-103 ms instead of 21-30 (einsum: 28-35 alone, 40-46 beside it)."""
        out = np.einsum("ij,j->i", self.codes[start:], q, dtype=np.float32, casting="unsafe")
        out *= self.scale[start:]
        return out

    def bounds(self, q: np.ndarray, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Per row ``start:``, a lower and an upper bound of its float32 score."""
        a = self.approx(q, start)
        width = self.slack[start:] * np.float32(np.linalg.norm(q.astype(np.float64)) * (1 + 1e-6))
        return a - width, a + width


def top_k(matrix: np.ndarray, quant: Quantized, q: np.ndarray, k: int,
          idx: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` rows of ``matrix`` (among ``idx``, default all) with the highest score
    ``row . q``, best first (ties by row), and those scores; what a full float32 scan
    ranks first."""
    lo, hi = quant.bounds(q)
    if idx is not None:
        lo, hi = lo[idx], hi[idx]
    m = len(lo)
    if k <= 0 or m == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    if k < m:
        tau = np.partition(lo, m - k)[m - k]  # the k-th highest lower bound
        keep = np.flatnonzero(hi >= tau)
    else:
        keep = np.arange(m)
    rows = keep if idx is None else idx[keep]
    sims = matrix[rows] @ q
    order = np.lexsort((rows, -sims))[:k]
    return rows[order], sims[order]


def at_least(matrix: np.ndarray, quant: Quantized, q: np.ndarray, threshold: float,
             start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The rows from ``start`` on whose score ``row . q`` is at least ``threshold``, in row
    order, and those scores."""
    _, hi = quant.bounds(q, start)
    rows = np.flatnonzero(hi >= threshold) + start
    sims = matrix[rows] @ q
    keep = sims >= threshold
    return rows[keep], sims[keep]
