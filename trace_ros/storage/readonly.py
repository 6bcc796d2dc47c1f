"""Open a ledger read-only, whichever engine holds it (the explorer's way in)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .settings import LedgerConfig
from .url import POSTGRESQL, LedgerURL


def open_read_only(target: str | Path | LedgerURL, config: LedgerConfig | None = None) -> Any:
    """A read-only ledger for a SQLite file (path or URL) or a PostgreSQL URL. Raises
    ``FileNotFoundError`` for a missing file and ``TraceError`` for a ledger this code
    cannot read without migrating it."""
    if isinstance(target, LedgerURL) and target.engine == POSTGRESQL:
        from .postgresql.readonly import PgReadOnlyLedger

        return PgReadOnlyLedger(target, config)
    from .sqlite.readonly import ReadOnlyLedger

    path = target.path if isinstance(target, LedgerURL) else target
    if path is None:
        raise FileNotFoundError(f"{target}: no ledger file")
    return ReadOnlyLedger(path, config)
