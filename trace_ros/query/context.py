"""A record read in its context: how near a later turn is to the anchor once the turns
it answers are read with it.

People state changes in turns that do not name the thing: a reply ("Go on then, Friday
morning works." to "could we swap laser slots? I'd give you my Friday morning"), a
relayed word, "scratch that". The turn's own vector is far from the anchor's; read with
the turn before it, it is near. Consolidation already stores each turn's *window*
vector (the turn pooled with the two before it in its session, ``consolidation/worker``),
so the context costs no encoding here: the chain (``current.py``) scores only its few
later candidates, by row look-up.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..storage.vectorindex import SubjectVectors


def _rows(sv: SubjectVectors, seqs: list[int]) -> dict[int, int]:
    """seq -> its row in ``sv`` (the seqs without a vector left out)."""
    order = sv.order()
    if not order.n or not seqs:
        return {}
    want = np.asarray(seqs, dtype=np.int64)
    at = np.minimum(np.searchsorted(order.seqs, want), order.n - 1)
    return {int(s): int(order.rows[i]) for s, i in zip(want, at, strict=True)
            if order.seqs[i] == s}


def in_context(own: SubjectVectors, windows: SubjectVectors, anchor: int,
               later: Iterable[int]) -> dict[int, float]:
    """The cosine of ``anchor``'s own vector with each of ``later``'s window vectors
    (those with one); empty when the anchor has no vector."""
    seqs = sorted(set(later))
    at = _rows(own, [anchor])
    if anchor not in at or not seqs:
        return {}
    qvec = own.matrix[at[anchor]]
    rows = _rows(windows, seqs)
    if not rows:
        return {}
    sims = windows.matrix[list(rows.values())] @ qvec
    return {s: float(c) for s, c in zip(rows, sims, strict=True)}
