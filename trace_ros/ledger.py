"""The ledger's public names, for the modules above the storage package.

The ledger is the single authority of the memory; its SQL lives in ``trace_ros.storage``
(one module per concern, per engine: ``storage/sqlite/`` for the embedded default) and
its records in ``trace_ros.storage.records``. This module re-exports what the rest of
the package imports (``from trace_ros.ledger import Ledger, Scope``), so those imports
do not change with the layout below.
"""

from __future__ import annotations

from .storage.records import (
    ATTACHED_TO,
    WINDOW_BEFORE,
    AuditRecord,
    Job,
    NewSource,
    Scope,
    SourceRecord,
    StoreResult,
)
from .storage.scopes import SOURCE_COLUMNS
from .storage.sqlite.ledger import Ledger
from .storage.sqlite.migrations import MIGRATIONS
from .storage.sqlite.rows import scope_filter

__all__ = [
    "ATTACHED_TO", "MIGRATIONS", "SOURCE_COLUMNS", "WINDOW_BEFORE", "AuditRecord", "Job",
    "Ledger", "NewSource", "Scope", "SourceRecord", "StoreResult", "scope_filter",
]
