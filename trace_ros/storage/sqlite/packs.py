"""Vector packs of a SQLite ledger: files beside it, ``<ledger>.vpack-<key>-<epoch>``.

A pack (``storage.vectorpack``) is named after its (subject, model, owner kind), the
``vectors_epoch`` it was read under and the ledger's ``ledger_uid`` (a random name the
first pack stores in ``meta``): a pack of another epoch, or one left by another ledger
once at this path, is never loaded, and a stale one is known by its name alone.
Forget, rebuild and a change of model move the epoch and then delete every pack file
(``drop_vector_packs``), so no copy of a forgotten vector stays beside the ledger. A
pack is written from a snapshot that may be older than the ledger: once it is in place
the writer reads the committed epoch on a connection of its own and deletes the file
if the epoch moved meanwhile (a forget commits before it deletes the packs, so either
it deletes this one or the writer sees the new epoch).
"""

from __future__ import annotations

import glob
import hashlib
import sqlite3
import uuid
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

from ..vectorpack import TMP, VectorPack, read_pack, write_pack
from .base import SqliteBase

_INFIX = ".vpack-"


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


class VectorPacks(SqliteBase):
    """Loading, saving and dropping the ledger's vector packs."""

    def _pack_path(self, subject_id: str, model: str, owner_kind: str, epoch: str,
                   ledger: str) -> Path:
        key = _digest(subject_id, model, owner_kind)[:20]
        tag = _digest(epoch, ledger)[:12]
        return self.path.with_name(f"{self.path.name}{_INFIX}{key}-{tag}")

    def _pack_files(self) -> list[Path]:
        pattern = glob.escape(str(self.path.with_name(self.path.name + _INFIX))) + "*"
        return [Path(p) for p in glob.glob(pattern)]

    def load_vector_pack(self, subject_id: str, model: str, owner_kind: str,
                         epoch: str) -> VectorPack | None:
        """The subject's pack of (``model``, ``owner_kind``) read under ``epoch``, or None.
        The ledger's row at the pack's watermark must still be the pack's (``last_id``:
        its last row's, unless the rows are laid out by list; a ledger restored from an
        older copy has the same ``ledger_uid``)."""
        ledger = self.meta_value("ledger_uid")
        if ledger is None:
            return None
        pack = read_pack(self._pack_path(subject_id, model, owner_kind, epoch, ledger))
        if pack is None or pack.key() != (subject_id, model, owner_kind) or \
                (pack.epoch, pack.ledger) != (epoch, ledger) or not len(pack.ids):
            return None
        last = self.query("SELECT owner_id FROM vectors WHERE rowid = ? AND subject_id = ? "
                          "AND model = ? AND owner_kind = ?",
                          (pack.watermark, subject_id, model, owner_kind))
        return pack if last and last[0][0] == (pack.last_id or pack.ids[-1]) else None

    def save_vector_pack(self, pack: VectorPack) -> bool:
        """Store ``pack`` (replacing that key's pack); False when it was not kept: the
        ledger's epoch has moved on since it was read, or the file could not be written."""
        try:
            ledger = self._ledger_uid()
            pack = replace(pack, ledger=ledger)
            path = self._pack_path(*pack.key(), pack.epoch, ledger)
            write_pack(path, pack)
        except (OSError, ValueError, sqlite3.Error):
            return False
        if self._committed_epoch() != pack.epoch:
            path.unlink(missing_ok=True)
            return False
        tag = path.name.rsplit("-", 1)[1]
        for other in self._pack_files():  # other epochs' packs: stale, of any key
            if TMP not in other.name and other.name.rsplit("-", 1)[1] != tag:
                other.unlink(missing_ok=True)
        return True

    def drop_vector_packs(self) -> None:
        """Delete every pack file of this ledger (after a commit that moved the epoch)."""
        for path in self._pack_files():
            path.unlink(missing_ok=True)

    def _connect(self, mode: str) -> sqlite3.Connection:
        """A connection of its own: it sees what is committed, whatever snapshot this
        ledger's connection is in."""
        return sqlite3.connect(f"file:{quote(str(self.path))}?mode={mode}", uri=True,
                               timeout=self.config.busy_timeout_ms / 1000.0,
                               isolation_level=None)

    def _ledger_uid(self) -> str:
        """The ledger's ``ledger_uid``, stored now if it has none."""
        conn = self._connect("rw")
        try:
            for _ in range(2):
                row = conn.execute("SELECT value FROM meta WHERE key = 'ledger_uid'").fetchone()
                if row:
                    return str(row[0])
                conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('ledger_uid', ?)",
                             (uuid.uuid4().hex,))
            raise sqlite3.OperationalError("ledger_uid was not stored")
        finally:
            conn.close()

    def _committed_epoch(self) -> str | None:
        """The last committed ``vectors_epoch`` (None when it cannot be read)."""
        try:
            conn = self._connect("ro")
            try:
                row = conn.execute("SELECT value FROM meta WHERE key = 'vectors_epoch'").fetchone()
            finally:
                conn.close()
        except sqlite3.Error:
            return None
        return row[0] if row else ""
