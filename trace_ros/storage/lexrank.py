"""BM25 over one subject's rows, from their stems: the engine-neutral half of lexical
ranking (the SQLite engine ranks with it; PostgreSQL computes the same expression in SQL,
``postgresql/search``).

Statistics are the subject's own (issue 15): the row count and mean row length of the
subject's rows of that kind (``lex_stats``) and each phrase's document frequency among
them. A subject's ranking therefore depends on its own rows only — on both engines, and
for a database role confined to its subjects as for the owner — where FTS5's ``bm25()``
reads the statistics of the whole table, every subject's text.

A row is given as its columns, each a (weight letter, {position: stem}) pair in index order
(sources: text D, speaker A, subject C; facts: description D, value B, subject C) — every
column whole, or only the positions of the expression's stems (what FTS5's vocabulary
gives) — with its token count. A phrase's frequency in a row is FTS5's: the column
weight of each of its instances (its stems at consecutive positions of one column),
summed. The score is FTS5's expression term for term, summed in phrase order, so a score
(and so a tie) is the same double on both engines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial, reduce

import numpy as np

from .lexical import K1, B, Match, Phrase, idf

Row = Sequence[tuple[str, Mapping[int, str]]]


@dataclass(frozen=True)
class Stats:
    """A subject's lexical statistics for one kind of row."""

    n_docs: int = 0
    n_tokens: int = 0

    @property
    def avgdl(self) -> float:
        return float(self.n_tokens) / float(self.n_docs) if self.n_docs else 1.0


def instances(stems: Sequence[str], at: Mapping[int, str]) -> int:
    """How many times ``stems`` stand at consecutive positions of ``at`` (none for no
    stems)."""
    if not stems:
        return 0
    first, rest = stems[0], list(enumerate(stems[1:], start=1))
    return sum(1 for pos, stem in at.items()
               if stem == first and all(at.get(pos + i) == s for i, s in rest))


def frequency(p: Phrase, row: Row, weights: Mapping[str, float]) -> tuple[bool, float]:
    """(whether ``p`` occurs in ``row`` in a column it may, its weighted frequency)."""
    present, f = False, 0.0
    for letter, at in row:
        if p.columns and letter not in p.columns:
            continue
        for _ in range(instances(p.stems, at)):  # one by one, as FTS5 and PostgreSQL add
            present = True
            f += weights.get(letter, 0.0)
    return present, f


def phrase_hits(phrases: Sequence[Phrase], rows: Mapping[int, Row],
                weights: Mapping[str, float]) -> list[dict[int, float]]:
    """Per phrase: row -> its weighted frequency, for the rows it occurs in. A phrase of
    one stem is counted in one pass over the rows' positions; a longer one row by row."""
    hits: list[dict[int, float]] = [{} for _ in phrases]
    single: dict[str, list[int]] = {}
    for i, p in enumerate(phrases):
        if len(p.stems) == 1:
            single.setdefault(p.stems[0], []).append(i)
    longer = [i for i, p in enumerate(phrases) if len(p.stems) > 1]
    for rid, row in rows.items():
        for letter, at in row:
            w = weights.get(letter, 0.0)
            for stem in at.values():
                for i in single.get(stem, ()):
                    if not phrases[i].columns or letter in phrases[i].columns:
                        hits[i][rid] = hits[i].get(rid, 0.0) + w
        for i in longer:
            present, f = frequency(phrases[i], row, weights)
            if present:
                hits[i][rid] = f
    return hits


@dataclass(frozen=True)
class Hits:
    """The rows one phrase occurs in (ascending) and its weighted frequency in each
    (0.0 where it stands only in a column of weight 0: the row still matches)."""

    rows: np.ndarray  # int64
    freqs: np.ndarray  # float64

    @classmethod
    def of(cls, by_row: Mapping[int, float]) -> Hits:
        rows = np.fromiter(sorted(by_row), dtype=np.int64, count=len(by_row))
        return cls(rows, np.fromiter((by_row[r] for r in rows.tolist()), dtype=np.float64,
                                     count=len(rows)))

    def at(self, rows: np.ndarray) -> np.ndarray:
        """The phrase's frequency in each of ``rows`` (ascending), 0.0 where it is not."""
        i, there = lookup(self.rows, rows)
        return np.where(there, self.freqs[i] if len(self.freqs) else 0.0, 0.0)


def weighted_freqs(counts: np.ndarray, weights: Sequence[float]) -> np.ndarray:
    """A stem's weighted frequency in each of its rows, from its count in each column
    (``counts``: rows × columns): each instance's column weight added one by one, in
    column order, as FTS5 adds them, so the same double."""
    got = np.zeros(len(counts))
    for c, w in enumerate(weights):
        column = counts[:, c]
        for n in range(int(column.max(initial=0))):
            got = got + np.where(column > n, w, 0.0)
    return got


def lookup(keys: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of ``rows`` is in ``keys`` (both ascending; any index where it is
    not), and whether it is there."""
    if not len(keys):
        return np.zeros(len(rows), np.intp), np.zeros(len(rows), bool)
    i = np.minimum(np.searchsorted(keys, rows), len(keys) - 1)
    return i, keys[i] == rows


def union(parts: Sequence[np.ndarray]) -> np.ndarray:
    """The rows in any of ``parts`` (each ascending), ascending, once each (sorting
    once costs a fraction of ``np.union1d`` pair by pair)."""
    if len(parts) == 1:
        return parts[0]
    rows = np.sort(np.concatenate([np.empty(0, np.int64), *parts]))
    return rows[np.concatenate([rows[:1] == rows[:1], rows[1:] != rows[:-1]])]


def matching(match: Match, hits: Sequence[Hits]) -> np.ndarray:
    """The rows ``match`` matches (ascending), given each phrase's rows
    (``match.phrases()`` order)."""
    it = iter(hits)

    def ev(m: Match) -> np.ndarray:
        if m.phrase is not None:
            return next(it).rows
        parts = [ev(p) for p in m.parts]  # every part, so the phrases stay in step
        if m.op == "and":
            return reduce(partial(np.intersect1d, assume_unique=True), parts)
        if m.op == "or":
            return union(parts)
        return np.setdiff1d(parts[0], parts[1], assume_unique=True)

    return ev(match)


def rank(hits: Sequence[Hits], sizes: np.ndarray, rows: np.ndarray, stats: Stats,
         subject_phrases: int = 0) -> np.ndarray:
    """FTS5's BM25 (higher is better) of each of ``rows`` (ascending; of ``sizes`` tokens),
    given each phrase's rows and frequencies. Every operation is FTS5's, in its order, on
    doubles, so each score is the same double as a row-by-row computation.

    ``hits`` must hold every row of the subject in which a phrase occurs: their count per
    phrase is its document frequency — but for the first ``subject_phrases`` phrases, the
    subject's ID in its own column, which every row of the subject holds (their
    frequency is the subject's row count)."""
    norm = norms(sizes, stats)
    out = np.zeros(len(rows))
    for i, h in enumerate(hits):
        w = idf(stats.n_docs, stats.n_docs if i < subject_phrases else len(h.rows))
        out = out + term(w, h.at(rows), norm)
    return out


def norms(sizes: np.ndarray, stats: Stats) -> np.ndarray:
    """BM25's length normalisation of rows of ``sizes`` tokens (FTS5's operations)."""
    return K1 * ((1.0 - B) + B * sizes.astype(np.float64) / stats.avgdl)


def term(w: float, f: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """One phrase's BM25 term in rows where its weighted frequency is ``f`` (``norm``:
    their ``norms``; 0.0 where ``f`` is), as FTS5 computes it: the same double for a
    row whichever other rows are computed beside it."""
    return np.where(f > 0.0, w * ((f * (K1 + 1.0)) / (f + norm)), 0.0)


def best(rows: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``k`` best (row, score), best first, ties by row. Only the rows scoring at
    least the ``k``-th best score are sorted (all of a tie at the cut among them): the
    same rows and order as sorting every row, without sorting 20,000 for 50."""
    k = max(int(k), 0)
    if 0 < k < len(scores):
        cut = np.partition(scores, len(scores) - k)[len(scores) - k]
        keep = np.flatnonzero(scores >= cut)
        rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores))[:k]
    return list(zip(rows[order].tolist(), scores[order].tolist(), strict=True))
