"""Maintenance: requeue everything derived (``reset_derived``), rebuild FTS5, counts and
integrity checks for the CLI, diagnostics and the crash tests.
"""

from __future__ import annotations

import time
from typing import Any

from .base import SqliteBase
from .deferred import rebuild_lexical


class Maintenance(SqliteBase):
    """Whole-ledger operations and statistics."""

    def reset_derived(self, model: str | None = None) -> int:
        """Drop derived vectors (all, or those not of ``model``; with all, the graph's
        facts, edges and topics too), rebuild FTS and the postings, and requeue every source's job
        so consolidation recreates what was dropped, in one transaction.
        Returns the number of jobs requeued.

        Jobs a live worker holds are requeued too, but fenced: their ``fence`` and
        ``claimed_by`` change, so the old holder's completion writes nothing
        (``held_jobs``) and cannot mark the requeued job done."""
        now = time.time()
        with self.write() as conn:
            if model is None:
                conn.execute("DELETE FROM vectors")
                self.clear_all_graph(conn)  # facts, edges, topics: re-derived by the requeue
            else:
                conn.execute("DELETE FROM vectors WHERE model != ?", (model,))
            rebuild_lexical(conn)
            cur = conn.execute("UPDATE jobs SET status = 'pending', attempts = 0, "
                               "last_error = NULL, note = NULL, claimed_by = NULL, "
                               "lease_until = NULL, not_before = NULL, fence = fence + 1, "
                               "updated_at = ?", (now,))
            self._bump_vectors_epoch(conn)
            self.bump_generation(conn)
        self.drop_vector_packs()
        return int(cur.rowcount)

    def rebuild_fts(self) -> None:
        """Recreate the lexical index of sources (FTS5's, its statistics, the turn counts and
        the postings) from the sources."""
        with self.write() as conn:
            rebuild_lexical(conn)

    def source_counts(self) -> dict[str, int]:
        """How many rows each source ID has (a crash test expects exactly one)."""
        return {sid: int(n) for sid, n in self.query(
            "SELECT source_id, count(*) FROM sources GROUP BY source_id")}

    def orphans(self) -> dict[str, int]:
        """Derived rows that lost their origin: sources without a job, vectors
        without a source, facts without a provenance source."""
        return {
            "jobless_sources": int(self.query(
                "SELECT count(*) FROM sources s LEFT JOIN jobs j ON j.source_seq = s.seq "
                "WHERE j.job_id IS NULL")[0][0]),
            "orphan_vectors": int(self.query(
                "SELECT count(*) FROM vectors v WHERE v.owner_kind = 'source' AND NOT EXISTS "
                "(SELECT 1 FROM sources s WHERE s.source_id = v.owner_id)")[0][0]),
            "orphan_facts": int(self.query(
                "SELECT count(*) FROM facts f WHERE NOT EXISTS (SELECT 1 FROM fact_sources fs "
                "JOIN sources s ON s.source_id = fs.source_id WHERE fs.fact_id = f.fact_id)"
            )[0][0]),
        }

    def integrity_check(self) -> str:
        return str(self.query("PRAGMA integrity_check")[0][0])

    def stats(self) -> dict[str, Any]:
        subjects = self.query(
            "SELECT subject_id, count(*) FROM sources GROUP BY subject_id ORDER BY subject_id")
        # The ledger's own files: its vector packs are derived copies, counted apart.
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*")
                   if p.is_file() and not p.name.endswith(".lock") and ".vpack-" not in p.name)
        return {
            "db_path": str(self.path),
            "sources": self.count_sources(),
            "subjects": {s: int(n) for s, n in subjects},
            "sessions": int(self.query("SELECT count(*) FROM sessions")[0][0]),
            "jobs": self.job_counts(),
            "vectors": [{"model": m, "dim": d, "count": n} for m, d, n in self.vector_models()],
            "tombstones": int(self.query("SELECT count(*) FROM tombstones")[0][0]),
            "queries": int(self.query("SELECT count(*) FROM audit")[0][0]),
            "generation": self.generation(),
            "db_bytes": size,
        }
