"""``storage.lexical`` gives the stems SQLite's FTS5 ``porter unicode61`` tokenizer indexes
(checked against a ledger-like FTS5 table: emoji SQLite's Unicode tables count as letters,
diacritics, non-ASCII stems), and reads the FTS5 match expressions the layers above write
with FTS5's precedence."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from trace_ros.errors import ValidationError
from trace_ros.language.caches import forget_texts
from trace_ros.storage import lexical
from trace_ros.storage.lexical import idf, parse_match, terms, tsvector

LOCOMO = Path("/work/shared/data/locomo10.json")
TEXTS = [
    "I was running with the dogs, running!", "Caroline's LGBTQ support group — it's great",
    "Café crème at 10:30, naïve résumé", "e-mail me: ann@example.com or call 555-0199",
    "UPPER lower MiXeD 3.14 x2 42nd", "generously studied ponies caresses",
    "a b cc ddd relational conditional", "", "   ...   ", "über straße façade",
    "Keep it up! \U0001F9D8\u200d\u2640\ufe0f so cool \U0001F918 \U0001F600 a\u0301b \ue000",
]


def _fts5_terms(texts: list[str]) -> list[list[str]]:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (x, tokenize='porter unicode61')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance')")
    conn.executemany("INSERT INTO t (rowid, x) VALUES (?, ?)", list(enumerate(texts, 1)))
    out: list[list[str]] = [[] for _ in texts]
    for term, doc in conn.execute("SELECT term, doc FROM v ORDER BY doc, offset"):
        out[doc - 1].append(term)
    return out


def test_terms_are_the_stems_fts5_indexes() -> None:
    assert [terms(t) for t in TEXTS] == _fts5_terms(TEXTS)


@pytest.mark.skipif(not LOCOMO.exists(), reason="LoCoMo data not present")
def test_terms_match_fts5_on_a_locomo_conversation() -> None:
    sample = json.loads(LOCOMO.read_text())[0]["conversation"]
    texts = [turn["text"] for key, turns in sample.items()
             if key.startswith("session_") and isinstance(turns, list) for turn in turns]
    assert len(texts) > 300
    assert [terms(t) for t in texts] == _fts5_terms(texts)


@pytest.mark.parametrize("expr, tsquery", [
    ('"dogs"', "('dog')"),
    ('"dogs" OR "cats"', "(('dog') | ('cat'))"),
    ('"a" OR "b" AND "c"', "(('a') | (('b') & ('c')))"),
    ('"a" "b"', "(('a') & ('b'))"),
    ('("a" OR "b") AND "c"', "((('a') | ('b')) & ('c'))"),
    ('"a" NOT "b"', "(('a') & !('b'))"),
    ('"talked about"', "('talk' <-> 'about')"),
    ('running', "('run')"),
    ('"say ""hi"""', "('sai' <-> 'hi')"),
    ('"..."', "('_')"),
])
def test_match_expressions_read_with_fts5_precedence(expr: str, tsquery: str) -> None:
    assert parse_match(expr).tsquery() == tsquery


@pytest.mark.parametrize("expr", ['("a"', '"a" OR', 'AND "a"', '"a")'])
def test_a_broken_expression_is_refused(expr: str) -> None:
    with pytest.raises(ValidationError):
        parse_match(expr)


def test_idf_and_tsvector() -> None:
    assert idf(10, 1) == pytest.approx(1.8458, abs=1e-4)  # log(9.5 / 1.5)
    assert idf(10, 9) == 1e-6  # not positive: FTS5's floor
    vec, n = tsvector([("Dogs run, dogs", "D"), ("Ann", "A")])
    assert (vec, n) == ("'dog':1D,3D 'run':2D 'ann':12A", 4)


def test_an_expressions_new_words_are_stemmed_in_one_round(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """Every phrase of an expression not kept yet is asked of FTS5 at once (three
    statements for all of them, not three per word), with the stems each gets alone."""
    words = ["zebras", "galloping", "quietly", "résumés", "x2"]
    lexical._terms.cache_clear()
    rounds: list[list[str]] = []
    real = lexical._terms_of
    monkeypatch.setattr(lexical, "_terms_of", lambda texts: rounds.append(list(texts)) or
                        real(texts))
    expr = parse_match(" OR ".join(f'"{w}"' for w in words) + ' AND "zebras"')
    assert rounds == [words]  # one round; "zebras" asked once
    assert [p.stems for p in expr.phrases()] == [tuple(s) for s in _fts5_terms(words)] + \
        [tuple(_fts5_terms(["zebras"])[0])]
    parse_match('"galloping" OR "ponies"')
    assert rounds == [words, ["ponies"]]  # kept words are not asked again
    assert lexical._terms.cache_info().currsize == len(words) + 1


def test_a_forget_empties_the_kept_stems() -> None:
    terms("a text that is forgotten later")
    assert lexical._terms.cache_info().currsize > 0
    forget_texts()
    assert lexical._terms.cache_info().currsize == 0
