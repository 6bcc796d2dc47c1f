"""Vectors on PostgreSQL (pgvector): source and 'window' embeddings, by model.

The meaning is the SQLite engine's (``storage/sqlite/vectors``): a stored vector is
derived, keyed by (owner kind, owner ID, model); replacing one gives it a new ``vid``
(SQLite's rowid), so an in-memory index that loads ``source_vectors_after`` a watermark
picks the replacement up; it reads up to a settled ``vid`` (``settled``), so a vector
another worker committed after a larger ``vid`` is not passed over. Vectors travel as
pgvector ``vector`` values (numpy arrays through ``pgvector.psycopg``) and come back as
float32 bytes, as SQLite's BLOBs do.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..records import SourceRecord
from ..scopes import SOURCE_COLUMNS
from .packs import PgVectorPacks, drop_packs
from .settled import SETTLED, draw


class PgVectorStore(PgVectorPacks):
    """Storing and reading embeddings (their packs: ``PgVectorPacks``)."""

    @staticmethod
    def put_vectors(conn: Any, owner_kind: str, model: str,
                    rows: Iterable[tuple[str, str, np.ndarray]]) -> None:
        """Inside a write transaction: store (owner_id, subject_id, vector) rows, each
        with a new ``vid`` (drawn first, the rows written in a subtransaction:
        ``settled``)."""
        rows = list(rows)
        if not rows:
            return
        vids = draw(conn, "vectors", "vid", len(rows))
        with conn.pipeline(), conn.transaction(), conn.cursor() as cur:  # one round trip
            cur.executemany(
                "INSERT INTO vectors (vid, owner_kind, owner_id, subject_id, model, dim, vec) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (subject_id, owner_kind, owner_id, model) "
                "DO UPDATE SET dim = excluded.dim, vec = excluded.vec, vid = excluded.vid",
                [(vid, owner_kind, oid, subj, model, int(v.shape[0]),
                  np.asarray(v, dtype=np.float32))
                 for vid, (oid, subj, v) in zip(vids, rows, strict=True)])

    @staticmethod
    def _bump_vectors_epoch(conn: Any) -> None:
        """Tell in-memory vector indexes that rows were removed (full reload needed), and
        delete the vector packs (of the old epoch: never loaded again)."""
        conn.execute("INSERT INTO meta (key, value) VALUES ('vectors_epoch', %s) "
                     "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                     (f"{time.time():.6f}",))
        drop_packs(conn)

    def vector_models(self) -> list[tuple[str, int, int]]:
        """(model, dim, count) of the stored source vectors."""
        return [(r[0], int(r[1]), int(r[2])) for r in self.query(
            "SELECT model, dim, count(*) FROM vectors WHERE owner_kind = 'source' "
            "GROUP BY model, dim ORDER BY model, dim")]

    def model_changed(self, model: str, dim: int) -> bool:
        """True when stored source vectors are of another model or dimension."""
        return any((m, d) != (model, dim) for m, d, _n in self.vector_models())

    def sources_to_reembed(self, model: str, dim: int, limit: int) -> list[SourceRecord]:
        """Sources whose projection is done but that have no vector of (model, dim), in
        every subject (a model change re-embeds the ledger); each join is by subject."""
        rows = self.query(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE (subject_id, seq) IN ("
            "SELECT j.subject_id, j.source_seq FROM jobs j JOIN sources s "
            "ON s.subject_id = j.subject_id AND s.seq = j.source_seq "
            "WHERE j.status = 'done' AND NOT EXISTS (SELECT 1 FROM vectors v WHERE "
            "v.subject_id = s.subject_id AND v.owner_kind = 'source' "
            "AND v.owner_id = s.source_id AND v.model = %s "
            "AND v.dim = %s) ORDER BY j.source_seq LIMIT %s) ORDER BY seq",
            (model, int(dim), int(limit)))
        return [SourceRecord.from_row(r) for r in rows]

    def sources_without_window(self, model: str, limit: int) -> list[SourceRecord]:
        """Sources with a vector of ``model`` but no 'window' vector of it, in every
        subject; each join is by subject."""
        rows = self.query(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE (subject_id, source_id) IN ("
            "SELECT v.subject_id, v.owner_id FROM vectors v WHERE v.owner_kind = 'source' "
            "AND v.model = %s AND NOT EXISTS (SELECT 1 FROM vectors w WHERE "
            "w.subject_id = v.subject_id AND w.owner_kind = 'window' "
            "AND w.owner_id = v.owner_id AND w.model = v.model)) ORDER BY seq LIMIT %s",
            (model, int(limit)))
        return [SourceRecord.from_row(r) for r in rows]

    def put_window_vectors(self, model: str, rows: Sequence[tuple[str, str, np.ndarray]]) -> int:
        """Store 'window' vectors of ``model``; returns the generation."""
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
            conn.execute("DELETE FROM vectors WHERE (subject_id, owner_id) IN (SELECT * FROM "
                         "unnest(%s::text[], %s::text[])) AND owner_kind IN ('source', 'window') "
                         "AND model <> %s", ([r[1] for r in rows], [r[0] for r in rows], model))
            self._bump_vectors_epoch(conn)
            return self.bump_generation(conn)

    def drop_other_vectors(self, model: str, dim: int) -> int:
        """Delete source vectors not of (``model``, ``dim``); returns how many."""
        with self.write() as conn:
            n = conn.execute("DELETE FROM vectors WHERE owner_kind IN ('source', 'window') "
                             "AND (model <> %s OR dim <> %s)", (model, int(dim))).rowcount
            if n:
                self._bump_vectors_epoch(conn)
                self.bump_generation(conn)
            return int(n)

    def source_vectors_after(self, subject_id: str, model: str, after_rowid: int,
                             owner_kind: str = "source") -> list[tuple[Any, ...]]:
        """Vectors of ``model`` owned by a source stored after ``after_rowid`` (here the
        ``vid``), in that order, up to the largest settled ``vid`` of the subject's vectors
        of that kind (``settled``; only ``put_vectors`` writes those, session vectors draw
        in their INSERT), so one another writer drew earlier but has not committed yet is
        never passed over. Rows: (vid, seq, source_id, robot_id, session_id, source_time,
        known_time, vec as float32 bytes, speaker).

        The vectors come in pgvector's binary form (``vector_send``), not as text: parsing
        the text of each vector in Python took 0.2 ms a vector, 450 ms for one subject's
        first question at 10,000 sources, ten times reading the bytes."""
        rows = self._query(
            "SELECT v.vid, s.seq, s.source_id, s.robot_id, s.session_id, s.source_time, "
            "s.known_time, vector_send(v.vec), s.speaker FROM vectors v JOIN sources s "
            "ON s.subject_id = v.subject_id AND s.source_id = v.owner_id "
            "WHERE v.owner_kind = %s AND v.subject_id = %s "
            "AND v.model = %s AND v.vid > %s AND v.vid <= (SELECT vid FROM vectors WHERE "
            f"subject_id = %s AND vid > %s AND owner_kind = %s AND {SETTLED} "
            "ORDER BY vid DESC LIMIT 1) ORDER BY v.vid",
            (owner_kind, subject_id, model, int(after_rowid), subject_id, int(after_rowid),
             owner_kind), binary=True)
        vecs = _sent_float32_rows([r[7] for r in rows])
        return [(*r[:7], v, r[8]) for r, v in zip(rows, vecs, strict=True)]


def _sent_float32_bytes(sent: bytes) -> bytes:
    """``vector_send``'s bytes (dimension and a reserved field as two int16, then each
    value as a big-endian float4) as the float32 bytes SQLite stores."""
    return np.frombuffer(sent, dtype=">f4", offset=4).astype(np.float32).tobytes()


def _sent_float32_rows(sent: list[bytes]) -> list[bytes]:
    """``_sent_float32_bytes`` of each, converted as one block when they are all of one
    length (a subject's vectors of one model: 0.6 s a row at a time for 125,000 rows)."""
    width = len(sent[0]) if sent else 0
    if width <= 4 or any(len(b) != width for b in sent):
        return [_sent_float32_bytes(b) for b in sent]
    block = np.frombuffer(b"".join(sent), dtype=">f4").reshape(len(sent), width // 4)
    out = block[:, 1:].astype(np.float32).tobytes()
    step = width - 4
    return [out[i:i + step] for i in range(0, len(out), step)]
