"""Lexical recall: BM25 over sources and facts with each subject's own statistics.

FTS5's vocabulary (``fts5vocab`` ``instance`` tables, migration m007) says where each stem
of the expression stands in the subject's rows; that gives each phrase's document
frequency in the subject, which rows match and each one's frequencies; FTS5's own row
sizes (its ``docsize`` table) give each row's token count; ``lex_stats`` (kept by triggers)
the subject's row count and mean row length; ``storage.lexrank`` scores, with numpy, all
matching rows at once. FTS5's ``bm25()`` is not used: its statistics are the whole
table's, every subject's text. What a source search read of a subject's stems and row
sizes is kept for the next (``lexcache``) while the subject's sources stay the same. On a
file m007 has not reached (the read-only explorer never migrates) the rows are found with
FTS5 and their text split again with FTS5's tokenizer: the same scores, slower. The
sources above the mark (m014: FTS5's index and ``lex_stats`` are written after capture,
``deferred``) are read from their text and added: the same rows and scores as once they
are indexed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property, partial, reduce
from typing import Any

import numpy as np

from .. import postings
from ..lexical import Match, Phrase, both, parse_match, phrase
from ..lexical import terms as lexical_terms
from ..lexrank import Hits, Row, Stats, best, frequency, matching, phrase_hits, rank, union
from ..records import Scope
from .base import SqliteBase
from .deferred import TailStats, derived_upto, tail_rows
from .lexcache import LexCache, Stem, SubjectTerms
from .migrations import fts_size
from .postings import indexed_upto, read_stems
from .rows import fts_phrase, scope_filter


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
NONE = Hits(np.empty(0, np.int64), np.empty(0))  # a phrase that matches no row
# A view's rows by their keys (rowids): the planner otherwise takes a (subject, ...) index
# and reads every row of the subject.
_BY_KEY = "NOT INDEXED"


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


def _from_vocab(conn: sqlite3.Connection, ix: Index, terms: SubjectTerms,
                phrases: list[Phrase], weights: Mapping[str, float]) -> list[Hits]:
    """Each phrase's rows in the subject and frequencies, from where FTS5's vocabulary
    says the phrases' stems stand (``terms`` reads the stems it has not read yet)."""
    letter = dict(ix.columns)
    fetched = sorted({s for p in phrases if not p.columns for s in p.stems})
    read = terms.read(conn, fetched)
    stems = {s: read[s] for s in fetched}
    by_column = tuple(weights.get(lt, 0.0) for _, lt in ix.columns)
    own = [(letter["subject_id"], dict(enumerate(lexical_terms(terms.subject_id))))]
    # Every row a stem of the expression stands in (for a phrase of several stems or
    # of some columns).
    anywhere = (union([stems[s].rows for s in fetched])
                if any(p.columns or len(p.stems) > 1 for p in phrases) else NONE.rows)
    out: list[Hits] = []
    for p in phrases:
        if p.columns == own[0][0]:
            # A phrase only of the subject's column: the same in each of its rows.
            present, f = frequency(p, own, weights)
            out.append(Hits(anywhere, np.full(len(anywhere), f)) if present else NONE)
        elif len(p.stems) == 1 and not p.columns:
            stem = stems[p.stems[0]]
            out.append(Hits(stem.rows, stem.freqs(by_column)))
        elif not p.stems and not p.columns:
            out.append(NONE)
        else:
            out.append(Hits.of(_longer(ix, stems, own, p, anywhere, weights)))
    return out


def _longer(ix: Index, stems: Mapping[str, Stem], own: Row, p: Phrase, anywhere: np.ndarray,
            weights: Mapping[str, float]) -> dict[int, float]:
    """A phrase of several stems, or of some columns, counted in each row from its
    stems' positions (the subject's column: the subject's own stems). A phrase that
    names no column can only stand in a row that holds all its stems (in the subject's
    column, every row of the subject holds them)."""
    if p.columns or any(s not in stems for s in p.stems):
        rows = anywhere
    else:
        rows = reduce(partial(np.intersect1d, assume_unique=True),
                      [stems[s].rows for s in p.stems])
    names = [name for name, _ in ix.columns]
    at: dict[int, dict[str, dict[int, str]]] = {doc: {} for doc in rows.tolist()}
    for s in dict.fromkeys(p.stems):
        if s in stems:
            for doc, col, offset in stems[s].within(rows):
                at[doc].setdefault(names[col], {})[offset] = s
    return phrase_hits([p], {doc: [(lt, own[0][1] if name == "subject_id" else
                                    cols.get(name, {})) for name, lt in ix.columns]
                             for doc, cols in at.items()}, weights)[0]


def _from_text(conn: sqlite3.Connection, ix: Index, subject_id: str, phrases: list[Phrase],
               weights: Mapping[str, float]) -> list[Hits]:
    """The same as ``_from_vocab``, from the rows' text (a file m007 has not reached)."""
    expr = " OR ".join(fts_phrase(p.text) for p in phrases if p.stems and not p.columns)
    if any(ch.isalnum() for ch in subject_id):
        expr = f"subject_id : {fts_phrase(subject_id)} AND ({expr})"
    names = ", ".join(f"t.{name}" for name, _ in ix.columns)
    rows: dict[int, Row] = {}
    for rid, *texts in conn.execute(
            f"SELECT t.{ix.key}, {names} FROM {ix.fts} CROSS JOIN {ix.table} t ON "
            f"t.{ix.key} = {ix.fts}.rowid WHERE {ix.fts} MATCH ? AND t.subject_id = ?",
            (expr, subject_id)):
        rows[int(rid)] = [(letter, dict(enumerate(lexical_terms(text or ""))))
                          for (_, letter), text in zip(ix.columns, texts, strict=True)]
    return [Hits.of(h) for h in phrase_hits(phrases, rows, weights)]


def fresh_terms(ix: Index, subject_id: str) -> SubjectTerms:
    """Nothing of the subject's rows of ``ix`` read yet."""
    return SubjectTerms(subject_id, ix.vocab, ix.table, ix.key, ix.fts,
                        [name for name, _ in ix.columns])


@dataclass(frozen=True)
class Tail:
    """The subject's sources above the mark (FTS5 has not indexed them yet): their rows
    as ``lexrank`` reads them, their sizes, and the subject's statistics with them."""

    upto: int
    rows: dict[int, Row]
    sizes: dict[int, int]
    stats: Stats


def _marks(conn: sqlite3.Connection) -> tuple[Any, int]:
    """(generation, highest seq stored) in one read."""
    generation, last = conn.execute(
        "SELECT (SELECT value FROM meta WHERE key = 'generation'), "
        "(SELECT coalesce(max(seq), 0) FROM sources)").fetchone()
    return generation, int(last)


def _tail_hits(tail: Tail, phrases: list[Phrase], weights: Mapping[str, float]) -> list[Hits]:
    """Each phrase's hits among the tail's rows that hold a stem of a phrase naming no
    column (the rows FTS5's vocabulary would give ``_from_vocab``)."""
    fetched = {s for p in phrases if not p.columns for s in p.stems}
    rows = {rid: row for rid, row in tail.rows.items()
            if any(fetched.intersection(at.values()) for _, at in row)}
    return [Hits.of(h) for h in phrase_hits(phrases, rows, weights)]


def _joined(indexed: Hits, tail: Hits) -> Hits:
    """Hits of rows up to the mark, then of rows above it."""
    if not len(tail.rows):
        return indexed
    return Hits(np.concatenate([indexed.rows, tail.rows]),
                np.concatenate([indexed.freqs, tail.freqs]))


def ranked(conn: sqlite3.Connection, ix: Index, terms: SubjectTerms, match: Match,
           weights: Mapping[str, float], view: str = "", args: tuple[Any, ...] = (),
           subject_phrases: int = 0, tail: Tail | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(row keys ascending, their scores) of the subject's rows of ``ix`` that ``match``
    matches and ``view`` (an SQL condition on ``t``; none: every row of the subject)
    keeps (``subject_phrases``: ``lexrank.rank``'s); ``terms``: what is known of the
    subject's rows (``fresh_terms``: nothing); ``tail``: the rows FTS5 has not indexed
    yet (sources only; None: none)."""
    phrases = match.phrases()
    if not any(p.stems and not p.columns for p in phrases):
        return np.empty(0, np.int64), np.empty(0)
    try:
        hits = _from_vocab(conn, ix, terms, phrases, weights)
    except sqlite3.OperationalError:  # no vocabulary: a file m007 has not reached
        hits = _from_text(conn, ix, terms.subject_id, phrases, weights)
    if tail is not None and tail.rows:
        hits = [_joined(h, t) for h, t in zip(hits, _tail_hits(tail, phrases, weights),
                                              strict=True)]
    found = matching(match, hits)
    if view:
        kept = sorted(int(r[0]) for r in conn.execute(
            f"SELECT t.{ix.key} FROM {ix.table} t {_BY_KEY} WHERE t.{ix.key} IN (SELECT value "
            f"FROM json_each(?)) AND {view}", (json.dumps(found.tolist()), *args)))
        found = np.array(kept, dtype=np.int64)
    if tail is None:
        return found, rank(hits, terms.sized(conn, found), found,
                           subject_stats(conn, terms.subject_id, ix), subject_phrases)
    at = int(np.searchsorted(found, tail.upto, side="right"))
    sizes = np.concatenate([terms.sized(conn, found[:at]), np.fromiter(
        (tail.sizes[r] for r in found[at:].tolist()), np.int64, len(found) - at)])
    return found, rank(hits, sizes, found, tail.stats, subject_phrases)


def facts_matching(conn: sqlite3.Connection, subject_id: str, match: str, limit: int,
                   before_seq: int) -> list[str]:
    """IDs of the subject's facts from sources before ``before_seq`` that match an FTS5
    expression, best first (every column weighted 1, the subject's phrase part of the
    expression, ties by row)."""
    if not match or limit <= 0:
        return []
    expr = both(phrase(subject_id, "C"), parse_match(match))
    rows, scores = ranked(conn, FACTS, fresh_terms(FACTS, subject_id), expr,
                          dict.fromkeys("DBC", 1.0), "t.source_seq < ?", (int(before_seq),),
                          subject_phrases=1)
    top = [rid for rid, _ in best(rows, scores, limit)]
    ids = dict(conn.execute("SELECT rowid, fact_id FROM facts WHERE rowid IN "
                            "(SELECT value FROM json_each(?))", (json.dumps(top),)))
    return [ids[rid] for rid in top if rid in ids]


class SearchReads(SqliteBase):
    """The lexical searches the query road runs."""

    # ``_snapshot_marks``' one kept entry: ((read block, subject), what was read there).
    _marks_kept: tuple[tuple[int, str], tuple[tuple[Any, int], int | None, Stats]] | None = None

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """One snapshot for a search's statements (the caller's, inside ``read()``)."""
        with self._lock:
            if self.conn.in_transaction:
                yield self.conn
            else:
                with self.read() as conn:
                    yield conn

    @cached_property
    def _lexcache(self) -> LexCache:
        return LexCache()

    @cached_property
    def _postings(self) -> postings.PostingsCache:
        return postings.PostingsCache()

    @staticmethod
    def _mark(conn: sqlite3.Connection, subject_id: str) -> tuple[Any, ...] | None:
        """What names the subject's sources now (``lexcache``: the generation and the
        subject's row and token counts); None without a row. Raises
        ``sqlite3.OperationalError`` on a file m007 has not reached."""
        got = conn.execute(
            "SELECT (SELECT value FROM meta WHERE key = 'generation'), n_docs, n_tokens "
            "FROM lex_stats WHERE subject_id = ? AND kind = ?",
            (subject_id, SOURCES.kind)).fetchone()
        return None if got is None else tuple(got)

    @cached_property
    def _tail_stats(self) -> TailStats:
        return TailStats()

    def _source_stats(self, conn: sqlite3.Connection, subject_id: str,
                      marks: tuple[Any, int] | None = None) -> tuple[Stats, int | None]:
        """The subject's statistics over all its sources (those FTS5 has not indexed yet
        counted from their text: ``deferred``), and the mark (None: FTS5 holds every
        source). ``marks``: (generation, highest seq), when the caller has read them."""
        stats = subject_stats(conn, subject_id, SOURCES)
        upto = derived_upto(conn)
        if upto is None:
            return stats, None
        generation, last = marks if marks is not None else _marks(conn)
        if last <= upto:
            return stats, upto
        more = self._tail_stats.stats(conn, subject_id, generation, upto, int(last))
        return Stats(stats.n_docs + more.n_docs, stats.n_tokens + more.n_tokens), upto

    def _fts_tail(self, conn: sqlite3.Connection, subject_id: str) -> Tail | None:
        """What the FTS5 road adds for the subject's sources above the mark (None: FTS5
        holds every source)."""
        stats, upto = self._source_stats(conn, subject_id)
        if upto is None:
            return None
        own = dict(enumerate(lexical_terms(subject_id)))
        rows: dict[int, Row] = {}
        sizes: dict[int, int] = {}
        for seq, text, speaker in tail_rows(conn, subject_id, upto):
            row = [("D", dict(enumerate(lexical_terms(text or "")))),
                   ("A", dict(enumerate(lexical_terms(speaker or "")))), ("C", own)]
            rows[seq], sizes[seq] = row, sum(len(at) for _, at in row)
        return Tail(upto, rows, sizes, stats)

    def _by_postings(self, conn: sqlite3.Connection, subject_id: str, expr: Match,
                     weights: tuple[float, float], view: str, args: tuple[Any, ...]
                     ) -> tuple[np.ndarray, np.ndarray] | None:
        """``ranked`` for sources from the postings (``storage/postings``) when they can
        answer ``expr`` (same rows and scores); None when they cannot, or on a file
        m011 has not reached. The postings hold the sources up to their mark
        (``postings.indexed_upto``); those above it are read from their text, once per
        process (the subject's ``SubjectPostings`` keeps them until a forget or rebuild
        moves the generation), and so are the statistics (``_source_stats``)."""
        if not postings.usable(expr, subject_id):
            return None
        try:
            got, upto, stats = self._snapshot_marks(conn, subject_id)
        except sqlite3.OperationalError:
            return None
        if not stats.n_docs:  # no source of the subject
            return np.empty(0, np.int64), np.empty(0)
        last = int(got[1])
        sp = self._postings.of(subject_id, got[0], last if upto is None else upto, last)
        if sp.seen is not None and sp.seen < last:
            # NOT INDEXED: by seq (the rows above what was seen), not every row of the
            # subject through a (subject, ...) index.
            sp.extend(conn.execute(
                f"SELECT seq, speaker, text FROM sources {_BY_KEY} WHERE seq > ? AND seq <= ? "
                "AND subject_id = ? ORDER BY seq", (sp.seen, last, subject_id)), last)
        read_stems(conn, sp, [s for p in expr.phrases() for s in p.stems])

        def keep(found: np.ndarray) -> np.ndarray:
            return np.array(sorted(int(r[0]) for r in conn.execute(
                f"SELECT t.seq FROM sources t {_BY_KEY} WHERE t.seq IN (SELECT value FROM "
                f"json_each(?)) AND {view}", (json.dumps(found.tolist()), *args))),
                dtype=np.int64)

        return postings.ranked(sp, expr, weights, stats, keep if view else None)

    def _snapshot_marks(self, conn: sqlite3.Connection, subject_id: str
                        ) -> tuple[tuple[Any, int], int | None, Stats]:
        """(the ledger's marks, the postings' mark, the subject's statistics) for
        ``_by_postings``: read once per ``read()`` snapshot and subject (nothing they are
        read from changes inside one: a question's text search and the chain's searches
        of the same question share them, four statements fewer a search), else each time.
        One entry is kept, the last snapshot's."""
        at = (self._read_block(), subject_id)
        if at[0] and self._marks_kept is not None and self._marks_kept[0] == at:
            return self._marks_kept[1]
        got = _marks(conn)
        upto = indexed_upto(conn)
        stats, _ = self._source_stats(conn, subject_id, got)
        if at[0]:
            self._marks_kept = (at, (got, upto, stats))
        return got, upto, stats

    def _source_terms(self, conn: sqlite3.Connection, subject_id: str) -> SubjectTerms:
        """What earlier searches read of the subject's sources, if it is still current
        (``lexcache``: the generation and the subject's row and token counts name its
        sources); a file m007 has not reached keeps nothing."""
        try:
            mark = self._mark(conn, subject_id)
        except sqlite3.OperationalError:
            return fresh_terms(SOURCES, subject_id)
        if mark is None:  # no rows: nothing to keep
            return fresh_terms(SOURCES, subject_id)
        terms = self._lexcache.get(SOURCES.fts, subject_id, tuple(mark))
        if terms is None:
            terms = fresh_terms(SOURCES, subject_id)
            terms.mark = tuple(mark)
            self._lexcache.put(SOURCES.fts, terms)
        return terms

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
        expr = parse_match(match)
        with self._snapshot() as conn:
            got = self._by_postings(conn, scope.subject_id, expr,
                                    (float(weights[0]), float(weights[1])), cond, tuple(args))
            if got is None:
                got = ranked(conn, SOURCES, self._source_terms(conn, scope.subject_id), expr,
                             {"D": float(weights[0]), "A": float(weights[1])}, cond,
                             tuple(args), tail=self._fts_tail(conn, scope.subject_id))
            top = best(*got, k)
            ids = dict(conn.execute("SELECT seq, source_id FROM sources WHERE seq IN "
                                    "(SELECT value FROM json_each(?))",
                                    (json.dumps([seq for seq, _ in top]),)))
        return [(seq, ids[seq], score) for seq, score in top]

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
            found, ranks = ranked(conn, FACTS, fresh_terms(FACTS, scope.subject_id),
                                  parse_match(match), {"D": 1.0, "B": 1.0})
            scores = dict(zip(found.tolist(), ranks.tolist(), strict=True))
            rows = conn.execute(
                "SELECT s.seq, s.source_id, f.fact_id, f.status, f.rowid FROM facts f "
                "JOIN fact_sources fs ON fs.fact_id = f.fact_id "
                "JOIN sources s ON s.source_id = fs.source_id "
                "WHERE f.rowid IN (SELECT value FROM json_each(?)) AND f.subject_id = ? "
                f"AND {cond} ORDER BY s.seq",
                [json.dumps(list(scores)), scope.subject_id, *args]).fetchall()
        rows.sort(key=lambda r: (-scores[int(r[4])], int(r[0])))
        return [(int(r[0]), r[1], r[2], scores[int(r[4])], r[3]) for r in rows[:int(k)]]
