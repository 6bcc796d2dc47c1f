"""The PostgreSQL ledger's connections: a pool, transactions, the generation.

Every operation takes a connection from one ``psycopg_pool.ConnectionPool`` for the length
of one transaction, so the threads of a node share the pool and several nodes (or
machines) share the database. ``write()`` is a READ COMMITTED transaction (row locks do
the rest); ``read()`` is a REPEATABLE READ one, so the reads inside it see one generation.
psycopg, psycopg_pool and pgvector are imported only here and only when a PostgreSQL
ledger is opened; a missing one is a ``LedgerError`` with the install hint.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Self

from ...errors import LedgerError
from ..settings import LedgerConfig
from ..url import LedgerURL
from .migrations import MIGRATIONS, applied, migrate
from .settled import SETTLED

# SQLSTATEs of a server shutting down or starting up (admin_shutdown, crash_shutdown,
# cannot_connect_now); class 08 is the connection exceptions.
SERVER_GONE = ("57P01", "57P02", "57P03")
INSTALL_HINT = "pip install 'psycopg[binary]' psycopg-pool pgvector (see requirements.txt)"


def conninfo(url: LedgerURL) -> dict[str, Any]:
    """libpq connection keywords for ``url`` (a ``?host=/dir`` option is a socket dir)."""
    out: dict[str, Any] = {"dbname": url.database, "port": url.port}
    if url.host:
        out["host"] = url.host
    if url.user:
        out["user"] = url.user
    if url.password:
        out["password"] = url.password
    out.update(dict(url.options))
    return out


class PgBase:
    """The pool and its transactions; the mixins add the operations."""

    def __init__(self, url: LedgerURL, config: LedgerConfig | None = None, *,
                 pool_size: int = 4) -> None:
        """Connect to the database ``url`` names and apply pending migrations. Raises
        ``LedgerError`` when psycopg is missing, the server cannot be reached, or the
        schema was written by a newer trace_ros."""
        self.config = config or LedgerConfig()
        self.url = url
        try:
            import psycopg
            from pgvector.psycopg import register_vector
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise LedgerError(f"{url}: the PostgreSQL engine needs psycopg, psycopg_pool and "
                              f"pgvector ({exc}); {INSTALL_HINT}") from exc
        self._lock = threading.RLock()
        self._local = threading.local()  # the snapshot read() binds for this thread
        timeout_s = max(1.0, self.config.busy_timeout_ms / 1000.0)
        # Migrate first, on a connection of its own: the pool's connections register the
        # vector type, which exists only once the migrations created the extension.
        try:
            first = conninfo(url)
            first.setdefault("connect_timeout", int(timeout_s))
            with psycopg.connect(**first) as conn:
                # A current schema needs no DDL: a role confined to its subjects
                # (storage/postgresql/roles.py) may read schema_version but not create.
                if applied(conn) != [m.name for m in MIGRATIONS]:
                    migrate(conn)
        except RuntimeError as exc:
            raise LedgerError(f"{url}: {exc}; upgrade trace_ros to use it") from exc
        except psycopg.Error as exc:
            raise LedgerError(f"{url}: cannot open the ledger ({exc})") from exc
        try:
            self.pool = ConnectionPool(kwargs=conninfo(url), min_size=1, max_size=pool_size,
                                       timeout=timeout_s, open=True, name="trace_ros",
                                       configure=register_vector)
            self.pool.wait(timeout=timeout_s)
        except Exception as exc:  # psycopg.Error, or the pool's PoolTimeout
            self._close_pool()
            raise LedgerError(f"{url}: cannot connect to the ledger ({exc})") from exc

    def _close_pool(self) -> None:
        pool = getattr(self, "pool", None)
        if pool is not None:
            pool.close()

    def close(self) -> None:
        self._close_pool()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions ---------------------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[Any]:
        """One write transaction on a pooled connection, rolled back on error."""
        with self.pool.connection() as conn, conn.transaction():
            yield conn

    @staticmethod
    def unavailable(exc: BaseException) -> bool:
        """The contract's ``unavailable``: the server could not be reached, went away
        (a restart: the connection broke, or the server was shutting down or starting
        up) or the pool had no connection in time. Other operational errors (a statement
        timeout, a deadlock) are not: they may be the batch's own."""
        import psycopg

        if not isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError)):
            return False
        state = getattr(exc, "sqlstate", None)
        return state is None or state.startswith("08") or state in SERVER_GONE

    @contextmanager
    def read(self) -> Iterator[Any]:
        """A consistent snapshot of ONE generation for several reads, as on SQLite: every
        read made on this thread inside the block, through the yielded connection or this
        ledger's own read methods, sees the same committed state (a REPEATABLE READ
        transaction, started on entry). Nested blocks share the outer snapshot."""
        bound = getattr(self._local, "conn", None)
        if bound is not None:
            yield bound
            return
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            conn.execute("SELECT value FROM meta WHERE key = 'generation'")  # takes the snapshot
            self._local.conn = conn
            try:
                yield conn
            finally:
                self._local.conn = None

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of one PostgreSQL statement (inside ``read()``: in its snapshot)."""
        return self._query(sql, args, binary=False)

    def _query(self, sql: str, args: Sequence[Any], binary: bool) -> list[tuple[Any, ...]]:
        """``query``; ``binary``: the server sends the values in binary form (the same
        Python values; ``bytea`` raw rather than as hexadecimal text, half the bytes and
        no decoding)."""
        bound = getattr(self._local, "conn", None)
        if bound is not None:
            return bound.execute(sql, args, binary=binary).fetchall()
        with self.pool.connection() as conn:
            return conn.execute(sql, args, binary=binary).fetchall()

    # -- generation -------------------------------------------------------------------

    @staticmethod
    def generation_of(conn: Any) -> int:
        return int(conn.execute("SELECT value FROM meta WHERE key = 'generation'")
                   .fetchone()[0])

    def generation(self) -> int:
        return int(self.query("SELECT value FROM meta WHERE key = 'generation'")[0][0])

    @staticmethod
    def bump_generation(conn: Any) -> int:
        """Inside a write transaction: advance the generation readers reload on."""
        return int(conn.execute(
            "UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'generation' "
            "RETURNING value").fetchone()[0])

    def marks(self) -> tuple[int, int]:
        """(generation, the largest settled source sequence number), in one read: every
        source numbered up to it is visible (or never will be), where the last number
        handed out may still be another writer's uncommitted source (``settled``)."""
        row = self.query("SELECT (SELECT value FROM meta WHERE key = 'generation'), "
                         f"coalesce((SELECT seq FROM sources WHERE {SETTLED} "
                         "ORDER BY seq DESC LIMIT 1), 0)")[0]
        return int(row[0]), int(row[1])

    def last_seq(self) -> int:
        return self.marks()[1]

    def meta_value(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = %s", (key,))
        return rows[0][0] if rows else None

    def put_meta_value(self, key: str, value: str) -> None:
        with self.write() as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) "
                         "DO UPDATE SET value = excluded.value", (key, value))
