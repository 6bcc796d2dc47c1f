"""Reads of the evidence graph for the resolver, the CLI and the in-memory graph.

They run on the ledger's connection without opening a transaction of their own, so
several of them inside ``Ledger.read()`` see one generation.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ...facts import EDGE_COLUMNS, FACT_COLUMNS, Edge, Fact
from ..records import SessionRow, TopicRow
from .deferred import tail_turns
from .graph_writes import GraphWrites
from .hierarchy import HierarchyStore
from .rows import CHUNK, _edge, fact_rows, raw_fact_rows


class GraphReads(GraphWrites, HierarchyStore):
    """Mixed into ``Ledger`` (which provides ``query``, ``conn`` and ``_lock``)."""

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
            return fact_rows(conn, "subject_id = ? AND entity != '' AND relation != ''",
                              (subject_id,), "ORDER BY entity, relation, valid_from, source_seq")

    def facts_since(self, subject_id: str, generation: int = -1) -> list[Fact]:
        """A subject's facts written or changed after ``generation``."""
        with self._reading() as conn:
            return fact_rows(conn, "subject_id = ? AND generation > ?", (subject_id, generation),
                              "ORDER BY source_seq, fact_id")

    def fact_rows_since(self, subject_id: str, generation: int = -1
                        ) -> list[tuple[tuple[Any, ...], tuple[str, ...]]]:
        """``facts_since`` as (row of ``FACT_COLUMNS``, provenance), not yet decoded."""
        with self._reading() as conn:
            return raw_fact_rows(conn, "subject_id = ? AND generation > ?",
                                  (subject_id, generation), "ORDER BY source_seq, fact_id")

    def facts_of_sources_in(self, subject_id: str, source_ids: Sequence[str]) -> list[Fact]:
        """A subject's facts whose provenance includes one of ``source_ids`` (query seeds)."""
        ids = list(dict.fromkeys(source_ids))
        if not ids:
            return []
        with self._reading() as conn:
            fact_ids: list[str] = []
            for start in range(0, len(ids), CHUNK):
                chunk = ids[start:start + CHUNK]
                fact_ids += [r[0] for r in conn.execute(
                    # CROSS JOIN: the sources' provenance rows drive (not the subject's facts).
                    "SELECT DISTINCT fs.fact_id FROM fact_sources fs CROSS JOIN facts f "
                    "ON f.fact_id = fs.fact_id WHERE f.subject_id = ? AND fs.source_id IN "
                    f"({','.join('?' * len(chunk))})", [subject_id, *chunk])]
            return self.facts_by_ids(conn, fact_ids)

    def speaker_turns(self, subject_id: str) -> dict[str, int]:
        """How many dialogue turns each speaker of a subject has."""
        with self._reading() as conn:
            try:  # kept up to the mark (migrations m012, m014), the rest counted here
                rows = conn.execute("SELECT speaker, n FROM speaker_turns WHERE subject_id = ? "
                                    "ORDER BY speaker", (subject_id,)).fetchall()
                more = tail_turns(conn, subject_id)
                if more:
                    counts = Counter({r[0]: int(r[1]) for r in rows})
                    counts.update(more)
                    rows = sorted(counts.items())
            except sqlite3.OperationalError:  # a file m012 has not reached (read-only)
                rows = conn.execute(
                    "SELECT speaker, count(*) FROM sources WHERE subject_id = ? AND "
                    "modality = 'dialogue' AND speaker != '' GROUP BY speaker "
                    "ORDER BY speaker", (subject_id,)).fetchall()
            return {r[0]: int(r[1]) for r in rows}

    def facts_with_ids(self, fact_ids: Sequence[str]) -> list[Fact]:
        with self._reading() as conn:
            return self.facts_by_ids(conn, fact_ids)

    def facts_of_entities(self, subject_id: str, entities: Sequence[str],
                          limit: int) -> list[Fact]:
        """Keyed facts about ``entities`` (normalised names), newest first (ties by fact
        ID), at most ``limit`` per entity (``query.factcache`` answers the same)."""
        ents = list(dict.fromkeys(entities))[:CHUNK]
        if not ents or limit <= 0:
            return []
        with self._reading() as conn:
            return fact_rows(
                conn, "fact_id IN (SELECT fact_id FROM (SELECT fact_id, row_number() OVER "
                "(PARTITION BY entity ORDER BY valid_from DESC, source_seq DESC, fact_id) AS n "
                f"FROM facts WHERE subject_id = ? AND entity IN ({','.join('?' * len(ents))}) "
                "AND relation != '') WHERE n <= ?)", (subject_id, *ents, int(limit)),
                "ORDER BY entity, valid_from DESC, source_seq DESC, fact_id")

    def edges_since(self, subject_id: str, generation: int = -1,
                    types: Sequence[str] | None = None) -> list[Edge]:
        kinds = list(dict.fromkeys(types)) if types is not None else []
        only = f"AND type IN ({','.join('?' * len(kinds))}) " if types is not None else ""
        return [_edge(r) for r in self.query(  # type: ignore[attr-defined]
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE subject_id = ? AND generation > ? "
            f"{only}ORDER BY edge_id", (subject_id, generation, *kinds))]

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
