"""The source postings on SQLite (``storage/postings``; table ``source_postings``,
migration m011): written after capture, by ``deferred.index_pending`` (with FTS5's index
and the statistics since m014), up to the mark of migration m013 (``postings_mark``: every
source up to it is indexed, none above it), rewritten
without the forgotten ones in forget's transaction, read by lexical search.

Why after capture (issue 16): written in the capture transaction they cost capture most of
its time (one statement per stem and subject per batch, and the text split again):
``bench capture`` 1,573 / 1,760 -> 698-1,241 events/s. Indexed afterwards in larger
chunks, by the writer while no event waits, they cost less per source and the
acknowledgement waits for none of it; a search reads the sources above the mark from
their text (``search.SearchReads._by_postings``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

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
    each seq above every seq already indexed in its subject. Three statements for the
    common case: the last block of every (subject, stem) (its key, size and last seq), the
    new entries that fit it appended in place (one ``UPDATE`` each, run as one
    ``executemany``), and new blocks."""
    new = by_key(rows)
    if not new:
        return
    keys = sorted(new)
    last = {(r[0], r[1]): (int(r[2]), int(r[3]), int(r[4])) for r in conn.execute(
        "SELECT k.value ->> 0, k.value ->> 1, p.block, p.n, p.hi FROM json_each(?) k "
        "JOIN source_postings p ON p.subject_id = k.value ->> 0 AND p.stem = k.value ->> 1 "
        "AND p.block = (SELECT max(block) FROM source_postings WHERE subject_id = "
        "k.value ->> 0 AND stem = k.value ->> 1)", (json.dumps(keys),))}
    appends: list[tuple[Any, ...]] = []
    out: list[tuple[str, str, Block]] = []
    for key in keys:
        entries, got = new[key], last.get(key)
        if got is not None and got[1] + len(entries) <= layout.BLOCK and got[2] < int(
                entries["seq"][0]):
            # The common case: they fit the last block, after its entries (SQLite has one
            # writer): appended to its bytes in place.
            appends.append((encode(entries), int(entries["seq"][-1]), len(entries), *key,
                            got[0]))
            continue
        stored = None
        if got is not None and got[1] < layout.BLOCK:  # room for some: read it to fill it
            stored = Block(got[0], decode(conn.execute(
                "SELECT postings FROM source_postings WHERE subject_id = ? AND stem = ? "
                "AND block = ?", (*key, got[0])).fetchone()[0]))
        out += [(*key, b) for b in blocks_after(stored, entries)]
    conn.executemany("UPDATE source_postings SET postings = CAST(postings || ? AS BLOB), "
                     "hi = ?, n = n + ? WHERE subject_id = ? AND stem = ? AND block = ?",
                     appends)
    _write(conn, out)


def indexed_upto(conn: sqlite3.Connection) -> int | None:
    """The mark: every source up to this seq is in the postings, none above it; None on a
    file m013 has not reached, whose postings hold every source (older builds wrote them
    in the capture transaction; a read-only ledger may open such a file). Raises
    ``sqlite3.OperationalError`` on a file m011 has not reached."""
    try:
        row = conn.execute("SELECT upto FROM postings_mark").fetchone()
    except sqlite3.OperationalError:
        conn.execute("SELECT 1 FROM source_postings LIMIT 1")  # m011 not reached: raise
        return None
    return int(row[0])


def postings_to_the_end(conn: sqlite3.Connection) -> None:
    """Migration m014's backfill: on a file whose triggers indexed every source in FTS5,
    the postings of the sources above the mark, and the mark moved to the last source (so
    the four derived rows stand at one mark)."""
    upto = indexed_upto(conn) or 0
    while rows := conn.execute("SELECT seq, subject_id, speaker, text FROM sources "
                               "WHERE seq > ? ORDER BY seq LIMIT ?",
                               (upto, REBUILD_CHUNK)).fetchall():
        add_postings(conn, rows)
        upto = int(rows[-1][0])
    conn.execute("UPDATE postings_mark SET upto = ?", (upto,))


def remove_postings(conn: sqlite3.Connection, rows: Iterable[tuple[int, str, str, str]]) -> None:
    """Inside forget's transaction: the postings of sources (seq, subject, speaker, text)
    about to be deleted (those above the mark have none)."""
    upto = indexed_upto(conn)
    if upto is not None:
        rows = [r for r in rows if r[0] <= upto]

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
    source, they lie in the order capture wrote them). The mark (m013) moves to the last
    source."""
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
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'postings_mark'").fetchone():
        conn.execute("UPDATE postings_mark SET upto = ?", (after,))  # m011's own: none yet


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
