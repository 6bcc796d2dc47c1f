"""The source postings on SQLite (``storage/postings``; table ``source_postings``,
migration m011): written with the sources in the capture transaction, rewritten without
the forgotten ones in forget's, read by lexical search."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

import numpy as np

from .. import postings as layout
from ..postings import (
    Block,
    SubjectPostings,
    blocks_after,
    by_key,
    decode,
    encode,
    removals,
)

# Sources read at a time when the postings are built from the sources table.
REBUILD_CHUNK = 20_000


def _write(conn: sqlite3.Connection, blocks: Sequence[tuple[str, str, Block]]) -> None:
    """Store (subject, stem, block) blocks; an empty block is deleted."""
    conn.executemany(
        "INSERT OR REPLACE INTO source_postings (subject_id, stem, block, lo, hi, n, postings) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(subject, stem, b.key, int(b.entries["seq"][0]), int(b.entries["seq"][-1]),
          len(b.entries), encode(b.entries)) for subject, stem, b in blocks if len(b.entries)])
    conn.executemany("DELETE FROM source_postings WHERE subject_id = ? AND stem = ? AND block = ?",
                     [(subject, stem, b.key) for subject, stem, b in blocks if not len(b.entries)])


def add_postings(conn: sqlite3.Connection, rows: Iterable[tuple[int, str, str, str]]) -> None:
    """Inside a write transaction: the postings of new sources (seq, subject, speaker, text),
    each seq above every seq already indexed in its subject."""
    out: list[tuple[str, str, Block]] = []
    for (subject, stem), new in sorted(by_key(rows).items()):
        # The common case, new entries that fit the last block: appended to it in place
        # (one statement; SQLite has one writer, so they follow its entries in seq order).
        if len(new) < layout.BLOCK and conn.execute(
                "UPDATE source_postings SET postings = CAST(postings || ? AS BLOB), hi = ?, "
                "n = n + ? "
                "WHERE subject_id = ? AND stem = ? AND block = (SELECT max(block) FROM "
                "source_postings WHERE subject_id = ? AND stem = ?) AND n + ? <= ? "
                "AND hi < ?", (encode(new), int(new["seq"][-1]), len(new), subject, stem,
                               subject, stem, len(new), layout.BLOCK, int(new["seq"][0]))).rowcount:
            continue
        last = conn.execute("SELECT block, postings FROM source_postings WHERE subject_id = ? "
                            "AND stem = ? ORDER BY block DESC LIMIT 1", (subject, stem)).fetchone()
        out += [(subject, stem, b) for b in blocks_after(
            None if last is None else Block(int(last[0]), decode(last[1])), new)]
    _write(conn, out)


def remove_postings(conn: sqlite3.Connection, rows: Iterable[tuple[int, str, str, str]]) -> None:
    """Inside forget's transaction: the postings of sources (seq, subject, speaker, text)
    about to be deleted."""
    def stored(subject: str, stem: str, lo: int, hi: int) -> list[Block]:
        return [Block(int(r[0]), decode(r[1])) for r in conn.execute(
            "SELECT block, postings FROM source_postings WHERE subject_id = ? AND stem = ? "
            "AND lo <= ? AND hi >= ?", (subject, stem, hi, lo))]
    _write(conn, removals(rows, stored))


def table_sql(name: str = "source_postings") -> str:
    """The table's definition (migration m011; ``rebuild_postings`` builds in a temporary one)."""
    return f"""CREATE TABLE {name} (
            subject_id TEXT NOT NULL,
            stem TEXT NOT NULL,
            block INTEGER NOT NULL,
            lo INTEGER NOT NULL,
            hi INTEGER NOT NULL,
            n INTEGER NOT NULL,
            postings BLOB NOT NULL,
            PRIMARY KEY (subject_id, stem, block)
        )"""


def rebuild_postings(conn: sqlite3.Connection) -> None:
    """Inside a write transaction: every source's postings again, from the sources, built
    in a temporary table of the same name (it hides the ledger's while it exists) and
    copied into the ledger's in key order: a stem's blocks of a subject are then
    neighbours in the file (rowid order), so a search that finds them out of the page
    cache reads a few runs of pages instead of a page per block (written source by
    source, they lie in the order capture wrote them)."""
    conn.execute("DELETE FROM main.source_postings")
    conn.execute(table_sql("temp.source_postings"))
    try:
        after = 0
        while rows := conn.execute("SELECT seq, subject_id, speaker, text FROM main.sources "
                                   "WHERE seq > ? ORDER BY seq LIMIT ?",
                                   (after, REBUILD_CHUNK)).fetchall():
            add_postings(conn, rows)
            after = int(rows[-1][0])
        conn.execute("INSERT INTO main.source_postings SELECT * FROM temp.source_postings "
                     "ORDER BY subject_id, stem, block")
    finally:
        conn.execute("DROP TABLE temp.source_postings")


def read_stems(conn: sqlite3.Connection, sp: SubjectPostings, stems: Iterable[str]) -> None:
    """Read into ``sp`` the subject's postings of ``stems`` it does not hold yet (one
    statement). Raises ``sqlite3.OperationalError`` on a file m011 has not reached."""
    missing = sp.missing(stems)
    if not missing:
        return
    blobs: dict[str, list[bytes]] = {}
    for stem, blob in conn.execute(
            "SELECT stem, postings FROM source_postings WHERE subject_id = ? AND stem IN "
            f"({','.join('?' * len(missing))}) ORDER BY stem, block",
            (sp.subject_id, *missing)):
        blobs.setdefault(stem, []).append(blob)
    sp.add(blobs, missing)


def postings_of(conn: sqlite3.Connection, subject_id: str) -> dict[str, np.ndarray]:
    """Every stem's entries in the subject as stored (tests and checks)."""
    out: dict[str, list[np.ndarray]] = {}
    for stem, blob in conn.execute("SELECT stem, postings FROM source_postings WHERE "
                                   "subject_id = ? ORDER BY stem, block", (subject_id,)):
        out.setdefault(stem, []).append(decode(blob))
    return {s: np.concatenate(v) for s, v in out.items()}
