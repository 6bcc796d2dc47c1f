"""A process that opens a ledger a second time (a query node's audit writer beside its
engine) keeps its SQLite locks: another process closing its last connection must not
take the WAL and shared memory away from under it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from trace_ros.errors import LedgerError
from trace_ros.ledger import Ledger


def test_a_second_ledger_of_the_same_file_keeps_the_first_ones_locks(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    Ledger(db).close()
    first = Ledger(db)
    first.generation()
    second = Ledger(db)  # its checks read no header with a file of their own
    second.generation()
    wal = db.with_name(db.name + "-wal")
    assert wal.exists()
    other = ("import sys\nfrom trace_ros.ledger import Ledger\n"
             "ledger = Ledger(sys.argv[1]); ledger.generation(); ledger.close()")
    subprocess.run([sys.executable, "-P", "-c", other, str(db)], check=True, timeout=60)
    # Not the last connection: it left the WAL (and the shared memory) in place.
    assert wal.exists() and db.with_name(db.name + "-shm").exists()
    with first.read():
        assert first.generation() >= 0
    second.close()
    first.close()


def test_a_file_that_is_not_a_ledger_is_still_refused_once_the_others_close(
        tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    Ledger(db).close()
    Ledger(db).close()
    db.unlink()
    db.write_bytes(b"not a database at all")
    with pytest.raises(LedgerError, match="not a SQLite database"):
        Ledger(db)
