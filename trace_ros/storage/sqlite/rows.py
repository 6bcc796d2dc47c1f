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
        span, span_args = session_span(alias, scope.subject_id, scope.session_id,
                                       scope.robot_id or None)
        conds += [f"{alias}.session_id = ?", span]
        args += [scope.session_id, *span_args]
    if as_of_valid is not None:
        conds.append(f"{alias}.source_time <= ?")
        args.append(as_of_valid)
    if as_of_known is not None:
        conds.append(f"{alias}.known_time <= ?")
        args.append(as_of_known)
    return " AND ".join(conds), args


def session_span(alias: str, subject_id: str, session_id: str, robot_id: str | None = None
                 ) -> tuple[str, list[Any]]:
    """A condition bounding ``alias``'s ``source_time`` to a session's span (the
    ``sessions`` table's start and end, kept with the sources in the capture transaction;
    over all its robots when ``robot_id`` is None), and its arguments.

    There is no (subject, session) index (migration m015: it wrote a page per subject a
    capture commit touched): with this range a session's sources are read through
    ``sources_scope_time``, the subject's sources of the session's time, instead of the
    whole subject. A session with no row has no sources: the bounds are NULL, no row
    passes."""
    robot = "" if robot_id is None else " AND robot_id = ?"
    keys = [subject_id, session_id, *([] if robot_id is None else [robot_id])]
    where = f"FROM sessions WHERE subject_id = ? AND session_id = ?{robot}"
    return (f"{alias}.source_time BETWEEN (SELECT min(start_time) {where}) "
            f"AND (SELECT max(end_time) {where})", [*keys, *keys])


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
