"""The PostgreSQL engine of the ledger (sources, tombstones, jobs so far).

Importing this package imports no driver; ``PgLedger`` imports psycopg when it connects.
"""

from __future__ import annotations

from .ledger import PgLedger

__all__ = ["PgLedger"]
