"""Reads of stored sources around others, for the query road on PostgreSQL: neighbours
by sequence number, attachments, a subject's speakers (the SQLite engine's meaning)."""

from __future__ import annotations

from collections.abc import Sequence

from ..records import ATTACHED_TO, Scope
from .base import PgBase
from .sources import scope_filter


class PgSourceReads(PgBase):
    """Mixed into ``PgLedger``."""

    def sources_near(self, scope: Scope, seqs: Sequence[int], span: int,
                     as_of_valid: float | None = None, as_of_known: float | None = None
                     ) -> list[tuple[int, str, str, str, str, float]]:
        """(seq, source_id, robot_id, session_id, speaker, source_time) of the scope's
        sources whose sequence number lies within ``span`` of one of ``seqs``, in
        sequence order."""
        wanted = sorted({s + d for s in seqs for d in range(-span, span + 1)})
        if not wanted:
            return []
        cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
        return [(int(r[0]), r[1], r[2], r[3], r[4], float(r[5])) for r in self.query(
            "SELECT s.seq, s.source_id, s.robot_id, s.session_id, s.speaker, s.source_time "
            f"FROM sources s WHERE {cond} AND s.seq = ANY(%s) ORDER BY s.seq",
            [*args, wanted])]

    def attachments_between(self, subject_id: str, after_seq: int, upto_seq: int
                            ) -> list[tuple[int, str, int | None]]:
        """(seq, attached_to, seq of that source or None) of the subject's sources stored
        in ``(after_seq, upto_seq]`` whose payload names a source they are attached to."""
        return [(int(r[0]), r[1], None if r[2] is None else int(r[2])) for r in self.query(
            "SELECT c.seq, c.parent, p.seq FROM (SELECT seq, subject_id, "
            "payload::jsonb ->> %s AS parent, jsonb_typeof(payload::jsonb -> %s) AS kind "
            "FROM sources WHERE subject_id = %s AND seq > %s AND seq <= %s) c "
            "LEFT JOIN sources p ON p.source_id = c.parent "
            "WHERE c.kind = 'string' ORDER BY c.seq",
            (ATTACHED_TO, ATTACHED_TO, subject_id, int(after_seq), int(upto_seq)))]

    def speakers(self, subject_id: str) -> list[str]:
        """The distinct non-empty dialogue speakers of a subject (its participants)."""
        return [r[0] for r in self.query(
            "SELECT speaker FROM sources WHERE subject_id = %s AND modality = 'dialogue' "
            "AND speaker <> '' GROUP BY speaker ORDER BY min(source_time), min(seq)",
            (subject_id,))]
