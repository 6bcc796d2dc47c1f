"""The source postings on PostgreSQL (``storage/postings``; table ``source_postings``,
migration p013): written with the sources in the capture transaction, rewritten without
the forgotten ones in forget's, read by lexical search.

Several writers may add to one subject's stem at once: each locks the subject's last block
of every stem it adds to (``FOR UPDATE``, stems in one order, so two writers never wait
for each other in a circle) and appends to it as the last writer left it; two writers that
both find it full (or none) each start a block of their own (keyed by their own first
seq). A block's entries are kept in seq order, and ``lo`` / ``hi`` bound them, since
sequence numbers are drawn before commit and two writers may commit out of order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..postings import Block, SubjectPostings, blocks_after, by_key, decode, encode, removals

# Sources read at a time when the postings are built from the sources table.
REBUILD_CHUNK = 20_000


def _write(conn: Any, blocks: Sequence[tuple[str, str, Block]]) -> None:
    """Store (subject, stem, block) blocks, one statement for all (pipelined); an empty
    block is deleted."""
    kept = [(subject, stem, b) for subject, stem, b in blocks if len(b.entries)]
    if kept:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO source_postings (subject_id, stem, block, lo, hi, n, postings) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (subject_id, stem, block) "
                "DO UPDATE SET lo = excluded.lo, hi = excluded.hi, n = excluded.n, "
                "postings = excluded.postings",
                [(subject, stem, b.key, int(b.entries["seq"].min()),
                  int(b.entries["seq"].max()), len(b.entries), encode(b.entries))
                 for subject, stem, b in kept])
    gone = [(subject, stem, b.key) for subject, stem, b in blocks if not len(b.entries)]
    if gone:
        conn.execute("DELETE FROM source_postings WHERE (subject_id, stem, block) IN (SELECT * "
                     "FROM unnest(%s::text[], %s::text[], %s::bigint[]))",
                     ([g[0] for g in gone], [g[1] for g in gone], [g[2] for g in gone]))


def add_postings(conn: Any, rows: Iterable[tuple[int, str, str, str]]) -> None:
    """Inside the capture transaction: the postings of new sources (seq, subject, speaker,
    text). Two round trips for a batch: the last block of every (subject, stem) it adds
    to, locked in key order, and the blocks written."""
    new = by_key(rows)
    if not new:
        return
    keys = sorted(new)
    last = {(r[0], r[1]): Block(int(r[2]), decode(r[3])) for r in conn.execute(
        "SELECT u.s, u.t, p.block, p.postings FROM unnest(%s::text[], %s::text[]) "
        "WITH ORDINALITY AS u(s, t, i) CROSS JOIN LATERAL (SELECT block, postings FROM "
        "source_postings WHERE subject_id = u.s AND stem = u.t ORDER BY block DESC LIMIT 1 "
        "FOR UPDATE) p ORDER BY u.i", ([k[0] for k in keys], [k[1] for k in keys]))}
    _write(conn, [(subject, stem, b) for subject, stem in keys
                  for b in blocks_after(last.get((subject, stem)), new[(subject, stem)])])


def remove_postings(conn: Any, rows: Iterable[tuple[int, str, str, str]]) -> None:
    """Inside forget's transaction: the postings of sources (seq, subject, speaker, text)
    about to be deleted."""
    def stored(subject: str, stem: str, lo: int, hi: int) -> list[Block]:
        return [Block(int(r[0]), decode(r[1])) for r in conn.execute(
            "SELECT block, postings FROM source_postings WHERE subject_id = %s AND stem = %s "
            "AND lo <= %s AND hi >= %s FOR UPDATE", (subject, stem, hi, lo))]
    _write(conn, removals(rows, stored))


def clear_postings(conn: Any) -> None:
    """Inside a write transaction: no postings (before they are written again)."""
    conn.execute("DELETE FROM source_postings")


def rebuild_postings(conn: Any) -> None:
    """Inside a write transaction (migration p013, as the tables' owner): every source's
    postings again, from the sources, then the table rewritten in key order (``CLUSTER``):
    a stem's blocks of a subject are then neighbours on disk, so a search that finds them
    out of the caches reads a few runs of pages instead of a page per block."""
    clear_postings(conn)
    after = 0
    while rows := conn.execute("SELECT seq, subject_id, speaker, text FROM sources WHERE "
                               "seq > %s ORDER BY seq LIMIT %s", (after, REBUILD_CHUNK)).fetchall():
        add_postings(conn, rows)
        after = int(rows[-1][0])
    conn.execute("CLUSTER source_postings USING source_postings_pkey")


def read_stems(conn: Any, sp: SubjectPostings, stems: Iterable[str]) -> None:
    """Read into ``sp`` the subject's postings of ``stems`` it does not hold yet (one
    statement)."""
    missing = sp.missing(stems)
    if not missing:
        return
    blobs: dict[str, list[bytes]] = {}
    for stem, blob in conn.execute(
            "SELECT stem, postings FROM source_postings WHERE subject_id = %s AND "
            "stem = ANY(%s) ORDER BY stem, block", (sp.subject_id, missing)):
        blobs.setdefault(stem, []).append(blob)
    sp.add(blobs, missing)


def postings_of(conn: Any, subject_id: str) -> dict[str, np.ndarray]:
    """Every stem's entries in the subject as stored (tests and checks)."""
    out: dict[str, list[np.ndarray]] = {}
    for stem, blob in conn.execute("SELECT stem, postings FROM source_postings WHERE "
                                   "subject_id = %s ORDER BY stem, block", (subject_id,)):
        out.setdefault(stem, []).append(decode(blob))
    return {s: np.sort(np.concatenate(v), order="seq") for s, v in out.items()}
