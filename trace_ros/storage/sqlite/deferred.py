"""The sources' derived lexical rows on SQLite, written after capture (issue 16): FTS5's
index (``sources_fts``), the subjects' lexical statistics (``lex_stats``, kind
``source``), the speakers' turn counts (``speaker_turns``) and the postings
(``source_postings``). Migration m014 took the first three out of the capture
transaction (its triggers); the postings left it with m013. ``index_pending`` writes all
four for the sources above the mark (``postings_mark``) and moves the mark, in one
transaction: the mark and what it covers move together, so a crash leaves the rows of
the sources up to the mark, and the next call writes the rest.

Why: written by triggers in the capture transaction, FTS5's index and the statistics
cost capture ~60 us of CPU per event of ~155, and the speakers' counts ~10 more (in
process, groups of 32; issue 16). The writer writes them when no event waits, in larger
chunks.

Reads stay exact: they add what the sources above the mark hold, read from the sources
themselves (``TailStats``, ``tail_rows``, ``tail_turns``); on a file m014 has not reached
(a read-only ledger) the triggers still write them, and the tail is empty
(``derived_upto`` gives None).
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from ..lexical import terms as lexical_terms
from ..lexical import terms_of as lexical_terms_of
from ..lexrank import Stats
from .migrations import FTS_SIZE
from .postings import add_postings, indexed_upto, rebuild_postings

# Subjects whose tail statistics one ledger connection keeps.
SUBJECTS = 32
# A range of sources by their seq, read by rowid (NOT INDEXED: the planner otherwise
# reads every row of the subject through a (subject, ...) index).
_RANGE = "FROM sources NOT INDEXED WHERE seq > ? AND seq <= ?"
_ADD_STATS = (
    "INSERT INTO lex_stats (subject_id, kind, n_docs, n_tokens) "
    f"SELECT t.subject_id, 'source', count(*), sum({FTS_SIZE}(d.sz)) FROM sources t "
    "JOIN sources_fts_docsize d ON d.id = t.seq WHERE t.seq > ? AND t.seq <= ? "
    "GROUP BY t.subject_id ON CONFLICT (subject_id, kind) DO UPDATE SET "
    "n_docs = n_docs + excluded.n_docs, n_tokens = n_tokens + excluded.n_tokens")
_ADD_TURNS = (
    "INSERT INTO speaker_turns (subject_id, speaker, n) SELECT subject_id, speaker, count(*) "
    f"{_RANGE} AND modality = 'dialogue' AND speaker != '' GROUP BY subject_id, speaker "
    "ON CONFLICT (subject_id, speaker) DO UPDATE SET n = n + excluded.n")


def derived_upto(conn: sqlite3.Connection) -> int | None:
    """The seq up to which FTS5's index, ``lex_stats`` and ``speaker_turns`` hold the
    sources (none above it: m014's mark, the postings'); None when they hold every source
    (a file m014 has not reached: its triggers write them with the sources)."""
    try:
        row = conn.execute(
            "SELECT upto FROM postings_mark WHERE NOT EXISTS (SELECT 1 FROM sqlite_master "
            "WHERE type = 'trigger' AND name = 'sources_fts_ai')").fetchone()
    except sqlite3.OperationalError:  # m013 not reached
        return None
    return None if row is None else int(row[0])


def index_pending(conn: sqlite3.Connection, max_sources: int) -> int:
    """Inside a write transaction: FTS5's index, the statistics, the turn counts and the
    postings of up to ``max_sources`` sources above the mark, in seq order, and the mark
    moved past them. Returns how many were indexed (fewer than ``max_sources``: none is
    left)."""
    upto = indexed_upto(conn)
    if upto is None:
        return 0
    rows = conn.execute("SELECT seq, subject_id, speaker, text FROM sources WHERE seq > ? "
                        "ORDER BY seq LIMIT ?", (upto, max_sources)).fetchall()
    if not rows:
        return 0
    span = (upto, int(rows[-1][0]))
    conn.execute(f"INSERT INTO sources_fts (rowid, text, speaker, subject_id) "
                 f"SELECT seq, text, speaker, subject_id {_RANGE}", span)
    conn.execute(_ADD_STATS, span)
    conn.execute(_ADD_TURNS, span)
    add_postings(conn, rows)
    conn.execute("UPDATE postings_mark SET upto = ?", (span[1],))
    return len(rows)


def rebuild_lexical(conn: sqlite3.Connection) -> None:
    """Inside a write transaction: FTS5's index of every source, the sources' statistics,
    the turn counts and the postings again from the sources, and the mark at the last
    source."""
    conn.execute("INSERT INTO sources_fts (sources_fts) VALUES ('rebuild')")
    conn.execute("DELETE FROM lex_stats WHERE kind = 'source'")
    conn.execute(_ADD_STATS, (-1, 2**62))
    conn.execute("DELETE FROM speaker_turns")
    conn.execute(_ADD_TURNS, (-1, 2**62))
    rebuild_postings(conn)


def tail_rows(conn: sqlite3.Connection, subject_id: str, upto: int
              ) -> list[tuple[int, str, str]]:
    """(seq, text, speaker) of the subject's sources above ``upto``, in seq order."""
    return [(int(r[0]), r[1], r[2]) for r in conn.execute(
        f"SELECT seq, text, speaker {_RANGE} AND subject_id = ? ORDER BY seq",
        (upto, 2**62, subject_id))]


def tail_turns(conn: sqlite3.Connection, subject_id: str) -> dict[str, int]:
    """speaker -> dialogue turns of the subject above the mark (``speaker_turns`` holds
    those up to it)."""
    upto = derived_upto(conn)
    if upto is None:
        return {}
    return {r[0]: int(r[1]) for r in conn.execute(
        f"SELECT speaker, count(*) {_RANGE} AND subject_id = ? AND modality = 'dialogue' "
        "AND speaker != '' GROUP BY speaker", (upto, 2**62, subject_id))}


def row_size(subject_id: str, text: str, speaker: str, said: list[str] | None = None) -> int:
    """A source's token count in FTS5's row (text, speaker, subject), as its ``docsize``
    holds it (``said``: the text's terms, when already split)."""
    said = lexical_terms(text) if said is None else said
    return len(said) + len(lexical_terms(speaker)) + len(lexical_terms(subject_id))


@dataclass(frozen=True)
class _Tail:
    mark: Hashable
    seen: int  # every source of the subject in (the mark's seq, seen] is counted
    stats: Stats


class TailStats:
    """Per subject, the row and token counts of its sources above the mark, counted from
    their text, kept while the mark (generation, seq) stays and extended as sources come
    (the caller holds the connection's lock)."""

    def __init__(self, subjects: int = SUBJECTS) -> None:
        self.subjects = subjects
        self._kept: OrderedDict[str, _Tail] = OrderedDict()

    def stats(self, conn: sqlite3.Connection, subject_id: str, generation: Hashable,
              upto: int, last: int) -> Stats:
        """The subject's sources in (``upto``, ``last``]: how many, and their tokens."""
        mark = (generation, upto)
        got = self._kept.get(subject_id)
        if got is None or got.mark != mark or got.seen > last:
            got = _Tail(mark, upto, Stats())
        if got.seen < last:
            rows = conn.execute(f"SELECT text, speaker {_RANGE} AND subject_id = ?",
                                (got.seen, last, subject_id)).fetchall()
            said = lexical_terms_of([r[0] or "" for r in rows])
            tokens = sum(row_size(subject_id, r[0], r[1] or "", s)
                         for r, s in zip(rows, said, strict=True))
            got = _Tail(mark, last, Stats(got.stats.n_docs + len(rows),
                                          got.stats.n_tokens + tokens))
        self._kept[subject_id] = got
        self._kept.move_to_end(subject_id)
        while len(self._kept) > self.subjects:
            self._kept.popitem(last=False)
        return got.stats
