"""The stems of texts are asked of FTS5 in a transaction that is rolled back (issue 16
point 3): what a round returns is what a fresh FTS5 table indexes the texts under, and
nothing of it stays in the tokenizer's table or holds a transaction open."""

from __future__ import annotations

import sqlite3

import pytest

from trace_ros.storage import lexical

TEXTS = ["Running dogs' races, jumped!", "", "Ünïcödé café — naïve ROOMS 7C", "x",
         "the the the", "D&D night at 8:30pm"]


def _fresh(texts: list[str]) -> list[list[str]]:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (x, tokenize='porter unicode61')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance')")
    out: list[list[str]] = [[] for _ in texts]
    conn.executemany("INSERT INTO t (rowid, x) VALUES (?, ?)",
                     [(i + 1, t) for i, t in enumerate(texts) if t])
    for doc, term in conn.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
        out[doc - 1].append(term)
    return out


def test_a_round_returns_what_fts5_indexes_and_leaves_nothing():
    for _ in range(3):  # rounds one after another see an empty table
        assert lexical.terms_of(TEXTS) == _fresh(TEXTS)
        conn = lexical._tokenizer()
        assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0
        assert not conn.in_transaction  # fails with the former DELETE: a transaction stayed open


def test_a_failed_round_rolls_back():
    conn = lexical._tokenizer()
    with pytest.raises(sqlite3.Error):
        lexical._terms_of([["not", "text"]])  # type: ignore[list-item]  # cannot be bound
    assert not conn.in_transaction
    assert lexical.terms_of(["Jumped"]) == [["jump"]]
