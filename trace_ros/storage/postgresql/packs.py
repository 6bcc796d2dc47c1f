"""Vector packs on PostgreSQL: a subject's pack (``storage.vectorpack``) kept in the
database, in parts of ``PART`` bytes (table ``vector_packs``, migration p015).

Why (issue 15): without one, a query process's first question about a subject read every
vector of it row by row (the join of ``vectors`` and ``sources``: 3.6-5.2 s for 125,000
rows a kind at 1,000,000 sources) and, above ``coarse.MIN_ROWS``, trained and assigned
its coarse partition again (2-4 s more under load) — in every process, where a fleet's
query nodes are stateless and restart. The pack holds the rows with their places and a
large subject's partition laid out by list, as SQLite's pack files do, so a new process
reads one block per kind and builds nothing.

A pack is derived data. It is keyed by (subject, model, owner kind) and holds the
``vectors_epoch`` it was read under: whatever moves the epoch (forget, rebuild, a model
change) deletes every pack the role can see in the same transaction
(``drop_packs``), and forget's scrub rewrites the table (``forget.SCRUB_TABLES``). A save
holds the epoch's ``meta`` row shared while it writes, so a forget's bump waits for it
and then deletes what it wrote; a pack read under an older epoch is not kept. As on
SQLite, a pack is used only while the ledger's vector at its watermark is still the
pack's (``last_id``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..vectorpack import VectorPack, pack_of, pieces
from .base import PgBase

# Bytes a part holds (a bytea value is at most 1 GB; a subject's pack of 125,000 vectors
# of 384 dimensions is ~200 MB).
PART = 32 * 1024 * 1024


class PgVectorPacks(PgBase):
    """Loading and saving a ledger's vector packs (dropping them: ``drop_packs``)."""

    def load_vector_pack(self, subject_id: str, model: str, owner_kind: str,
                         epoch: str) -> VectorPack | None:
        """The subject's pack of (``model``, ``owner_kind``) read under ``epoch``, or None
        (none kept, another epoch's, or the vector at its watermark no longer its own)."""
        with self.read() as conn:
            head = conn.execute(
                "SELECT epoch, size FROM vector_packs WHERE subject_id = %s AND model = %s "
                "AND owner_kind = %s AND part = 0", (subject_id, model, owner_kind)).fetchone()
            if head is None or head[0] != epoch:
                return None
            buffer = np.empty(int(head[1]), dtype=np.uint8)
            at = 0
            # A server-side cursor, part by part into one buffer: one part in memory
            # beside it, not the whole result twice.
            with conn.cursor(name="vector_pack", binary=True) as cur:
                cur.execute("SELECT data FROM vector_packs WHERE subject_id = %s AND model = "
                            "%s AND owner_kind = %s AND epoch = %s ORDER BY part",
                            (subject_id, model, owner_kind, epoch))
                while (row := cur.fetchone()) is not None:
                    data = row[0]
                    if at + len(data) > len(buffer):
                        return None
                    buffer[at:at + len(data)] = np.frombuffer(data, dtype=np.uint8)
                    at += len(data)
            pack = pack_of(buffer) if at == len(buffer) else None
            if pack is None or pack.key() != (subject_id, model, owner_kind) \
                    or pack.epoch != epoch or not len(pack.ids):
                return None
            last = conn.execute(
                "SELECT owner_id FROM vectors WHERE subject_id = %s AND vid = %s AND model = %s "
                "AND owner_kind = %s", (subject_id, pack.watermark, model, owner_kind)).fetchone()
        return pack if last is not None and last[0] == (pack.last_id or pack.ids[-1]) else None

    def save_vector_pack(self, pack: VectorPack) -> bool:
        """Keep ``pack`` (replacing its key's); False when the epoch has moved since it was
        read (a forget or rebuild committed meanwhile) or the pack cannot be laid out."""
        try:
            size, parts = pieces(pack)
        except ValueError:
            return False
        with self.write() as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES ('vectors_epoch', '') "
                         "ON CONFLICT (key) DO NOTHING")
            # Held until commit: a forget's epoch bump waits, then deletes this pack.
            now = conn.execute("SELECT value FROM meta WHERE key = 'vectors_epoch' "
                               "FOR SHARE").fetchone()
            if (now[0] if now else "") != pack.epoch:
                return False
            key = (pack.subject_id, pack.model, pack.owner_kind)
            conn.execute("DELETE FROM vector_packs WHERE subject_id = %s AND model = %s AND "
                         "owner_kind = %s", key)
            for i, data in enumerate(_parts(parts, PART)):
                conn.execute("INSERT INTO vector_packs (subject_id, model, owner_kind, part, "
                             "epoch, size, data) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                             (*key, i, pack.epoch, size, data))
        return True


def drop_packs(conn: Any) -> None:
    """Inside the transaction that moves the vectors epoch: delete every pack (those of
    the subjects this role may see; the others' are of an older epoch, never loaded)."""
    conn.execute("DELETE FROM vector_packs")


def _parts(pieces: list[memoryview], size: int) -> Iterator[bytes]:
    """``pieces`` joined and cut into parts of ``size`` bytes (the last shorter), one at
    a time."""
    current = bytearray()
    made = False
    for piece in pieces:
        at = 0
        while at < len(piece):
            take = min(size - len(current), len(piece) - at)
            current += piece[at:at + take]
            at += take
            if len(current) == size:
                yield bytes(current)
                made, current = True, bytearray()
    if current or not made:
        yield bytes(current)
