"""Row readers the PostgreSQL graph modules share: facts with their provenance, edges."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from ...facts import FACT_COLUMNS, Edge, Fact, fact_from_row


@contextmanager
def reading(ledger: Any) -> Iterator[Any]:
    """A connection for a ledger's reads: inside ``read()`` its snapshot, else a pooled
    connection for the length of the call (no snapshot set up: SQLite's reads, too, run
    outside a transaction of their own), which saves the snapshot's round trips."""
    bound = getattr(ledger._local, "conn", None)
    if bound is not None:
        yield bound
        return
    with ledger.pool.connection() as conn:
        yield conn


def fact_rows(conn: Any, where: str, args: Sequence[Any], order: str = "") -> list[Fact]:
    """Facts (``FACT_COLUMNS``) selected by ``where``, each with its provenance."""
    return [fact_from_row(r, prov) for r, prov in raw_fact_rows(conn, where, args, order)]


def raw_fact_rows(conn: Any, where: str, args: Sequence[Any], order: str = ""
                  ) -> list[tuple[tuple[Any, ...], tuple[str, ...]]]:
    """``fact_rows`` as (row of ``FACT_COLUMNS``, provenance), not yet decoded."""
    rows = conn.execute(f"SELECT {FACT_COLUMNS} FROM facts WHERE {where} {order}",
                        args).fetchall()
    if not rows:
        return []
    prov: dict[str, list[str]] = {}
    for fid, sid in conn.execute(
            "SELECT fact_id, source_id FROM fact_sources WHERE subject_id = ANY(%s) "
            "AND fact_id = ANY(%s) ORDER BY source_id",
            (sorted({r[1] for r in rows}), [r[0] for r in rows])):
        prov.setdefault(fid, []).append(sid)
    return [(tuple(r), tuple(prov.get(r[0], ()))) for r in rows]


def edge(row: Sequence[Any]) -> Edge:
    return Edge(*row)


def vector(value: Any) -> np.ndarray:
    """A stored pgvector value as a float32 array."""
    if hasattr(value, "to_numpy"):
        value = value.to_numpy()
    return np.asarray(value, dtype=np.float32)
