"""Lexical statistics are each subject's own (issue 15): BM25's row count, mean row length
and document frequencies come from the subject's rows only, on both engines.

So a subject's lexical ranking does not move when another subject's text arrives, a
database role confined to its subjects (row-level security) ranks exactly as the owner
does, and it reads no other subject's statistics. A ledger written before the SQLite
statistics existed (migration m007) gets them counted in place; before that, the
read-only explorer ranks it the same from the text.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))

from graphkit import consolidate, fact  # noqa: E402

from trace_ros.capture import Event, ingest  # noqa: E402
from trace_ros.config import CaptureConfig  # noqa: E402
from trace_ros.ledger import Scope  # noqa: E402
from trace_ros.storage.lexical import terms  # noqa: E402

SAM = ("The garden needs water and the garden soil is dry.", "Tomatoes grow in the garden.",
       "We watched the football match.", "The soil in the garden is rich now.",
       "Basil and tomatoes, both from the garden.", "I water the basil every morning.")
# Another subject, with many of the same words and more rows, to move ledger-wide counts.
ZOE = tuple(f"Zoe's garden party {i}: water, soil and football for everyone."
            for i in range(9))
QUERIES = ('"garden"', '"soil" OR "water"', '"garden" AND "basil"', '"tomatoes" NOT "basil"')


def _say(led: Any, subject: str, texts: tuple[str, ...]) -> None:
    events = [Event("dialogue", Scope(subject, "r1", "s1"), text, subject.title(),
                    stamp=1_700_000_000.0 + i, source_id=f"{subject}-{i}",
                    payload={"facts": [fact("action", value=text.split()[1])]})
              for i, text in enumerate(texts)]
    assert all(r.status == "accepted" for r in ingest(led, events, CaptureConfig()))
    consolidate(led)


def _searches(led: Any, subject: str = "sam") -> list[Any]:
    out: list[Any] = []
    for q in QUERIES:
        out.append(led.search_sources(Scope(subject), q, 10, weights=(1.0, 0.5)))
        out.append(led.search_facts(Scope(subject), q, 10))
    return out


def _graph_search(led: Any, subject: str = "sam") -> list[list[str]]:
    with led.write() as tx:
        return [[f.fact_id for f in led.graph.facts_matching_text(tx, subject, q, 10, 10**9)]
                for q in QUERIES]


def test_a_subjects_ranking_ignores_other_subjects(ledger: Any) -> None:
    _say(ledger, "sam", SAM)
    alone, graph_alone = _searches(ledger), _graph_search(ledger)
    assert alone[0] and alone[1]  # sources and facts are found
    _say(ledger, "zoe", ZOE)
    assert _searches(ledger) == alone  # the same rows, scores to the last bit
    assert _graph_search(ledger) == graph_alone


def test_both_engines_score_per_subject_alike(open_engine: Callable[[str], Any]) -> None:
    sqlite, pg = open_engine("sqlite"), open_engine("postgresql")
    for led in (sqlite, pg):
        _say(led, "zoe", ZOE)
        _say(led, "sam", SAM)
    assert _searches(sqlite) == _searches(pg)
    assert _searches(sqlite, "zoe") == _searches(pg, "zoe")
    assert _graph_search(sqlite) == _graph_search(pg)


def _stats(led: Any) -> dict[tuple[str, str], tuple[int, int]]:
    return {(r[0], r[1]): (int(r[2]), int(r[3])) for r in led.query(
        "SELECT subject_id, kind, n_docs, n_tokens FROM lex_stats")}


def _expected(led: Any) -> dict[tuple[str, str], tuple[int, int]]:
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for kind, sql in (("source", "SELECT subject_id, text, speaker FROM sources"),
                      ("fact", "SELECT subject_id, description, value FROM facts")):
        for subject, a, b in led.query(sql):
            n, t = out.get((subject, kind), (0, 0))
            out[(subject, kind)] = (n + 1, t + sum(len(terms(x)) for x in (a, b, subject)))
    return out


def test_the_statistics_follow_capture_forget_and_rebuild(ledger: Any) -> None:
    _say(ledger, "sam", SAM)
    _say(ledger, "zoe", ZOE)
    assert _stats(ledger) == _expected(ledger)
    ledger.forget(source_ids=["sam-0", "zoe-3"])
    assert _stats(ledger) == _expected(ledger)
    ledger.forget(Scope("zoe"))
    assert not [k for k in _stats(ledger) if k[0] == "zoe"]
    ledger.reset_derived()
    consolidate(ledger)
    assert _stats(ledger) == _expected(ledger)


# The FTS5 triggers as m002/m003 left them, and no statistics or vocabulary tables (m014
# dropped the sources' insert trigger).
PRE_M007 = """
    DROP TABLE lex_stats; DROP TABLE sources_vocab; DROP TABLE facts_vocab;
    DROP TRIGGER IF EXISTS sources_fts_ai; DROP TRIGGER sources_fts_ad;
    DROP TRIGGER sources_fts_au;
    DROP TRIGGER facts_fts_ai; DROP TRIGGER facts_fts_ad; DROP TRIGGER facts_fts_au;
    CREATE TRIGGER sources_fts_ai AFTER INSERT ON sources BEGIN
        INSERT INTO sources_fts (rowid, text, speaker, subject_id)
        VALUES (new.seq, new.text, new.speaker, new.subject_id); END;
    CREATE TRIGGER sources_fts_ad AFTER DELETE ON sources BEGIN
        INSERT INTO sources_fts (sources_fts, rowid, text, speaker, subject_id)
        VALUES ('delete', old.seq, old.text, old.speaker, old.subject_id); END;
    CREATE TRIGGER facts_fts_ai AFTER INSERT ON facts BEGIN
        INSERT INTO facts_fts (rowid, description, value, subject_id)
        VALUES (new.rowid, new.description, new.value, new.subject_id); END;
    CREATE TRIGGER facts_fts_ad AFTER DELETE ON facts BEGIN
        INSERT INTO facts_fts (facts_fts, rowid, description, value, subject_id)
        VALUES ('delete', old.rowid, old.description, old.value, old.subject_id); END;
    CREATE TRIGGER facts_fts_au AFTER UPDATE OF description, value ON facts BEGIN
        INSERT INTO facts_fts (facts_fts, rowid, description, value, subject_id)
        VALUES ('delete', old.rowid, old.description, old.value, old.subject_id);
        INSERT INTO facts_fts (rowid, description, value, subject_id)
        VALUES (new.rowid, new.description, new.value, new.subject_id); END;
"""


def test_sqlite_counts_the_statistics_of_an_older_ledger(tmp_path: Path) -> None:
    from trace_ros.ledger import Ledger
    from trace_ros.storage.readonly import open_read_only

    path = tmp_path / "old.db"
    with Ledger(path) as led:
        _say(led, "sam", SAM)
        _say(led, "zoe", ZOE)
        expected, ranked = _stats(led), _searches(led)
    conn = sqlite3.connect(path)  # back to the schema before m007, rows kept
    conn.executescript(PRE_M007 + "DELETE FROM schema_version WHERE name = 'm007_lexical_stats'; "
                       "DELETE FROM _sqlite_migrations WHERE name = 'm007_lexical_stats';")
    conn.close()
    with open_read_only(path) as ro:  # the explorer never migrates: counted from the text
        assert _searches(ro) == ranked
    with Ledger(path) as led:
        assert _stats(led) == expected and _searches(led) == ranked


@pytest.fixture
def confined(open_engine: Callable[[str], Any], grant: Callable[..., Any]) -> tuple[Any, Any]:
    """(owner's ledger with sam and zoe, the same ledger opened as a role granted sam)."""
    from trace_ros.storage.postgresql import PgLedger

    owner = open_engine("postgresql")
    _say(owner, "sam", SAM)
    _say(owner, "zoe", ZOE)
    return owner, PgLedger(grant(owner, ["sam"]))


def test_a_confined_role_ranks_as_the_owner_and_sees_only_its_statistics(
        confined: tuple[Any, Any]) -> None:
    owner, mine = confined
    try:
        assert _searches(mine) == _searches(owner)
        assert _searches(mine)[0]
        assert _searches(mine, "zoe") == [[]] * (2 * len(QUERIES))
        assert {k[0] for k in _stats(owner)} == {"sam", "zoe"}
        assert {k[0] for k in _stats(mine)} == {"sam"}  # hand-written SQL, too
        assert not mine.query("SELECT 1 FROM source_lex WHERE subject_id = 'zoe'")
    finally:
        mine.close()
