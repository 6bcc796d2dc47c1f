"""Ledger reads for spatial memory: perception records in a scope and a time window.

A mixin of ``Ledger`` (the SQL stays behind the ledger); the region test on poses is made
by the caller (``query.spatial``), since a pose is stored as JSON with its frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .ledger import Scope, SourceRecord


class SpatialReads:
    """Mixed into ``Ledger``; uses its ``query``."""

    def query(self, sql: str, args: Any = ()) -> list[tuple[Any, ...]]:  # provided by Ledger
        raise NotImplementedError

    def perceptions(self, scope: Scope, *, since: float | None = None,
                    until: float | None = None, as_of_valid: float | None = None,
                    as_of_known: float | None = None, labelled: bool = False,
                    limit: int = 5000) -> list[SourceRecord]:
        """Perception sources in ``scope`` with ``since <= source_time <= until``, newest first."""
        from .ledger import SOURCE_COLUMNS, SourceRecord, scope_filter  # ledger imports us

        cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
        conds = [cond, "s.modality = 'perception'"]
        if since is not None:
            conds.append("s.source_time >= ?")
            args.append(since)
        if until is not None:
            conds.append("s.source_time <= ?")
            args.append(until)
        if labelled:
            conds.append("s.label <> ''")
        sql = (f"SELECT {SOURCE_COLUMNS} FROM sources s WHERE {' AND '.join(conds)} "
               f"ORDER BY s.source_time DESC, s.seq DESC LIMIT {int(limit)}")
        return [SourceRecord.from_row(r) for r in self.query(sql, args)]
