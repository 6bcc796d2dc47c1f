"""SQL fragments and row readers the SQLite modules share (a scope's WHERE clause is
``storage.scopes``', bound with SQLite's placeholder here)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from ...facts import FACT_COLUMNS, Edge, Fact, fact_from_row
from ..records import Scope
from ..scopes import scope_condition, span_condition

# Statements bind at most this many values of a list at once.
CHUNK = 500


def scope_filter(scope: Scope, alias: str = "s", as_of_valid: float | None = None,
                 as_of_known: float | None = None) -> tuple[str, list[Any]]:
    """SQL condition and arguments that restrict sources to a scope and time view
    (``storage.scopes.scope_condition`` with SQLite's placeholder)."""
    return scope_condition("?", scope, alias, as_of_valid, as_of_known)


def session_span(alias: str, subject_id: str, session_id: str, robot_id: str | None = None
                 ) -> tuple[str, list[Any]]:
    """``storage.scopes.span_condition`` with SQLite's placeholder."""
    return span_condition("?", alias, subject_id, session_id, robot_id)


def fts_phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def fact_rows(conn: sqlite3.Connection, where: str, args: Sequence[Any],
               order: str = "") -> list[Fact]:
    return [fact_from_row(r, prov) for r, prov in raw_fact_rows(conn, where, args, order)]


def raw_fact_rows(conn: sqlite3.Connection, where: str, args: Sequence[Any],
                   order: str = "") -> list[tuple[tuple[Any, ...], tuple[str, ...]]]:
    """Rows of ``FACT_COLUMNS`` selected by ``where``, each with its provenance, not yet
    made into ``Fact`` objects (``facts.fact_from_row`` does that)."""
    rows = conn.execute(f"SELECT {FACT_COLUMNS} FROM facts WHERE {where} {order}", args).fetchall()
    if not rows:
        return []
    ids = [r[0] for r in rows]
    prov: dict[str, list[str]] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start:start + CHUNK]
        marks = ",".join("?" * len(chunk))
        for fid, sid in conn.execute(
                f"SELECT fact_id, source_id FROM fact_sources WHERE fact_id IN ({marks}) "
                "ORDER BY source_id", chunk):
            prov.setdefault(fid, []).append(sid)
    return [(r, tuple(prov.get(r[0], ()))) for r in rows]


def _edge(row: Sequence[Any]) -> Edge:
    return Edge(*row)
