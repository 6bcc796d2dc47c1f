"""What a benchmark run costs the machine: peak resident memory and ledger size."""

from __future__ import annotations

import glob
import resource
import sys
from pathlib import Path

MB = 1024.0 * 1024.0


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (``getrusage`` maxrss)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return rss / MB if sys.platform == "darwin" else rss / 1024.0


def db_mb(path: str | Path) -> float:
    """Size of a SQLite ledger file plus its write-ahead log."""
    p = Path(path)
    files = [p, p.with_name(p.name + "-wal")]
    return sum(f.stat().st_size for f in files if f.is_file()) / MB


def remove_db(path: str | Path) -> None:
    """Delete a ledger and its side files so a run starts from nothing."""
    p = Path(path)
    for suffix in ("", "-wal", "-shm", ".migrate.lock"):
        f = p.with_name(p.name + suffix)
        if f.is_file():
            f.unlink()
    for f in p.parent.glob(glob.escape(p.name) + ".vpack-*"):  # its vector packs
        f.unlink()
