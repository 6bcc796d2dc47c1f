"""Ledger URLs: which engine holds the memory, and where.

``ledger.url`` (ROS parameter) and ``--ledger-url`` (command line) name the ledger:

- ``sqlite:///abs/path/memory.db``: the embedded default, one SQLite file (three slashes
  and an absolute path); ``sqlite:relative/path.db`` is relative to the working
  directory; ``sqlite:~/x.db`` is under the home directory.
- ``postgresql://user[:password]@host[:port]/database[?sslmode=…]`` (``postgres://`` too):
  a fleet's shared ledger; ``postgresql://user@/database?host=/run/postgresql`` reaches a
  server on its Unix socket directory.

``parse_ledger_url`` checks the whole URL up front and raises ``ConfigError`` with one
line naming the setting (``field``) and what is wrong. Nothing here opens a connection.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from ..errors import ConfigError

SQLITE = "sqlite"
POSTGRESQL = "postgresql"
# Connection options a PostgreSQL URL may carry (libpq names), and the values allowed.
PG_SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
PG_OPTIONS = ("host", "sslmode", "connect_timeout", "application_name")


@dataclass(frozen=True)
class LedgerURL:
    """A parsed, checked ledger URL. ``path`` is set for SQLite, the rest for PostgreSQL."""

    engine: str
    path: Path | None = None
    user: str = ""
    password: str = field(default="", repr=False)
    host: str = ""
    port: int = 5432
    database: str = ""
    options: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        """The URL without its password (safe to log and to show in diagnostics)."""
        if self.engine == SQLITE:
            return f"sqlite://{self.path}" if self.path and self.path.is_absolute() \
                else f"sqlite:{self.path}"
        who = f"{self.user}@" if self.user else ""
        where = f"{self.host}:{self.port}" if self.host else ""
        query = "&".join(f"{k}={v}" for k, v in self.options)
        return f"postgresql://{who}{where}/{self.database}" + (f"?{query}" if query else "")


def sqlite_url(path: str | Path) -> LedgerURL:
    """The URL of a SQLite ledger file (``~`` expanded, made absolute)."""
    return LedgerURL(SQLITE, path=Path(path).expanduser().absolute())


def parse_ledger_url(text: str, field: str = "ledger.url") -> LedgerURL:
    """Parse and check ``text``; raises ``ConfigError('<field>: <reason>')``."""

    def bad(reason: str) -> ConfigError:
        return ConfigError(f"{field}: {reason}")

    if not isinstance(text, str) or not text.strip():
        raise bad("empty; give sqlite:///path/to/memory.db or postgresql://user@host:port/db")
    text = text.strip()
    scheme, sep, rest = text.partition(":")
    scheme = scheme.lower()
    if not sep or scheme not in (SQLITE, POSTGRESQL, "postgres"):
        raise bad(f"unknown engine in {_shown(text)!r}; use sqlite:///path or "
                  "postgresql://user@host:port/db")
    if scheme == SQLITE:
        return _sqlite(rest, bad)
    return _postgresql(text, bad)


def _shown(text: str) -> str:
    """``text`` with any password replaced, for error messages."""
    try:
        parts = urlsplit(text)
    except ValueError:
        return text.split("@")[-1]
    if parts.password is None:
        return text
    return text.replace(f":{parts.password}@", ":***@", 1)


def _sqlite(rest: str, bad: Callable[[str], ConfigError]) -> LedgerURL:
    if "?" in rest or "#" in rest:
        raise bad("a SQLite URL takes no options (?…) or fragment (#…)")
    if rest.startswith("//"):
        host, slash, path = rest[2:].partition("/")
        if host:
            raise bad(f"a SQLite URL names no host (got {host!r}); use "
                      "sqlite:///absolute/path.db or sqlite:relative/path.db")
        if not slash or not path.strip("/"):
            raise bad("no file path after sqlite:///")
        path = "/" + path
    else:
        path = rest
    path = unquote(path)
    if not path.strip():
        raise bad("no file path after sqlite:")
    if "\x00" in path:
        raise bad("the file path contains a NUL character")
    if path.endswith("/"):
        raise bad(f"{path!r} names a directory, not a ledger file")
    return LedgerURL(SQLITE, path=Path(path).expanduser())


def _postgresql(text: str, bad: Callable[[str], ConfigError]) -> LedgerURL:
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        if "port" in str(exc).lower():
            raise bad("port must be a number 1-65535") from None
        raise bad(f"malformed PostgreSQL URL {_shown(text)!r} ({exc})") from None
    if parts.fragment:
        raise bad("a PostgreSQL URL takes no fragment (#…)")
    host = parts.hostname or ""
    if port == 0:
        raise bad("port must be 1-65535, got 0")
    database = unquote(parts.path.lstrip("/"))
    if not database:
        raise bad("no database name; use postgresql://user@host:port/db")
    if "/" in database:
        raise bad(f"database name {database!r} contains '/'")
    options: list[tuple[str, str]] = []
    try:
        pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        raise bad(f"malformed options {parts.query!r}") from None
    for key, value in pairs:
        if key not in PG_OPTIONS:
            raise bad(f"unknown option {key!r}; known: {', '.join(PG_OPTIONS)}")
        if key == "sslmode" and value not in PG_SSLMODES:
            raise bad(f"sslmode must be one of {', '.join(PG_SSLMODES)}, got {value!r}")
        if key == "connect_timeout" and not value.isdigit():
            raise bad(f"connect_timeout must be whole seconds, got {value!r}")
        if key == "host" and not value.startswith("/"):
            raise bad(f"host= names a Unix socket directory (an absolute path), got {value!r}")
        options.append((key, value))
    if not host and "host" not in dict(options):
        raise bad("no host in the PostgreSQL URL; use postgresql://user@host:port/db "
                  "(or ?host=/socket/dir)")
    return LedgerURL(POSTGRESQL, user=unquote(parts.username or ""),
                     password=unquote(parts.password or ""), host=host,
                     port=port or 5432, database=database, options=tuple(options))
