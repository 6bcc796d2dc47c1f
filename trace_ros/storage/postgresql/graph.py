"""The evidence graph on PostgreSQL: ``PgGraph`` is the engine's transaction statements
(``contract.GraphStatements``: ``graph_writes`` and ``hierarchy``), reached as
``ledger.graph`` or ``storage.graph_of(conn)``; ``graph_reads`` adds the ledger's reads."""

from __future__ import annotations

from .graph_writes import PgGraphWrites
from .hierarchy import PgHierarchyStore


class PgGraph(PgGraphWrites, PgHierarchyStore):
    """Static statements only; every one runs in the caller's transaction."""
