"""The hierarchy: sessions (their turns, spans and topic), session embeddings, topics,
and the session/topic edges, for the projector's hierarchy step (inside its transaction).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...facts import EDGE_COLUMNS, Edge
from ..records import SessionRow, TopicRow
from .rows import _edge, session_span


class HierarchyStore:
    """Sessions and topics; static methods run in the caller's transaction."""

    @staticmethod
    def session_turns(conn: sqlite3.Connection, key: tuple[str, str, str], max_seq: int
                      ) -> list[tuple[int, str, str, str]]:
        """(seq, speaker, modality, text) of one session's sources up to ``max_seq``,
        in sequence order; ``key`` is (subject, robot, session)."""
        span, span_args = session_span("s", key[0], key[2], key[1])
        return [(int(r[0]), r[1], r[2], r[3] or "") for r in conn.execute(
            "SELECT s.seq, s.speaker, s.modality, s.text FROM sources s WHERE s.subject_id = ? "
            f"AND {span} AND s.robot_id = ? AND s.session_id = ? AND s.seq <= ? ORDER BY s.seq",
            (key[0], *span_args, key[1], key[2], max_seq))]

    @staticmethod
    def session_field(conn: sqlite3.Connection, key: tuple[str, str, str], column: str) -> Any:
        """One column (``start_time`` or ``topic_id``) of a session, or None."""
        if column not in ("start_time", "topic_id"):
            raise ValueError(f"unknown session column {column!r}")
        row = conn.execute(f"SELECT {column} FROM sessions WHERE subject_id = ? AND robot_id = ? "
                           "AND session_id = ?", key).fetchone()
        return None if row is None else row[0]

    @staticmethod
    def session_rows(conn: sqlite3.Connection, subject_id: str) -> list[SessionRow]:
        """A subject's sessions in chronological order (start time, then ID)."""
        return [SessionRow(*r) for r in conn.execute(
            "SELECT subject_id, robot_id, session_id, start_time, end_time, n_sources, topic_id "
            "FROM sessions WHERE subject_id = ? ORDER BY start_time, robot_id, session_id",
            (subject_id,))]

    @staticmethod
    def session_source_mean(conn: sqlite3.Connection, subject_id: str, robot_id: str,
                            session_id: str, max_seq: int | None = None
                            ) -> tuple[np.ndarray | None, int, str]:
        """Mean of the session's source vectors (of one model), with how many and which
        model. ``max_seq`` limits it to sources up to that sequence number."""
        # CROSS JOIN keeps the session's sources as the outer loop (else SQLite may scan
        # every source vector).
        span, span_args = session_span("s", subject_id, session_id, robot_id)
        sql = ("SELECT v.model, v.vec FROM sources s CROSS JOIN vectors v "
               "ON v.owner_kind = 'source' AND v.owner_id = s.source_id "
               f"WHERE s.subject_id = ? AND {span} AND s.session_id = ? AND s.robot_id = ?")
        args: list[Any] = [subject_id, *span_args, session_id, robot_id]
        if max_seq is not None:
            sql += " AND s.seq <= ?"
            args.append(max_seq)
        rows = conn.execute(sql + " ORDER BY s.seq", args).fetchall()
        if not rows:
            return None, 0, ""
        model = rows[-1][0]
        vecs = [np.frombuffer(r[1], dtype=np.float32) for r in rows if r[0] == model]
        return np.mean(np.stack(vecs), axis=0, dtype=np.float64), len(vecs), model

    @staticmethod
    def session_vectors(conn: sqlite3.Connection, subject_id: str,
                        vertices: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """Stored session embeddings of a subject (or of the given session vertices)."""
        if vertices is None:
            rows = conn.execute("SELECT owner_id, vec FROM vectors WHERE owner_kind = 'session' "
                                "AND subject_id = ?", (subject_id,)).fetchall()
        else:
            rows = [r for v in vertices for r in conn.execute(
                "SELECT owner_id, vec FROM vectors WHERE owner_kind = 'session' AND owner_id = ?",
                (v,))]
        return {r[0]: np.frombuffer(r[1], dtype=np.float32).astype(np.float64) for r in rows}

    @staticmethod
    def sessions_with_vectors(conn: sqlite3.Connection, subject_id: str) -> set[str]:
        """Session vertices of a subject that have an embedding."""
        return {r[0] for r in conn.execute(
            "SELECT owner_id FROM vectors WHERE owner_kind = 'session' AND subject_id = ?",
            (subject_id,))}

    @staticmethod
    def put_session_vector(conn: sqlite3.Connection, subject_id: str, vertex: str,
                           model: str, vec: np.ndarray) -> None:
        conn.execute("DELETE FROM vectors WHERE owner_kind = 'session' AND owner_id = ?",
                     (vertex,))
        v = np.asarray(vec, dtype=np.float32)
        conn.execute("INSERT INTO vectors (owner_kind, owner_id, subject_id, model, dim, vec) "
                     "VALUES ('session', ?, ?, ?, ?, ?)",
                     (vertex, subject_id, model, int(v.shape[0]), v.tobytes()))

    @staticmethod
    def topic_rows(conn: sqlite3.Connection, subject_id: str) -> list[TopicRow]:
        return [TopicRow(r[0], int(r[1]), r[2],
                         np.frombuffer(r[3], dtype=np.float64).copy() if r[3] else None,
                         int(r[4])) for r in conn.execute(
            "SELECT subject_id, topic_id, label, centroid, n_sessions FROM topics "
            "WHERE subject_id = ? ORDER BY topic_id", (subject_id,))]

    @staticmethod
    def replace_topics(conn: sqlite3.Connection, subject_id: str,
                       topics: Sequence[tuple[int, str, np.ndarray | None, int]]) -> None:
        """Replace a subject's topics with (topic_id, label, centroid, n_sessions) rows."""
        conn.execute("DELETE FROM topics WHERE subject_id = ?", (subject_id,))
        conn.executemany(
            "INSERT INTO topics (subject_id, topic_id, label, centroid, n_sessions) "
            "VALUES (?, ?, ?, ?, ?)",
            [(subject_id, tid, label,
              None if c is None else np.asarray(c, dtype=np.float64).tobytes(), n)
             for tid, label, c, n in topics])

    @staticmethod
    def set_session_topics(conn: sqlite3.Connection, subject_id: str,
                           rows: Sequence[tuple[str, str, int | None]]) -> None:
        """Set (robot_id, session_id, topic_id) assignments."""
        conn.executemany(
            "UPDATE sessions SET topic_id = ? WHERE subject_id = ? AND robot_id = ? "
            "AND session_id = ?", [(t, subject_id, r, s) for r, s, t in rows])

    @staticmethod
    def member_edges(conn: sqlite3.Connection, subject_id: str, type_: str,
                     src_prefix: str) -> list[Edge]:
        """A subject's edges of one type whose source starts with ``src_prefix``."""
        return [_edge(r) for r in conn.execute(
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE subject_id = ? AND type = ? "
            "AND substr(src, 1, ?) = ?", (subject_id, type_, len(src_prefix), src_prefix))]

    @staticmethod
    def reset_hierarchy(conn: sqlite3.Connection, subject_id: str) -> None:
        """Drop a subject's topics, session embeddings and session/topic edges."""
        conn.execute("DELETE FROM topics WHERE subject_id = ?", (subject_id,))
        conn.execute("UPDATE sessions SET topic_id = NULL WHERE subject_id = ?", (subject_id,))
        conn.execute("DELETE FROM vectors WHERE owner_kind = 'session' AND subject_id = ?",
                     (subject_id,))
        conn.execute("DELETE FROM edges WHERE subject_id = ? AND type IN ('before', 'in_topic') "
                     "AND substr(src, 1, 8) = 'session:'", (subject_id,))
        conn.execute("DELETE FROM meta WHERE key = ?", (f"topics_closed:{subject_id}",))
