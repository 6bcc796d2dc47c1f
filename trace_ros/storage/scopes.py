"""Where a scope and a time view become SQL, for both engines.

Every read of sources filters by subject first (DESIGN §3); these are the one place that
condition is written. The engines differ only in the placeholder they bind with (``?``
for SQLite, ``%s`` for psycopg), which each engine's module passes as ``mark``.
"""

from __future__ import annotations

from typing import Any

from .records import Scope

SOURCE_COLUMNS = (
    "seq, source_id, subject_id, robot_id, session_id, modality, speaker, text, label, "
    "confidence, pose, payload, source_time, time_from_receipt, known_time, content_hash"
)


def scope_condition(mark: str, scope: Scope, alias: str = "s",
                    as_of_valid: float | None = None,
                    as_of_known: float | None = None) -> tuple[str, list[Any]]:
    """SQL condition and arguments that restrict sources to a scope and time view."""
    scope.check()
    conds = [f"{alias}.subject_id = {mark}"]
    args: list[Any] = [scope.subject_id]
    if scope.robot_id:
        conds.append(f"{alias}.robot_id = {mark}")
        args.append(scope.robot_id)
    if scope.session_id:
        span, span_args = span_condition(mark, alias, scope.subject_id, scope.session_id,
                                          scope.robot_id or None)
        conds += [f"{alias}.session_id = {mark}", span]
        args += [scope.session_id, *span_args]
    if as_of_valid is not None:
        conds.append(f"{alias}.source_time <= {mark}")
        args.append(as_of_valid)
    if as_of_known is not None:
        conds.append(f"{alias}.known_time <= {mark}")
        args.append(as_of_known)
    return " AND ".join(conds), args


def span_condition(mark: str, alias: str, subject_id: str, session_id: str,
                   robot_id: str | None = None) -> tuple[str, list[Any]]:
    """A condition bounding ``alias``'s ``source_time`` to a session's span (the
    ``sessions`` table's start and end, kept with the sources in the capture transaction;
    over all its robots when ``robot_id`` is None), and its arguments.

    There is no (subject, session) index (SQLite's migration m015, PostgreSQL's p016: it
    wrote a page per subject a capture commit touched): with this range a session's
    sources are read through ``sources_scope_time``, the subject's sources of the
    session's time, instead of the whole subject. One statement reads the span and the
    sources in one snapshot. A session with no row has no sources: the bounds are NULL,
    no row passes."""
    robot = "" if robot_id is None else f" AND robot_id = {mark}"
    keys = [subject_id, session_id, *([] if robot_id is None else [robot_id])]
    where = f"FROM sessions WHERE subject_id = {mark} AND session_id = {mark}{robot}"
    return (f"{alias}.source_time BETWEEN (SELECT min(start_time) {where}) "
            f"AND (SELECT max(end_time) {where})", [*keys, *keys])
