"""The evidence graph's statements inside a transaction: facts with provenance, typed
edges, their state, and the reads the projector and the linker make while writing.

Static methods take ``conn`` and run inside the caller's transaction (the consolidation
batch, or ``forget``).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence

import numpy as np

from ...facts import EDGE_COLUMNS, FACT_COLUMNS, Edge, Fact
from .rows import CHUNK, _edge, fact_rows
from .search import facts_matching


class GraphWrites:
    """Statements on ``facts``, ``fact_sources`` and ``edges`` in a transaction."""

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
        for start in range(0, len(fact_ids), CHUNK):
            chunk = list(fact_ids[start:start + CHUNK])
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
            GraphWrites.mark_graph_changed(conn)
        return neighbours - set(fact_ids)

    @staticmethod
    def facts_of_sources(conn: sqlite3.Connection, source_ids: Sequence[str]) -> list[str]:
        """IDs of facts whose provenance lies wholly within ``source_ids``."""
        out: list[str] = []
        wanted = set(source_ids)
        for start in range(0, len(source_ids), CHUNK):
            chunk = list(source_ids[start:start + CHUNK])
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
        GraphWrites.mark_graph_changed(conn)

    @staticmethod
    def clear_all_graph(conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM fact_sources")
        conn.execute("DELETE FROM facts")
        conn.execute("DELETE FROM edges")
        conn.execute("DELETE FROM topics")
        conn.execute("UPDATE sessions SET topic_id = NULL")
        conn.execute("DELETE FROM vectors WHERE owner_kind = 'session'")
        conn.execute("DELETE FROM meta WHERE key LIKE 'topics_closed:%'")
        GraphWrites.mark_graph_changed(conn)

    def clear_graph(self) -> None:
        """Drop all facts, edges and topics (``rebuild`` recreates them from sources)."""
        with self.write() as conn:  # type: ignore[attr-defined]
            self.clear_all_graph(conn)

    @staticmethod
    def facts_by_ids(conn: sqlite3.Connection, fact_ids: Sequence[str]) -> list[Fact]:
        out: list[Fact] = []
        ids = list(dict.fromkeys(fact_ids))
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start:start + CHUNK]
            out += fact_rows(conn, f"fact_id IN ({','.join('?' * len(chunk))})", chunk)
        return out

    @staticmethod
    def facts_by_key(conn: sqlite3.Connection, subject_id: str, entity: str,
                     relation: str) -> list[Fact]:
        """Facts of one key; ``relation`` ending in ':' matches every qualified form."""
        if relation.endswith(":"):
            return fact_rows(conn, "subject_id = ? AND entity = ? AND (relation = ? OR "
                              "relation LIKE ?)", (subject_id, entity, relation[:-1],
                                                   relation + "%"))
        return fact_rows(conn, "subject_id = ? AND entity = ? AND relation = ?",
                          (subject_id, entity, relation))

    @staticmethod
    def facts_of_seq(conn: sqlite3.Connection, source_seq: int) -> list[Fact]:
        return fact_rows(conn, "source_seq = ?", (source_seq,), "ORDER BY fact_id")

    @staticmethod
    def facts_near_time(conn: sqlite3.Connection, subject_id: str, t: float, later: bool,
                        limit: int, exclude_seq: int) -> list[Fact]:
        """The ``limit`` facts with resolved anchors nearest before (or after) ``t``."""
        op, order = (">", "ASC") if later else ("<", "DESC")
        # Look at a bounded window of neighbours in time (most facts fall back to the
        # message time), so the cost per fact does not grow with the history.
        window = max(limit, 1) * 25
        return fact_rows(
            conn, f"fact_id IN (SELECT fact_id FROM facts WHERE subject_id = ? AND "
            f"valid_from {op} ? ORDER BY valid_from {order} LIMIT {window}) "
            "AND anchor_fallback = 0 AND source_seq != ?", (subject_id, t, exclude_seq),
            f"ORDER BY valid_from {order}, source_seq {order} LIMIT {int(limit)}")

    @staticmethod
    def facts_matching_text(conn: sqlite3.Connection, subject_id: str, match: str,
                            limit: int, before_seq: int) -> list[Fact]:
        """Facts whose description matches an FTS5 query, best BM25 first, from
        sources before ``before_seq`` (only what a sequential projection had seen)."""
        ids = facts_matching(conn, subject_id, match, limit, before_seq)
        facts = {f.fact_id: f for f in GraphWrites.facts_by_ids(conn, ids)}
        return [facts[i] for i in ids if i in facts]

    @staticmethod
    def fact_edges(conn: sqlite3.Connection, fact_ids: Sequence[str], types: Sequence[str],
                   direction: str = "both") -> list[Edge]:
        """Edges of the given types leaving (``out``), entering (``in``) or touching
        (``both``) the facts."""
        out: dict[int, Edge] = {}
        tmarks = ",".join("?" * len(types))
        ids = list(fact_ids)
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start:start + CHUNK]
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
    def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
