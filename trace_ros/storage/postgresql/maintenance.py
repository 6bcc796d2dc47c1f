"""Maintenance on PostgreSQL: requeue everything derived (``reset_derived``), counts and
checks for the CLI, diagnostics and the crash tests (the SQLite engine's ``maintenance``).

What SQLite does to its files has no counterpart to run here: ``checkpoint`` has nothing
to copy (the server checkpoints its WAL itself), and ``backup_to`` copies the ledger into
a SQLite file with ``trace-ros sync``'s meaning only through that command, so it refuses.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ...errors import LedgerError
from .graph import PgGraph
from .search import PgSearchReads
from .vectors import PgVectorStore


class PgMaintenance(PgSearchReads, PgVectorStore):
    """Whole-ledger operations and statistics."""

    def reset_derived(self, model: str | None = None) -> int:
        """Drop derived vectors (all, or those not of ``model``; with all, the graph's
        facts, edges and topics too), rebuild the lexical index, and requeue every
        source's job (fenced: an old holder's completion writes nothing), in one
        transaction. Returns the number of jobs requeued."""
        now = time.time()
        with self.write() as conn:
            if model is None:
                conn.execute("DELETE FROM vectors")
                PgGraph.clear_all_graph(conn)
            else:
                conn.execute("DELETE FROM vectors WHERE model <> %s", (model,))
            self._rebuild_source_lex(conn)
            n = conn.execute(
                "UPDATE jobs SET status = 'pending', attempts = 0, last_error = NULL, "
                "note = NULL, claimed_by = NULL, lease_until = NULL, not_before = NULL, "
                "fence = fence + 1, updated_at = %s RETURNING subject_id", (now,)).fetchall()
            conn.execute("INSERT INTO subject_queues (subject_id) SELECT DISTINCT subject_id "
                         "FROM jobs ON CONFLICT DO NOTHING")
            self._bump_vectors_epoch(conn)
            self.bump_generation(conn)
            return len(n)

    def orphans(self) -> dict[str, int]:
        """Derived rows that lost their origin: sources without a job, vectors
        without a source, facts without a provenance source (of every subject; each
        row is matched within its own subject)."""
        return {
            "jobless_sources": int(self.query(
                "SELECT count(*) FROM sources s WHERE NOT EXISTS "
                "(SELECT 1 FROM jobs j WHERE j.subject_id = s.subject_id AND j.source_seq = s.seq)")[0][0]),
            "orphan_vectors": int(self.query(
                "SELECT count(*) FROM vectors v WHERE v.owner_kind = 'source' AND NOT EXISTS "
                "(SELECT 1 FROM sources s WHERE s.subject_id = v.subject_id "
                "AND s.source_id = v.owner_id)")[0][0]),
            "orphan_facts": int(self.query(
                "SELECT count(*) FROM facts f WHERE NOT EXISTS (SELECT 1 FROM fact_sources fs "
                "JOIN sources s ON s.subject_id = fs.subject_id AND s.source_id = fs.source_id "
                "WHERE fs.subject_id = f.subject_id AND fs.fact_id = f.fact_id)"
            )[0][0]),
        }

    def integrity_check(self) -> str:
        """``ok`` when the derived counts agree with their rows (the server keeps its own
        pages consistent; this checks what the ledger maintains)."""
        bad = self.query(
            "SELECT count(*) FROM (SELECT subject_id, kind, n_docs FROM lex_stats) st "
            "WHERE n_docs <> CASE kind WHEN 'source' THEN (SELECT count(*) FROM source_lex l "
            "WHERE l.subject_id = st.subject_id) ELSE (SELECT count(*) FROM facts f "
            "WHERE f.subject_id = st.subject_id) END")[0][0]
        return "ok" if not bad else f"lexical statistics of {bad} subject(s) out of step"

    def checkpoint(self) -> bool:
        return True

    def checkpoints_apart(self, on: bool) -> bool:
        """False: the server checkpoints on its own; no thread is needed."""
        return False

    def checkpoint_apart(self) -> bool:
        """Nothing to do (the server checkpoints); False, like ``checkpoints_apart``."""
        return False

    def backup_to(self, path: str | Path) -> None:
        raise LedgerError(f"{self.url}: a PostgreSQL ledger is copied with "
                          f"`trace-ros sync --from {self.url} --to sqlite:///{path}` or pg_dump")

    def stats(self) -> dict[str, Any]:
        subjects = self.query("SELECT subject_id, count(*) FROM sources GROUP BY subject_id "
                              'ORDER BY subject_id COLLATE "C"')
        return {
            "db_path": str(self.url),
            "sources": self.count_sources(),
            "subjects": {s: int(n) for s, n in subjects},
            "sessions": int(self.query("SELECT count(*) FROM sessions")[0][0]),
            "jobs": self.job_counts(),
            "vectors": [{"model": m, "dim": d, "count": n} for m, d, n in self.vector_models()],
            "tombstones": int(self.query("SELECT count(*) FROM tombstones")[0][0]),
            "queries": int(self.query("SELECT count(*) FROM audit")[0][0]),
            "generation": self.generation(),
            "db_bytes": int(self.query("SELECT pg_database_size(current_database())")[0][0]),
        }
