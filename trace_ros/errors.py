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


def check_text(field: str, value: object) -> str:
    """``value`` if it is a string that can be stored as given (valid UTF-8, no NUL);
    else raise ``ValidationError(field, reason)``."""
    if not isinstance(value, str):
        raise ValidationError(field, f"must be a string, got {type(value).__name__}")
    if "\x00" in value:
        raise ValidationError(field, "contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValidationError(field, f"not valid UTF-8 ({exc.reason})") from None
    return value


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
