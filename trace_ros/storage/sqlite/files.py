"""Checks on a ledger path before SQLite touches it.

SQLite's own errors for an unusable file ("file is not a database", "attempt to
write a readonly database") come late, after the file may already have been
changed (``journal_mode = WAL`` rewrites the header), and name no cause a user
can act on. These checks run first and raise ``LedgerError`` with one clear line.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ...errors import LedgerError

SQLITE_HEADER = b"SQLite format 3\x00"


# (device, inode) of the ledger files this process has SQLite connections to, and how
# many: see ``preflight``. Kept by ``opened``/``closed`` (base.SqliteBase).
_OPEN: dict[tuple[int, int], int] = {}
_OPEN_LOCK = threading.Lock()


def _key(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def opened(path: Path) -> None:
    """Note a SQLite connection of this process to ``path``."""
    key = _key(path)
    if key is not None:
        with _OPEN_LOCK:
            _OPEN[key] = _OPEN.get(key, 0) + 1


def closed(path: Path) -> None:
    """Note that one of those connections is closed."""
    key = _key(path)
    if key is not None:
        with _OPEN_LOCK:
            left = _OPEN.get(key, 0) - 1
            if left > 0:
                _OPEN[key] = left
            else:
                _OPEN.pop(key, None)


def preflight(path: Path, create: bool) -> None:
    """Raise ``LedgerError`` if ``path`` cannot hold a ledger; with ``create``, make
    its directory. Never creates or changes the file itself.

    The header is read with a file of its own only while this process has no SQLite
    connection to the ledger: closing any descriptor of a file drops every POSIX lock
    the process holds on it, SQLite's included, and another process's last connection
    then takes its WAL and shared memory away under this one's (seen as "database disk
    image is malformed" in a query node once its audit writer opened the ledger a
    second time). A file this process has open is a ledger it has checked already."""
    if path.is_dir():
        raise LedgerError(f"{path}: is a directory, not a ledger file")
    if not path.exists():
        if not create:
            raise LedgerError(f"{path}: no ledger there (create one with `trace-ros ingest`, "
                              "or check --db / ledger.db_path)")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LedgerError(f"{path}: cannot create its directory ({exc.strerror})") from exc
    elif _key(path) not in _OPEN:
        try:
            with open(path, "rb") as fh:
                head = fh.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise LedgerError(f"{path}: cannot be read ({exc.strerror})") from exc
        if head and head != SQLITE_HEADER:
            raise LedgerError(f"{path}: not a SQLite database; refusing to use it as a ledger")
        if not os.access(path, os.R_OK | os.W_OK):
            raise LedgerError(f"{path}: the file is read-only; the ledger needs write access")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise LedgerError(f"{path.parent}: the directory is read-only; SQLite needs to create "
                          "the -wal and -shm files next to the ledger")


@contextmanager
def file_lock(path: Path, timeout_s: float) -> Iterator[None]:
    """An exclusive ``flock`` on ``path``, waited for at most ``timeout_s`` seconds."""
    try:
        fh = open(path, "a")  # noqa: SIM115 - held for the duration of the block
    except OSError as exc:
        raise LedgerError(f"{path}: cannot open the lock file ({exc.strerror})") from exc
    with fh:
        deadline = time.monotonic() + timeout_s
        delay = 0.005
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LedgerError(f"{path}: another process held the lock for more than "
                                      f"{timeout_s:.1f} s") from None
                time.sleep(delay)
                delay = min(0.1, delay * 2)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
