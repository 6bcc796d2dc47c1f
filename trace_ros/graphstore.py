"""SQL of the evidence graph: facts with provenance, typed edges, sessions and topics.

``GraphStore`` is a mixin of ``Ledger``: it holds every statement that touches
``facts``, ``fact_sources``, ``edges``, ``topics`` and the session/topic side of
``sessions`` and ``vectors``, so the rest of road 2 and road 3 never write SQL.
Static methods take ``conn`` and run inside the caller's transaction (the
consolidation batch); instance methods are reads on the ledger's connection.

Vertex IDs: facts use their ``fact_id``; hierarchy vertices carry their subject
because the edge table's ``UNIQUE (type, src, dst)`` is global and every
subject has e.g. a ``session_1`` (``session:<subject>/<robot>/<session>``,
``topic:<subject>/<n>``, ``entity:<subject>/<name>``).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .facts import EDGE_COLUMNS, FACT_COLUMNS, Edge, Fact, fact_from_row

CAUSAL_TYPES = ("causes", "enables", "prevents")
_CHUNK = 500


def session_vertex(subject_id: str, robot_id: str, session_id: str) -> str:
    return f"session:{subject_id}/{robot_id}/{session_id}"


def topic_vertex(subject_id: str, topic_id: int) -> str:
    return f"topic:{subject_id}/{topic_id}"


def entity_vertex(subject_id: str, name: str) -> str:
    return f"entity:{subject_id}/{name}"


@dataclass(frozen=True)
class SessionRow:
    subject_id: str
    robot_id: str
    session_id: str
    start_time: float
    end_time: float
    n_sources: int
    topic_id: int | None

    @property
    def vertex(self) -> str:
        return session_vertex(self.subject_id, self.robot_id, self.session_id)


@dataclass(frozen=True)
class TopicRow:
    subject_id: str
    topic_id: int
    label: str
    centroid: np.ndarray | None
    n_sessions: int

    @property
    def vertex(self) -> str:
        return topic_vertex(self.subject_id, self.topic_id)


def _fact_rows(conn: sqlite3.Connection, where: str, args: Sequence[Any],
               order: str = "") -> list[Fact]:
    rows = conn.execute(f"SELECT {FACT_COLUMNS} FROM facts WHERE {where} {order}", args).fetchall()
    if not rows:
        return []
    ids = [r[0] for r in rows]
    prov: dict[str, list[str]] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for fid, sid in conn.execute(
                f"SELECT fact_id, source_id FROM fact_sources WHERE fact_id IN ({marks}) "
                "ORDER BY source_id", chunk):
            prov.setdefault(fid, []).append(sid)
    return [fact_from_row(r, tuple(prov.get(r[0], ()))) for r in rows]


def _edge(row: Sequence[Any]) -> Edge:
    return Edge(*row)


class GraphStore:
    """Mixin for ``Ledger`` (which provides ``query``, ``read`` and ``write``)."""

    # -- writes inside a transaction -------------------------------------------

    @staticmethod
    def insert_facts(conn: sqlite3.Connection, facts: Sequence[Fact]) -> None:
        conn.executemany(
            f"INSERT INTO facts ({FACT_COLUMNS}) VALUES ({','.join('?' * 23)})",
            [(f.fact_id, f.subject_id, f.robot_id, f.session_id, f.type,
              json.dumps(list(f.participants)), f.entity, f.relation, f.value, f.polarity,
              f.description, f.anchor_time, f.anchor_text, int(f.anchor_fallback), f.valid_from,
              f.valid_to, f.known_from, f.known_to, f.status, f.validity, f.source_seq,
              f.generation, f.extractor) for f in facts])
        conn.executemany("INSERT OR IGNORE INTO fact_sources (fact_id, source_id) VALUES (?, ?)",
                         [(f.fact_id, s) for f in facts for s in f.source_ids])

    @staticmethod
    def insert_edges(conn: sqlite3.Connection, subject_id: str,
                     edges: Iterable[tuple[str, str, str, float, str, float]],
                     generation: int) -> int:
        """Insert (type, src, dst, confidence, justification, created_at) rows; an edge
        that exists already (same type, src, dst) is kept as it is. Returns rows added."""
        before = conn.total_changes
        conn.executemany(
            "INSERT OR IGNORE INTO edges (subject_id, type, src, dst, confidence, justification, "
            "created_at, generation) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(subject_id, t, s, d, float(c), j, float(at), generation)
             for t, s, d, c, j, at in edges])
        return conn.total_changes - before

    @staticmethod
    def delete_edges(conn: sqlite3.Connection, edge_ids: Sequence[int]) -> None:
        conn.executemany("DELETE FROM edges WHERE edge_id = ?", [(e,) for e in edge_ids])

    @staticmethod
    def set_fact_state(conn: sqlite3.Connection,
                       rows: Sequence[tuple[str, float | None, float | None, str, float]],
                       generation: int) -> int:
        """Write (fact_id, valid_to, known_to, status, validity) where they changed;
        the fact's generation moves on so incremental readers see it. Returns changes."""
        before = conn.total_changes
        conn.executemany(
            "UPDATE facts SET valid_to = ?, known_to = ?, status = ?, validity = ?, "
            "generation = ? WHERE fact_id = ? AND (valid_to IS NOT ? OR known_to IS NOT ? "
            "OR status != ? OR validity != ?)",
            [(vt, kt, st, va, generation, fid, vt, kt, st, va) for fid, vt, kt, st, va in rows])
        return conn.total_changes - before

    @staticmethod
    def set_edges_invalidated(conn: sqlite3.Connection, src: str, types: Sequence[str],
                              at: float | None, generation: int) -> None:
        marks = ",".join("?" * len(types))
        conn.execute(
            f"UPDATE edges SET invalidated_at = ?, generation = ? WHERE src = ? "
            f"AND type IN ({marks}) AND invalidated_at IS NOT ?",
            [at, generation, src, *types, at])

    @staticmethod
    def delete_facts(conn: sqlite3.Connection, fact_ids: Sequence[str]) -> set[str]:
        """Delete facts, their provenance and every edge touching them. Returns the
        facts at the other end of deleted fact-to-fact edges (their state must be
        recomputed)."""
        neighbours: set[str] = set()
        for start in range(0, len(fact_ids), _CHUNK):
            chunk = list(fact_ids[start:start + _CHUNK])
            marks = ",".join("?" * len(chunk))
            for src, dst in conn.execute(
                    f"SELECT src, dst FROM edges WHERE (src IN ({marks}) OR dst IN ({marks})) "
                    "AND type IN ('updates', 'contradicts', 'causes', 'enables', 'prevents')",
                    chunk + chunk):
                neighbours.update((src, dst))
            conn.execute(f"DELETE FROM edges WHERE src IN ({marks})", chunk)
            conn.execute(f"DELETE FROM edges WHERE dst IN ({marks})", chunk)
            conn.execute(f"DELETE FROM fact_sources WHERE fact_id IN ({marks})", chunk)
            conn.execute(f"DELETE FROM facts WHERE fact_id IN ({marks})", chunk)
        if fact_ids:
            GraphStore.mark_graph_changed(conn)
        return neighbours - set(fact_ids)

    @staticmethod
    def facts_of_sources(conn: sqlite3.Connection, source_ids: Sequence[str]) -> list[str]:
        """IDs of facts whose provenance lies wholly within ``source_ids``."""
        out: list[str] = []
        wanted = set(source_ids)
        for start in range(0, len(source_ids), _CHUNK):
            chunk = list(source_ids[start:start + _CHUNK])
            marks = ",".join("?" * len(chunk))
            cand = [r[0] for r in conn.execute(
                f"SELECT DISTINCT fact_id FROM fact_sources WHERE source_id IN ({marks})", chunk)]
            for fid in cand:
                prov = {r[0] for r in conn.execute(
                    "SELECT source_id FROM fact_sources WHERE fact_id = ?", (fid,))}
                if prov <= wanted:
                    out.append(fid)
        return out

    @staticmethod
    def mark_graph_changed(conn: sqlite3.Connection) -> None:
        """Rows were deleted: in-memory graphs must reload fully, not incrementally."""
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('graph_epoch', ?)",
                     (f"{time.time():.6f}",))

    @staticmethod
    def clear_subject_graph(conn: sqlite3.Connection, subject_id: str) -> None:
        """Drop everything derived in the graph for one subject (facts, edges, topics,
        session vectors and topic assignments, hierarchy bookkeeping)."""
        conn.execute("DELETE FROM fact_sources WHERE fact_id IN "
                     "(SELECT fact_id FROM facts WHERE subject_id = ?)", (subject_id,))
        conn.execute("DELETE FROM facts WHERE subject_id = ?", (subject_id,))
        conn.execute("DELETE FROM edges WHERE subject_id = ?", (subject_id,))
        conn.execute("DELETE FROM topics WHERE subject_id = ?", (subject_id,))
        conn.execute("UPDATE sessions SET topic_id = NULL WHERE subject_id = ?", (subject_id,))
        conn.execute("DELETE FROM vectors WHERE owner_kind = 'session' AND subject_id = ?",
                     (subject_id,))
        conn.execute("DELETE FROM meta WHERE key = ?", (f"topics_closed:{subject_id}",))
        GraphStore.mark_graph_changed(conn)

    @staticmethod
    def clear_all_graph(conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM fact_sources")
        conn.execute("DELETE FROM facts")
        conn.execute("DELETE FROM edges")
        conn.execute("DELETE FROM topics")
        conn.execute("UPDATE sessions SET topic_id = NULL")
        conn.execute("DELETE FROM vectors WHERE owner_kind = 'session'")
        conn.execute("DELETE FROM meta WHERE key LIKE 'topics_closed:%'")
        GraphStore.mark_graph_changed(conn)

    def clear_graph(self) -> None:
        """Drop all facts, edges and topics (``rebuild`` recreates them from sources)."""
        with self.write() as conn:  # type: ignore[attr-defined]
            self.clear_all_graph(conn)

    # -- reads inside a transaction (the projector, the linker) ----------------

    @staticmethod
    def facts_by_ids(conn: sqlite3.Connection, fact_ids: Sequence[str]) -> list[Fact]:
        out: list[Fact] = []
        ids = list(dict.fromkeys(fact_ids))
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start:start + _CHUNK]
            out += _fact_rows(conn, f"fact_id IN ({','.join('?' * len(chunk))})", chunk)
        return out

    @staticmethod
    def facts_by_key(conn: sqlite3.Connection, subject_id: str, entity: str,
                     relation: str) -> list[Fact]:
        """Facts of one key; ``relation`` ending in ':' matches every qualified form."""
        if relation.endswith(":"):
            return _fact_rows(conn, "subject_id = ? AND entity = ? AND (relation = ? OR "
                              "relation LIKE ?)", (subject_id, entity, relation[:-1],
                                                   relation + "%"))
        return _fact_rows(conn, "subject_id = ? AND entity = ? AND relation = ?",
                          (subject_id, entity, relation))

    @staticmethod
    def facts_of_seq(conn: sqlite3.Connection, source_seq: int) -> list[Fact]:
        return _fact_rows(conn, "source_seq = ?", (source_seq,), "ORDER BY fact_id")

    @staticmethod
    def facts_near_time(conn: sqlite3.Connection, subject_id: str, t: float, later: bool,
                        limit: int, exclude_seq: int) -> list[Fact]:
        """The ``limit`` facts with resolved anchors nearest before (or after) ``t``."""
        op, order = (">", "ASC") if later else ("<", "DESC")
        # Look at a bounded window of neighbours in time (most facts fall back to the
        # message time), so the cost per fact does not grow with the history.
        window = max(limit, 1) * 25
        return _fact_rows(
            conn, f"fact_id IN (SELECT fact_id FROM facts WHERE subject_id = ? AND "
            f"valid_from {op} ? ORDER BY valid_from {order} LIMIT {window}) "
            "AND anchor_fallback = 0 AND source_seq != ?", (subject_id, t, exclude_seq),
            f"ORDER BY valid_from {order}, source_seq {order} LIMIT {int(limit)}")

    @staticmethod
    def facts_matching_text(conn: sqlite3.Connection, subject_id: str, match: str,
                            limit: int, before_seq: int) -> list[Fact]:
        """Facts whose description matches an FTS5 query, best BM25 first, from
        sources before ``before_seq`` (only what a sequential projection had seen)."""
        rows = conn.execute(
            "SELECT f.fact_id FROM facts_fts JOIN facts f ON f.rowid = facts_fts.rowid "
            "WHERE facts_fts MATCH ? AND f.source_seq < ? ORDER BY bm25(facts_fts) LIMIT ?",
            (f'subject_id:"{subject_id}" AND ({match})', before_seq, limit)).fetchall()
        facts = {f.fact_id: f for f in GraphStore.facts_by_ids(conn, [r[0] for r in rows])}
        return [facts[r[0]] for r in rows if r[0] in facts]

    @staticmethod
    def fact_edges(conn: sqlite3.Connection, fact_ids: Sequence[str], types: Sequence[str],
                   direction: str = "both") -> list[Edge]:
        """Edges of the given types leaving (``out``), entering (``in``) or touching
        (``both``) the facts."""
        out: dict[int, Edge] = {}
        tmarks = ",".join("?" * len(types))
        ids = list(fact_ids)
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start:start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for col in (("src",) if direction == "out" else ("dst",) if direction == "in"
                        else ("src", "dst")):
                for row in conn.execute(
                        f"SELECT {EDGE_COLUMNS} FROM edges WHERE {col} IN ({marks}) "
                        f"AND type IN ({tmarks})", chunk + list(types)):
                    out[row[0]] = _edge(row)
        return sorted(out.values(), key=lambda e: e.edge_id)

    @staticmethod
    def generation_now(conn: sqlite3.Connection) -> int:
        return int(conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])

    @staticmethod
    def origins(conn: sqlite3.Connection, seqs: Sequence[int]) -> dict[int, tuple[str, str]]:
        """(modality, speaker) of sources by sequence number."""
        return {int(r[0]): (r[1], r[2]) for q in dict.fromkeys(seqs) for r in conn.execute(
            "SELECT seq, modality, speaker FROM sources WHERE seq = ?", (q,))}

    @staticmethod
    def speakers_first_seen(conn: sqlite3.Connection, subject_id: str) -> dict[str, int]:
        """Each speaker of a subject with the first sequence number it spoke at."""
        return {r[0]: int(r[1]) for r in conn.execute(
            "SELECT speaker, min(seq) FROM sources WHERE subject_id = ? AND speaker != '' "
            "GROUP BY speaker", (subject_id,))}

    @staticmethod
    def session_turns(conn: sqlite3.Connection, key: tuple[str, str, str], max_seq: int
                      ) -> list[tuple[int, str, str, str]]:
        """(seq, speaker, modality, text) of one session's sources up to ``max_seq``,
        in sequence order; ``key`` is (subject, robot, session)."""
        return [(int(r[0]), r[1], r[2], r[3] or "") for r in conn.execute(
            "SELECT seq, speaker, modality, text FROM sources WHERE subject_id = ? "
            "AND robot_id = ? AND session_id = ? AND seq <= ? ORDER BY seq", (*key, max_seq))]

    @staticmethod
    def session_field(conn: sqlite3.Connection, key: tuple[str, str, str], column: str) -> Any:
        """One column (``start_time`` or ``topic_id``) of a session, or None."""
        if column not in ("start_time", "topic_id"):
            raise ValueError(f"unknown session column {column!r}")
        row = conn.execute(f"SELECT {column} FROM sessions WHERE subject_id = ? AND robot_id = ? "
                           "AND session_id = ?", key).fetchone()
        return None if row is None else row[0]

    # -- sessions and topics (hierarchy) -----------------------------------------

    @staticmethod
    def session_rows(conn: sqlite3.Connection, subject_id: str) -> list[SessionRow]:
        """A subject's sessions in chronological order (start time, then ID)."""
        return [SessionRow(*r) for r in conn.execute(
            "SELECT subject_id, robot_id, session_id, start_time, end_time, n_sources, topic_id "
            "FROM sessions WHERE subject_id = ? ORDER BY start_time, robot_id, session_id",
            (subject_id,))]

    @staticmethod
    def session_source_mean(conn: sqlite3.Connection, subject_id: str, robot_id: str,
                            session_id: str, max_seq: int | None = None
                            ) -> tuple[np.ndarray | None, int, str]:
        """Mean of the session's source vectors (of one model), with how many and which
        model. ``max_seq`` limits it to sources up to that sequence number."""
        # CROSS JOIN keeps the session's sources as the outer loop (else SQLite may scan
        # every source vector).
        sql = ("SELECT v.model, v.vec FROM sources s CROSS JOIN vectors v "
               "ON v.owner_kind = 'source' AND v.owner_id = s.source_id "
               "WHERE s.subject_id = ? AND s.session_id = ? AND s.robot_id = ?")
        args: list[Any] = [subject_id, session_id, robot_id]
        if max_seq is not None:
            sql += " AND s.seq <= ?"
            args.append(max_seq)
        rows = conn.execute(sql + " ORDER BY s.seq", args).fetchall()
        if not rows:
            return None, 0, ""
        model = rows[-1][0]
        vecs = [np.frombuffer(r[1], dtype=np.float32) for r in rows if r[0] == model]
        return np.mean(np.stack(vecs), axis=0, dtype=np.float64), len(vecs), model

    @staticmethod
    def session_vectors(conn: sqlite3.Connection, subject_id: str,
                        vertices: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """Stored session embeddings of a subject (or of the given session vertices)."""
        if vertices is None:
            rows = conn.execute("SELECT owner_id, vec FROM vectors WHERE owner_kind = 'session' "
                                "AND subject_id = ?", (subject_id,)).fetchall()
        else:
            rows = [r for v in vertices for r in conn.execute(
                "SELECT owner_id, vec FROM vectors WHERE owner_kind = 'session' AND owner_id = ?",
                (v,))]
        return {r[0]: np.frombuffer(r[1], dtype=np.float32).astype(np.float64) for r in rows}

    @staticmethod
    def source_vector(conn: sqlite3.Connection, source_id: str) -> np.ndarray | None:
        """A source's stored vector (the first model's), or None."""
        row = conn.execute("SELECT vec FROM vectors WHERE owner_kind = 'source' AND owner_id = ? "
                           "ORDER BY model LIMIT 1", (source_id,)).fetchone()
        return None if row is None else np.frombuffer(row[0], dtype=np.float32)

    @staticmethod
    def speaker_statements(conn: sqlite3.Connection, subject_id: str, speaker: str,
                           before_seq: int, after_seq: int = 0
                           ) -> list[tuple[int, str, str, np.ndarray]]:
        """(seq, source_id, text, vector) of one speaker's dialogue turns in a subject
        with ``after_seq`` < seq < ``before_seq`` and a stored source vector, by seq."""
        rows = conn.execute(
            "SELECT s.seq, s.source_id, s.text, v.vec FROM sources s JOIN vectors v "
            "ON v.owner_kind = 'source' AND v.owner_id = s.source_id "
            "WHERE s.subject_id = ? AND s.speaker = ? AND s.modality = 'dialogue' "
            "AND s.seq > ? AND s.seq < ? ORDER BY s.seq",
            (subject_id, speaker, int(after_seq), int(before_seq))).fetchall()
        return [(int(r[0]), r[1], r[2], np.frombuffer(r[3], dtype=np.float32)) for r in rows]

    @staticmethod
    def sessions_with_vectors(conn: sqlite3.Connection, subject_id: str) -> set[str]:
        """Session vertices of a subject that have an embedding."""
        return {r[0] for r in conn.execute(
            "SELECT owner_id FROM vectors WHERE owner_kind = 'session' AND subject_id = ?",
            (subject_id,))}

    @staticmethod
    def put_session_vector(conn: sqlite3.Connection, subject_id: str, vertex: str,
                           model: str, vec: np.ndarray) -> None:
        conn.execute("DELETE FROM vectors WHERE owner_kind = 'session' AND owner_id = ?",
                     (vertex,))
        v = np.asarray(vec, dtype=np.float32)
        conn.execute("INSERT INTO vectors (owner_kind, owner_id, subject_id, model, dim, vec) "
                     "VALUES ('session', ?, ?, ?, ?, ?)",
                     (vertex, subject_id, model, int(v.shape[0]), v.tobytes()))

    @staticmethod
    def topic_rows(conn: sqlite3.Connection, subject_id: str) -> list[TopicRow]:
        return [TopicRow(r[0], int(r[1]), r[2],
                         np.frombuffer(r[3], dtype=np.float64).copy() if r[3] else None,
                         int(r[4])) for r in conn.execute(
            "SELECT subject_id, topic_id, label, centroid, n_sessions FROM topics "
            "WHERE subject_id = ? ORDER BY topic_id", (subject_id,))]

    @staticmethod
    def replace_topics(conn: sqlite3.Connection, subject_id: str,
                       topics: Sequence[tuple[int, str, np.ndarray | None, int]]) -> None:
        """Replace a subject's topics with (topic_id, label, centroid, n_sessions) rows."""
        conn.execute("DELETE FROM topics WHERE subject_id = ?", (subject_id,))
        conn.executemany(
            "INSERT INTO topics (subject_id, topic_id, label, centroid, n_sessions) "
            "VALUES (?, ?, ?, ?, ?)",
            [(subject_id, tid, label,
              None if c is None else np.asarray(c, dtype=np.float64).tobytes(), n)
             for tid, label, c, n in topics])

    @staticmethod
    def set_session_topics(conn: sqlite3.Connection, subject_id: str,
                           rows: Sequence[tuple[str, str, int | None]]) -> None:
        """Set (robot_id, session_id, topic_id) assignments."""
        conn.executemany(
            "UPDATE sessions SET topic_id = ? WHERE subject_id = ? AND robot_id = ? "
            "AND session_id = ?", [(t, subject_id, r, s) for r, s, t in rows])

    @staticmethod
    def member_edges(conn: sqlite3.Connection, subject_id: str, type_: str,
                     src_prefix: str) -> list[Edge]:
        """A subject's edges of one type whose source starts with ``src_prefix``."""
        return [_edge(r) for r in conn.execute(
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE subject_id = ? AND type = ? "
            "AND substr(src, 1, ?) = ?", (subject_id, type_, len(src_prefix), src_prefix))]

    @staticmethod
    def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- forget ----------------------------------------------------------------------

    @staticmethod
    def forget_derived(conn: sqlite3.Connection, source_ids: Sequence[str],
                       subjects: Iterable[str], generation: int = 0) -> None:
        """Inside ``Ledger.forget``'s transaction: remove the facts derived only from
        ``source_ids`` and every edge touching them, recompute the state of the facts
        they updated, contradicted or caused, and reset the hierarchy of the
        subjects (their session embeddings and topic centroids contained the
        forgotten text); ``hierarchy.rederive_hierarchy`` or the next batch rebuilds it."""
        from .state import recompute_validity

        subjects = list(subjects)
        gone = [s for s in subjects if conn.execute(
            "SELECT 1 FROM sources WHERE subject_id = ? LIMIT 1", (s,)).fetchone() is None]
        for subject in gone:  # the whole subject went: drop its graph wholesale
            GraphStore.clear_subject_graph(conn, subject)
        subjects = [s for s in subjects if s not in gone]
        doomed = GraphStore.facts_of_sources(conn, list(source_ids))
        neighbours = GraphStore.delete_facts(conn, doomed) if doomed else set()
        for start in range(0, len(source_ids), _CHUNK):
            chunk = list(source_ids[start:start + _CHUNK])
            conn.execute(f"DELETE FROM fact_sources WHERE source_id IN "
                         f"({','.join('?' * len(chunk))})", chunk)
        recompute_validity(conn, neighbours, generation)
        for subject in subjects:
            GraphStore.reset_hierarchy(conn, subject)
        GraphStore.mark_graph_changed(conn)

    @staticmethod
    def reset_hierarchy(conn: sqlite3.Connection, subject_id: str) -> None:
        """Drop a subject's topics, session embeddings and session/topic edges."""
        conn.execute("DELETE FROM topics WHERE subject_id = ?", (subject_id,))
        conn.execute("UPDATE sessions SET topic_id = NULL WHERE subject_id = ?", (subject_id,))
        conn.execute("DELETE FROM vectors WHERE owner_kind = 'session' AND subject_id = ?",
                     (subject_id,))
        conn.execute("DELETE FROM edges WHERE subject_id = ? AND type IN ('before', 'in_topic') "
                     "AND substr(src, 1, 8) = 'session:'", (subject_id,))
        conn.execute("DELETE FROM meta WHERE key = ?", (f"topics_closed:{subject_id}",))

    # -- reads for the resolver, the CLI and the in-memory graph ----------------------
    # They run on the ledger's connection without opening a transaction of their own,
    # so several of them inside ``Ledger.read()`` see one generation.

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:  # type: ignore[attr-defined]
            yield self.conn  # type: ignore[attr-defined]

    def facts_for_key(self, subject_id: str, entity: str, relation: str) -> list[Fact]:
        with self._reading() as conn:
            return self.facts_by_key(conn, subject_id, entity, relation)

    def edges_among(self, fact_ids: Sequence[str], types: Sequence[str]) -> list[Edge]:
        with self._reading() as conn:
            return self.fact_edges(conn, fact_ids, types)

    def keyed_facts(self, subject_id: str) -> list[Fact]:
        """Every keyed fact of a subject (for update chains), oldest first."""
        with self._reading() as conn:
            return _fact_rows(conn, "subject_id = ? AND entity != '' AND relation != ''",
                              (subject_id,), "ORDER BY entity, relation, valid_from, source_seq")

    def facts_since(self, subject_id: str, generation: int = -1) -> list[Fact]:
        """A subject's facts written or changed after ``generation``."""
        with self._reading() as conn:
            return _fact_rows(conn, "subject_id = ? AND generation > ?", (subject_id, generation),
                              "ORDER BY source_seq, fact_id")

    def facts_of_sources_in(self, subject_id: str, source_ids: Sequence[str]) -> list[Fact]:
        """A subject's facts whose provenance includes one of ``source_ids`` (query seeds)."""
        ids = list(dict.fromkeys(source_ids))
        if not ids:
            return []
        with self._reading() as conn:
            fact_ids: list[str] = []
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start:start + _CHUNK]
                fact_ids += [r[0] for r in conn.execute(
                    # CROSS JOIN: the sources' provenance rows drive (not the subject's facts).
                    "SELECT DISTINCT fs.fact_id FROM fact_sources fs CROSS JOIN facts f "
                    "ON f.fact_id = fs.fact_id WHERE f.subject_id = ? AND fs.source_id IN "
                    f"({','.join('?' * len(chunk))})", [subject_id, *chunk])]
            return self.facts_by_ids(conn, fact_ids)

    def speaker_turns(self, subject_id: str) -> dict[str, int]:
        """How many dialogue turns each speaker of a subject has."""
        with self._reading() as conn:
            return {r[0]: int(r[1]) for r in conn.execute(
                "SELECT speaker, count(*) FROM sources WHERE subject_id = ? AND "
                "modality = 'dialogue' AND speaker != '' GROUP BY speaker", (subject_id,))}

    def facts_with_ids(self, fact_ids: Sequence[str]) -> list[Fact]:
        with self._reading() as conn:
            return self.facts_by_ids(conn, fact_ids)

    def facts_of_entities(self, subject_id: str, entities: Sequence[str],
                          limit: int) -> list[Fact]:
        """Keyed facts about ``entities`` (normalised names), newest first (ties by fact
        ID), at most ``limit`` per entity (``query.factcache`` answers the same)."""
        ents = list(dict.fromkeys(entities))[:_CHUNK]
        if not ents or limit <= 0:
            return []
        with self._reading() as conn:
            return _fact_rows(
                conn, "fact_id IN (SELECT fact_id FROM (SELECT fact_id, row_number() OVER "
                "(PARTITION BY entity ORDER BY valid_from DESC, source_seq DESC, fact_id) AS n "
                f"FROM facts WHERE subject_id = ? AND entity IN ({','.join('?' * len(ents))}) "
                "AND relation != '') WHERE n <= ?)", (subject_id, *ents, int(limit)),
                "ORDER BY entity, valid_from DESC, source_seq DESC, fact_id")

    def edges_since(self, subject_id: str, generation: int = -1) -> list[Edge]:
        return [_edge(r) for r in self.query(  # type: ignore[attr-defined]
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE subject_id = ? AND generation > ? "
            "ORDER BY edge_id", (subject_id, generation))]

    def hierarchy_edges(self, subject_id: str) -> list[Edge]:
        """A subject's session chain and session → topic edges."""
        with self._reading() as conn:
            return (self.member_edges(conn, subject_id, "before", "session:")
                    + self.member_edges(conn, subject_id, "in_topic", "session:"))

    def sessions_of(self, subject_id: str) -> list[SessionRow]:
        with self._reading() as conn:
            return self.session_rows(conn, subject_id)

    def topics_of(self, subject_id: str) -> list[TopicRow]:
        with self._reading() as conn:
            return self.topic_rows(conn, subject_id)

    def graph_marks(self) -> tuple[int, str]:
        """(generation, graph epoch) in one read: what a cache of facts and edges checks."""
        row = self.query(  # type: ignore[attr-defined]
            "SELECT (SELECT value FROM meta WHERE key = 'generation'), "
            "(SELECT value FROM meta WHERE key = 'graph_epoch')")[0]
        return int(row[0]), str(row[1] or "")

    def graph_epoch(self) -> str:
        rows = self.query("SELECT value FROM meta WHERE key = 'graph_epoch'")  # type: ignore[attr-defined]
        return str(rows[0][0]) if rows else ""

    def graph_counts(self, subject_id: str | None = None) -> dict[str, Any]:
        """Facts by type and status, edges by type, sessions, topics (one subject or all)."""
        cond, args = ("WHERE subject_id = ?", (subject_id,)) if subject_id else ("", ())
        q = self.query  # type: ignore[attr-defined]
        return {
            "facts": int(q(f"SELECT count(*) FROM facts {cond}", args)[0][0]),
            "facts_by_type": dict(q(f"SELECT type, count(*) FROM facts {cond} "
                                    "GROUP BY type ORDER BY type", args)),
            "facts_by_status": dict(q(f"SELECT status, count(*) FROM facts {cond} "
                                      "GROUP BY status ORDER BY status", args)),
            "edges_by_type": dict(q(f"SELECT type, count(*) FROM edges {cond} "
                                    "GROUP BY type ORDER BY type", args)),
            "sessions": int(q(f"SELECT count(*) FROM sessions {cond}", args)[0][0]),
            "topics": int(q(f"SELECT count(*) FROM topics {cond}", args)[0][0]),
        }

    def graph_snapshot(self, subject_id: str | None = None) -> dict[str, Any]:
        """Everything derived in the graph, without generations or row IDs: two
        ledgers built from the same sources compare equal (tests, rebuild checks)."""
        cond, args = ("WHERE subject_id = ?", (subject_id,)) if subject_id else ("", ())
        q = self.query  # type: ignore[attr-defined]
        cols = FACT_COLUMNS.replace("generation, ", "")
        facts = q(f"SELECT {cols} FROM facts {cond} ORDER BY fact_id", args)
        prov = q("SELECT fact_id, source_id FROM fact_sources ORDER BY fact_id, source_id")
        edges = q(f"SELECT subject_id, type, src, dst, round(confidence, 6), justification, "
                  f"created_at, invalidated_at FROM edges {cond} ORDER BY type, src, dst", args)
        topics = q(f"SELECT subject_id, topic_id, label, n_sessions FROM topics {cond} "
                   "ORDER BY subject_id, topic_id", args)
        sessions = q(f"SELECT subject_id, robot_id, session_id, topic_id FROM sessions {cond} "
                     "ORDER BY subject_id, robot_id, session_id", args)
        ids = {f[0] for f in facts}
        return {"facts": facts, "provenance": [p for p in prov if p[0] in ids],
                "edges": edges, "topics": topics, "sessions": sessions}

    def backup_to(self, path: str | Path) -> None:
        """Copy the whole ledger to ``path`` with SQLite's online backup, in one step:
        one consistent snapshot while other processes keep writing (rebuild checks)."""
        target = sqlite3.connect(str(path))
        try:
            with self._lock:  # type: ignore[attr-defined]
                self.conn.backup(target)  # type: ignore[attr-defined]
        finally:
            target.close()
