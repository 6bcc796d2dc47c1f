"""Reads of the evidence graph on PostgreSQL for the resolver, the CLI and the in-memory
graph, with the SQLite engine's meaning and order. Inside ``read()`` several of them see
one generation (they join its snapshot)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...facts import EDGE_COLUMNS, FACT_COLUMNS, Edge, Fact
from ..records import SessionRow, TopicRow
from .base import PgBase
from .graph import PgGraph
from .rows import edge, fact_rows, raw_fact_rows, reading


class PgGraphReads(PgBase):
    """Mixed into ``PgLedger``."""

    graph = PgGraph  # the transaction statements (``contract.GraphStatements``)

    def clear_graph(self) -> None:
        """Drop all facts, edges and topics (``rebuild`` recreates them from sources)."""
        with self.write() as conn:
            PgGraph.clear_all_graph(conn)

    def facts_for_key(self, subject_id: str, entity: str, relation: str) -> list[Fact]:
        with reading(self) as conn:
            return PgGraph.facts_by_key(conn, subject_id, entity, relation)

    def edges_among(self, fact_ids: Sequence[str], types: Sequence[str]) -> list[Edge]:
        with reading(self) as conn:
            return PgGraph.fact_edges(conn, fact_ids, types)

    def keyed_facts(self, subject_id: str) -> list[Fact]:
        """Every keyed fact of a subject (for update chains), oldest first."""
        with reading(self) as conn:
            return fact_rows(conn, "subject_id = %s AND entity <> '' AND relation <> ''",
                             (subject_id,), 'ORDER BY entity COLLATE "C", relation COLLATE "C", '
                             "valid_from, source_seq, fid")

    def facts_since(self, subject_id: str, generation: int = -1) -> list[Fact]:
        """A subject's facts written or changed after ``generation``."""
        with reading(self) as conn:
            return fact_rows(conn, "subject_id = %s AND generation > %s",
                             (subject_id, generation), 'ORDER BY source_seq, fact_id COLLATE "C"')

    def fact_rows_since(self, subject_id: str, generation: int = -1
                        ) -> list[tuple[tuple[Any, ...], tuple[str, ...]]]:
        """``facts_since`` as (row of ``FACT_COLUMNS``, provenance), not yet decoded."""
        with reading(self) as conn:
            return raw_fact_rows(conn, "subject_id = %s AND generation > %s",
                                 (subject_id, generation),
                                 'ORDER BY source_seq, fact_id COLLATE "C"')

    def facts_of_sources_in(self, subject_id: str, source_ids: Sequence[str]) -> list[Fact]:
        """A subject's facts whose provenance includes one of ``source_ids`` (query seeds)."""
        ids = list(dict.fromkeys(source_ids))
        if not ids:
            return []
        with reading(self) as conn:
            return fact_rows(conn, "subject_id = %s AND fact_id IN (SELECT fact_id FROM "
                             "fact_sources WHERE subject_id = %s AND source_id = ANY(%s))",
                             (subject_id, subject_id, ids), 'ORDER BY fact_id COLLATE "C"')

    def speaker_turns(self, subject_id: str) -> dict[str, int]:
        """How many dialogue turns each speaker of a subject has."""
        return {r[0]: int(r[1]) for r in self.query(  # kept by capture (migration p014)
            'SELECT speaker, n FROM speaker_turns WHERE subject_id = %s ORDER BY speaker COLLATE "C"',
            (subject_id,))}

    def facts_with_ids(self, fact_ids: Sequence[str]) -> list[Fact]:
        with reading(self) as conn:
            return PgGraph.facts_by_ids(conn, fact_ids)

    def facts_of_entities(self, subject_id: str, entities: Sequence[str],
                          limit: int) -> list[Fact]:
        """Keyed facts about ``entities`` (normalised names), newest first (ties by fact
        ID), at most ``limit`` per entity (``query.factcache`` answers the same)."""
        ents = list(dict.fromkeys(entities))[:500]
        if not ents or limit <= 0:
            return []
        with reading(self) as conn:
            return fact_rows(
                conn, "subject_id = %s AND fact_id IN (SELECT fact_id FROM (SELECT fact_id, "
                "row_number() OVER (PARTITION BY entity ORDER BY valid_from DESC, "
                'source_seq DESC, fact_id COLLATE "C") AS n FROM facts WHERE subject_id = %s '
                "AND entity = ANY(%s) AND relation <> '') t WHERE n <= %s)",
                (subject_id, subject_id, ents, int(limit)),
                'ORDER BY entity COLLATE "C", valid_from DESC, source_seq DESC, '
                'fact_id COLLATE "C"')

    def edges_since(self, subject_id: str, generation: int = -1,
                    types: Sequence[str] | None = None) -> list[Edge]:
        only, args = "", [subject_id, generation]
        if types is not None:
            only = "AND type = ANY(%s) "
            args.append(list(types))
        return [edge(r) for r in self.query(
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE subject_id = %s AND generation > %s "
            f"{only}ORDER BY edge_id", args)]

    def hierarchy_edges(self, subject_id: str) -> list[Edge]:
        """A subject's session chain and session → topic edges."""
        with reading(self) as conn:
            return (PgGraph.member_edges(conn, subject_id, "before", "session:")
                    + PgGraph.member_edges(conn, subject_id, "in_topic", "session:"))

    def sessions_of(self, subject_id: str) -> list[SessionRow]:
        with reading(self) as conn:
            return PgGraph.session_rows(conn, subject_id)

    def topics_of(self, subject_id: str) -> list[TopicRow]:
        with reading(self) as conn:
            return PgGraph.topic_rows(conn, subject_id)

    def graph_marks(self) -> tuple[int, str]:
        """(generation, graph epoch) in one read: what a cache of facts and edges checks."""
        row = self.query("SELECT (SELECT value FROM meta WHERE key = 'generation'), "
                         "(SELECT value FROM meta WHERE key = 'graph_epoch')")[0]
        return int(row[0]), str(row[1] or "")

    def graph_epoch(self) -> str:
        rows = self.query("SELECT value FROM meta WHERE key = 'graph_epoch'")
        return str(rows[0][0]) if rows else ""

    def graph_counts(self, subject_id: str | None = None) -> dict[str, Any]:
        """Facts by type and status, edges by type, sessions, topics (one subject or all)."""
        cond, args = ("WHERE subject_id = %s", (subject_id,)) if subject_id else ("", ())
        q = self.query
        return {
            "facts": int(q(f"SELECT count(*) FROM facts {cond}", args)[0][0]),
            "facts_by_type": {k: int(n) for k, n in q(
                f"SELECT type, count(*) FROM facts {cond} GROUP BY type "
                'ORDER BY type COLLATE "C"', args)},
            "facts_by_status": {k: int(n) for k, n in q(
                f"SELECT status, count(*) FROM facts {cond} GROUP BY status "
                'ORDER BY status COLLATE "C"', args)},
            "edges_by_type": {k: int(n) for k, n in q(
                f"SELECT type, count(*) FROM edges {cond} GROUP BY type "
                'ORDER BY type COLLATE "C"', args)},
            "sessions": int(q(f"SELECT count(*) FROM sessions {cond}", args)[0][0]),
            "topics": int(q(f"SELECT count(*) FROM topics {cond}", args)[0][0]),
        }

    def graph_snapshot(self, subject_id: str | None = None) -> dict[str, Any]:
        """Everything derived in the graph, without generations or row IDs: two
        ledgers built from the same sources compare equal (tests, rebuild checks)."""
        cond, args = ("WHERE subject_id = %s", (subject_id,)) if subject_id else ("", ())
        cols = FACT_COLUMNS.replace("generation, ", "")
        with self.read() as conn:
            def q(sql: str, a: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
                return [tuple(r) for r in conn.execute(sql, a).fetchall()]

            facts = q(f'SELECT {cols} FROM facts {cond} ORDER BY fact_id COLLATE "C"', args)
            prov = q(f"SELECT fact_id, source_id FROM fact_sources {cond} "
                     'ORDER BY fact_id COLLATE "C", source_id COLLATE "C"', args)
            edges = q(f"SELECT subject_id, type, src, dst, round(confidence::numeric, 6)::float8, "
                      f"justification, created_at, invalidated_at FROM edges {cond} "
                      'ORDER BY type COLLATE "C", src COLLATE "C", dst COLLATE "C"', args)
            topics = q(f"SELECT subject_id, topic_id, label, n_sessions FROM topics {cond} "
                       'ORDER BY subject_id COLLATE "C", topic_id', args)
            sessions = q(f"SELECT subject_id, robot_id, session_id, topic_id FROM sessions "
                         f'{cond} ORDER BY subject_id COLLATE "C", robot_id COLLATE "C", '
                         'session_id COLLATE "C"', args)
        return {"facts": facts, "provenance": prov, "edges": edges, "topics": topics,
                "sessions": sessions}
