"""The evidence graph's statements inside a transaction on PostgreSQL: facts with
provenance, typed edges, their state, and the reads the projector and the linker make
while writing — the SQLite engine's ``graph_writes`` with the same meaning and order.

Static methods take the connection ``write()`` or ``read()`` yielded. Text is ordered
``COLLATE "C"`` (byte order, as SQLite's BINARY), so both engines list rows alike. A
fact's lexical index (``lex``, ``n_tokens``) is written with it (``search.fact_lex``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ...facts import EDGE_COLUMNS, Edge, Fact
from .lexindex import add_lex_stats, fact_lex
from .rows import edge, fact_rows, vector
from .search import facts_matching_text

FACT_INSERT = (
    "subject_id, fact_id, robot_id, session_id, type, participants, entity, relation, value, "
    "polarity, description, anchor_time, anchor_text, anchor_fallback, valid_from, valid_to, "
    "known_from, known_to, status, validity, source_seq, generation, extractor, lex, n_tokens"
)
FACT_EDGE_TYPES = ("updates", "contradicts", "causes", "enables", "prevents")


class PgGraphWrites:
    """Statements on ``facts``, ``fact_sources`` and ``edges`` in a transaction."""

    @staticmethod
    def insert_facts(conn: Any, facts: Sequence[Fact]) -> None:
        if not facts:
            return
        rows = []
        for f in facts:
            lex, n = fact_lex(f.subject_id, f.description, f.value)
            rows.append((f.subject_id, f.fact_id, f.robot_id, f.session_id, f.type,
                         json.dumps(list(f.participants)), f.entity, f.relation, f.value,
                         f.polarity, f.description, f.anchor_time, f.anchor_text,
                         int(f.anchor_fallback), f.valid_from, f.valid_to, f.known_from,
                         f.known_to, f.status, f.validity, f.source_seq, f.generation,
                         f.extractor, lex, n))
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO facts ({FACT_INSERT}) VALUES "
                            f"({', '.join(['%s'] * 23)}, %s::tsvector, %s)", rows)
            cur.executemany("INSERT INTO fact_sources (subject_id, fact_id, source_id) "
                            "VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                            [(f.subject_id, f.fact_id, s) for f in facts for s in f.source_ids])
        add_lex_stats(conn, "fact", [(r[0], 1, r[-1]) for r in rows])

    @staticmethod
    def insert_edges(conn: Any, subject_id: str,
                     edges: Iterable[tuple[str, str, str, float, str, float]],
                     generation: int) -> int:
        """Insert (type, src, dst, confidence, justification, created_at) rows; an edge
        that exists already (same type, src, dst) is kept as it is. Returns rows added."""
        rows = list(edges)
        if not rows:
            return 0
        cols = list(zip(*[(t, s, d, float(c), j, float(at)) for t, s, d, c, j, at in rows],
                        strict=True))
        added = conn.execute(
            "INSERT INTO edges (subject_id, type, src, dst, confidence, justification, "
            "created_at, generation) SELECT %s, t, s, d, c, j, a, %s FROM unnest(%s::text[], "
            "%s::text[], %s::text[], %s::float8[], %s::text[], %s::float8[]) WITH ORDINALITY "
            "AS u(t, s, d, c, j, a, ord) ORDER BY ord ON CONFLICT DO NOTHING RETURNING 1",
            (subject_id, generation, *[list(c) for c in cols])).fetchall()
        return len(added)

    @staticmethod
    def delete_edges(conn: Any, edge_ids: Sequence[int]) -> None:
        if edge_ids:
            conn.execute("DELETE FROM edges WHERE edge_id = ANY(%s)", (list(edge_ids),))

    @staticmethod
    def set_fact_state(conn: Any, rows: Sequence[tuple[str, float | None, float | None, str, float]],
                       generation: int) -> int:
        """Write (fact_id, valid_to, known_to, status, validity) where they changed;
        the fact's generation moves on so incremental readers see it. Returns changes."""
        if not rows:
            return 0
        cols = [list(c) for c in zip(*rows, strict=True)]
        changed = conn.execute(
            "UPDATE facts f SET valid_to = u.vt, known_to = u.kt, status = u.st, "
            "validity = u.va, generation = %s FROM unnest(%s::text[], %s::float8[], "
            "%s::float8[], %s::text[], %s::float8[]) AS u(fid, vt, kt, st, va) "
            "WHERE f.fact_id = u.fid AND (f.valid_to IS DISTINCT FROM u.vt OR f.known_to "
            "IS DISTINCT FROM u.kt OR f.status <> u.st OR f.validity <> u.va) RETURNING 1",
            (generation, *cols)).fetchall()
        return len(changed)

    @staticmethod
    def set_edges_invalidated(conn: Any, src: str, types: Sequence[str],
                              at: float | None, generation: int) -> None:
        conn.execute(
            "UPDATE edges SET invalidated_at = %s::float8, generation = %s WHERE src = %s "
            "AND type = ANY(%s) AND invalidated_at IS DISTINCT FROM %s::float8",
            (at, generation, src, list(types), at))

    @staticmethod
    def delete_facts(conn: Any, fact_ids: Sequence[str]) -> set[str]:
        """Delete facts, their provenance and every edge touching them. Returns the
        facts at the other end of deleted fact-to-fact edges (their state must be
        recomputed)."""
        ids = list(fact_ids)
        if not ids:
            return set()
        neighbours: set[str] = set()
        for src, dst in conn.execute(
                "SELECT src, dst FROM edges WHERE (src = ANY(%s) OR dst = ANY(%s)) "
                "AND type = ANY(%s)", (ids, ids, list(FACT_EDGE_TYPES))):
            neighbours.update((src, dst))
        conn.execute("DELETE FROM edges WHERE src = ANY(%s)", (ids,))
        conn.execute("DELETE FROM edges WHERE dst = ANY(%s)", (ids,))
        gone = conn.execute("DELETE FROM facts WHERE fact_id = ANY(%s) "
                            "RETURNING subject_id, n_tokens", (ids,)).fetchall()
        add_lex_stats(conn, "fact", [(r[0], -1, -int(r[1])) for r in gone])
        PgGraphWrites.mark_graph_changed(conn)
        return neighbours - set(ids)

    @staticmethod
    def facts_of_sources(conn: Any, source_ids: Sequence[str]) -> list[str]:
        """IDs of facts whose provenance lies wholly within ``source_ids``."""
        wanted = list(source_ids)
        if not wanted:
            return []
        return [r[0] for r in conn.execute(
            "SELECT fact_id FROM fact_sources WHERE fact_id IN (SELECT fact_id FROM "
            "fact_sources WHERE source_id = ANY(%s)) GROUP BY fact_id "
            "HAVING bool_and(source_id = ANY(%s)) ORDER BY fact_id COLLATE \"C\"",
            (wanted, wanted))]

    @staticmethod
    def mark_graph_changed(conn: Any) -> None:
        """Rows were deleted: in-memory graphs must reload fully, not incrementally."""
        conn.execute("INSERT INTO meta (key, value) VALUES ('graph_epoch', %s) "
                     "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                     (f"{time.time():.6f}",))

    @staticmethod
    def clear_subject_graph(conn: Any, subject_id: str) -> None:
        """Drop everything derived in the graph for one subject (facts, edges, topics,
        session vectors and topic assignments, hierarchy bookkeeping)."""
        for sql in ("DELETE FROM fact_sources WHERE subject_id = %s",
                    "DELETE FROM facts WHERE subject_id = %s",
                    "DELETE FROM edges WHERE subject_id = %s",
                    "DELETE FROM topics WHERE subject_id = %s",
                    "UPDATE sessions SET topic_id = NULL WHERE subject_id = %s",
                    "DELETE FROM vectors WHERE subject_id = %s AND owner_kind = 'session'",
                    "DELETE FROM lex_stats WHERE subject_id = %s AND kind = 'fact'"):
            conn.execute(sql, (subject_id,))
        conn.execute("DELETE FROM meta WHERE key = %s", (f"topics_closed:{subject_id}",))
        PgGraphWrites.mark_graph_changed(conn)

    @staticmethod
    def clear_all_graph(conn: Any) -> None:
        for sql in ("DELETE FROM fact_sources", "DELETE FROM facts", "DELETE FROM edges",
                    "DELETE FROM topics", "UPDATE sessions SET topic_id = NULL",
                    "DELETE FROM vectors WHERE owner_kind = 'session'",
                    "DELETE FROM lex_stats WHERE kind = 'fact'",
                    "DELETE FROM meta WHERE starts_with(key, 'topics_closed:')"):
            conn.execute(sql)
        PgGraphWrites.mark_graph_changed(conn)

    @staticmethod
    def facts_by_ids(conn: Any, fact_ids: Sequence[str]) -> list[Fact]:
        ids = list(dict.fromkeys(fact_ids))
        if not ids:
            return []
        return fact_rows(conn, "fact_id = ANY(%s)", (ids,), 'ORDER BY fact_id COLLATE "C"')

    @staticmethod
    def facts_by_key(conn: Any, subject_id: str, entity: str, relation: str) -> list[Fact]:
        """Facts of one key; ``relation`` ending in ':' matches every qualified form."""
        order = 'ORDER BY relation COLLATE "C", fid'
        if relation.endswith(":"):
            return fact_rows(conn, "subject_id = %s AND entity = %s AND (relation = %s OR "
                             "starts_with(relation, %s))",
                             (subject_id, entity, relation[:-1], relation), order)
        return fact_rows(conn, "subject_id = %s AND entity = %s AND relation = %s",
                         (subject_id, entity, relation), order)

    @staticmethod
    def facts_of_seq(conn: Any, source_seq: int) -> list[Fact]:
        return fact_rows(conn, "source_seq = %s", (source_seq,), 'ORDER BY fact_id COLLATE "C"')

    @staticmethod
    def facts_near_time(conn: Any, subject_id: str, t: float, later: bool,
                        limit: int, exclude_seq: int) -> list[Fact]:
        """The ``limit`` facts with resolved anchors nearest before (or after) ``t``."""
        op, order = (">", "ASC") if later else ("<", "DESC")
        window = max(limit, 1) * 25  # a bounded window of neighbours in time, as on SQLite
        return fact_rows(
            conn, f"subject_id = %s AND fact_id IN (SELECT fact_id FROM facts WHERE "
            f"subject_id = %s AND valid_from {op} %s ORDER BY valid_from {order}, fid "
            f"LIMIT {int(window)}) AND anchor_fallback = 0 AND source_seq <> %s",
            (subject_id, subject_id, t, exclude_seq),
            f"ORDER BY valid_from {order}, source_seq {order}, fid LIMIT {int(limit)}")

    @staticmethod
    def facts_matching_text(conn: Any, subject_id: str, match: str,
                            limit: int, before_seq: int) -> list[Fact]:
        """Facts whose description matches an FTS5 expression, best BM25 first, from
        sources before ``before_seq`` (only what a sequential projection had seen)."""
        ids = facts_matching_text(conn, subject_id, match, limit, before_seq)
        facts = {f.fact_id: f for f in PgGraphWrites.facts_by_ids(conn, ids)}
        return [facts[i] for i in ids if i in facts]

    @staticmethod
    def fact_edges(conn: Any, fact_ids: Sequence[str], types: Sequence[str],
                   direction: str = "both") -> list[Edge]:
        """Edges of the given types leaving (``out``), entering (``in``) or touching
        (``both``) the facts."""
        ids = list(fact_ids)
        if not ids:
            return []
        cond = {"out": "src = ANY(%s)", "in": "dst = ANY(%s)"}.get(
            direction, "(src = ANY(%s) OR dst = ANY(%s))")
        args = [ids] * cond.count("%s") + [list(types)]
        return [edge(r) for r in conn.execute(
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE {cond} AND type = ANY(%s) "
            "ORDER BY edge_id", args)]

    @staticmethod
    def generation_now(conn: Any) -> int:
        return int(conn.execute("SELECT value FROM meta WHERE key = 'generation'")
                   .fetchone()[0])

    @staticmethod
    def origins(conn: Any, seqs: Sequence[int]) -> dict[int, tuple[str, str]]:
        """(modality, speaker) of sources by sequence number."""
        rows = conn.execute("SELECT seq, modality, speaker FROM sources WHERE seq = ANY(%s)",
                            (list(dict.fromkeys(int(q) for q in seqs)),)).fetchall()
        found = {int(r[0]): (r[1], r[2]) for r in rows}
        return {q: found[q] for q in dict.fromkeys(int(q) for q in seqs) if q in found}

    @staticmethod
    def speakers_first_seen(conn: Any, subject_id: str) -> dict[str, int]:
        """Each speaker of a subject with the first sequence number it spoke at."""
        return {r[0]: int(r[1]) for r in conn.execute(
            "SELECT speaker, min(seq) FROM sources WHERE subject_id = %s AND speaker <> '' "
            'GROUP BY speaker ORDER BY speaker COLLATE "C"', (subject_id,))}

    @staticmethod
    def source_vector(conn: Any, source_id: str) -> np.ndarray | None:
        """A source's stored vector (the first model's), or None."""
        row = conn.execute("SELECT vec FROM vectors WHERE owner_kind = 'source' AND "
                           'owner_id = %s ORDER BY model COLLATE "C" LIMIT 1',
                           (source_id,)).fetchone()
        return None if row is None else vector(row[0])

    @staticmethod
    def speaker_statements(conn: Any, subject_id: str, speaker: str,
                           before_seq: int, after_seq: int = 0
                           ) -> list[tuple[int, str, str, np.ndarray]]:
        """(seq, source_id, text, vector) of one speaker's dialogue turns in a subject
        with ``after_seq`` < seq < ``before_seq`` and a stored source vector, by seq."""
        rows = conn.execute(
            "SELECT s.seq, s.source_id, s.text, v.vec FROM sources s JOIN vectors v "
            "ON v.subject_id = s.subject_id AND v.owner_kind = 'source' "
            "AND v.owner_id = s.source_id WHERE s.subject_id = %s AND s.speaker = %s "
            "AND s.modality = 'dialogue' AND s.seq > %s AND s.seq < %s ORDER BY s.seq",
            (subject_id, speaker, int(after_seq), int(before_seq))).fetchall()
        return [(int(r[0]), r[1], r[2], vector(r[3])) for r in rows]

    @staticmethod
    def get_meta(conn: Any, key: str) -> str | None:
        row = conn.execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def set_meta(conn: Any, key: str, value: str) -> None:
        conn.execute("INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) "
                     "DO UPDATE SET value = excluded.value", (key, value))
