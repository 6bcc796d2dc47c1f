"""Recall routes over source records, all scoped before ranking, and their fusion.

Each route returns ``Hit``s in rank order. Fusion (reciprocal rank) only
orders what the later stages inspect; it never decides what is true.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from ..embed import Encoder
from ..ledger import Ledger, Scope, scope_filter
from .text import content_terms


@dataclass(frozen=True)
class Hit:
    seq: int
    source_id: str
    score: float


@dataclass
class Fused:
    seq: int
    source_id: str
    score: float
    ranks: dict[str, int] = field(default_factory=dict)


def fts_match_expression(question: str) -> str:
    """An FTS5 MATCH expression: the question's content words, OR-ed, each quoted."""
    terms = content_terms(question)
    return " OR ".join(_quote(t) for t in terms)


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def lexical(ledger: Ledger, scope: Scope, question: str, k: int,
            as_of_valid: float | None = None, as_of_known: float | None = None,
            weights: tuple[float, float] = (1.0, 1.0)) -> list[Hit]:
    """FTS5 BM25 over source text and speaker (weights per column), within the scope.

    The subject is matched inside FTS5 as a phrase of its tokens, so only that
    subject's rows are ranked; the join's exact scope filter stays the authority
    (a phrase can also match a longer subject ID). Ties keep storage order.
    """
    expr = fts_match_expression(question)
    if not expr or k <= 0:
        return []
    if any(ch.isalnum() for ch in scope.subject_id):
        expr = f"subject_id : {_quote(scope.subject_id)} AND ({expr})"
    cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
    rows = ledger.query(
        f"SELECT s.seq, s.source_id, bm25(sources_fts, {float(weights[0])}, {float(weights[1])}, 0.0)"
        " AS rank FROM sources_fts JOIN sources s ON s.seq = sources_fts.rowid "
        f"WHERE sources_fts MATCH ? AND {cond} ORDER BY rank, s.seq LIMIT ?",
        [expr, *args, k],
    )
    # bm25() is lower-is-better; flip the sign so higher is better everywhere.
    return [Hit(int(r[0]), r[1], -float(r[2])) for r in rows]


@dataclass
class _SubjectVectors:
    watermark: int = 0
    epoch: str = ""
    seqs: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ids: list[str] = field(default_factory=list)
    robot: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    session: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    source_time: np.ndarray = field(default_factory=lambda: np.zeros(0))
    known_time: np.ndarray = field(default_factory=lambda: np.zeros(0))
    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))


class VectorIndex:
    """In-memory matrix of one subject's source vectors, refreshed incrementally.

    New vectors are picked up by rowid watermark; a forget or rebuild changes
    the ledger's ``vectors_epoch`` and forces a full reload of that subject.
    """

    def __init__(self, ledger: Ledger, model: str) -> None:
        self.ledger = ledger
        self.model = model
        self._subjects: dict[str, _SubjectVectors] = {}
        self._lock = threading.Lock()

    def _epoch(self) -> str:
        rows = self.ledger.query("SELECT value FROM meta WHERE key = 'vectors_epoch'")
        return rows[0][0] if rows else ""

    def refresh(self, subject_id: str) -> _SubjectVectors:
        with self._lock:
            epoch = self._epoch()
            cur = self._subjects.get(subject_id)
            if cur is None or cur.epoch != epoch:
                cur = _SubjectVectors(epoch=epoch)
            rows = self.ledger.query(
                "SELECT v.rowid, s.seq, s.source_id, s.robot_id, s.session_id, s.source_time, "
                "s.known_time, v.vec FROM vectors v JOIN sources s ON s.source_id = v.owner_id "
                "WHERE v.owner_kind = 'source' AND v.subject_id = ? AND v.model = ? "
                "AND v.rowid > ? ORDER BY v.rowid",
                (subject_id, self.model, cur.watermark),
            )
            if rows:
                cur = self._merge(cur, rows)
            self._subjects[subject_id] = cur
            return cur

    @staticmethod
    def _merge(cur: _SubjectVectors, rows: list[tuple]) -> _SubjectVectors:
        new_ids = {r[2] for r in rows}
        keep = [i for i, sid in enumerate(cur.ids) if sid not in new_ids]
        mat = np.frombuffer(b"".join(r[7] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        old = cur.matrix[keep] if cur.matrix.size else mat[:0]
        return _SubjectVectors(
            watermark=int(rows[-1][0]),
            epoch=cur.epoch,
            seqs=np.concatenate([cur.seqs[keep], np.array([r[1] for r in rows], dtype=np.int64)]),
            ids=[cur.ids[i] for i in keep] + [r[2] for r in rows],
            robot=np.concatenate([cur.robot[keep], np.array([r[3] for r in rows], dtype=object)]),
            session=np.concatenate([cur.session[keep],
                                    np.array([r[4] for r in rows], dtype=object)]),
            source_time=np.concatenate([cur.source_time[keep], [r[5] for r in rows]]),
            known_time=np.concatenate([cur.known_time[keep], [r[6] for r in rows]]),
            matrix=np.vstack([old, mat]),
        )

    def search(self, scope: Scope, qvec: np.ndarray, k: int,
               as_of_valid: float | None = None, as_of_known: float | None = None) -> list[Hit]:
        """Cosine top-k among the scope's vectors (the scope mask applies before ranking)."""
        scope.check()
        sv = self.refresh(scope.subject_id)
        if k <= 0 or not sv.ids:
            return []
        mask = np.ones(len(sv.ids), dtype=bool)
        if scope.robot_id:
            mask &= sv.robot == scope.robot_id
        if scope.session_id:
            mask &= sv.session == scope.session_id
        if as_of_valid is not None:
            mask &= sv.source_time <= as_of_valid
        if as_of_known is not None:
            mask &= sv.known_time <= as_of_known
        idx = np.flatnonzero(mask)
        if idx.size == 0:
            return []
        sims = sv.matrix[idx] @ np.asarray(qvec, dtype=np.float32)
        top = np.argsort(-sims, kind="stable")[:k]
        return [Hit(int(sv.seqs[idx[i]]), sv.ids[idx[i]], float(sims[i])) for i in top]


def dense(index: VectorIndex, encoder: Encoder, scope: Scope, question: str, k: int,
          as_of_valid: float | None = None, as_of_known: float | None = None) -> list[Hit]:
    qvec = encoder.encode([question])[0]
    return index.search(scope, qvec, k, as_of_valid, as_of_known)


def reciprocal_rank_fusion(routes: dict[str, list[Hit]], k: int = 60) -> list[Fused]:
    """Fuse ranked lists: score = Σ 1 / (k + rank); ties keep the first route's order."""
    fused: dict[str, Fused] = {}
    for route, hits in routes.items():
        for rank, hit in enumerate(hits, start=1):
            entry = fused.setdefault(hit.source_id, Fused(hit.seq, hit.source_id, 0.0))
            entry.score += 1.0 / (k + rank)
            entry.ranks[route] = rank
    return sorted(fused.values(), key=lambda f: (-f.score, min(f.ranks.values())))
