"""The SQLite ledger's connection: opening and checking the file, migrations,
transactions, the generation, and the WAL checkpoint.

One ``SqliteBase`` wraps one connection shared by the threads of a process (a re-entrant
lock serialises use); several processes may open the same file (busy timeout). Write
transactions start with ``BEGIN IMMEDIATE`` so a writer waits for the lock instead of
failing when it upgrades from reading. The other modules of this package are mixins over
this class, one per concern; ``ledger.Ledger`` combines them.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from ...errors import LedgerError
from ..settings import LedgerConfig
from .files import closed, file_lock, opened, preflight
from .migrations import FTS_SIZE, MIGRATIONS, fts_size

if TYPE_CHECKING:
    from sqlite_utils import Database


class SqliteBase:
    """The connection and its transactions; the mixins add the operations."""

    # ``read()`` blocks opened so far, and the one open now (``_read_block``; 0: none).
    # (Class defaults: a read-only ledger opens its connection without ``__init__``.)
    _snapshots = 0
    _open_snapshot = 0

    def __init__(self, path: str | Path, config: LedgerConfig | None = None, *,
                 create: bool = True) -> None:
        """Open (with ``create``, or create) the ledger at ``path`` and apply pending
        migrations. Raises ``LedgerError`` for a file that is not ours, read-only,
        from a newer schema, or (without ``create``) missing; the file is left as it was."""
        self.config = config or LedgerConfig()
        self.path = Path(path).expanduser()
        preflight(self.path, create)
        self._lock = threading.RLock()
        self._apart_lock = threading.Lock()
        self.conn = sqlite3.connect(
            str(self.path), timeout=self.config.busy_timeout_ms / 1000.0,
            isolation_level=None, check_same_thread=False,
        )
        try:
            self._setup()
        except sqlite3.Error as exc:
            self.conn.close()
            raise LedgerError(f"{self.path}: cannot open the ledger ({exc})") from exc
        except BaseException:
            self.conn.close()
            raise
        self._note_open()

    def _note_open(self) -> None:
        """Count this connection among the process's to its file (``files.preflight``
        reads no header of a file this process holds open)."""
        opened(self.path)
        self._noted = True

    def _setup(self) -> None:
        self.conn.execute(f"PRAGMA busy_timeout = {int(self.config.busy_timeout_ms)}")
        # Deleted content is overwritten, not left in free pages (forget must forget).
        self.conn.execute("PRAGMA secure_delete = ON")
        self.conn.execute("PRAGMA foreign_keys = ON")
        # As sqlite_utils.Database set it on every ledger connection when it was made
        # here (it is made on first use now: ``db``): REPLACE's deletions fire triggers.
        self.conn.execute("PRAGMA recursive_triggers = ON")
        # The lexical statistics' triggers (migration m007) read FTS5's row sizes with this.
        self.conn.create_function(FTS_SIZE, 1, fts_size, deterministic=True)
        # Three nodes may open a fresh file at once: a file lock makes exactly
        # one of them check and migrate it, with a deadline.
        lock_path = self.path.with_name(self.path.name + ".migrate.lock")
        with file_lock(lock_path, self.config.lock_timeout_s), self._lock:
            self._refuse_foreign()  # before WAL mode, which would rewrite the header
            mode = self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise LedgerError(f"{self.path}: could not enable WAL mode (got {mode})")
            self.conn.execute(f"PRAGMA synchronous = {self.config.synchronous.upper()}")
            # Records a pre-split ledger's migrations in schema_version, then applies
            # what is pending (writes nothing when the file is up to date).
            MIGRATIONS.apply(self.conn)

    def _refuse_foreign(self) -> None:
        """Raise ``LedgerError`` for another program's database or a newer ledger."""
        tables = {r[0] for r in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
        if not tables:
            return  # a new, empty file
        applied = MIGRATIONS.applied(self.conn)
        if not applied:
            raise LedgerError(f"{self.path}: a SQLite database, but not a trace_ros ledger "
                              f"(tables: {', '.join(sorted(tables)[:5])}); refusing to change it")
        unknown = MIGRATIONS.unknown(self.conn)
        if unknown:
            raise LedgerError(f"{self.path}: written by a newer trace_ros (schema "
                              f"{', '.join(unknown)}); upgrade trace_ros to use it")

    @cached_property
    def db(self) -> Database:
        """The connection as a ``sqlite_utils.Database``, made on first use: importing
        sqlite_utils costs ~0.15 s, which a ``trace-ros query`` (that never uses it)
        should not pay."""
        from sqlite_utils import Database

        return Database(self.conn)

    def close(self) -> None:
        self._close_apart()
        with self._lock:
            self.conn.close()
            if getattr(self, "_noted", False):
                self._noted = False
                closed(self.path)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), rolled back on error."""
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException as exc:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
                    raise LedgerError(f"{self.path}: the disk (or max_page_count) is full; "
                                      "nothing of this write was stored") from exc
                raise

    @staticmethod
    def unavailable(exc: BaseException) -> bool:
        """The contract's ``unavailable``: another writer held the lock past the busy
        timeout."""
        text = str(exc).lower()
        return isinstance(exc, sqlite3.OperationalError) and ("locked" in text
                                                              or "busy" in text)

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot of ONE generation for several reads.

        Every read made on this thread inside the block — through the yielded
        connection or through this Ledger's own read methods (``query``,
        ``get_sources``, ``generation`` …, which share the connection and the
        re-entrant lock) — sees the ledger as of the same committed batch, even
        while another process commits new ones (WAL keeps the snapshot). The
        snapshot starts on entry (the generation is read at once), so
        ``Ledger.generation_of(conn)`` inside the block names the generation seen.
        Other threads of this process wait for the block; do not write inside it.
        """
        with self._lock:
            self.conn.execute("BEGIN")
            self._snapshots += 1
            self._open_snapshot = self._snapshots
            try:
                self.conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
                yield self.conn
            finally:
                self._open_snapshot = 0
                self.conn.execute("COMMIT")

    def _read_block(self) -> int:
        """The number of the ``read()`` block open on this ledger (each block its own), or
        0 outside one: what is read inside one block stays true until it ends, so the
        caller (holding the lock) may keep it for that block's other reads."""
        with self._lock:
            return self._open_snapshot

    @staticmethod
    def generation_of(conn: sqlite3.Connection) -> int:
        """The generation visible to ``conn`` (inside ``read()`` or ``write()``)."""
        return int(conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self.conn.execute(sql, args).fetchall()

    def generation(self) -> int:
        return int(self.query("SELECT value FROM meta WHERE key = 'generation'")[0][0])

    @staticmethod
    def bump_generation(conn: sqlite3.Connection) -> int:
        """Inside a write transaction: advance the generation readers reload on."""
        conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
        return int(conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])

    def marks(self) -> tuple[int, int]:
        """(generation, highest source sequence number ever stored), in one read: what
        a query's caches check to know whether they are still current."""
        row = self.query(
            "SELECT (SELECT value FROM meta WHERE key = 'generation'), "
            "(SELECT seq FROM sqlite_sequence WHERE name = 'sources')")[0]
        return int(row[0]), int(row[1] or 0)

    def meta_value(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def put_meta_value(self, key: str, value: str) -> None:
        with self.write() as conn:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def last_seq(self) -> int:
        """The highest sequence number ever stored (0 for an empty ledger)."""
        return self.marks()[1]

    def checkpoint(self) -> bool:
        """Copy the WAL into the main file and truncate it, so the -wal file keeps no
        copy of deleted rows. Returns False if a reader kept it from completing
        (the next checkpoint finishes the job)."""
        with self._lock:
            busy = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        return not busy

    # The connection of ``checkpoint_apart`` (opened on first use), the lock that guards
    # it, and the writer connection's autocheckpoint while ``checkpoints_apart`` holds it off.
    _apart: sqlite3.Connection | None = None
    _apart_lock = threading.Lock()  # each opened ledger has its own (``__init__``)
    _autocheckpoint: int | None = None

    def checkpoints_apart(self, on: bool) -> bool:
        """With ``on``: this connection's commits stop checkpointing the WAL (``PRAGMA
        wal_autocheckpoint = 0``), because a thread calls ``checkpoint_apart``; without: the
        commits checkpoint again as before, and the second connection is closed. A commit
        that checkpoints copies pages and fsyncs the file on the writer's path (issue 16).
        Returns True (the SQLite ledger can)."""
        with self._lock:
            if on and self._autocheckpoint is None:
                self._autocheckpoint = int(
                    self.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])
                self.conn.execute("PRAGMA wal_autocheckpoint = 0")
            elif not on and self._autocheckpoint is not None:
                self.conn.execute(f"PRAGMA wal_autocheckpoint = {self._autocheckpoint}")
                self._autocheckpoint = None
        if not on:
            self._close_apart()
        return True

    def checkpoint_apart(self) -> bool:
        """One PASSIVE checkpoint of the WAL on a connection of its own (opened on first
        use), without this ledger's lock: commits go on meanwhile. Returns whether every
        frame was copied (False: a reader or a commit kept some; the next one copies them).
        Raises ``sqlite3.Error`` when it cannot checkpoint."""
        with self._apart_lock:
            if self._apart is None:
                conn = sqlite3.connect(str(self.path), isolation_level=None,
                                       check_same_thread=False,
                                       timeout=self.config.busy_timeout_ms / 1000.0)
                conn.execute(f"PRAGMA synchronous = {self.config.synchronous.upper()}")
                self._apart = conn
            busy, log, copied = self._apart.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return not busy and copied == log

    def _close_apart(self) -> None:
        if self._apart is None:
            return
        with self._apart_lock:
            if self._apart is not None:
                self._apart.close()
                self._apart = None

    def backup_to(self, path: str | Path) -> None:
        """Copy the whole ledger to ``path`` with SQLite's online backup, in one step:
        one consistent snapshot while other processes keep writing (rebuild checks)."""
        target = sqlite3.connect(str(path))
        try:
            with self._lock:
                self.conn.backup(target)
        finally:
            target.close()
