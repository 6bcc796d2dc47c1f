"""The lexical index's rows on PostgreSQL, written with what they index: each source's
and fact's stems as a ``tsvector`` (``storage.lexical``) with its token count, and per
subject the row and token counts BM25 needs (``lex_stats``). ``search`` ranks with them.

Sources: text positions weighted D, speaker A, subject C. Facts: description D, value B,
subject C.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..lexical import tsvector
from .postings import add_postings


def by_subject(alias: str = "") -> str:
    """The expression the subject-keyed GIN indexes (migration ``p007``) are built on: a
    row's terms and one lexeme more, chr(1) and the MD5 of its subject (no stem holds a
    control character; a digest: nothing to quote, the same length for every ID). The
    search compares ``subject_id`` itself as well."""
    return f"({alias}lex || array_to_tsvector(ARRAY[chr(1) || md5({alias}subject_id)]))"


def subject_tsquery(param: str) -> str:
    """SQL for the ``tsquery`` of the subject the parameter ``param`` names: its lexeme in
    ``by_subject`` (hex digits: nothing to quote)."""
    return f"quote_literal(chr(1) || md5(%({param})s))::tsquery"


def source_lex(subject_id: str, speaker: str, text: str) -> tuple[str, int]:
    return tsvector([(text, "D"), (speaker, "A"), (subject_id, "C")])


def fact_lex(subject_id: str, description: str, value: str) -> tuple[str, int]:
    return tsvector([(description, "D"), (value, "B"), (subject_id, "C")])


def add_lex_stats(conn: Any, kind: str, rows: Sequence[tuple[str, int, int]]) -> None:
    """Add (subject_id, rows, tokens) to the subjects' lexical statistics (negative to
    remove)."""
    totals: dict[str, list[int]] = {}
    for subject, docs, tokens in rows:
        t = totals.setdefault(subject, [0, 0])
        t[0] += docs
        t[1] += tokens
    if not totals:
        return
    subjects = sorted(totals)
    conn.execute(
        "INSERT INTO lex_stats (subject_id, kind, n_docs, n_tokens) SELECT s, %s, d, t FROM "
        "unnest(%s::text[], %s::bigint[], %s::bigint[]) AS u(s, d, t) "
        "ON CONFLICT (subject_id, kind) DO UPDATE SET "
        "n_docs = lex_stats.n_docs + excluded.n_docs, "
        "n_tokens = lex_stats.n_tokens + excluded.n_tokens",
        (kind, subjects, [totals[s][0] for s in subjects], [totals[s][1] for s in subjects]))
    _drop_empty(conn, kind, subjects)


def _drop_empty(conn: Any, kind: str, subjects: Sequence[str]) -> None:
    """A subject with no row of ``kind`` left keeps no statistics (nor its ID) either."""
    conn.execute("DELETE FROM lex_stats WHERE subject_id = ANY(%s) AND kind = %s "
                 "AND n_docs <= 0", (list(subjects), kind))


def index_sources(conn: Any, rows: Sequence[tuple[int, str, str, str]]) -> None:
    """Inside the capture transaction: the lexical rows of new sources, given as
    (seq, subject_id, speaker, text), and their postings (``postings``)."""
    if not rows:
        return
    lex = [(seq, subject, *source_lex(subject, speaker, text))
           for seq, subject, speaker, text in rows]
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO source_lex (subject_id, seq, lex, n_tokens) "
                        "VALUES (%s, %s, %s::tsvector, %s)",
                        [(subject, seq, vec, n) for seq, subject, vec, n in lex])
    add_lex_stats(conn, "source", [(subject, 1, n) for _seq, subject, _vec, n in lex])
    add_postings(conn, rows)


def recount_source_lex(conn: Any, subjects: Sequence[str]) -> None:
    """The source statistics of ``subjects`` counted again (after sources were deleted)."""
    conn.execute(
        "INSERT INTO lex_stats (subject_id, kind, n_docs, n_tokens) SELECT s, 'source', "
        "(SELECT count(*) FROM source_lex l WHERE l.subject_id = s), (SELECT "
        "coalesce(sum(n_tokens), 0) FROM source_lex l WHERE l.subject_id = s) "
        "FROM unnest(%s::text[]) AS s ON CONFLICT (subject_id, kind) DO UPDATE SET "
        "n_docs = excluded.n_docs, n_tokens = excluded.n_tokens", (sorted(set(subjects)),))
    _drop_empty(conn, "source", sorted(set(subjects)))
