"""Lexical recall on PostgreSQL: BM25 with the meaning and the ranks of SQLite's FTS5.

Each source's stems (``storage.lexical``: FTS5's ``porter unicode61`` split and stems)
are stored as a ``tsvector`` in ``source_lex`` — text positions weighted D, speaker A,
subject C — with the row's token count; facts carry theirs (description D, value B,
subject C). A GIN index finds the rows an expression matches; BM25 is then computed in
the statement from the stored positions, per phrase, with FTS5's constants, column
weights and the subject's own statistics (``storage/lexrank``, as the SQLite engine
ranks): its row count and mean row length (``lex_stats``) and each phrase's document
frequency among its rows (counted on the subject-keyed index), so a role confined to its
subjects ranks as the owner does and reads no other subject's counts. ``ts_rank`` is not
used: it is no BM25 and ranked worse.

A phrase of several words counts, as its frequency in a row, the least frequency of its
stems there (FTS5 counts the phrase's instances); the layers above search single words.
"""

from __future__ import annotations

import threading
from functools import cached_property
from typing import Any

import numpy as np

from .. import postings
from ..lexical import K1, B, Match, both, idf, parse_match, phrase
from ..lexrank import Stats, best
from ..records import Scope
from .base import PgBase
from .lexindex import by_subject, index_sources, subject_tsquery
from .postings import clear_postings, read_stems
from .rows import reading
from .sources import scope_filter


def _bm25_terms(conn: Any, table: str, kind: str, subject_id: str, match: Match
                ) -> tuple[dict[str, list[Any]], float]:
    """Per stem of every phrase: (phrase index, stem, idf, columns, stems in the phrase)
    as arrays for the ranking statement, and the mean row length, from the subject's own
    statistics: its row and token counts (``lex_stats``) and each phrase's count among
    its rows (through the subject-keyed index)."""
    phrases = match.phrases()
    queries = [Match("phrase", phrase=p).tsquery() for p in phrases]
    row = conn.execute(
        "SELECT coalesce(max(n_docs), 0), coalesce(max(n_tokens), 0), ARRAY(SELECT "
        f"(SELECT count(*) FROM {table} t WHERE {by_subject('t.')} @@ "
        f"({subject_tsquery('s')} && u.q::tsquery) AND t.subject_id = %(s)s) "
        "FROM unnest(%(q)s::text[]) WITH ORDINALITY AS u(q, i) ORDER BY u.i) "
        "FROM lex_stats WHERE subject_id = %(s)s AND kind = %(kind)s",
        {"q": queries, "kind": kind, "s": subject_id}).fetchone()
    n_rows, n_tokens, hits = row
    out: dict[str, list[Any]] = {"i": [], "stem": [], "idf": [], "cols": [], "n": []}
    for i, (p, n_hit) in enumerate(zip(phrases, [int(h) for h in hits], strict=True)):
        stems = list(dict.fromkeys(p.stems or ("_",)))
        for s in stems:
            out["i"].append(i)
            out["stem"].append(s)
            out["idf"].append(idf(int(n_rows), n_hit))
            out["cols"].append(p.columns or "ABCD")
            out["n"].append(len(stems))
    return out, (float(n_tokens) / float(n_rows) if n_rows else 1.0)


def _scores(doc_sql: str) -> str:
    """CTEs ending in ``score (rid, score)``: the BM25 of each row ``doc_sql`` selects as
    (``rid``, ``n_tokens``, ``lex``), for the phrases of ``q`` — per phrase its column-
    weighted frequency (the least over its stems; none unless all are there). Every row
    the expression matches holds all stems of one of its phrases, so each gets a score."""
    return (
        "WITH q (i, stem, idf, cols, n) AS (SELECT * FROM unnest(%(qi)s::int[], "
        "%(qstem)s::text[], %(qidf)s::float8[], %(qcols)s::text[], %(qn)s::int[])), "
        f"doc AS ({doc_sql}), "
        "tf AS (SELECT d.rid, d.n_tokens, q.i, max(q.idf) AS idf, max(q.n) AS n, sum(CASE w "
        "WHEN 'A' THEN %(wa)s WHEN 'B' THEN %(wb)s WHEN 'C' THEN %(wc)s ELSE %(wd)s END) "
        "AS f FROM doc d CROSS JOIN LATERAL unnest(d.lex) AS u JOIN q ON q.stem = u.lexeme "
        "CROSS JOIN LATERAL unnest(u.weights) AS w WHERE strpos(q.cols, w) > 0 "
        "GROUP BY d.rid, d.n_tokens, q.i, q.stem), "
        "ph AS (SELECT rid, n_tokens, i, max(idf) AS idf, min(f) AS f FROM tf "
        "GROUP BY rid, n_tokens, i HAVING count(*) = max(n)), "
        # FTS5's expression, term for term in float8 and summed in phrase order, so a
        # score (and so a tie) is the same double as SQLite's.
        "score AS (SELECT rid, sum(idf * ((f * %(k1p1)s) / (f + %(k1)s * "
        "(%(one_b)s + %(b)s * n_tokens::float8 / %(avgdl)s))) ORDER BY i) AS score "
        "FROM ph GROUP BY rid)")


def _in_subject(table: str, param: str) -> str:
    """The rows of ``table`` (``source_lex`` or ``facts``) in the subject the parameter
    ``param`` names that match ``%(tsq)s``, as a subquery, through the subject-keyed GIN
    index (its expression and the subject's lexeme): the plain index on ``lex`` returns
    every subject's matching rows. The subject's own column is compared outside it
    (``OFFSET 0`` keeps the planner from also reading the subject's whole range of the
    primary key to intersect with, which costs more than the search at a million rows)."""
    return (f"(SELECT * FROM {table} WHERE {by_subject()} @@ ({subject_tsquery(param)} "
            f"&& %(tsq)s::tsquery) OFFSET 0)")


def _params(bm25: dict[str, list[Any]], avgdl: float, weights: dict[str, float],
            tsq: str) -> dict[str, Any]:
    return {"qi": bm25["i"], "qstem": bm25["stem"], "qidf": bm25["idf"],
            "qcols": bm25["cols"], "qn": bm25["n"], "avgdl": avgdl, "tsq": tsq,
            "k1": K1, "k1p1": K1 + 1.0, "b": B, "one_b": 1.0 - B,
            **{f"w{c.lower()}": float(weights.get(c, 0.0)) for c in "ABCD"}}


def facts_matching_text(conn: Any, subject_id: str, match: str, limit: int,
                        before_seq: int) -> list[str]:
    """IDs of the subject's facts from sources before ``before_seq`` that match an FTS5
    expression, best BM25 first (every column weighted 1, and the subject's phrase part
    of the expression, as the SQLite engine asks FTS5)."""
    if not match or limit <= 0:
        return []
    expr = both(phrase(subject_id, "C"), parse_match(match))
    bm25, avgdl = _bm25_terms(conn, "facts", "fact", subject_id, expr)
    params = _params(bm25, avgdl, dict.fromkeys("ABCD", 1.0), expr.tsquery())
    params.update(subject=subject_id, before=int(before_seq), k=int(limit))
    docs = (f"SELECT fid AS rid, n_tokens, lex FROM {_in_subject('facts', 'subject')} m "
            "WHERE subject_id = %(subject)s AND source_seq < %(before)s")
    return [r[0] for r in conn.execute(
        f"{_scores(docs)} SELECT f.fact_id FROM score sc JOIN facts f ON f.fid = sc.rid "
        "WHERE f.subject_id = %(subject)s ORDER BY sc.score DESC, f.fid LIMIT %(k)s", params)]


class PgSearchReads(PgBase):
    """The lexical searches the query road runs, and the index's upkeep."""

    @cached_property
    def _postings(self) -> tuple[threading.Lock, postings.PostingsCache]:
        return threading.Lock(), postings.PostingsCache()

    def _by_postings(self, conn: Any, scope: Scope, expr: Match, weights: tuple[float, float],
                     where: str, params: dict[str, Any], viewed: bool
                     ) -> list[tuple[int, str, float]] | None:
        """The best ``params['k']`` (seq, source_id, score) from the postings
        (``storage/postings``: ``lexrank``'s scores, as the SQLite engine gives them) when
        they can answer ``expr``; None when they cannot. What was read of the subject is
        kept while (generation, its row and token counts) stay the same: capture only
        adds rows, forget moves the generation."""
        subject = scope.subject_id
        if not postings.usable(expr, subject):
            return None
        row = conn.execute(
            "SELECT (SELECT value FROM meta WHERE key = 'generation'), n_docs, n_tokens FROM "
            "lex_stats WHERE subject_id = %s AND kind = 'source'", (subject,)).fetchone()
        if row is None:
            return []
        lock, cache = self._postings
        with lock:
            sp = cache.of(subject, tuple(row))
            read_stems(conn, sp, [s for p in expr.phrases() for s in p.stems])

            def keep(found: np.ndarray) -> np.ndarray:
                return np.array(sorted(int(r[0]) for r in conn.execute(
                    "SELECT s.seq FROM sources s WHERE s.subject_id = %(a0)s AND s.seq = "
                    f"ANY(%(found)s) AND {where}", {**params, "found": found.tolist()})),
                    dtype=np.int64)

            found, scores = postings.ranked(sp, expr, weights, Stats(int(row[1]), int(row[2])),
                                            keep if viewed else None)
        top = best(found, scores, params["k"])
        ids = dict(conn.execute("SELECT seq, source_id FROM sources WHERE subject_id = %s AND "
                                "seq = ANY(%s)", (subject, [seq for seq, _ in top])).fetchall())
        return [(seq, ids[seq], score) for seq, score in top]

    def search_sources(self, scope: Scope, match: str, k: int,
                       as_of_valid: float | None = None, as_of_known: float | None = None,
                       weights: tuple[float, float] = (1.0, 1.0)) -> list[tuple[int, str, float]]:
        """(seq, source_id, score) of the scope's sources matching an FTS5 expression,
        best BM25 first (score: higher is better); ties keep storage order."""
        if not match or k <= 0:
            return []
        expr = parse_match(match)
        cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
        params: dict[str, Any] = {"k": int(k), **{f"a{i}": a for i, a in enumerate(args)}}
        where = cond % tuple(f"%(a{i})s" for i in range(len(args)))
        with reading(self) as conn:
            got = self._by_postings(conn, scope, expr, (float(weights[0]), float(weights[1])),
                                    where, params, len(args) > 1)
            if got is not None:
                return got
            bm25, avgdl = _bm25_terms(conn, "source_lex", "source", scope.subject_id, expr)
            params.update(_params(bm25, avgdl, {"D": weights[0], "A": weights[1]},
                                  expr.tsquery()))
            lex = _in_subject("source_lex", "a0")
            docs = (f"SELECT l.seq AS rid, l.n_tokens, l.lex FROM {lex} l WHERE "
                    "l.subject_id = %(a0)s")
            if len(args) > 1:  # a robot, session or time view: the sources' columns decide
                docs = (f"SELECT l.seq AS rid, l.n_tokens, l.lex FROM {lex} l JOIN sources "
                        f"s ON s.seq = l.seq WHERE l.subject_id = %(a0)s AND {where}")
            # The best k first (seq breaks ties, as storage order does), then their IDs.
            rows = conn.execute(
                f"{_scores(docs)} SELECT s.seq, s.source_id, sc.score FROM (SELECT rid, score "
                "FROM score ORDER BY score DESC, rid LIMIT %(k)s) sc JOIN sources s ON s.seq = "
                "sc.rid WHERE s.subject_id = %(a0)s ORDER BY sc.score DESC, s.seq",
                params).fetchall()
        return [(int(r[0]), r[1], float(r[2])) for r in rows]

    def search_facts(self, scope: Scope, match: str, k: int,
                     as_of_valid: float | None = None, as_of_known: float | None = None
                     ) -> list[tuple[int, str, str, float, str]]:
        """(source seq, source_id, fact_id, score, fact status) for facts matching an
        FTS5 expression, one row per provenance source in the scope, best first. A time
        view hides facts valid or known only after it."""
        if not match or k <= 0:
            return []
        expr = parse_match(match)
        cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
        if as_of_valid is not None:
            cond += " AND f.valid_from <= %s"
            args.append(as_of_valid)
        if as_of_known is not None:
            cond += " AND f.known_from <= %s"
            args.append(as_of_known)
        with reading(self) as conn:
            bm25, avgdl = _bm25_terms(conn, "facts", "fact", scope.subject_id, expr)
            params = _params(bm25, avgdl, {"D": 1.0, "B": 1.0},
                             expr.tsquery())
            params.update(k=int(k), **{f"a{i}": a for i, a in enumerate(args)})
            where = cond % tuple(f"%(a{i})s" for i in range(len(args)))
            docs = (f"SELECT fid AS rid, n_tokens, lex FROM {_in_subject('facts', 'a0')} m "
                    "WHERE subject_id = %(a0)s")
            rows = conn.execute(
                f"{_scores(docs)} SELECT s.seq, s.source_id, f.fact_id, sc.score, f.status "
                "FROM score sc JOIN facts f ON f.fid = sc.rid AND f.subject_id = %(a0)s "
                "JOIN fact_sources fs ON fs.subject_id = f.subject_id AND fs.fact_id = f.fact_id "
                f"JOIN sources s ON s.source_id = fs.source_id WHERE {where} "
                "ORDER BY sc.score DESC, s.seq LIMIT %(k)s", params).fetchall()
        return [(int(r[0]), r[1], r[2], float(r[3]), r[4]) for r in rows]

    def rebuild_fts(self) -> None:
        """Recreate the lexical index of sources from the sources alone."""
        with self.write() as conn:
            self._rebuild_source_lex(conn)

    @staticmethod
    def _rebuild_source_lex(conn: Any) -> None:
        conn.execute("DELETE FROM source_lex")
        clear_postings(conn)  # index_sources writes them again
        conn.execute("DELETE FROM lex_stats WHERE kind = 'source'")
        rows = conn.execute("SELECT seq, subject_id, speaker, text FROM sources "
                            "ORDER BY seq").fetchall()
        index_sources(conn, [(int(r[0]), r[1], r[2], r[3]) for r in rows])
