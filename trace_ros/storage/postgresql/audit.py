"""Audit rows on PostgreSQL: one per query, written off the request path, linked to the
sources it showed and cited (``audit_sources``) so forget finds them.

The meaning is the SQLite engine's (``storage/sqlite/audit``): a row whose shown or cited
sources were forgotten while it waited in the writer's queue is not written (its answer
may quote them), and a query ID already stored is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..records import AuditRecord
from .base import PgBase


class PgAuditStore(PgBase):
    """Writing and forgetting audit rows."""

    def write_audit(self, records: Sequence[AuditRecord]) -> int:
        """Store audit rows and their shown/cited source links in ONE transaction;
        returns the rows written."""
        if not records:
            return 0
        written = 0
        with self.write() as conn:
            for r in records:
                shown = list(dict.fromkeys([*r.shown, *r.cited]))
                # What a query shows is of its scope's subject.
                present = conn.execute("SELECT count(*) FROM sources WHERE subject_id = %s "
                                       "AND source_id = ANY(%s)",
                                       (r.subject_id, shown)).fetchone()[0]
                if present < len(shown):
                    continue
                cur = conn.execute(
                    "INSERT INTO audit (query_id, asked_at, subject_id, scope, question, plan, "
                    "routes, evidence_ids, cited_ids, answer, status, reader, timings) VALUES "
                    "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT (subject_id, query_id) DO NOTHING",
                    (r.query_id, r.asked_at, r.subject_id, json.dumps(r.scope), r.question,
                     json.dumps(r.plan), json.dumps(r.routes), json.dumps(r.shown),
                     json.dumps(r.cited), r.answer, r.status, r.reader, json.dumps(r.timings)))
                if not cur.rowcount:
                    continue
                written += 1
                links = [(r.subject_id, r.query_id, s, "shown") for s in dict.fromkeys(r.shown)]
                links += [(r.subject_id, r.query_id, s, "cited") for s in dict.fromkeys(r.cited)]
                with conn.cursor() as many:
                    many.executemany("INSERT INTO audit_sources (subject_id, query_id, source_id, "
                                     "role) VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING", links)
        return written

    @staticmethod
    def _forget_audit(conn: Any, subjects: Sequence[str], source_ids: Sequence[str]) -> None:
        """Inside a write transaction: delete the audit rows of ``subjects`` that showed or
        cited any of ``source_ids`` (found through ``audit_sources``; this engine has no
        audit rows from before that table)."""
        conn.execute("DELETE FROM audit WHERE (subject_id, query_id) IN (SELECT subject_id, "
                     "query_id FROM audit_sources WHERE subject_id = ANY(%s) "
                     "AND source_id = ANY(%s))", (list(subjects), list(source_ids)))
