"""One exception family for the engine; the nodes turn these into statuses."""

from __future__ import annotations


class TraceError(Exception):
    """Base class of every error the engine raises on purpose."""


class ValidationError(TraceError, ValueError):
    """An input record or request is malformed.

    ``field`` names the offending field and ``reason`` says what is wrong, so a
    client can fix the message without reading the code.
    """

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class ConfigError(TraceError, ValueError):
    """A configuration value is missing or out of range."""


class NotFoundError(TraceError, LookupError):
    """A requested record does not exist."""


class ModelUnavailableError(TraceError):
    """A model could not be loaded from local files (no hub downloads, ever)."""


class LedgerError(TraceError):
    """The ledger file cannot be used: missing, not SQLite, another program's
    database, read-only, written by a newer version, locked too long, or full.
    The message says which and names the file; the file is left as it was."""
