"""Synthetic vectors for ``bench scale --synthetic-vectors``: the dense routes live at a
million sources without MiniLM (embedding a million sources on a CPU takes hours).

``SeededEncoder`` stands in for the encoder: each text's vector is a unit vector of the
real encoder's dimension drawn from a generator seeded by the text (SHA-256 of the seed
and the text), so the same text always gets the same vector, a question as a source.
``write_vectors`` stores one for every source through the ledger's own vector API
(``put_vectors``, as consolidation stores them): a 'source' vector of what consolidation
embeds ("speaker: text") and a 'window' vector of the same text with a prefix (a second
draw, so the window route is a second index of the same size). The vectors mean nothing:
the figures they give are the cost of the dense routes, not their recall; outputs say
``synthetic``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from ..embed import source_text

DIM = 384  # MiniLM-L6's, the encoder the pipeline ships with
# Sources read and written per transaction.
CHUNK = 5_000


@lru_cache(maxsize=65_536)
def _vector(seed: int, text: str, dim: int) -> bytes:
    digest = hashlib.sha256(f"{seed}\x00{text}".encode()).digest()
    v = np.random.default_rng(int.from_bytes(digest[:8], "little")).standard_normal(dim)
    return (v / np.linalg.norm(v)).astype(np.float32).tobytes()


class SeededEncoder:
    """An ``embed.Encoder`` whose vectors are seeded by the text (not by its meaning)."""

    def __init__(self, seed: int = 7, dim: int = DIM) -> None:
        self.seed, self.dim = int(seed), int(dim)
        self.name = f"synthetic-seeded-{self.dim}"

    def load(self) -> None:
        """Nothing to load (the interface of the real encoders)."""

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i] = np.frombuffer(_vector(self.seed, t, self.dim), dtype=np.float32)
        return out


def missing(ledger: Any, encoder: SeededEncoder) -> bool:
    """Whether some source has no vector of ``encoder`` yet."""
    have = sum(n for m, d, n in ledger.vector_models() if (m, d) == (encoder.name, encoder.dim))
    return have < ledger.count_sources()


def write_vectors(ledger: Any, encoder: SeededEncoder,
                  progress: Callable[[int], None] | None = None) -> int:
    """Store a 'source' and a 'window' vector of ``encoder`` for every source (replacing
    any of that model), a transaction per ``CHUNK`` sources that moves the generation as
    consolidation's do; returns how many sources."""
    done, after = 0, 0
    while batch := ledger.sources_after(after, CHUNK):
        texts = [source_text(s.speaker, s.text) for s in batch]
        own = encoder.encode(texts)
        window = encoder.encode([f"window: {t}" for t in texts])
        with ledger.write() as conn:
            ledger.put_vectors(conn, "source", encoder.name,
                               [(s.source_id, s.subject_id, v) for s, v in zip(batch, own,
                                                                               strict=True)])
            ledger.put_vectors(conn, "window", encoder.name,
                               [(s.source_id, s.subject_id, v) for s, v in zip(batch, window,
                                                                               strict=True)])
            ledger.bump_generation(conn)
        done += len(batch)
        after = batch[-1].seq
        if progress is not None:
            progress(len(batch))
    return done
