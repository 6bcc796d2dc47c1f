"""A static first-stage question encoder derived from the MiniLM we ship.

A question's MiniLM vector costs ~0.2 ms a token on one CPU thread (3-5 ms a
question), most of a warm query. A *static* vector costs a table lookup: every
token of the vocabulary is run once through the same MiniLM graph, alone
between ``[CLS]`` and ``[SEP]``, and its output at its own position is kept as
its row (the idea of model2vec's distillation, derived here from our own
weights; nothing is downloaded). A text's static vector is the weighted mean of
its tokens' rows, L2-normalised. It lives in the space of the documents' MiniLM
vectors, so it searches the same index; it ranks less well than MiniLM (no
context), so the query engine uses it as a first stage and runs MiniLM where
the first stage is unsure (``query.answer``).

Weights: the vocabulary of a WordPiece model is laid out by frequency after its
special and single-character entries, so a token's ID is a proxy for its rank;
a row is weighted ``log1p(rank)`` (Zipf: frequent tokens count little, as in
SIF and model2vec), and stop words and punctuation not at all (unless nothing
else is left).

The table (30,522 x 384, float16, 23 MB) is derived on first use (~30 s on one
CPU thread) and cached on disk beside the int8 export, named by the same
weights digest; a cached table is memory-mapped.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

# Bump when the derivation changes (old cache files are then ignored).
TABLE_RECIPE = "static-tokpos-v1"
# Tokens run through the encoder per batch while the table is derived (all of one
# length: no padding, so a row does not depend on its batch companions' lengths).
DERIVE_BATCH = 512

RunIds = Callable[[np.ndarray], np.ndarray]


def derive_table(run_ids: RunIds, vocab_size: int, cls_id: int, sep_id: int,
                 batch: int = DERIVE_BATCH) -> np.ndarray:
    """Row ``i``: the encoder's output at token ``i``'s position for the input
    ``[CLS] i [SEP]`` (``run_ids``: a batch of token-ID rows -> hidden states,
    ``(n, 3, dim)``), as float16."""
    rows: list[np.ndarray] = []
    ids = np.arange(vocab_size, dtype=np.int64)
    for start in range(0, vocab_size, batch):
        part = ids[start:start + batch]
        inputs = np.stack([np.full(len(part), cls_id), part, np.full(len(part), sep_id)],
                          axis=1)
        rows.append(np.asarray(run_ids(inputs))[:, 1].astype(np.float16))
    return np.concatenate(rows)


def token_weights(vocab: dict[str, int], stopwords: Iterable[str]) -> np.ndarray:
    """Per token ID: ``log1p(rank)``, the rank counted from the first whole word of
    two or more letters (before it: special, unused and single-character entries,
    rank 1); 0 for stop words and for tokens with no letter or digit."""
    size = max(vocab.values()) + 1
    words = [i for w, i in vocab.items() if len(w) > 1 and w.isalpha() and w.isascii()]
    first = min(words, default=0)
    weights = np.log1p(np.maximum(np.arange(size, dtype=np.float32) - first + 1, 1.0))
    stop = set(stopwords)
    for token, i in vocab.items():
        bare = token.removeprefix("##")
        if token in stop or not any(c.isalnum() for c in bare):
            weights[i] = 0.0
    return weights.astype(np.float32)


class StaticEncoder:
    """Static vectors of texts from a derived table (see the module docstring).

    ``name`` is the MiniLM encoder's: the vectors are compared with the vectors it
    stored. ``tokenize``: text -> token IDs without ``[CLS]``/``[SEP]``."""

    def __init__(self, name: str, table: np.ndarray, weights: np.ndarray,
                 tokenize: Callable[[str], list[int]]) -> None:
        self.name = name
        self.dim = int(table.shape[1])
        self.table = table
        self.weights = weights
        self.tokenize = tokenize

    def vector(self, ids: list[int]) -> np.ndarray:
        """The normalised weighted mean of the rows of ``ids`` (all weighted alike
        when every weight is 0; zeros for no IDs)."""
        if not ids:
            return np.zeros(self.dim, dtype=np.float32)
        rows = np.asarray(self.table[ids], dtype=np.float32)
        w = self.weights[ids]
        if not w.any():
            w = np.ones(len(ids), dtype=np.float32)
        v = w @ rows
        norm = float(np.linalg.norm(v))
        return (v / norm if norm > 0 else v).astype(np.float32)

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.vector(self.tokenize(t)) for t in texts])


_TABLES: dict[Path, np.ndarray] = {}
_TABLES_LOCK = threading.Lock()


def cached_table(path: Path, derive: Callable[[], np.ndarray]) -> np.ndarray:
    """The table saved at ``path`` (memory-mapped), derived and saved first when
    absent; one process derives while others wait on a file lock, and the file
    appears whole. An unwritable folder costs the derivation on every load."""
    with _TABLES_LOCK:
        if path in _TABLES:
            return _TABLES[path]
        table = _load_or_derive(path, derive)
        _TABLES[path] = table
        return table


def _load_or_derive(path: Path, derive: Callable[[], np.ndarray]) -> np.ndarray:
    if path.is_file():
        try:
            return np.load(path, mmap_mode="r")
        except (OSError, ValueError):
            pass  # damaged: derive again
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(path.with_name(path.name + ".lock"), "a")  # noqa: SIM115 - held below
    except OSError:
        return derive()
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if path.is_file():
                try:
                    return np.load(path, mmap_mode="r")
                except (OSError, ValueError):
                    pass
            table = derive()
            tmp = path.with_name(f".{path.stem}.{os.getpid()}.npy")
            try:
                np.save(tmp, table)
                os.replace(tmp, path)
            except OSError:
                tmp.unlink(missing_ok=True)
            return table
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
