"""Read-only access to a ledger for the explorer.

The explorer reads through the ledger's own methods (the ledger contract, on a connection
opened read-only by ``trace_ros.storage.sqlite.readonly``); this module holds no SQL.
"""

from __future__ import annotations

from ..storage.sqlite.readonly import ReadOnlyLedger, open_read_only

__all__ = ["ReadOnlyLedger", "open_read_only"]
