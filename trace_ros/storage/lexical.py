"""Lexical terms and match expressions with the meaning SQLite's FTS5 gives them, for an
engine that has no FTS5 (PostgreSQL ranks with BM25 from these, ``postgresql/search``).

``terms`` are the stems FTS5's ``porter unicode61`` tokenizer indexes a text under — asked
of FTS5 itself, on an in-memory table of one thread-local SQLite connection, so the
split (which characters are token characters: SQLite's own Unicode tables), the folding
(case, diacritics) and the Porter stems are exactly those of the SQLite engine.

``parse_match`` reads the subset of the FTS5 query syntax the layers above write —
quoted phrases, bare words, ``AND``, ``OR``, ``NOT``, parentheses, implicit AND — into
a small tree; ``Match.phrases`` lists its phrases (for BM25's per-phrase IDF) and
``tsquery`` writes it as a PostgreSQL ``tsquery`` over the stems.

BM25 is FTS5's: for each phrase, ``idf * (f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl))``
with ``k1 = 1.2``, ``b = 0.75``, ``idf = log((N - n + 0.5) / (n + 0.5))`` (1e-6 when not
positive), ``f`` the phrase's column-weighted frequency in the row, ``D`` the row's token
count over all columns and ``avgdl`` the mean of ``D`` over the ``N`` rows.
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
from collections import OrderedDict, namedtuple
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import ValidationError

K1 = 1.2
B = 0.75
# A lexeme no index holds (index terms are letters and digits only): an empty phrase.
NOTHING = "_"

_QUERY = re.compile(r'"((?:[^"]|"")*)"|(\()|(\))|([^\s()"]+)')
_LOCAL = threading.local()


def _tokenizer() -> sqlite3.Connection:
    conn = getattr(_LOCAL, "conn", None)
    if conn is None:
        # Autocommit: ``_terms_of`` opens and rolls back its own transaction.
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.execute("CREATE VIRTUAL TABLE t USING fts5 (x, tokenize='porter unicode61')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance')")
        _LOCAL.conn = conn
    return conn


class _KeptTerms:
    """Each text's stems, the last ``size`` texts kept (an LRU cache, like ``lru_cache``
    with its ``cache_clear``/``cache_info``, so ``language.caches.forget_texts`` empties
    it after a forget). ``many`` asks FTS5 for every text not kept in one round of three
    statements, not three per text: a search's new words, or a long text's, at once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[str, tuple[str, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = self._misses = 0
        # Set here, not on the class: ``forget_texts`` calls what it finds on the module.
        self.cache_clear = self._clear
        self.cache_info = self._info

    def __call__(self, text: str) -> tuple[str, ...]:
        return self.many([text])[0]

    def many(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        found: dict[str, tuple[str, ...]] = {}
        with self._lock:
            for text in texts:
                got = self._kept.get(text)
                if got is not None:
                    self._kept.move_to_end(text)
                    found[text] = got
            self._hits += len(found)
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            read = [tuple(stems) for stems in _terms_of(missing)]
            found.update(zip(missing, read, strict=True))
            with self._lock:
                self._misses += len(missing)
                self._kept.update(zip(missing, read, strict=True))
                while len(self._kept) > self.size:
                    self._kept.popitem(last=False)
        return [found[t] for t in texts]

    def _clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self._hits = self._misses = 0

    def _info(self) -> _CacheInfo:
        with self._lock:
            return _CacheInfo(self._hits, self._misses, self.size, len(self._kept))


_CacheInfo = namedtuple("_CacheInfo", ["hits", "misses", "maxsize", "currsize"])
_terms = _KeptTerms(4096)


def terms(text: str) -> list[str]:
    """The stems FTS5 indexes ``text`` under, in order, with repeats."""
    return list(_terms(text)) if text else []


def prepare(texts: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Text -> its stems (``terms``), for every text of ``texts``; those not kept yet
    are read in one round (``parse_match``: every phrase of an expression)."""
    texts = [t for t in dict.fromkeys(texts) if t]
    return dict(zip(texts, _terms.many(texts), strict=True))


# Texts asked of FTS5 at once by ``terms_of`` (a search's tail may hold many).
TERMS_BATCH = 2000


def terms_of(texts: Sequence[str]) -> list[list[str]]:
    """``terms`` of each text, asked of FTS5 for ``TERMS_BATCH`` at once (three statements,
    not three per text: a third of the time per text for the postings' chunks)."""
    out: list[list[str]] = []
    for start in range(0, len(texts), TERMS_BATCH):
        out += _terms_of(texts[start:start + TERMS_BATCH])
    return out


def _terms_of(texts: Sequence[str]) -> list[list[str]]:
    conn = _tokenizer()
    out: list[list[str]] = [[] for _ in texts]
    # The rows are read inside a transaction that is rolled back, not deleted after: a
    # DELETE writes a delete marker per token into the index, which FTS5 then merges
    # (~0.9 ms a search's round on a loaded machine, against ~0.3 ms rolled back).
    conn.execute("BEGIN")
    try:
        conn.executemany("INSERT INTO t (rowid, x) VALUES (?, ?)",
                         [(i + 1, text) for i, text in enumerate(texts) if text])
        for doc, term in conn.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
            out[doc - 1].append(term)
    finally:
        conn.execute("ROLLBACK")
    return out


@dataclass(frozen=True)
class Phrase:
    """Consecutive stems (``()``: a phrase with no token, which matches nothing), in
    ``columns`` only (weight letters of the index; ``""``: any column); ``text`` is what
    they were read from (an FTS5 phrase of it finds the same rows)."""

    stems: tuple[str, ...]
    columns: str = ""
    text: str = field(default="", compare=False)


@dataclass(frozen=True)
class Match:
    """``op`` is ``phrase`` (``phrase`` set), ``and``, ``or`` or ``not`` (``parts[0]``
    and not ``parts[1]``)."""

    op: str
    parts: tuple[Match, ...] = ()
    phrase: Phrase | None = None

    def phrases(self) -> list[Phrase]:
        """Every phrase of the expression, in order (repeats kept, as FTS5 keeps them)."""
        if self.phrase is not None:
            return [self.phrase]
        return [p for part in self.parts for p in part.phrases()]

    def tsquery(self) -> str:
        """The expression as PostgreSQL ``tsquery`` text over the stems."""
        if self.phrase is not None:
            stems = self.phrase.stems or (NOTHING,)
            cols = f":{self.phrase.columns}" if self.phrase.columns else ""
            return "(" + " <-> ".join(f"'{s}'{cols}" for s in stems) + ")"
        inner = [p.tsquery() for p in self.parts]
        if self.op == "not":
            return f"({inner[0]} & !{inner[1]})"
        return "(" + (" & " if self.op == "and" else " | ").join(inner) + ")"


def phrase(text: str, columns: str = "", stems: tuple[str, ...] | None = None) -> Match:
    """A phrase of ``text``'s stems as a match expression (``stems``: read already)."""
    return Match("phrase", phrase=Phrase(tuple(terms(text)) if stems is None else stems,
                                         columns, text))


def both(a: Match, b: Match) -> Match:
    return Match("and", (a, b))


def parse_match(expr: str) -> Match:
    """The FTS5 expression ``expr`` as a ``Match``. Raises ``ValidationError`` on an
    expression outside the subset (unbalanced parentheses, an operator with nothing on
    one side)."""
    items: list[tuple[str, str]] = []
    for m in _QUERY.finditer(expr):
        quoted, opening, closing, bare = m.groups()
        if quoted is not None:
            items.append(("text", quoted.replace('""', '"')))
        elif opening:
            items.append(("(", ""))
        elif closing:
            items.append((")", ""))
        elif bare in ("AND", "OR", "NOT"):
            items.append((bare, ""))
        else:
            items.append(("text", bare))
    stems = prepare([text for kind, text in items if kind == "text"])
    parser = _Parser(items, expr, stems)
    out = parser.or_()
    if parser.pos != len(items):
        raise ValidationError("match", f"cannot read {expr!r} as a match expression")
    return out


class _Parser:
    """Recursive descent with FTS5's precedence: NOT, then AND (or juxtaposition), then OR."""

    def __init__(self, items: list[tuple[str, str]], expr: str,
                 stems: dict[str, tuple[str, ...]]) -> None:
        self.items = items
        self.expr = expr
        self.stems = stems  # each phrase's (``prepare``)
        self.pos = 0

    def _peek(self) -> str:
        return self.items[self.pos][0] if self.pos < len(self.items) else ""

    def or_(self) -> Match:
        parts = [self.and_()]
        while self._peek() == "OR":
            self.pos += 1
            parts.append(self.and_())
        return parts[0] if len(parts) == 1 else Match("or", tuple(parts))

    def and_(self) -> Match:
        parts = [self.not_()]
        while self._peek() in ("AND", "text", "("):
            if self._peek() == "AND":
                self.pos += 1
            parts.append(self.not_())
        return parts[0] if len(parts) == 1 else Match("and", tuple(parts))

    def not_(self) -> Match:
        out = self.primary()
        while self._peek() == "NOT":
            self.pos += 1
            out = Match("not", (out, self.primary()))
        return out

    def primary(self) -> Match:
        kind = self._peek()
        if kind == "text":
            self.pos += 1
            text = self.items[self.pos - 1][1]
            return phrase(text, stems=self.stems.get(text, ()))
        if kind == "(":
            self.pos += 1
            out = self.or_()
            if self._peek() != ")":
                raise ValidationError("match", f"unbalanced parentheses in {self.expr!r}")
            self.pos += 1
            return out
        raise ValidationError("match", f"cannot read {self.expr!r} as a match expression")


def idf(n_rows: int, n_hits: int) -> float:
    """BM25's inverse document frequency as FTS5 computes it."""
    value = math.log((0.5 + n_rows - n_hits) / (0.5 + n_hits))
    return value if value > 0.0 else 1e-6


def tsvector(columns: list[tuple[str, str]]) -> tuple[str, int]:
    """(``tsvector`` text, token count) of a row's columns, given as (text, weight letter):
    each stem with its positions, weighted by the column it is in. Columns are kept apart
    by a gap, so no phrase spans two of them."""
    positions: dict[str, list[str]] = {}
    pos = 0
    count = 0
    for text, weight in columns:
        for s in terms(text):
            pos += 1
            count += 1
            at = positions.setdefault(s, [])
            if len(at) < 255:  # PostgreSQL keeps at most 256 positions of a lexeme
                at.append(f"{min(pos, 16383)}{weight}")
        pos += 8
    out = " ".join(f"'{s}':" + ",".join(at) for s, at in positions.items())
    return out, count
