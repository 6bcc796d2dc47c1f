"""Lexical recall: scoped FTS5 (BM25) over sources and facts.

The subject is matched inside FTS5 too, so only its rows are ranked; the joined scope
filter stays the authority.
"""

from __future__ import annotations

from ..records import Scope
from .base import SqliteBase
from .rows import _fts_phrase, scope_filter


class SearchReads(SqliteBase):
    """FTS5 searches the query road runs."""

    def search_sources(self, scope: Scope, match: str, k: int,
                       as_of_valid: float | None = None, as_of_known: float | None = None,
                       weights: tuple[float, float] = (1.0, 1.0)) -> list[tuple[int, str, float]]:
        """(seq, source_id, score) of the scope's sources matching an FTS5 expression,
        best BM25 first (score: higher is better). The subject is also matched inside
        FTS5 so only its rows are ranked; the join's exact scope filter stays the
        authority (a phrase can match a longer subject ID). Ties keep storage order."""
        if not match or k <= 0:
            return []
        if any(ch.isalnum() for ch in scope.subject_id):
            match = f"subject_id : {_fts_phrase(scope.subject_id)} AND ({match})"
        cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
        rows = self.query(
            f"SELECT s.seq, s.source_id, bm25(sources_fts, {float(weights[0])}, "
            f"{float(weights[1])}, 0.0) AS rank FROM sources_fts "
            "JOIN sources s ON s.seq = sources_fts.rowid "
            f"WHERE sources_fts MATCH ? AND {cond} ORDER BY rank, s.seq LIMIT ?",
            [match, *args, int(k)])
        return [(int(r[0]), r[1], -float(r[2])) for r in rows]

    def search_facts(self, scope: Scope, match: str, k: int,
                     as_of_valid: float | None = None, as_of_known: float | None = None
                     ) -> list[tuple[int, str, str, float, str]]:
        """(source seq, source_id, fact_id, score, fact status) for facts matching an
        FTS5 expression, one row per provenance source in the scope, best first.
        A time view hides facts valid or known only after it."""
        if not match or k <= 0:
            return []
        if any(ch.isalnum() for ch in scope.subject_id):
            match = f"subject_id : {_fts_phrase(scope.subject_id)} AND ({match})"
        cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
        if as_of_valid is not None:
            cond += " AND f.valid_from <= ?"
            args.append(as_of_valid)
        if as_of_known is not None:
            cond += " AND f.known_from <= ?"
            args.append(as_of_known)
        rows = self.query(
            "SELECT s.seq, s.source_id, f.fact_id, bm25(facts_fts, 1.0, 1.0, 0.0) AS rank, "
            "f.status FROM facts_fts JOIN facts f ON f.rowid = facts_fts.rowid "
            "JOIN fact_sources fs ON fs.fact_id = f.fact_id "
            "JOIN sources s ON s.source_id = fs.source_id "
            f"WHERE facts_fts MATCH ? AND f.subject_id = ? AND {cond} "
            "ORDER BY rank, s.seq LIMIT ?",
            [match, scope.subject_id, *args, int(k)])
        return [(int(r[0]), r[1], r[2], -float(r[3]), r[4]) for r in rows]
