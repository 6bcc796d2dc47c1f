"""SQL fragments and row readers the SQLite modules share.

``scope_filter`` is the one place a scope and a time view become a WHERE clause, so every
read of sources filters by subject first (DESIGN §3).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from ...facts import FACT_COLUMNS, Edge, Fact, fact_from_row
from ..records import Scope

# Statements bind at most this many values of a list at once.
_CHUNK = 500

SOURCE_COLUMNS = (
    "seq, source_id, subject_id, robot_id, session_id, modality, speaker, text, label, "
    "confidence, pose, payload, source_time, time_from_receipt, known_time, content_hash"
)


def scope_filter(scope: Scope, alias: str = "s", as_of_valid: float | None = None,
                 as_of_known: float | None = None) -> tuple[str, list[Any]]:
    """SQL condition and arguments that restrict sources to a scope and time view."""
    scope.check()
    conds = [f"{alias}.subject_id = ?"]
    args: list[Any] = [scope.subject_id]
    if scope.robot_id:
        conds.append(f"{alias}.robot_id = ?")
        args.append(scope.robot_id)
    if scope.session_id:
        conds.append(f"{alias}.session_id = ?")
        args.append(scope.session_id)
    if as_of_valid is not None:
        conds.append(f"{alias}.source_time <= ?")
        args.append(as_of_valid)
    if as_of_known is not None:
        conds.append(f"{alias}.known_time <= ?")
        args.append(as_of_known)
    return " AND ".join(conds), args


def _fts_phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _fact_rows(conn: sqlite3.Connection, where: str, args: Sequence[Any],
               order: str = "") -> list[Fact]:
    return [fact_from_row(r, prov) for r, prov in _raw_fact_rows(conn, where, args, order)]


def _raw_fact_rows(conn: sqlite3.Connection, where: str, args: Sequence[Any],
                   order: str = "") -> list[tuple[tuple[Any, ...], tuple[str, ...]]]:
    """Rows of ``FACT_COLUMNS`` selected by ``where``, each with its provenance, not yet
    made into ``Fact`` objects (``facts.fact_from_row`` does that)."""
    rows = conn.execute(f"SELECT {FACT_COLUMNS} FROM facts WHERE {where} {order}", args).fetchall()
    if not rows:
        return []
    ids = [r[0] for r in rows]
    prov: dict[str, list[str]] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for fid, sid in conn.execute(
                f"SELECT fact_id, source_id FROM fact_sources WHERE fact_id IN ({marks}) "
                "ORDER BY source_id", chunk):
            prov.setdefault(fid, []).append(sid)
    return [(r, tuple(prov.get(r[0], ()))) for r in rows]


def _edge(row: Sequence[Any]) -> Edge:
    return Edge(*row)
