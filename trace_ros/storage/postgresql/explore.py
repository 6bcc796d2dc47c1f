"""The explorer's reads on PostgreSQL: subjects with their counts and time span, and
past questions from the audit table (the SQLite engine's ``explore``)."""

from __future__ import annotations

import json
from typing import Any

from .base import PgBase


class PgExploreStore(PgBase):
    """Read-only reads for ``trace_ros.explore``."""

    def subject_summaries(self) -> list[dict[str, Any]]:
        """Every subject with its source counts, time span, robots, sessions and facts."""
        rows = self.query(
            "SELECT subject_id, count(*), count(*) FILTER (WHERE modality = 'perception'), "
            "min(source_time), max(source_time), count(DISTINCT robot_id), "
            "count(DISTINCT session_id) FROM sources GROUP BY subject_id "
            'ORDER BY subject_id COLLATE "C"')
        facts = dict(self.query("SELECT subject_id, count(*) FROM facts GROUP BY subject_id"))
        return [{"subject_id": r[0], "sources": int(r[1]), "perception": int(r[2] or 0),
                 "first_time": r[3], "last_time": r[4], "robots": int(r[5]),
                 "sessions": int(r[6]), "facts": int(facts.get(r[0], 0))} for r in rows]

    def has_subject(self, subject_id: str) -> bool:
        return bool(self.query("SELECT 1 FROM sources WHERE subject_id = %s LIMIT 1",
                               (subject_id,)))

    def robots_of(self, subject_id: str) -> list[str]:
        return [r[0] for r in self.query(
            "SELECT robot_id FROM sources WHERE subject_id = %s GROUP BY robot_id "
            'ORDER BY robot_id COLLATE "C"', (subject_id,))]

    def time_span_of(self, subject_id: str) -> tuple[float, float, float, float]:
        """(first, last) source time and (first, last) known time of a subject."""
        r = self.query("SELECT min(source_time), max(source_time), min(known_time), "
                       "max(known_time) FROM sources WHERE subject_id = %s", (subject_id,))[0]
        return (float(r[0] or 0), float(r[1] or 0), float(r[2] or 0), float(r[3] or 0))

    def past_questions(self, subject_id: str, limit: int) -> list[dict[str, Any]]:
        """The subject's audit rows, newest first."""
        return [{"query_id": str(r[0]), "asked_at": r[1], "question": r[2], "status": r[3],
                 "answer": r[4], "cited_ids": _json(r[5], list), "reader": r[6],
                 "scope": _json(r[7], dict)}
                for r in self.query(
                    "SELECT query_id, asked_at, question, status, answer, cited_ids, reader, "
                    "scope FROM audit WHERE subject_id = %s ORDER BY asked_at DESC LIMIT %s",
                    (subject_id, int(limit)))]


def _json(text: str | None, kind: type) -> Any:
    try:
        out = json.loads(text or "null")
    except json.JSONDecodeError:
        out = None
    return out if isinstance(out, kind) else kind()
