"""Audit rows: one per query, written off the request path, linked to the sources it
showed and cited (``audit_sources``) so forget finds them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ..records import AuditRecord
from .base import SqliteBase


class AuditStore(SqliteBase):
    """Writing and forgetting audit rows."""

    def write_audit(self, records: Sequence[AuditRecord]) -> int:
        """Store audit rows and their shown/cited source links in ONE transaction
        (the query path hands them to a background writer, never waits for this).
        A row whose ID is already stored is skipped. Returns rows written."""
        if not records:
            return 0
        written = 0
        with self.write() as conn:
            for r in records:
                # Queued before a forget that removed what it showed: its answer may
                # quote forgotten text, so it is not written at all.
                shown = list(dict.fromkeys([*r.shown, *r.cited]))
                present = conn.execute(
                    "SELECT count(*) FROM sources WHERE source_id IN "
                    "(SELECT value FROM json_each(?))", (json.dumps(shown),)).fetchone()[0]
                if present < len(shown):
                    continue
                cur = conn.execute(
                    "INSERT OR IGNORE INTO audit (query_id, asked_at, subject_id, scope, question, "
                    "plan, routes, evidence_ids, cited_ids, answer, status, reader, timings) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (r.query_id, r.asked_at, r.subject_id, json.dumps(r.scope), r.question,
                     json.dumps(r.plan), json.dumps(r.routes), json.dumps(r.shown),
                     json.dumps(r.cited), r.answer, r.status, r.reader, json.dumps(r.timings)))
                if not cur.rowcount:
                    continue
                written += 1
                links = [(r.query_id, s, "shown") for s in dict.fromkeys(r.shown)]
                links += [(r.query_id, s, "cited") for s in dict.fromkeys(r.cited)]
                conn.executemany("INSERT OR IGNORE INTO audit_sources (query_id, source_id, role) "
                                 "VALUES (?, ?, ?)", links)
        return written

    @staticmethod
    def _forget_audit(conn: sqlite3.Connection, source_ids: Sequence[str]) -> None:
        """Inside a write transaction: delete the audit rows that showed or cited any
        of ``source_ids``: by the ``audit_sources`` link table, and by exact membership
        in the JSON ID arrays of rows written before that table was filled."""
        ids = json.dumps(list(source_ids))
        conn.execute(
            "DELETE FROM audit WHERE query_id IN ("
            " SELECT query_id FROM audit_sources WHERE source_id IN (SELECT value FROM json_each(?))"
            " UNION SELECT a.query_id FROM audit a, json_each(a.evidence_ids) e"
            "  WHERE e.value IN (SELECT value FROM json_each(?))"
            " UNION SELECT a.query_id FROM audit a, json_each(a.cited_ids) c"
            "  WHERE c.value IN (SELECT value FROM json_each(?)))", (ids, ids, ids))
