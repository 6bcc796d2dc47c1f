"""Vectors: source, 'window' and (in ``hierarchy``) session embeddings, by model.

Vectors are derived: a change of model re-embeds (``sources_to_reembed``), a forget drops
them and moves ``vectors_epoch`` so in-memory indexes reload in full; whatever moves the
epoch also drops the vector packs (``packs``) after its commit.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..records import SourceRecord
from ..scopes import SOURCE_COLUMNS
from .base import SqliteBase


class VectorStore(SqliteBase):
    """Storing and reading embeddings (``drop_vector_packs``: the ``packs`` mixin)."""

    @staticmethod
    def put_vectors(conn: sqlite3.Connection, owner_kind: str, model: str,
                    rows: Iterable[tuple[str, str, np.ndarray]]) -> None:
        """Inside a write transaction: store (owner_id, subject_id, vector) rows."""
        conn.executemany(
            "INSERT OR REPLACE INTO vectors (owner_kind, owner_id, subject_id, model, dim, vec) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(owner_kind, oid, subj, model, int(v.shape[0]),
              np.asarray(v, dtype=np.float32).tobytes()) for oid, subj, v in rows],
        )

    def vector_models(self) -> list[tuple[str, int, int]]:
        """(model, dim, count) of the stored source vectors."""
        return [(r[0], int(r[1]), int(r[2])) for r in self.query(
            "SELECT model, dim, count(*) FROM vectors WHERE owner_kind = 'source' "
            "GROUP BY model, dim")]

    def model_changed(self, model: str, dim: int) -> bool:
        """True when stored source vectors are of another model or dimension than
        (``model``, ``dim``): they must be re-embedded (``sources_to_reembed``)."""
        return any((m, d) != (model, dim) for m, d, _n in self.vector_models())

    def sources_to_reembed(self, model: str, dim: int, limit: int) -> list[SourceRecord]:
        """Sources whose projection is done but that have no vector of (``model``,
        ``dim``): after a change of embedding model, these are re-embedded
        without re-projecting. Pending jobs get their vector when they run."""
        rows = self.query(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE seq IN ("
            "SELECT j.source_seq FROM jobs j JOIN sources s ON s.seq = j.source_seq "
            "WHERE j.status = 'done' AND NOT EXISTS (SELECT 1 FROM vectors v WHERE "
            "v.owner_kind = 'source' AND v.owner_id = s.source_id AND v.model = ? AND v.dim = ?) "
            "ORDER BY j.source_seq LIMIT ?) ORDER BY seq", (model, int(dim), int(limit)))
        return [SourceRecord.from_row(r) for r in rows]

    def sources_without_window(self, model: str, limit: int) -> list[SourceRecord]:
        """Sources with a vector of ``model`` but no 'window' vector of it: forgetting a
        source drops the windows of the turns after it (they pooled its vector), and
        these are pooled again from what is still stored."""
        rows = self.query(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE source_id IN ("
            "SELECT v.owner_id FROM vectors v WHERE v.owner_kind = 'source' AND v.model = ? "
            "AND NOT EXISTS (SELECT 1 FROM vectors w WHERE w.owner_kind = 'window' "
            "AND w.owner_id = v.owner_id AND w.model = v.model)) ORDER BY seq LIMIT ?",
            (model, int(limit)))
        return [SourceRecord.from_row(r) for r in rows]

    def put_window_vectors(self, model: str, rows: Sequence[tuple[str, str, np.ndarray]]) -> int:
        """Store 'window' vectors of ``model`` (the query's index picks them up by
        generation); returns the generation."""
        with self.write() as conn:
            self.put_vectors(conn, "window", model, rows)
            return self.bump_generation(conn)

    def replace_vectors(self, model: str, rows: Sequence[tuple[str, str, np.ndarray]],
                        window_rows: Sequence[tuple[str, str, np.ndarray]] = ()) -> int:
        """Store re-embedded source (and window) vectors of ``model`` and drop the same
        sources' vectors of any other model, in one transaction; returns the generation."""
        with self.write() as conn:
            self.put_vectors(conn, "source", model, rows)
            if window_rows:
                self.put_vectors(conn, "window", model, window_rows)
            ids = [r[0] for r in rows]
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                conn.execute(
                    f"DELETE FROM vectors WHERE owner_kind IN ('source', 'window') AND model != ? "
                    f"AND owner_id IN ({','.join('?' * len(chunk))})", [model, *chunk])
            self._bump_vectors_epoch(conn)
            generation = self.bump_generation(conn)
        self.drop_vector_packs()
        return generation

    def drop_other_vectors(self, model: str, dim: int) -> int:
        """Delete source vectors not of (``model``, ``dim``); returns how many."""
        with self.write() as conn:
            cur = conn.execute("DELETE FROM vectors WHERE owner_kind IN ('source', 'window') "
                               "AND (model != ? OR dim != ?)", (model, int(dim)))
            if cur.rowcount:
                self._bump_vectors_epoch(conn)
                self.bump_generation(conn)
        if cur.rowcount:
            self.drop_vector_packs()
        return int(cur.rowcount)

    def source_vectors_after(self, subject_id: str, model: str, after_rowid: int,
                             owner_kind: str = "source") -> list[tuple[Any, ...]]:
        """Vectors of ``model`` owned by a source (``owner_kind``: 'source', or another
        kind keyed by source ID) stored after ``after_rowid``, in rowid order:
        (rowid, seq, source_id, robot_id, session_id, source_time, known_time, vec,
        speaker)."""
        return self.query(
            "SELECT v.rowid, s.seq, s.source_id, s.robot_id, s.session_id, s.source_time, "
            "s.known_time, v.vec, s.speaker FROM vectors v JOIN sources s ON s.source_id = v.owner_id "
            "WHERE v.owner_kind = ? AND v.subject_id = ? AND v.model = ? "
            "AND v.rowid > ? ORDER BY v.rowid", (owner_kind, subject_id, model, int(after_rowid)))

    @staticmethod
    def _bump_vectors_epoch(conn: sqlite3.Connection) -> None:
        """Tell in-memory vector indexes that rows were removed (full reload needed)."""
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('vectors_epoch', ?)",
                     (f"{time.time():.6f}",))
