"""Forget: remove sources and everything derived from them, leave content-free tombstones.

``forget`` deletes in one write transaction: the sources (FTS5 rows go by trigger),
their vectors and the window vectors that embedded them, the audit rows that showed or
cited them, the facts whose provenance becomes empty (and every edge touching those),
and the hierarchy derived from the subject's text; then merges FTS5 segments and
checkpoints the WAL so no copy of the forgotten text remains in the files.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from typing import Any

from ...errors import ValidationError, check_text
from ..records import WINDOW_BEFORE, Scope, Tombstone
from ..validity import recompute_validity
from .base import SqliteBase
from .graph import GraphStore
from .postings import remove_postings
from .rows import CHUNK, scope_filter


class ForgetOps(SqliteBase):
    """Mixed into ``Ledger``: uses the graph, vector, pack and audit mixins."""

    def forget(self, scope: Scope | None = None, source_ids: Sequence[str] = (),
               allow_reingest: bool = False, now: float | None = None) -> list[str]:
        """Remove sources and everything derived from them; return the removed IDs.

        With a scope, everything in it (or only the listed IDs that belong to
        it). Without one, the listed IDs. Each removed ID leaves a content-free
        tombstone unless ``allow_reingest``.
        """
        if scope is None and not source_ids:
            raise ValidationError("scope", "give a scope with a subject_id or source IDs")
        for i, sid in enumerate(source_ids):
            check_text(f"source_ids[{i}]", sid)
        if scope is not None:
            for name in ("subject_id", "robot_id", "session_id"):
                check_text(f"scope.{name}", getattr(scope, name))
        conds: list[str] = []
        args: list[Any] = []
        if scope is not None:
            cond, args = scope_filter(scope, "sources")
            conds.append(cond)
        if source_ids:
            conds.append(f"source_id IN ({','.join('?' * len(source_ids))})")
            args = args + list(source_ids)
        where = " AND ".join(conds)
        now = time.time() if now is None else now
        with self.write() as conn:
            rows = conn.execute(f"SELECT source_id, subject_id, seq, speaker, text FROM sources "
                                f"WHERE {where}", args).fetchall()
            remove_postings(conn, [(r[2], r[1], r[3], r[4]) for r in rows])
            rows = [(r[0], r[1]) for r in rows]
            removed = [r[0] for r in rows]
            subjects = {r[1] for r in rows}
            for chunk_start in range(0, len(removed), 500):
                chunk = removed[chunk_start:chunk_start + 500]
                marks = ",".join("?" * len(chunk))
                conn.execute(f"DELETE FROM vectors WHERE owner_kind IN ('source', 'window') "
                             f"AND owner_id IN ({marks})", chunk)
                # A window vector embeds the sources before its own: those that
                # follow a forgotten source in its session lose theirs too.
                lags = ", ".join(f"lag(source_id, {i}) OVER w AS p{i}"
                                 for i in range(1, WINDOW_BEFORE + 1))
                hit = " OR ".join(f"p{i} IN ({marks})" for i in range(1, WINDOW_BEFORE + 1))
                conn.execute(
                    "DELETE FROM vectors WHERE owner_kind = 'window' AND owner_id IN ("
                    f"SELECT source_id FROM (SELECT source_id, {lags} FROM sources "
                    f"WHERE subject_id IN (SELECT subject_id FROM sources WHERE source_id "
                    f"IN ({marks})) WINDOW w AS (PARTITION BY subject_id, robot_id, "
                    f"session_id ORDER BY seq)) WHERE {hit})",
                    chunk + chunk * WINDOW_BEFORE)
                conn.execute(f"DELETE FROM sources WHERE source_id IN ({marks})", chunk)
                self._forget_audit(conn, chunk)
            if allow_reingest:
                lifted = list(source_ids) + removed
                if scope is None:  # no subject named: an ID's tombstones in any subject
                    conn.executemany("DELETE FROM tombstones WHERE source_id = ?",
                                     [(s,) for s in lifted])
                else:  # the scope's subject's, and those of unknown subject
                    conn.executemany("DELETE FROM tombstones WHERE subject_id IN (?, '') "
                                     "AND source_id = ?", [(scope.subject_id, s) for s in lifted])
            else:
                conn.executemany(
                    "INSERT OR REPLACE INTO tombstones (subject_id, source_id, removed_at) "
                    "VALUES (?, ?, ?)", [(r[1], r[0], now) for r in rows])
            # Graph (GraphStore, issue 6): facts, edges and the hierarchy derived from them.
            self.forget_derived(conn, removed, subjects, self.generation_now(conn) + 1)
            for subject in subjects:
                self._recount_sessions(conn, subject)
            if scope is not None and not source_ids:
                conn.execute("DELETE FROM audit WHERE subject_id = ?", (scope.subject_id,))
            self._bump_vectors_epoch(conn)
            self.bump_generation(conn)
            if removed:
                # FTS5 keeps a deleted row's tokens in old segments until they are
                # merged: merge them all now so the forgotten words are gone too.
                conn.execute("INSERT INTO sources_fts (sources_fts) VALUES ('optimize')")
                conn.execute("INSERT INTO facts_fts (facts_fts) VALUES ('optimize')")
        self.drop_vector_packs()  # after the commit that moved the epoch (``packs``)
        if removed:
            self.checkpoint()
        return removed

    def tombstones_recorded_after(self, after_seq: int, limit: int) -> list[Tombstone]:
        """Up to ``limit`` tombstones of every subject recorded after ``after_seq``, in
        the order they were recorded."""
        return [Tombstone(r[0], float(r[1]), r[2], int(r[3])) for r in self.query(
            "SELECT source_id, removed_at, subject_id, seq FROM tombstones WHERE seq > ? "
            "ORDER BY seq LIMIT ?", (int(after_seq), int(limit)))]

    def add_tombstones(self, items: Sequence[tuple[str, float, str]]) -> int:
        """Tombstones (source ID, removed at, subject) for IDs this ledger does not hold
        in that subject; an existing one is kept."""
        with self.write() as conn:
            before = conn.total_changes
            conn.executemany("INSERT OR IGNORE INTO tombstones (subject_id, source_id, "
                             "removed_at) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM "
                             "sources WHERE subject_id = ? AND source_id = ?)",
                             [(j, s, t, j, s) for s, t, j in items])
            return conn.total_changes - before

    @staticmethod
    def _recount_sessions(conn: sqlite3.Connection, subject_id: str) -> None:
        conn.execute("DELETE FROM sessions WHERE subject_id = ?", (subject_id,))
        conn.execute(
            "INSERT INTO sessions (subject_id, robot_id, session_id, start_time, end_time, "
            "n_sources) SELECT subject_id, robot_id, session_id, min(source_time), "
            "max(source_time), count(*) FROM sources WHERE subject_id = ? AND session_id != '' "
            "GROUP BY subject_id, robot_id, session_id", (subject_id,))

    @staticmethod
    def forget_derived(conn: sqlite3.Connection, source_ids: Sequence[str],
                       subjects: Iterable[str], generation: int = 0) -> None:
        """Inside ``Ledger.forget``'s transaction: remove the facts derived only from
        ``source_ids`` and every edge touching them, recompute the state of the facts
        they updated, contradicted or caused, and reset the hierarchy of the
        subjects (their session embeddings and topic centroids contained the
        forgotten text); ``hierarchy.rederive_hierarchy`` or the next batch rebuilds it."""
        subjects = list(subjects)
        gone = [s for s in subjects if conn.execute(
            "SELECT 1 FROM sources WHERE subject_id = ? LIMIT 1", (s,)).fetchone() is None]
        for subject in gone:  # the whole subject went: drop its graph wholesale
            GraphStore.clear_subject_graph(conn, subject)
        subjects = [s for s in subjects if s not in gone]
        doomed = GraphStore.facts_of_sources(conn, list(source_ids))
        neighbours = GraphStore.delete_facts(conn, doomed) if doomed else set()
        for start in range(0, len(source_ids), CHUNK):
            chunk = list(source_ids[start:start + CHUNK])
            conn.execute(f"DELETE FROM fact_sources WHERE source_id IN "
                         f"({','.join('?' * len(chunk))})", chunk)
        recompute_validity(conn, neighbours, generation)
        for subject in subjects:
            GraphStore.reset_hierarchy(conn, subject)
        GraphStore.mark_graph_changed(conn)
