"""A coarse partition of one subject's vectors, so that a question scores a few of its
lists instead of every row (an inverted-file index, "IVF", kept in memory).

Exact cosine top-k reads the subject's whole matrix: at 1,000,000 sources 125,000 × 384
float32 a subject, 192 MB a pass, 17-42 ms on a 2-core machine, and a question makes two
or three passes (dense, window, currentness). Above ``MIN_ROWS`` rows a subject's vectors
are split into lists of about ``ROWS_PER_LIST`` rows each: the centroids are trained by
spherical k-means on a seeded sample of the rows, every row belongs to the list of its
nearest centroid, and a search scores only the rows of the ``PROBE`` best lists for the
query (at least ``MIN_PROBE``): about 8 % of the rows. That is approximate — a true
neighbour in a list that was not probed is missed — so below ``MIN_ROWS`` nothing is
partitioned and the scan stays exact (every ledger of the tests and LoCoMo's are far
below it, and answer exactly as before).

The partition is derived data, like the matrix it indexes: rows that arrive later are
added to the list of their nearest centroid (the same list a fresh build with the same
centroids gives them); the centroids are trained again when the subject has doubled
since they were; a forget or rebuild reloads the subject, and with it the partition.
The pack of a partitioned subject (SQLite: a file beside the ledger; PostgreSQL: rows of
``vector_packs``) holds its rows laid out by list with the centroids and each row's list,
so a fresh process reads it and builds nothing; without a pack (the first process on a
ledger, or after a forget) the first question about a large subject trains and assigns
(about 1-2 s for 125,000 rows on a busy 2-core machine).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# A subject with fewer vectors than this is scanned exactly (no partition).
MIN_ROWS = 65_536
# Rows per list, on average.
ROWS_PER_LIST = 1_024
# Fraction of the lists a search probes, and the fewest it probes.
PROBE = 0.08
MIN_PROBE = 4
# k-means: sample rows per list, iterations, and the sample's seed (a partition is a
# function of the rows).
SAMPLE_PER_LIST = 32
ITERATIONS = 6
SEED = 0
# Rows assigned per matrix product (bounds the temporary memory).
_CHUNK = 16_384
# Consecutive rows scored as one slice rather than gathered.
_RUN = 64


@dataclass(frozen=True)
class Partition:
    """The lists of one subject's vectors: ``lists[i]`` is row ``i``'s list; ``order`` the
    rows by list (then by row), list ``j``'s rows ``order[bounds[j]:bounds[j + 1]]``."""

    centroids: np.ndarray  # (lists, dim) float32, unit rows
    lists: np.ndarray  # int32, one per row
    order: np.ndarray  # int64
    bounds: np.ndarray  # int64, one more than there are lists
    # How many rows the centroids were trained on.
    trained: int

    @property
    def probes(self) -> int:
        """How many lists a search probes."""
        n = len(self.centroids)
        return min(n, max(MIN_PROBE, int(np.ceil(n * PROBE))))

    def expected(self, probes: int) -> int:
        """About how many rows ``probes`` lists hold."""
        return -(-len(self.lists) * probes // max(1, len(self.centroids)))

    def rows(self, qvec: np.ndarray, probes: int) -> np.ndarray:
        """The rows of the ``probes`` lists whose centroids are nearest ``qvec``, ascending."""
        n = len(self.centroids)
        if probes >= n:
            return np.arange(len(self.lists), dtype=np.int64)
        best = np.argpartition(-dot(self.centroids, qvec), probes - 1)[:probes]
        out = np.concatenate([self.order[self.bounds[j]:self.bounds[j + 1]] for j in best])
        out.sort()
        return out

    def search(self, matrix: np.ndarray, qvec: np.ndarray, k: int, mask: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray]:
        """(rows, their scores) for a top-``k`` search of ``matrix`` (the rows this
        partition is of) among the rows ``mask`` allows (all when None), rows ascending:
        the allowed rows of the probed lists, more lists until there are ``k`` of them;
        every allowed row when there are as few as a probe would score."""
        probes = self.probes
        if mask is not None:
            allowed = np.flatnonzero(mask)
            if allowed.size <= self.expected(probes):
                return allowed, scores(matrix, allowed, qvec)  # a narrow scope: exact
        while True:
            rows = self.rows(qvec, probes)
            sims = scores(matrix, rows, qvec)
            if mask is not None:
                keep = mask[rows]
                rows, sims = rows[keep], sims[keep]
            if rows.size >= k or probes >= len(self.centroids):
                return rows, sims
            probes *= 2

    def extend(self, keep: np.ndarray | slice, new: np.ndarray) -> Partition:
        """The partition of ``matrix[keep]`` followed by ``new`` rows, with these
        centroids (what ``build`` gives with them)."""
        lists = np.concatenate([self.lists[keep], assign(new, self.centroids)])
        return _partition(self.centroids, lists, self.trained)


def scores(matrix: np.ndarray, rows: np.ndarray, qvec: np.ndarray) -> np.ndarray:
    """``matrix[rows] @ qvec`` for ascending ``rows``, each run of consecutive rows as a
    slice of ``matrix`` (no copy: a subject laid out by list has a list's rows in one
    run), the rest gathered. The products are numpy's own loop (``einsum``), not BLAS:
    OpenBLAS wakes its threads for a product of a thousand rows, which cost 7 ms
    instead of 0.1 on a busy 2-core machine (measured, load 3)."""
    if rows.size == 0:
        return np.zeros(0, dtype=np.float32)
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    starts = np.concatenate([[0], breaks])
    ends = np.concatenate([breaks, [rows.size]])
    long = ends - starts >= _RUN
    if not long.any():
        return dot(matrix[rows], qvec)
    out = np.empty(rows.size, dtype=np.float32)
    loose = np.ones(rows.size, dtype=bool)
    for s, e in zip(starts[long].tolist(), ends[long].tolist(), strict=True):
        first = int(rows[s])
        out[s:e] = dot(matrix[first:first + e - s], qvec)
        loose[s:e] = False
    if loose.any():
        out[loose] = dot(matrix[rows[loose]], qvec)
    return out


def dot(block: np.ndarray, qvec: np.ndarray) -> np.ndarray:
    """``block @ qvec`` by numpy's own loop, on the calling thread: OpenBLAS splits any
    product of more than ~9,000 floats over its threads, which on a busy 2-core machine
    cost 18-24 ms p50 for a 12,500-row subject instead of 0.9 (measured, load 7)."""
    return np.einsum("ij,j->i", block, qvec)


def assign(matrix: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Each row's nearest centroid (the largest dot product; the first on a tie)."""
    out = np.empty(len(matrix), dtype=np.int32)
    for i in range(0, len(matrix), _CHUNK):
        out[i:i + _CHUNK] = np.argmax(matrix[i:i + _CHUNK] @ centroids.T, axis=1)
    return out


def train(matrix: np.ndarray, seqs: np.ndarray) -> np.ndarray:
    """Unit centroids, about one per ``ROWS_PER_LIST`` rows, by spherical k-means on a
    seeded sample of the rows. The sample is drawn in sequence order (``seqs``: each
    row's), so the centroids do not depend on the order the rows are kept in."""
    n = len(matrix)
    k = max(1, n // ROWS_PER_LIST)
    rng = np.random.default_rng(SEED)
    by_seq = np.argsort(seqs, kind="stable")
    picked = by_seq[np.sort(rng.choice(n, min(n, SAMPLE_PER_LIST * k), replace=False))]
    sample = np.asarray(matrix[picked], dtype=np.float32)
    centroids = sample[rng.choice(len(sample), k, replace=False)].copy()
    columns = np.ascontiguousarray(sample.T, dtype=np.float64)
    for _ in range(ITERATIONS):
        lists = assign(sample, centroids)
        # Each list's sum, a column at a time (np.add.at took 0.1 s an iteration).
        sums = np.stack([np.bincount(lists, weights=col, minlength=k) for col in columns],
                        axis=1)
        norms = np.linalg.norm(sums, axis=1)
        used = norms > 0  # an empty list keeps its centroid
        centroids[used] = (sums[used] / norms[used, None]).astype(np.float32)
    return centroids


def build(matrix: np.ndarray, seqs: np.ndarray, centroids: np.ndarray | None = None
          ) -> Partition:
    """The partition of ``matrix``'s rows, ``seqs`` their sequence numbers (centroids
    trained on them unless given)."""
    trained = len(matrix) if centroids is None else 0
    if centroids is None:
        centroids = train(matrix, seqs)
    return _partition(centroids, assign(matrix, centroids), trained)


def fit(matrix: np.ndarray, seqs: np.ndarray, current: Partition | None,
        min_rows: int = MIN_ROWS) -> Partition | None:
    """The partition for a subject whose vectors are now ``matrix``: none below
    ``min_rows``, ``current`` while it covers every row and the subject has not doubled
    since its centroids were trained, else a new one."""
    n = len(matrix)
    if n < max(1, min_rows):
        return None
    if current is not None and len(current.lists) == n and n <= 2 * max(current.trained, 1):
        return current
    return build(matrix, seqs)


def layout(part: Partition) -> tuple[np.ndarray | None, Partition]:
    """The row order that puts each list's rows in one run (by list, then by row), and
    the partition of the rows in that order: ``matrix[perm]`` is searched by scoring a
    slice per list instead of gathering the rows. None and ``part`` itself when the rows
    are in that order already (read from a pack saved laid out)."""
    if not len(part.lists) or bool((np.diff(part.lists) >= 0).all()):
        return None, part
    return part.order, _partition(part.centroids, part.lists[part.order], part.trained)


def restore(centroids: np.ndarray, lists: np.ndarray, trained: int) -> Partition:
    """A partition as saved (a vector pack keeps one beside its rows)."""
    return _partition(np.asarray(centroids, dtype=np.float32),
                      np.asarray(lists, dtype=np.int32), int(trained))


def _partition(centroids: np.ndarray, lists: np.ndarray, trained: int) -> Partition:
    order = np.argsort(lists, kind="stable")
    bounds = np.searchsorted(lists[order], np.arange(len(centroids) + 1))
    return Partition(centroids, lists, order.astype(np.int64), bounds.astype(np.int64), trained)
