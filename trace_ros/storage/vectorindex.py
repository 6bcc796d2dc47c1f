"""A subject's source vectors held in memory for cosine search: the *vector index*.

Derived from the ledger like the vector packs it reads and writes
(``storage.vectorpack``): the query engine searches it (``query.recall``'s dense and
window routes), and the consolidation worker refreshes it once its queue is empty, so
that the packs a fresh process starts from are already written (``consolidation/worker``).
It sits here, beside the packs, because both roads use it and they meet only in the
ledger's layer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from . import coarse, packing
from .bulkload import bulk_load
from .records import Scope
from .vectorpack import VectorPack

if TYPE_CHECKING:
    from .contract import LedgerContract as Ledger


@dataclass(frozen=True, slots=True)
class Hit:
    seq: int
    source_id: str
    score: float


@dataclass(frozen=True)
class Place:
    """Where a source sits: its session and neighbours, speaker and time."""

    seq: int
    source_id: str
    session: tuple[str, str]
    speaker: str
    source_time: float


@dataclass
class SubjectVectors:
    watermark: int = 0
    # The ledger generation the vectors were read at (-1: not known).
    generation: int = -1
    epoch: str = ""
    seqs: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # Object arrays, not lists: the collector walks every item of a list on each full
    # pass (2,000,000 source IDs at 1,000,000 sources: 75-90 ms a pass), never an array's.
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    robot: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    session: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    source_time: np.ndarray = field(default_factory=lambda: np.zeros(0))
    known_time: np.ndarray = field(default_factory=lambda: np.zeros(0))
    speaker: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    # How many of these rows the subject's saved vector pack holds (``packing``).
    packed: int = 0
    # The rows' coarse partition (``storage.coarse``; None: every search scans every row).
    coarse: coarse.Partition | None = None
    # The ID of the row at the watermark when it is not the last row (rows laid out).
    last_id: str = ""
    # Sequence order (built on first use).
    _order: _SeqOrder | None = None

    def order(self) -> _SeqOrder:
        if self._order is None:
            self._order = _SeqOrder(self)
        return self._order

    def row_of(self, seq: int) -> int | None:
        """The row holding ``seq``'s vector (its first, were it stored twice), or None."""
        at = np.flatnonzero(self.seqs == seq) if len(self.seqs) else ()
        return int(at[0]) if len(at) else None

    def later_near(self, seq: int, threshold: float, limit: int) -> dict[int, float]:
        """The sources stored after ``seq`` whose vector's cosine with ``seq``'s is at least
        ``threshold``: seq -> cosine, the ``limit`` closest first (empty when ``seq`` has no
        vector)."""
        rows, sims = self._beside(seq, after=True)
        keep = np.flatnonzero(sims >= threshold)
        return self._closest(rows[keep], sims[keep], limit)

    def earlier_near(self, seq: int, limit: int) -> dict[int, float]:
        """The ``limit`` sources stored before ``seq`` whose vectors are closest to
        ``seq``'s: seq -> cosine, the closest first (empty when ``seq`` has no vector)."""
        rows, sims = self._beside(seq, after=False)
        return self._closest(rows, sims, limit)

    def _beside(self, seq: int, after: bool) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the sources after (or before) ``seq`` and their cosines with
        ``seq``'s vector (none when it has no vector). A large subject scores only those
        rows of ``seq``'s nearest lists. The rows are in storage order, nearly always
        sequence order: then only the rows on that side of ``seq``'s are scored (the whole
        matrix was, 125,000 x 384 floats a subject at 1,000,000 sources)."""
        row = self.row_of(seq)
        if row is None:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        qvec = self.matrix[row]
        part = self.coarse
        if part is not None:
            rows = part.rows(qvec, part.probes)
            rows = rows[self.seqs[rows] > seq] if after else rows[self.seqs[rows] < seq]
            return rows, coarse.scores(self.matrix, rows, qvec)
        if self.order().in_rows:
            side = slice(row + 1, None) if after else slice(0, row)
            return np.arange(len(self.seqs))[side], coarse.dot(self.matrix[side], qvec)
        rows = np.flatnonzero(self.seqs > seq if after else self.seqs < seq)
        return rows, coarse.dot(self.matrix[rows], qvec)

    def _closest(self, rows: np.ndarray, sims: np.ndarray, limit: int) -> dict[int, float]:
        top = np.argsort(-sims)[:limit]
        return {int(self.seqs[rows[i]]): float(sims[i]) for i in top}


class _SeqOrder:
    """A subject's vectors in sequence order: the position of a seq, and per position its
    place and known time. Places are made when asked for, not for every row at once: a
    question looks at a few hundred of a subject's thousands (its first question paid
    for all of them)."""

    def __init__(self, sv: SubjectVectors) -> None:
        self.sv = sv
        self.rows = np.argsort(sv.seqs, kind="stable")
        self.seqs = sv.seqs[self.rows]
        self.n = len(self.rows)
        # Whether the rows are stored in sequence order already (each seq once).
        self.in_rows = bool((np.diff(sv.seqs) > 0).all())
        self._places: dict[int, Place] = {}

    def positions(self, seqs: list[int]) -> list[int] | None:
        """Each seq's position, or None when one of them has no vector."""
        if not seqs:
            return []
        if not self.n:
            return None
        want = np.asarray(seqs, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.seqs, want), self.n - 1)
        if not np.array_equal(self.seqs[at], want):
            return None
        return at.tolist()

    def place(self, i: int) -> Place:
        p = self._places.get(i)
        if p is None:
            sv, r = self.sv, self.rows[i]
            p = self._places[i] = Place(int(sv.seqs[r]), sv.ids[r], (sv.robot[r], sv.session[r]),
                                        sv.speaker[r], float(sv.source_time[r]))
        return p

    def known(self, i: int) -> float:
        return float(self.sv.known_time[self.rows[i]])


class VectorIndex:
    """In-memory matrix of one subject's source vectors, refreshed incrementally.

    New vectors are picked up by rowid watermark; a forget or rebuild changes
    the ledger's ``vectors_epoch`` and forces a full reload of that subject. A full load
    starts from the subject's vector pack of that epoch when the ledger keeps one (one
    block instead of a row per vector: a fresh process's first question) and reads only
    the rows after it; the pack is saved again as the subject grows (``packing``).
    """

    def __init__(self, ledger: Ledger, model: str, owner_kind: str = "source",
                 coarse_from: int = coarse.MIN_ROWS,
                 save: Callable[[Ledger, VectorPack], None] = packing.save_later,
                 on_new_epoch: Callable[[], object] | None = None) -> None:
        """``save``: how a due pack is written (a question's index writes it on a thread
        of its own; the consolidation worker, idle, writes it before it goes on).
        ``on_new_epoch``: called when a loaded subject's ``vectors_epoch`` has moved (a
        forget or a rebuild): the query engine empties its caches of texts read
        (``language.caches.forget_texts``)."""
        self.ledger = ledger
        self.model = model
        self.save = save
        self.on_new_epoch = on_new_epoch
        self.owner_kind = owner_kind
        # A subject with at least this many vectors gets a coarse partition.
        self.coarse_from = coarse_from
        self._subjects: dict[str, SubjectVectors] = {}
        self._lock = threading.Lock()

    def refresh(self, subject_id: str, generation: int | None = None) -> SubjectVectors:
        """The subject's vectors, read up to date. Vectors are only written with a
        generation bump, so a caller that passes the ledger's ``generation`` (read
        for this question) skips the ledger when it has not moved."""
        with self._lock:
            cur = self._subjects.get(subject_id)
            if generation is not None and cur is not None and cur.generation == generation:
                return cur
            epoch = self.ledger.meta_value("vectors_epoch") or ""
            if cur is not None and cur.epoch != epoch and self.on_new_epoch is not None:
                self.on_new_epoch()  # a forget (or rebuild): no reading of a gone text stays
            if cur is None or cur.epoch != epoch:
                cur = self._from_pack(subject_id, epoch)
            with bulk_load():
                rows = self.ledger.source_vectors_after(subject_id, self.model, cur.watermark,
                                                        self.owner_kind)
                if rows:
                    cur = self._merge(cur, rows)
            part = coarse.fit(cur.matrix, cur.seqs, cur.coarse, self.coarse_from)
            if part is not None and part is not cur.coarse:  # new: rows laid out by list
                cur = self._laid_out(cur, part)
            cur.coarse = cur.coarse if part is not None else None
            cur.generation = -1 if generation is None else generation
            self._subjects[subject_id] = cur
            if packing.due(len(cur.ids), cur.packed):
                cur.packed = len(cur.ids)  # tried once per step, kept or not
                self.save(self.ledger, VectorPack(
                    subject_id, self.model, self.owner_kind, cur.epoch, cur.watermark, cur.seqs,
                    cur.ids, cur.robot, cur.session, cur.source_time, cur.known_time,
                    cur.speaker, cur.matrix, **_coarse_arrays(cur.coarse),
                    last_id=cur.last_id))
            return cur

    def _from_pack(self, subject_id: str, epoch: str) -> SubjectVectors:
        """The subject's vectors as its pack of ``epoch`` holds them (none without one)."""
        p = self.ledger.load_vector_pack(subject_id, self.model, self.owner_kind, epoch)
        if p is None:
            return SubjectVectors(epoch=epoch)
        return SubjectVectors(
            watermark=p.watermark, epoch=epoch, seqs=p.seqs, ids=_texts(p.ids), robot=p.robot,
            session=p.session, source_time=p.source_time, known_time=p.known_time,
            speaker=p.speaker, matrix=p.matrix, packed=len(p.ids),
            coarse=None if p.lists is None or p.centroids is None
            else coarse.restore(p.centroids, p.lists, p.trained), last_id=p.last_id)

    @staticmethod
    def _laid_out(cur: SubjectVectors, part: coarse.Partition) -> SubjectVectors:
        """``cur``'s rows in the order of a new partition's lists (a list's rows in one
        run: a search scores slices of the matrix, it does not gather rows), to be saved
        so in the subject's pack (a fresh process then maps them as they are)."""
        perm, part = coarse.layout(part)
        if perm is None:
            cur.coarse = part
            return cur
        return SubjectVectors(
            watermark=cur.watermark, epoch=cur.epoch, packed=0, seqs=cur.seqs[perm],
            ids=cur.ids[perm], robot=cur.robot[perm],
            session=cur.session[perm], source_time=cur.source_time[perm],
            known_time=cur.known_time[perm], speaker=cur.speaker[perm],
            matrix=cur.matrix[perm], coarse=part, last_id=cur.last_id or cur.ids[-1])

    @staticmethod
    def _merge(cur: SubjectVectors, rows: list[tuple]) -> SubjectVectors:
        mat = np.frombuffer(b"".join(r[7] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        if not len(cur.ids):  # a first load: nothing to keep, nothing to copy
            return SubjectVectors(
                watermark=int(rows[-1][0]), epoch=cur.epoch, packed=cur.packed,
                seqs=np.array([r[1] for r in rows], dtype=np.int64),
                ids=_texts([r[2] for r in rows]),
                robot=np.array([r[3] for r in rows], dtype=object),
                session=np.array([r[4] for r in rows], dtype=object),
                source_time=np.array([r[5] for r in rows], dtype=np.float64),
                known_time=np.array([r[6] for r in rows], dtype=np.float64),
                speaker=np.array([r[8] for r in rows], dtype=object), matrix=mat)
        new_ids = {r[2] for r in rows}
        keep: list[int] | slice = [i for i, sid in enumerate(cur.ids) if sid not in new_ids]
        if len(keep) == len(cur.ids):  # nothing replaced: no copy before the stacking
            keep = slice(None)
        old = cur.matrix[keep] if cur.matrix.size else mat[:0]
        part = cur.coarse.extend(keep, mat) if cur.coarse is not None else None
        return SubjectVectors(
            watermark=int(rows[-1][0]),
            epoch=cur.epoch,
            packed=cur.packed,
            seqs=np.concatenate([cur.seqs[keep], np.array([r[1] for r in rows], dtype=np.int64)]),
            ids=np.concatenate([cur.ids[keep], _texts([r[2] for r in rows])]),
            robot=np.concatenate([cur.robot[keep], np.array([r[3] for r in rows], dtype=object)]),
            session=np.concatenate([cur.session[keep],
                                    np.array([r[4] for r in rows], dtype=object)]),
            source_time=np.concatenate([cur.source_time[keep], [r[5] for r in rows]]),
            known_time=np.concatenate([cur.known_time[keep], [r[6] for r in rows]]),
            speaker=np.concatenate([cur.speaker[keep],
                                    np.array([r[8] for r in rows], dtype=object)]),
            matrix=np.vstack([old, mat]),
            coarse=part,
        )

    def drop(self, subject_id: str) -> None:
        """Let go of the subject's vectors (read again, from its pack, when next asked)."""
        with self._lock:
            self._subjects.pop(subject_id, None)

    def current(self, subject_id: str) -> SubjectVectors:
        """The subject's vectors as last refreshed (refreshing only if never loaded)."""
        with self._lock:
            cur = self._subjects.get(subject_id)
        return cur if cur is not None else self.refresh(subject_id)

    def search(self, scope: Scope, qvec: np.ndarray, k: int,
               as_of_valid: float | None = None, as_of_known: float | None = None,
               generation: int | None = None) -> list[Hit]:
        """Cosine top-k among the scope's vectors (the scope mask applies before ranking)."""
        scope.check()
        sv = self.refresh(scope.subject_id, generation)
        if k <= 0 or not len(sv.ids):
            return []
        qvec = np.asarray(qvec, dtype=np.float32)
        mask = None
        if scope.robot_id:
            mask = sv.robot == scope.robot_id
        if scope.session_id:
            mask = _and(mask, sv.session == scope.session_id)
        if as_of_valid is not None:
            mask = _and(mask, sv.source_time <= as_of_valid)
        if as_of_known is not None:
            mask = _and(mask, sv.known_time <= as_of_known)
        if sv.coarse is not None:  # a large subject: the rows of the nearest lists
            idx, sims = sv.coarse.search(sv.matrix, qvec, k, mask)
        else:
            # Every row is scored and the scope applied to the scores: selecting the rows
            # first copied the subject's whole matrix per question (16 ms at 12,500 sources).
            sims = coarse.dot(sv.matrix, qvec)
            idx = None
            if mask is not None:
                idx = np.flatnonzero(mask)
                sims = sims[idx]
        if sims.size == 0:
            return []
        if k < sims.size:
            part = np.argpartition(-sims, k - 1)[:k]
            top = part[np.lexsort((part if idx is None else idx[part], -sims[part]))]
        else:
            top = np.argsort(-sims, kind="stable")
        # Whole arrays to Python values at once, not one numpy scalar per row.
        rows = top if idx is None else idx[top]
        return list(map(Hit, sv.seqs[rows].tolist(), sv.ids[rows].tolist(),
                        sims[top].tolist()))


def _texts(values: Iterable[str]) -> np.ndarray:
    """``values`` as a one-dimensional object array (``np.array`` of a list of equal-length
    tuples or lists would make more dimensions; of strings it never does)."""
    values = list(values)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _coarse_arrays(part: coarse.Partition | None) -> dict:
    """The partition's arrays as a vector pack keeps them (none without one)."""
    if part is None:
        return {}
    return {"centroids": part.centroids, "lists": part.lists, "trained": part.trained}


def _and(mask: np.ndarray | None, other: np.ndarray) -> np.ndarray:
    return other if mask is None else mask & other
