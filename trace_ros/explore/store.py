"""Read-only access to a ledger for the explorer.

The explorer reads through the ledger's own methods (the ledger contract), on a ledger
opened read-only by ``trace_ros.storage.readonly`` — a SQLite file (``mode=ro``) or a
PostgreSQL database (read-only transactions); this module holds no SQL.
"""

from __future__ import annotations

from ..storage.readonly import open_read_only

__all__ = ["open_read_only"]
