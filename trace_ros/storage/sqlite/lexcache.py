"""One subject's stems as lexical search read them from FTS5, kept while they are current.

A search reads, for each stem of its expression, where the stem stands in the subject's
rows (FTS5's vocabulary, ``fts5vocab`` ``instance`` tables) and each matching row's token
count (FTS5's ``docsize``). ``SubjectTerms`` holds what was read, as arrays per stem, so
the next search of the subject reads only the stems and rows it has not seen.

What was read stays true while the subject's sources do not change, and sources change
only two ways: capture adds rows (the subject's row count in ``lex_stats`` grows, and
without a forget it only grows) and forget deletes them, in the transaction that
advances the ledger's generation. So (generation, row count, token count) names the
subject's source rows: ``LexCache`` keeps a subject's ``SubjectTerms`` under that mark,
read in the same snapshot as the search, and a search that finds another mark starts
afresh. Facts are rewritten in place by consolidation, inside transactions that search
them before the generation moves: nothing read of them is kept (a fresh
``SubjectTerms`` per search).
"""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..lexrank import lookup, weighted_freqs
from .migrations import fts_size

# Subjects whose stems one ledger connection keeps (least recently searched dropped).
SUBJECTS = 32


@dataclass(frozen=True)
class Stem:
    """Where one stem stands in the subject's rows: its instances in FTS5's order (row,
    column, offset), and per row that holds it the count in each column."""

    docs: np.ndarray  # int64, per instance
    cols: np.ndarray  # int8, per instance (index of the column)
    offsets: np.ndarray  # int32, per instance
    rows: np.ndarray  # int64, the rows it stands in, ascending
    counts: np.ndarray  # int32, rows x columns
    _freqs: dict[tuple[float, ...], np.ndarray] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, instances: np.ndarray, n_columns: int) -> Stem:
        """From its instances (row, column, offset) in FTS5's order."""
        rows, at = np.unique(instances[:, 0], return_inverse=True)
        counts = np.zeros((len(rows), n_columns), dtype=np.int32)
        np.add.at(counts, (at, instances[:, 1]), 1)
        return cls(instances[:, 0].copy(), instances[:, 1].astype(np.int8),
                   instances[:, 2].astype(np.int32), rows, counts)

    def freqs(self, weights: tuple[float, ...]) -> np.ndarray:
        """The stem's weighted frequency in each of its rows: each instance's column
        weight added one by one, in column order (as FTS5 and ``lexrank`` add them, so
        the same double)."""
        got = self._freqs.get(weights)
        if got is None:
            got = self._freqs[weights] = weighted_freqs(self.counts, weights)
        return got

    def within(self, docs: np.ndarray) -> list[tuple[int, int, int]]:
        """The stem's instances (row, column, offset) in ``docs``."""
        keep = np.isin(self.docs, docs)
        return list(zip(self.docs[keep].tolist(), self.cols[keep].tolist(),
                        self.offsets[keep].tolist(), strict=True))


class SubjectTerms:
    """The stems and row sizes of one subject's rows of one FTS5 index read so far.
    ``vocab``, ``table``, ``key``, ``fts``: the index's vocabulary, rows' table and key,
    and FTS5 table; ``columns``: its column names in index order."""

    def __init__(self, subject_id: str, vocab: str, table: str, key: str, fts: str,
                 columns: Sequence[str], mark: Hashable = None) -> None:
        self.subject_id, self.mark = subject_id, mark
        self.vocab, self.table, self.key, self.fts = vocab, table, key, fts
        self.column = {name: i for i, name in enumerate(columns)}
        self.stems: dict[str, Stem] = {}
        # The rows whose size was read (ascending) and their sizes.
        self._sized = np.empty(0, np.int64)
        self._sizes = np.empty(0, np.int64)

    def read(self, conn: sqlite3.Connection, stems: Sequence[str]) -> Mapping[str, Stem]:
        """Each of ``stems`` in the subject's rows, reading those not read yet (one
        statement). Raises ``sqlite3.OperationalError`` without the vocabulary."""
        missing = sorted(set(stems) - self.stems.keys())
        if missing:
            # Stems and columns by number, so the rows come back as integers only; the
            # subject's keys as a list SQLite builds once from the subject's index:
            # most instances of a word belong to other subjects.
            stem_no = " ".join(f"WHEN ?{i + 1} THEN {i}" for i in range(len(missing)))
            col_no = " ".join(f"WHEN '{name}' THEN {i}" for name, i in self.column.items())
            got = np.array(conn.execute(
                f"SELECT CASE v.term {stem_no} END, v.doc, CASE v.col {col_no} END, v.offset "
                f"FROM {self.vocab} v WHERE v.term IN "
                f"({','.join(f'?{i + 1}' for i in range(len(missing)))}) AND v.doc IN "
                f"(SELECT {self.key} FROM {self.table} WHERE subject_id = ?{len(missing) + 1})",
                (*missing, self.subject_id)).fetchall(), dtype=np.int64).reshape(-1, 4)
            for i, term in enumerate(missing):
                self.stems[term] = Stem.of(got[got[:, 0] == i, 1:], len(self.column))
        return self.stems

    def sized(self, conn: sqlite3.Connection, rows: np.ndarray) -> np.ndarray:
        """The token count (all columns, FTS5's) of each of ``rows`` (ascending)."""
        missing = rows[~lookup(self._sized, rows)[1]]
        if len(missing):
            got = {int(r[0]): fts_size(r[1]) for r in conn.execute(
                f"SELECT id, sz FROM {self.fts}_docsize WHERE id IN "
                "(SELECT value FROM json_each(?))", (json.dumps(missing.tolist()),))}
            keys = np.concatenate([self._sized, missing])
            order = np.argsort(keys, kind="stable")
            self._sized = keys[order]
            self._sizes = np.concatenate([self._sizes, np.fromiter(
                (got.get(r, 0) for r in missing.tolist()), np.int64, len(missing))])[order]
        return self._sizes[np.searchsorted(self._sized, rows)]


class LexCache:
    """A connection's ``SubjectTerms`` per (index, subject), each under its mark (the
    caller holds the connection's lock)."""

    def __init__(self, subjects: int = SUBJECTS) -> None:
        self.subjects = subjects
        self._kept: OrderedDict[tuple[str, str], SubjectTerms] = OrderedDict()

    def get(self, index: str, subject_id: str, mark: Hashable) -> SubjectTerms | None:
        got = self._kept.get((index, subject_id))
        if got is None or got.mark != mark:
            return None
        self._kept.move_to_end((index, subject_id))
        return got

    def put(self, index: str, terms: SubjectTerms) -> None:
        self._kept[(index, terms.subject_id)] = terms
        self._kept.move_to_end((index, terms.subject_id))
        while len(self._kept) > self.subjects:
            self._kept.popitem(last=False)
