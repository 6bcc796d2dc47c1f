"""A read-only SQLite ledger (the explorer's).

``open_read_only`` opens the file with ``mode=ro`` (and ``query_only``), so nothing done
through it can write, and it is safe beside running nodes (WAL). It never migrates: a
ledger with pending migrations is refused with a hint to open it once read-write.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from urllib.parse import quote

from ...errors import TraceError
from ..settings import LedgerConfig
from ..vectorpack import VectorPack
from .ledger import Ledger
from .migrations import MIGRATIONS


class ReadOnlyLedger(Ledger):
    """A ``Ledger`` on a read-only connection: no migration, no WAL switch."""

    def __init__(self, path: str | Path, config: LedgerConfig | None = None) -> None:
        self.config = config or LedgerConfig()
        self.path = Path(path).expanduser().resolve()
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: no such ledger")
        self._lock = threading.RLock()
        self.conn = sqlite3.connect(
            f"file:{quote(str(self.path))}?mode=ro", uri=True,
            timeout=self.config.busy_timeout_ms / 1000.0, isolation_level=None,
            check_same_thread=False)
        self.conn.execute(f"PRAGMA busy_timeout = {int(self.config.busy_timeout_ms)}")
        self.conn.execute("PRAGMA query_only = ON")
        self.conn.execute("PRAGMA recursive_triggers = ON")  # as base.SqliteBase
        try:
            pending = [m for m in MIGRATIONS.pending(self.conn) if not m.readers_unaffected]
        except sqlite3.Error as exc:
            self.conn.close()
            raise TraceError(f"{self.path}: not a trace_ros ledger ({exc})") from exc
        if pending:
            self.conn.close()
            raise TraceError(f"{self.path}: ledger schema is older than this code; open it once "
                             "with `trace-ros stats --db` to migrate")
        self._note_open()

    def _migrate(self) -> None:  # pragma: no cover - never called on a read-only ledger
        raise TraceError("a read-only ledger is never migrated")

    def save_vector_pack(self, pack: VectorPack) -> bool:
        """Writes nothing beside the ledger: it reads the packs others wrote."""
        return False


def open_read_only(path: str | Path, config: LedgerConfig | None = None) -> ReadOnlyLedger:
    return ReadOnlyLedger(path, config)
