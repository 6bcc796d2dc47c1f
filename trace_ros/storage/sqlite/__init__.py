"""The SQLite engine of the ledger (the embedded default): one module per concern."""

from __future__ import annotations

from .ledger import Ledger

__all__ = ["Ledger"]
