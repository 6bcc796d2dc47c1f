"""The storage package: every SQL statement of the ledger, grouped by concern and engine.

``contract`` names what the layers above use; ``sqlite`` (the embedded default) and
``postgresql`` (a fleet's ledger) implement all of it; ``records`` holds the
engine-neutral records, ``settings`` the ``ledger.*`` settings, ``url`` parses
``ledger.url``; ``open_ledger`` opens the engine a URL names. Nothing in this package
imports a module above it (capture, consolidation, state, query, nodes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import LedgerError
from .statements import graph_of
from .url import POSTGRESQL, SQLITE, LedgerURL, parse_ledger_url, sqlite_url

if TYPE_CHECKING:
    from .contract import Tx
    from .settings import LedgerConfig
    from .sqlite.ledger import Ledger

__all__ = ["LedgerURL", "Tx", "graph_of", "open_ledger", "open_sources_ledger", "parse_ledger_url",
           "sqlite_url"]


def __getattr__(name: str) -> Any:
    """``Tx`` when first asked for: the contract and its records come with it, which the
    settings (``trace_ros.config``) and a command answered by a running node never need."""
    if name == "Tx":
        from .contract import Tx

        return Tx
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_ledger(url: LedgerURL, config: LedgerConfig | None = None, *, create: bool = True,
                field: str = "ledger.url") -> Ledger:
    """Open the ledger ``url`` names (``field``: the setting it came from, for errors).

    Raises ``LedgerError`` when the engine is not available or the ledger cannot be used."""
    if url.engine == SQLITE and url.path is not None:
        from .sqlite.ledger import Ledger

        return Ledger(url.path, config, create=create)
    if url.engine == POSTGRESQL:
        from .postgresql import PgLedger

        try:
            return PgLedger(url, config)  # type: ignore[return-value]
        except LedgerError as exc:
            raise LedgerError(f"{field}: {' '.join(str(exc).split())}") from None
    raise LedgerError(f"{field}: cannot open {url}")


def open_sources_ledger(url: LedgerURL, config: LedgerConfig | None = None, *,
                        create: bool = False, field: str = "ledger.url") -> Any:
    """Open ``url`` for what ``trace-ros sync`` needs — sources, tombstones and forget,
    jobs, meta — without creating a missing SQLite file unless ``create``. Raises
    ``LedgerError`` (``field`` named) when the ledger is missing (SQLite without
    ``create``) or cannot be reached."""
    if url.engine == SQLITE and url.path is not None:
        from .sqlite.ledger import Ledger

        try:
            return Ledger(url.path, config, create=create)
        except LedgerError as exc:
            raise LedgerError(f"{field}: {' '.join(str(exc).split())}") from None
    if url.engine == POSTGRESQL:
        from .postgresql import PgLedger

        try:
            return PgLedger(url, config)
        except LedgerError as exc:
            raise LedgerError(f"{field}: {' '.join(str(exc).split())}") from None
    raise LedgerError(f"{field}: cannot open {url}")
