"""Which engine's transaction statements a transaction handle takes.

Code above the storage package that holds only the handle ``write()`` or ``read()``
yielded (the consolidation batch, the validity rules) asks ``graph_of(tx)`` for the
statements of the engine below (``contract.GraphStatements``) and calls them with the
handle: ``graph_of(conn).insert_facts(conn, facts)``. Code that holds the ledger uses
``ledger.graph``, the same namespace.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ..errors import LedgerError


def graph_of(tx: Any) -> Any:
    """The ``GraphStatements`` of the engine whose transaction handle ``tx`` is. Raises
    ``LedgerError`` for a handle of no known engine."""
    if isinstance(tx, sqlite3.Connection):
        from .sqlite.graph import GraphStore

        return GraphStore
    if type(tx).__module__.startswith("psycopg"):
        from .postgresql.graph import PgGraph

        return PgGraph
    raise LedgerError(f"not a ledger transaction: {type(tx).__name__}")
