"""FTS5's index of the sources, their lexical statistics and the speakers' turn counts are
written after capture on SQLite (issue 16, migration m014), with the postings, up to one
mark: capture writes none of them; a search (both lexical roads) and the turn counts give
the same before and after the index catches up; forget takes out only what was indexed;
a process killed between the capture commit and the indexing, or inside the indexing,
leaves a ledger whose index catches up on the next open, with the same results.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trace_ros.capture import Event, prepare
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope
from trace_ros.storage import postings
from trace_ros.storage.sqlite.deferred import _ADD_STATS, _ADD_TURNS, row_size
from trace_ros.storage.sqlite.migrations import FTS_SIZE, M012, _lex_parts, fts_size
from trace_ros.storage.sqlite.readonly import open_read_only

CONFIG = CaptureConfig()
SAID = [("sam", "Sam", "The garden needs water and the garden soil is dry."),
        ("sam", "Ana", "Tomatoes grow in the garden by the water tank."),
        ("zoe", "Zoe", "The soil is rich; basil and tomatoes everywhere."),
        ("sam", "Sam", "I water the basil every morning in the garden."),
        ("zoe", "Bo", "Garden party at noon, bring water and basil."),
        ("sam", "Ana", "The garden soil is wet after the rain.")]
# Both roads: one-stem phrases (the postings), phrases of two stems, a column, the
# subject's own stem (FTS5's vocabulary).
ASKED = ['"garden" OR "water"', '"basil" NOT "soil"', '"garden soil"', '"the garden" OR "sam"',
         'speaker : "ana" AND "garden"', '"water"']


def _store(led: Ledger, items: list[tuple[str, str, str]], start: int) -> None:
    events = [Event("dialogue", Scope(subject, "r1", "s1"), text, speaker,
                    stamp=1000.0 + start + i, source_id=f"d{start + i}")
              for i, (subject, speaker, text) in enumerate(items)]
    assert all(r.status == "accepted"
               for r in led.store_sources([prepare(e, CONFIG) for e in events], now=2000.0))


def _searches(led: Ledger, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    out: list[Any] = []
    for subject in ("sam", "zoe"):
        for expr in ASKED:
            out.append(led.search_sources(Scope(subject), expr, 10, weights=(1.0, 0.5)))
            with monkeypatch.context() as m:  # the FTS5 road for every expression
                m.setattr(postings, "usable", lambda match, subject: False)
                out.append(led.search_sources(Scope(subject), expr, 10, weights=(1.0, 0.5)))
    return out + [led.speaker_turns("sam"), led.speaker_turns("zoe")]


def _mark(led: Ledger) -> int:
    return int(led.query("SELECT upto FROM postings_mark")[0][0])


def _derived(led: Ledger) -> tuple[Any, ...]:
    """FTS5's rows, the sources' statistics and the turn counts as stored."""
    return (sorted(r[0] for r in led.query("SELECT id FROM sources_fts_docsize")),
            sorted(tuple(r) for r in led.query(
                "SELECT subject_id, n_docs, n_tokens FROM lex_stats WHERE kind = 'source'")),
            sorted(tuple(r) for r in led.query("SELECT subject_id, speaker, n FROM speaker_turns")))


def _expected(led: Ledger) -> tuple[Any, ...]:
    """The same, counted from the sources up to the mark."""
    rows = led.query("SELECT seq, subject_id, speaker, text, modality FROM sources "
                     "WHERE seq <= ? ORDER BY seq", (_mark(led),))
    stats: dict[str, list[int]] = {}
    turns: dict[tuple[str, str], int] = {}
    for _seq, subject, speaker, text, modality in rows:
        s = stats.setdefault(subject, [0, 0])
        s[0], s[1] = s[0] + 1, s[1] + row_size(subject, text, speaker)
        if modality == "dialogue" and speaker:
            turns[(subject, speaker)] = turns.get((subject, speaker), 0) + 1
    return ([int(r[0]) for r in rows], sorted((k, *v) for k, v in stats.items()),
            sorted((*k, n) for k, n in turns.items()))


def _fts_intact(led: Ledger) -> None:
    """FTS5's own check of its index against the sources (every source indexed)."""
    with led.write() as conn:
        conn.execute("INSERT INTO sources_fts (sources_fts, rank) VALUES ('integrity-check', 1)")


def test_capture_writes_none_of_them_and_the_index_writes_all_to_its_mark(
        tmp_path: Path) -> None:
    with Ledger(tmp_path / "c.db") as led:
        _store(led, SAID, 0)
        assert _derived(led) == ([], [], [])
        assert led.index_postings(4) == 4 and _mark(led) == 4
        assert _derived(led) == _expected(led) and _derived(led)[0] == [1, 2, 3, 4]
        assert led.index_postings(100) == 2 and _derived(led) == _expected(led)
        _fts_intact(led)


def test_searches_and_turn_counts_are_the_same_before_and_after_indexing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A source just captured is found on both roads before the index holds it, and
    ranked as once it does (the subject's statistics include it): the same doubles."""
    with Ledger(tmp_path / "s.db") as led:
        _store(led, SAID[:3], 0)
        led.index_postings(2)
        _store(led, SAID[3:], 3)  # four above the mark: found from their text
        before = _searches(led, monkeypatch)
        assert any(seq > 2 for got in before[:-2] for seq, _, _ in got)
        assert before[-2] == {"Ana": 2, "Sam": 2}
        led.index_postings(100)
        assert _searches(led, monkeypatch) == before


def test_forget_takes_out_only_what_was_indexed(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    with Ledger(tmp_path / "f.db") as led:
        _store(led, SAID, 0)
        led.index_postings(3)
        led.forget(None, ["d4", "d1"])  # one above the mark, one below
        assert _derived(led) == _expected(led)
        before = _searches(led, monkeypatch)
        led.index_postings(100)
        assert _derived(led) == _expected(led) and _searches(led, monkeypatch) == before
        _fts_intact(led)
        led.forget(Scope("zoe"))
        assert _derived(led) == _expected(led)
        _fts_intact(led)


def test_rebuild_writes_them_all_from_the_sources(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    with Ledger(tmp_path / "r.db") as led:
        _store(led, SAID, 0)
        led.index_postings(2)
        before = _searches(led, monkeypatch)
        led.rebuild_fts()
        assert _mark(led) == 6 and _derived(led) == _expected(led)
        assert _searches(led, monkeypatch) == before
        _fts_intact(led)


_CHILD = """
import os, signal, sys
from trace_ros.ledger import Ledger
from trace_ros.storage.sqlite import deferred
led = Ledger(sys.argv[1])
if sys.argv[2] == "inside":  # killed in the indexing transaction, FTS5 rows written
    def killed(conn, rows):
        os.kill(os.getpid(), signal.SIGKILL)
    deferred.add_postings = killed
    led.index_postings(100)
os.kill(os.getpid(), signal.SIGKILL)  # after the capture commit, before any indexing
"""


@pytest.mark.parametrize("when", ["before", "inside"])
def test_a_kill_before_or_inside_the_indexing_catches_up_on_the_next_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    """kill -9 after the capture commit (acknowledged sources) and before, or in the
    middle of, the indexing: the next process finds the sources, the index up to its old
    mark only, the same search results, and catches the index up to a rebuild's rows."""
    path, fresh = tmp_path / "k.db", tmp_path / "fresh.db"
    with Ledger(path) as led, Ledger(fresh) as ref:
        _store(led, SAID[:2], 0)
        led.index_postings(100)
        _store(led, SAID[2:], 2)
        _store(ref, SAID, 0)
        ref.index_postings(100)
        expected = _searches(ref, monkeypatch)
    child = subprocess.run([sys.executable, "-c", _CHILD, str(path), when], timeout=120)
    assert child.returncode == -signal.SIGKILL
    with Ledger(path) as led:
        assert led.count_sources() == 6 and _mark(led) == 2
        assert _derived(led) == _expected(led)
        assert _searches(led, monkeypatch) == expected
        assert led.index_postings(100) == 4
        assert _derived(led) == _expected(led) and _searches(led, monkeypatch) == expected
        _fts_intact(led)
        assert led.integrity_check() == "ok"



def _back_to_m013(path: Path) -> None:
    """The file as m013 left it: the triggers write FTS5's rows, the statistics and the
    turn counts with each source (m007, m012), so they hold every source; the postings
    stand at their mark; m014 not recorded."""
    index, unindex, add, take = _lex_parts("sources_fts", "seq", "source", "text", "speaker")
    turns = M012.sql[M012.sql.index("CREATE TRIGGER"):]
    conn = sqlite3.connect(path, isolation_level=None)
    conn.create_function(FTS_SIZE, 1, fts_size, deterministic=True)
    conn.executescript(f"""
        BEGIN;
        DROP TRIGGER sources_fts_ad; DROP TRIGGER sources_fts_au;
        DROP TRIGGER sources_turns_ad;
        INSERT INTO sources_fts (sources_fts) VALUES ('rebuild');
        DELETE FROM lex_stats WHERE kind = 'source';
        DELETE FROM speaker_turns;
        CREATE TRIGGER sources_fts_ai AFTER INSERT ON sources BEGIN {index} {add} END;
        CREATE TRIGGER sources_fts_ad AFTER DELETE ON sources BEGIN {take} {unindex} END;
        CREATE TRIGGER sources_fts_au AFTER UPDATE OF text, speaker, subject_id ON sources
            BEGIN {take} {unindex} {index} {add} END;
        {turns}
        DELETE FROM schema_version WHERE name = 'm014_deferred_lexical';
        DELETE FROM _sqlite_migrations WHERE name = 'm014_deferred_lexical';
        COMMIT;""")
    with conn:
        conn.execute(_ADD_STATS, (-1, 2**62))
        conn.execute(_ADD_TURNS, (-1, 2**62))
    conn.close()


def test_a_ledger_before_m014_is_indexed_to_its_last_source_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On an m013 file the triggers indexed every source in FTS5 while the postings stand
    at their mark: a reader finds it complete, and the migration writes the postings up
    to the last source and moves the mark there, FTS5's rows written once."""
    path = tmp_path / "m013.db"
    with Ledger(path) as led:
        _store(led, SAID, 0)
        led.index_postings(2)
        expected = _searches(led, monkeypatch)
    _back_to_m013(path)
    reader = open_read_only(path)  # not migrated: FTS5 holds every source
    assert reader.query("SELECT upto FROM postings_mark") == [(2,)]
    assert _searches(reader, monkeypatch) == expected
    reader.close()
    with Ledger(path) as led:
        assert _mark(led) == 6 and _derived(led) == _expected(led)
        assert _searches(led, monkeypatch) == expected and led.index_postings(10) == 0
        _fts_intact(led)
