"""Lexical recall: BM25 over sources and facts with each subject's own statistics.

FTS5's vocabulary (``fts5vocab`` ``instance`` tables, migration m007) says where each stem
of the expression stands in the subject's rows; that gives each phrase's document
frequency in the subject, which rows match and each one's frequencies; FTS5's own row
sizes (its ``docsize`` table) give each row's token count; ``lex_stats`` (kept by triggers)
the subject's row count and mean row length; ``storage.lexrank`` scores. FTS5's ``bm25()``
is not used: its statistics are the whole table's, every subject's text. On a file m007
has not reached (the read-only explorer never migrates) the rows are found with FTS5 and
their text split again with FTS5's tokenizer: the same scores, slower.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..lexical import Match, Phrase, both, parse_match, phrase, terms
from ..lexrank import Row, Stats, frequency, matching, phrase_hits, rank
from ..records import Scope
from .base import SqliteBase
from .migrations import fts_size
from .rows import _fts_phrase, scope_filter


@dataclass(frozen=True)
class Index:
    """One FTS5 index: its table and vocabulary, the rows' table and key, and its columns
    with their weight letters (PostgreSQL's too)."""

    kind: str
    fts: str
    vocab: str
    table: str
    key: str
    columns: tuple[tuple[str, str], ...]


SOURCES = Index("source", "sources_fts", "sources_vocab", "sources", "seq",
                (("text", "D"), ("speaker", "A"), ("subject_id", "C")))
FACTS = Index("fact", "facts_fts", "facts_vocab", "facts", "rowid",
              (("description", "D"), ("value", "B"), ("subject_id", "C")))


def subject_stats(conn: sqlite3.Connection, subject_id: str, ix: Index) -> Stats:
    """The subject's statistics for the index; on a file m007 has not reached, counted
    from the subject's rows (the same figures)."""
    try:
        row = conn.execute("SELECT n_docs, n_tokens FROM lex_stats WHERE subject_id = ? "
                           "AND kind = ?", (subject_id, ix.kind)).fetchone()
    except sqlite3.OperationalError:
        sizes = [fts_size(r[0]) for r in conn.execute(
            f"SELECT d.sz FROM {ix.table} t JOIN {ix.fts}_docsize d ON d.id = t.{ix.key} "
            "WHERE t.subject_id = ?", (subject_id,))]
        return Stats(len(sizes), sum(sizes))
    return Stats(int(row[0]), int(row[1])) if row else Stats()


def _from_vocab(conn: sqlite3.Connection, ix: Index, subject_id: str, phrases: list[Phrase],
                weights: Mapping[str, float]) -> list[dict[int, float]]:
    """Each phrase's rows in the subject and frequencies, from where FTS5's vocabulary
    says the phrases' stems stand (a phrase of one stem is added up as they come)."""
    letter = dict(ix.columns)
    stems = sorted({s for p in phrases if not p.columns for s in p.stems})
    single: dict[str, list[int]] = {}
    for i, p in enumerate(phrases):
        if len(p.stems) == 1 and not p.columns:
            single.setdefault(p.stems[0], []).append(i)
    hits: list[dict[int, float]] = [{} for _ in phrases]
    own = [(letter["subject_id"], dict(enumerate(terms(subject_id))))]
    # A phrase only of the subject's column: the same in each of its rows.
    of_subject = [i for i, p in enumerate(phrases) if p.columns == own[0][0]]
    longer = [i for i, p in enumerate(phrases)
              if (len(p.stems) > 1 or p.columns) and i not in of_subject]
    at: dict[int, dict[str, dict[int, str]]] = {}  # positions, for the longer phrases
    # The subject's keys as a list SQLite builds once from the subject's index: most
    # instances of a word belong to other subjects, and looking each one's row up cost
    # twice as much.
    for doc, col, offset, term in conn.execute(
            f"SELECT v.doc, v.col, v.offset, v.term FROM {ix.vocab} v "
            f"WHERE v.term IN ({','.join('?' * len(stems))}) AND v.doc IN "
            f"(SELECT {ix.key} FROM {ix.table} WHERE subject_id = ?)", (*stems, subject_id)):
        w = weights.get(letter[col], 0.0)
        for i in single.get(term, ()):
            hits[i][doc] = hits[i].get(doc, 0.0) + w
        if longer:
            at.setdefault(doc, {}).setdefault(col, {})[offset] = term
    docs = set().union(*hits)
    for i in of_subject:
        present, f = frequency(phrases[i], own, weights)
        hits[i] = dict.fromkeys(docs | set(at), f) if present else {}
    if longer:
        rows = {doc: [(lt, own[0][1] if name == "subject_id" else cols.get(name, {}))
                      for name, lt in ix.columns] for doc, cols in at.items()}
        more = phrase_hits([phrases[i] for i in longer], rows, weights)
        for i, h in zip(longer, more, strict=True):
            hits[i] = h
    return hits


def _from_text(conn: sqlite3.Connection, ix: Index, subject_id: str, phrases: list[Phrase],
               weights: Mapping[str, float]) -> list[dict[int, float]]:
    """The same as ``_from_vocab``, from the rows' text (a file m007 has not reached)."""
    expr = " OR ".join(_fts_phrase(p.text) for p in phrases if p.stems and not p.columns)
    if any(ch.isalnum() for ch in subject_id):
        expr = f"subject_id : {_fts_phrase(subject_id)} AND ({expr})"
    names = ", ".join(f"t.{name}" for name, _ in ix.columns)
    rows: dict[int, Row] = {}
    for rid, *texts in conn.execute(
            f"SELECT t.{ix.key}, {names} FROM {ix.fts} CROSS JOIN {ix.table} t ON "
            f"t.{ix.key} = {ix.fts}.rowid WHERE {ix.fts} MATCH ? AND t.subject_id = ?",
            (expr, subject_id)):
        rows[int(rid)] = [(letter, dict(enumerate(terms(text or ""))))
                          for (_, letter), text in zip(ix.columns, texts, strict=True)]
    return phrase_hits(phrases, rows, weights)


def ranked(conn: sqlite3.Connection, ix: Index, subject_id: str, match: Match,
           weights: Mapping[str, float], view: str = "", args: tuple[Any, ...] = (),
           subject_phrases: int = 0) -> dict[int, float]:
    """Row key -> score of the subject's rows of ``ix`` that ``match`` matches and
    ``view`` (an SQL condition on ``t``; none: every row of the subject) keeps
    (``subject_phrases``: ``lexrank.rank``'s)."""
    phrases = match.phrases()
    if not any(p.stems and not p.columns for p in phrases):
        return {}
    try:
        hits = _from_vocab(conn, ix, subject_id, phrases, weights)
    except sqlite3.OperationalError:  # no vocabulary: a file m007 has not reached
        hits = _from_text(conn, ix, subject_id, phrases, weights)
    found = matching(match, hits)
    if view:
        found &= {int(r[0]) for r in conn.execute(
            f"SELECT t.{ix.key} FROM {ix.table} t WHERE t.{ix.key} IN (SELECT value FROM "
            f"json_each(?)) AND {view}", (json.dumps(sorted(found)), *args))}
    sizes = {int(r[0]): fts_size(r[1]) for r in conn.execute(
        f"SELECT id, sz FROM {ix.fts}_docsize WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(found)),))}
    return rank(match, hits, sizes, found, subject_stats(conn, subject_id, ix), subject_phrases)


def facts_matching(conn: sqlite3.Connection, subject_id: str, match: str, limit: int,
                   before_seq: int) -> list[str]:
    """IDs of the subject's facts from sources before ``before_seq`` that match an FTS5
    expression, best first (every column weighted 1, the subject's phrase part of the
    expression, ties by row)."""
    if not match or limit <= 0:
        return []
    expr = both(phrase(subject_id, "C"), parse_match(match))
    scores = ranked(conn, FACTS, subject_id, expr, dict.fromkeys("DBC", 1.0),
                    "t.source_seq < ?", (int(before_seq),), subject_phrases=1)
    best = sorted(scores, key=lambda rid: (-scores[rid], rid))[:int(limit)]
    ids = dict(conn.execute("SELECT rowid, fact_id FROM facts WHERE rowid IN "
                            "(SELECT value FROM json_each(?))", (json.dumps(best),)))
    return [ids[rid] for rid in best if rid in ids]


class SearchReads(SqliteBase):
    """The lexical searches the query road runs."""

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """One snapshot for a search's statements (the caller's, inside ``read()``)."""
        with self._lock:
            if self.conn.in_transaction:
                yield self.conn
            else:
                with self.read() as conn:
                    yield conn

    def search_sources(self, scope: Scope, match: str, k: int,
                       as_of_valid: float | None = None, as_of_known: float | None = None,
                       weights: tuple[float, float] = (1.0, 1.0)) -> list[tuple[int, str, float]]:
        """(seq, source_id, score) of the scope's sources matching an FTS5 expression,
        best BM25 first (score: higher is better). Ties keep storage order."""
        if not match or k <= 0:
            return []
        cond, args = scope_filter(scope, "t", as_of_valid, as_of_known)
        if len(args) == 1:  # the subject alone: every row found is in view
            cond, args = "", []
        with self._snapshot() as conn:
            scores = ranked(conn, SOURCES, scope.subject_id, parse_match(match),
                            {"D": float(weights[0]), "A": float(weights[1])}, cond, tuple(args))
            best = sorted(scores, key=lambda seq: (-scores[seq], seq))[:int(k)]
            ids = dict(conn.execute("SELECT seq, source_id FROM sources WHERE seq IN "
                                    "(SELECT value FROM json_each(?))", (json.dumps(best),)))
        return [(seq, ids[seq], scores[seq]) for seq in best]

    def search_facts(self, scope: Scope, match: str, k: int,
                     as_of_valid: float | None = None, as_of_known: float | None = None
                     ) -> list[tuple[int, str, str, float, str]]:
        """(source seq, source_id, fact_id, score, fact status) for facts matching an
        FTS5 expression, one row per provenance source in the scope, best first.
        A time view hides facts valid or known only after it."""
        if not match or k <= 0:
            return []
        cond, args = scope_filter(scope, "s", as_of_valid, as_of_known)
        if as_of_valid is not None:
            cond += " AND f.valid_from <= ?"
            args.append(as_of_valid)
        if as_of_known is not None:
            cond += " AND f.known_from <= ?"
            args.append(as_of_known)
        with self._snapshot() as conn:
            scores = ranked(conn, FACTS, scope.subject_id, parse_match(match),
                            {"D": 1.0, "B": 1.0})
            rows = conn.execute(
                "SELECT s.seq, s.source_id, f.fact_id, f.status, f.rowid FROM facts f "
                "JOIN fact_sources fs ON fs.fact_id = f.fact_id "
                "JOIN sources s ON s.source_id = fs.source_id "
                "WHERE f.rowid IN (SELECT value FROM json_each(?)) AND f.subject_id = ? "
                f"AND {cond} ORDER BY s.seq",
                [json.dumps(list(scores)), scope.subject_id, *args]).fetchall()
        rows.sort(key=lambda r: (-scores[int(r[4])], int(r[0])))
        return [(int(r[0]), r[1], r[2], scores[int(r[4])], r[3]) for r in rows[:int(k)]]
