"""The ledger's settings (``ledger.*`` parameters), kept with the storage that reads them.

``trace_ros.config`` re-exports ``LedgerConfig`` as one section of ``MemoryConfig``; it lives
here so that the storage package needs nothing above it.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_DB_PATH = "~/.ros/trace_ros/memory.db"


@dataclass
class LedgerConfig:
    db_path: str = DEFAULT_DB_PATH
    # Which engine and where (trace_ros.storage.url): sqlite:///abs/path.db,
    # sqlite:relative.db or postgresql://user@host:port/db. Empty: the SQLite file db_path.
    url: str = ""
    busy_timeout_ms: int = 10000
    # Longest wait for the migration lock (a migration of a large ledger holds it).
    lock_timeout_s: float = 120.0
    # FULL fsyncs the WAL at each (group) commit: an acknowledged event survives
    # power loss. NORMAL survives process crashes only.
    synchronous: str = "FULL"
