"""Forget on PostgreSQL: remove sources (their jobs go by cascade), their vectors and the
audit rows that showed them, leave content-free tombstones, recount the subjects'
sessions, move the generation.

The sources' lexical rows go with them (by cascade; the subjects' statistics are counted
again; their postings are rewritten without them), and ``forget_derived`` removes the
evidence graph derived only from them, as on SQLite. What SQLite's forget does after
deleting (no copy of the text left in the files) is on PostgreSQL, once the deletion has
committed, a full rewrite of the touched tables and their indexes (``VACUUM (FULL)``): a
plain VACUUM frees the dead rows' space but does not clear it, so a page keeps the
forgotten bytes until something overwrites them (found by the byte-level test once more
facts shared the pages), a GIN index never drops a key, and a B-tree page keeps a deleted
key's bytes in its free space. WAL, replicas and backups are the operator's to purge
(README, "Forget on PostgreSQL").
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from ...errors import ValidationError, check_text
from ..records import WINDOW_BEFORE, Scope, Tombstone
from ..validity import recompute_validity
from .audit import PgAuditStore
from .graph import PgGraph
from .jobs import PgJobStore
from .lexindex import recount_source_lex
from .postings import remove_postings
from .sources import recount_speaker_turns, scope_filter
from .vectors import PgVectorStore

# What a forget deletes from: the tables its scrub rewrites, with their indexes.
SCRUB_TABLES = ("sources", "source_lex", "source_postings", "speaker_turns", "jobs",
                "vectors", "vector_packs", "audit", "audit_sources",
                "sessions", "facts", "fact_sources", "edges", "topics")
# How long forget's scrub waits for a lock, or for a reader older than the forget.
SCRUB_WAIT_S = 2.0
# Any constant: the advisory lock every writer of tombstones takes first in its
# transaction, so they commit in the order of their numbers (``seq``, migration p011) and
# ``tombstones_recorded_after`` never returns one while a smaller one is uncommitted.
TOMBSTONE_LOCK = 0x746F6D62  # "tomb"


def _drop_unfinished_rebuilds(conn: Any) -> None:
    """Drop what an interrupted ``REINDEX CONCURRENTLY`` leaves (an invalid index named
    ``<index>_ccnew``/``_ccold``); one that cannot be dropped now stays for the next
    scrub."""
    import psycopg

    names = [r[0] for r in conn.execute(
        "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE NOT i.indisvalid AND c.relname ~ '_cc(new|old)[0-9]*$' AND "
        "c.relnamespace = to_regnamespace(current_schema())::oid")]
    for name in names:
        try:
            conn.execute(f'DROP INDEX IF EXISTS "{name}"')
        except (psycopg.errors.LockNotAvailable, psycopg.errors.QueryCanceled):
            pass


class PgForget(PgJobStore, PgVectorStore, PgAuditStore):
    """``forget`` with the SQLite engine's meaning, for what this engine stores."""

    def forget(self, scope: Scope | None = None, source_ids: Sequence[str] = (),
               allow_reingest: bool = False, now: float | None = None) -> list[str]:
        """Remove sources (a scope's, or the listed IDs, or the listed IDs within a scope)
        and return their IDs; each leaves a tombstone unless ``allow_reingest``."""
        if scope is None and not source_ids:
            raise ValidationError("scope", "give a scope with a subject_id or source IDs")
        for i, sid in enumerate(source_ids):
            check_text(f"source_ids[{i}]", sid)
        conds: list[str] = []
        args: list[Any] = []
        if scope is not None:
            for name in ("subject_id", "robot_id", "session_id"):
                check_text(f"scope.{name}", getattr(scope, name))
            cond, args = scope_filter(scope, "sources")
            conds.append(cond)
        if source_ids:
            conds.append("source_id = ANY(%s)")
            args = [*args, list(source_ids)]
        now = time.time() if now is None else now
        with self.write() as conn:
            if not allow_reingest:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (TOMBSTONE_LOCK,))
            # Without a scope the contract names no subject: the IDs' subjects are found
            # here, and every statement after this one is by subject.
            doomed = [(r[0], r[1]) for r in conn.execute(
                f"SELECT subject_id, source_id FROM sources WHERE {' AND '.join(conds)}", args)]
            if doomed:
                self._forget_vectors(conn, doomed)
                remove_postings(conn, conn.execute(
                    "SELECT seq, subject_id, speaker, text FROM sources WHERE (subject_id, "
                    "source_id) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
                    ([s for s, _ in doomed], [i for _, i in doomed])).fetchall())
            rows = conn.execute(
                "DELETE FROM sources WHERE (subject_id, source_id) IN (SELECT * FROM "
                "unnest(%s::text[], %s::text[])) RETURNING source_id, subject_id",
                ([s for s, _ in doomed], [i for _, i in doomed])).fetchall()
            removed = [r[0] for r in rows]
            subjects = sorted({r[1] for r in rows})
            conn.execute("DELETE FROM source_ids WHERE (subject_id, source_id) IN (SELECT * "
                         "FROM unnest(%s::text[], %s::text[]))",
                         ([r[1] for r in rows], removed))
            recount_source_lex(conn, subjects)
            recount_speaker_turns(conn, subjects)
            self.forget_derived(conn, removed, subjects, PgGraph.generation_now(conn) + 1)
            self._forget_audit(conn, subjects, removed)
            if scope is not None and not source_ids:
                conn.execute("DELETE FROM audit WHERE subject_id = %s", (scope.subject_id,))
            if allow_reingest:
                self._lift_tombstones(conn, scope, [*source_ids, *removed])
            elif removed:
                conn.execute(
                    "INSERT INTO tombstones (subject_id, source_id, removed_at) SELECT u.s, u.i, "
                    "%s FROM unnest(%s::text[], %s::text[]) AS u(s, i) ON CONFLICT "
                    "(subject_id, source_id) DO UPDATE SET removed_at = excluded.removed_at, "
                    "seq = DEFAULT",
                    (now, [r[1] for r in rows], removed))
            for subject in subjects:
                conn.execute("DELETE FROM sessions WHERE subject_id = %s", (subject,))
                conn.execute(
                    "INSERT INTO sessions (subject_id, robot_id, session_id, start_time, "
                    "end_time, n_sources) SELECT subject_id, robot_id, session_id, "
                    "min(source_time), max(source_time), count(*) FROM sources "
                    "WHERE subject_id = %s AND session_id <> '' "
                    "GROUP BY subject_id, robot_id, session_id", (subject,))
            self._bump_vectors_epoch(conn)
            self.bump_generation(conn)
        if removed:
            self.scrub()
        return removed

    def scrub(self, wait_s: float = SCRUB_WAIT_S) -> bool:
        """After a committed forget: rewrite the tables a forget deletes from, with their
        indexes (``VACUUM (FULL)``), so the data files hold no copy of the text. Reads and
        writes of a table wait while it is rewritten. Returns True when done. False, with
        nothing left half-done, when it would wait more than ``wait_s`` for a lock (a
        long read holds one), or when this role does not own the tables (one confined
        to its subjects); then the freed space keeps the bytes until the owner calls it
        again."""
        import psycopg

        with self.pool.connection() as conn:
            owner = conn.execute(
                "SELECT pg_has_role(current_user, relowner, 'MEMBER') FROM pg_class "
                "WHERE oid = 'sources'::regclass").fetchone()[0]
            conn.rollback()
            if not owner:
                return False
            conn.autocommit = True
            try:
                conn.execute(f"SET lock_timeout = {max(1, int(wait_s * 1000))}")
                _drop_unfinished_rebuilds(conn)
                conn.execute(f"VACUUM (FULL) {', '.join(SCRUB_TABLES)}")
            except (psycopg.errors.LockNotAvailable, psycopg.errors.QueryCanceled):
                _drop_unfinished_rebuilds(conn)
                return False
            finally:
                if not conn.closed:
                    conn.execute("RESET lock_timeout")
                conn.autocommit = False
        return True

    def tombstones_recorded_after(self, after_seq: int, limit: int) -> list[Tombstone]:
        """Up to ``limit`` tombstones recorded after ``after_seq``, in the order they were
        recorded, of every subject this role reads (``trace-ros sync`` reads them all)."""
        return [Tombstone(r[0], float(r[1]), r[2], int(r[3])) for r in self.query(
            "SELECT source_id, removed_at, subject_id, seq FROM tombstones WHERE seq > %s "
            "ORDER BY seq LIMIT %s", (int(after_seq), int(limit)))]

    def add_tombstones(self, items: Sequence[tuple[str, float, str]]) -> int:
        """Tombstones (source ID, removed at, subject) for IDs this ledger does not hold
        in that subject; an existing one is kept."""
        if not items:
            return 0
        with self.write() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (TOMBSTONE_LOCK,))
            rows = conn.execute(
                "INSERT INTO tombstones (subject_id, source_id, removed_at) SELECT u.j, u.s, "
                "u.t FROM unnest(%s::text[], %s::text[], %s::double precision[]) AS u(j, s, t) "
                "WHERE NOT EXISTS (SELECT 1 FROM sources WHERE subject_id = u.j "
                "AND source_id = u.s) ON CONFLICT (subject_id, source_id) DO NOTHING "
                "RETURNING source_id", ([j for _, _, j in items], [s for s, _, _ in items],
                                        [float(t) for _, t, _ in items])).fetchall()
        return len(rows)

    @staticmethod
    def _lift_tombstones(conn: Any, scope: Scope | None, source_ids: Sequence[str]) -> None:
        """``allow_reingest``: drop the tombstones of ``source_ids`` — in the scope's
        subject (and those of unknown subject), or, without a scope, in any subject: the
        contract names none for an ID this ledger no longer holds."""
        if scope is not None:
            conn.execute("DELETE FROM tombstones WHERE subject_id = ANY(%s) "
                         "AND source_id = ANY(%s)", ([scope.subject_id, ""], list(source_ids)))
        else:
            conn.execute("DELETE FROM tombstones WHERE source_id = ANY(%s)", (list(source_ids),))

    @staticmethod
    def _forget_vectors(conn: Any, doomed: list[tuple[str, str]]) -> None:
        """Before the sources (subject, source ID) go: their source and window vectors,
        and the window vectors of the turns after them in their session (a window embeds
        the turns before it)."""
        subjects = sorted({s for s, _ in doomed})
        ids = [i for _, i in doomed]
        conn.execute("DELETE FROM vectors WHERE (subject_id, owner_id) IN (SELECT * FROM "
                     "unnest(%s::text[], %s::text[])) AND owner_kind IN ('source', 'window')",
                     ([s for s, _ in doomed], ids))
        lags = ", ".join(f"lag(source_id, {i}) OVER w AS p{i}"
                         for i in range(1, WINDOW_BEFORE + 1))
        hit = " OR ".join(f"p{i} = ANY(%(ids)s)" for i in range(1, WINDOW_BEFORE + 1))
        conn.execute(
            "DELETE FROM vectors WHERE subject_id = ANY(%(subjects)s) AND owner_kind = 'window' "
            "AND (subject_id, owner_id) IN (SELECT subject_id, source_id FROM (SELECT "
            f"subject_id, source_id, {lags} FROM sources WHERE subject_id = ANY(%(subjects)s) "
            "WINDOW w AS (PARTITION BY subject_id, robot_id, session_id ORDER BY seq)) t "
            f"WHERE {hit})", {"ids": ids, "subjects": subjects})

    @staticmethod
    def forget_derived(conn: Any, source_ids: Sequence[str],
                       subjects: Iterable[str], generation: int = 0) -> None:
        """Inside ``forget``'s transaction: remove the facts derived only from
        ``source_ids`` and every edge touching them, recompute the state of the facts
        they updated, contradicted or caused, and reset the hierarchy of the subjects
        (their session embeddings and topic centroids held the forgotten text);
        ``hierarchy.rederive_hierarchy`` or the next batch rebuilds it."""
        subjects = list(subjects)
        gone = [s for s in subjects if conn.execute(
            "SELECT 1 FROM sources WHERE subject_id = %s LIMIT 1", (s,)).fetchone() is None]
        for subject in gone:  # the whole subject went: drop its graph wholesale
            PgGraph.clear_subject_graph(conn, subject)
        doomed = PgGraph.facts_of_sources(conn, list(source_ids))
        neighbours = PgGraph.delete_facts(conn, doomed) if doomed else set()
        conn.execute("DELETE FROM fact_sources WHERE source_id = ANY(%s)", (list(source_ids),))
        recompute_validity(conn, neighbours, generation)
        for subject in subjects:
            if subject not in gone:
                PgGraph.reset_hierarchy(conn, subject)
        PgGraph.mark_graph_changed(conn)
