"""Retrieval baselines over the same ledger, the same turns and the same embeddings.

- ``dense``: cosine top-k over the source vectors the engine stored (MiniLM,
  text "speaker: text"), read through ``VectorIndex`` — nothing is re-encoded.
- ``bm25``: SQLite FTS5 BM25 (porter-stemmed index, text and speaker columns
  weighted alike) over the same sources, the question's content words OR-ed.
- ``hybrid``: reciprocal-rank fusion of the two lists.

Each works within the question's subject only. The question vector is the one
the system computed for the same question (shared), so its time is added to
the dense and hybrid latencies.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..ledger import Ledger, Scope
from ..query.recall import Hit, VectorIndex, lexical, reciprocal_rank_fusion

NAMES = ("dense", "bm25", "hybrid")


@dataclass
class BaselineRun:
    source_ids: list[str]  # ranked
    seqs: list[int]
    latency_ms: float


def bm25_hits(ledger: Ledger, scope: Scope, question: str, k: int) -> list[Hit]:
    """Plain FTS5 BM25 within the scope, text and speaker weighted alike."""
    return lexical(ledger, scope, question, k)


class Baselines:
    def __init__(self, ledger: Ledger, model: str, k: int = 50, rrf_k: int = 60) -> None:
        self.ledger = ledger
        self.index = VectorIndex(ledger, model)
        self.k = k
        self.rrf_k = rrf_k

    def run(self, scope: Scope, question: str, qvec: np.ndarray | None,
            embed_ms: float) -> dict[str, BaselineRun]:
        """Every baseline for one question; ``qvec=None`` leaves out dense and hybrid."""
        out: dict[str, BaselineRun] = {}
        t = time.perf_counter()
        lexical = bm25_hits(self.ledger, scope, question, self.k)
        bm25_ms = _ms(t)
        out["bm25"] = BaselineRun([h.source_id for h in lexical], [h.seq for h in lexical], bm25_ms)
        if qvec is None:
            return out
        t = time.perf_counter()
        dense = self.index.search(scope, qvec, self.k)
        dense_ms = _ms(t)
        out["dense"] = BaselineRun([h.source_id for h in dense], [h.seq for h in dense],
                                   embed_ms + dense_ms)
        t = time.perf_counter()
        fused = reciprocal_rank_fusion({"dense": dense, "bm25": lexical}, self.rrf_k)
        out["hybrid"] = BaselineRun([f.source_id for f in fused], [f.seq for f in fused],
                                    embed_ms + dense_ms + bm25_ms + _ms(t))
        return out


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
