"""The source postings (``storage/postings.py``, migrations m011 / p013) give lexical
search the rows and scores of the exhaustive road, on both engines.

Random memories and expressions (hypothesis) are searched twice on the same ledger: from
the postings, and by the engine's own exhaustive scoring of every matching row (FTS5's
vocabulary on SQLite, the tsvector statement on PostgreSQL); the (seq, ID, score) lists
must be equal to the last bit, and equal across the engines. The stored postings must be
those of the sources after capture, forget and rebuild, and a ledger written before the
table gets it filled in place.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Scope
from trace_ros.storage import postings
from trace_ros.storage.postgresql import postings as pg_postings
from trace_ros.storage.sqlite import postings as sq_postings

WORDS = ("garden", "water", "soil", "basil", "tomato", "gardens", "watering", "run", "ran",
         "robot", "camera", "the", "a", "is")
SPEAKERS = ("Sam", "robot", "front_camera", "Zoe garden")
SUBJECTS = ("sam", "zoe")

texts = st.lists(st.sampled_from(WORDS), min_size=0, max_size=9).map(" ".join)
memories = st.lists(st.tuples(st.sampled_from(SUBJECTS), st.sampled_from(SPEAKERS), texts,
                              st.sampled_from(("r1", "r2"))), min_size=1, max_size=40)


def _word() -> st.SearchStrategy[str]:
    return st.sampled_from(WORDS + ("absent", "sam", "zoe")).map(lambda w: f'"{w}"')


expressions = st.recursive(_word(), lambda inner: st.tuples(
    inner, st.sampled_from((" OR ", " AND ", " NOT ")), inner).map(
        lambda t: f"({t[0]}{t[1]}{t[2]})"), max_leaves=5)


def _fill(led: Any, memory: list[tuple[str, str, str, str]]) -> None:
    events = [Event("dialogue", Scope(subject, robot, "s1"), text or "-", speaker,
                    stamp=1000.0 + i, source_id=f"m{i}")
              for i, (subject, speaker, text, robot) in enumerate(memory)]
    assert all(r.status == "accepted" for r in ingest(led, events, CaptureConfig()))


def _search(led: Any, subject: str, expr: str, k: int, weights: tuple[float, float],
            robot: str, before: float | None) -> list[Any]:
    return led.search_sources(Scope(subject, robot), expr, k, as_of_valid=before,
                              weights=weights)


def _exhaustive(monkeypatch: pytest.MonkeyPatch, led: Any, *args: Any) -> list[Any]:
    with monkeypatch.context() as m:
        m.setattr(postings, "usable", lambda match, subject: False)
        return _search(led, *args)


def _expected_postings(led: Any) -> dict[tuple[str, str], list[tuple[int, ...]]]:
    rows = led.query("SELECT seq, subject_id, speaker, text FROM sources")
    return {k: [tuple(int(x) for x in e) for e in v]
            for k, v in postings.by_key([(int(r[0]), r[1], r[2], r[3]) for r in rows]).items()}


def _stored_postings(led: Any, engine: str) -> dict[tuple[str, str], list[tuple[int, ...]]]:
    read = sq_postings.postings_of if engine == "sqlite" else pg_postings.postings_of
    out = {}
    for (subject,) in led.query("SELECT DISTINCT subject_id FROM source_postings"):
        with led.read() as conn:
            got = read(conn, subject)
        out.update({(subject, stem): [tuple(int(x) for x in e) for e in np.sort(v, order="seq")]
                    for stem, v in got.items()})
    return out


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(memory=memories, queries=st.lists(st.tuples(
    st.sampled_from(SUBJECTS), expressions, st.integers(1, 12),
    st.sampled_from(((1.0, 1.0), (1.0, 0.5), (0.3, 0.0), (0.2, 1.3))),
    st.sampled_from(("", "r1")), st.sampled_from((None, 1010.0)),
    st.sampled_from(("sqlite", "postgresql"))), min_size=1, max_size=6))
def test_postings_rank_as_the_exhaustive_scoring(
        open_engine: Callable[[str], Any], monkeypatch: pytest.MonkeyPatch,
        memory: list[tuple[str, str, str, str]], queries: list[Any]) -> None:
    ledgers = {}
    for engine in dict.fromkeys(q[-1] for q in queries):
        ledgers[engine] = open_engine(engine)
        _fill(ledgers[engine], memory)
    by_engine: dict[tuple[Any, ...], list[Any]] = {}
    for *args, engine in queries:
        led = ledgers[engine]
        fast = _search(led, *args)
        assert fast == _exhaustive(monkeypatch, led, *args), (engine, args)
        assert _search(led, *args) == fast  # again, from what the first search kept
        assert by_engine.setdefault(tuple(args), fast) == fast  # and alike on both engines


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_postings_follow_capture_forget_and_rebuild(
        open_engine: Callable[[str], Any], monkeypatch: pytest.MonkeyPatch,
        engine: str) -> None:
    monkeypatch.setattr(postings, "BLOCK", 4)  # many blocks, some half full
    led = open_engine(engine)
    words = list(WORDS)
    memory = [(SUBJECTS[i % 2], SPEAKERS[i % 4], " ".join(words[i % 7: i % 7 + 4]), "r1")
              for i in range(60)]
    _fill(led, memory)
    assert _stored_postings(led, engine) == _expected_postings(led)
    blocks = led.query("SELECT count(*) FROM source_postings")[0][0]
    assert blocks > len(_expected_postings(led))  # stems with several blocks
    led.forget(None, [f"m{i}" for i in range(0, 60, 7)])
    led.forget(Scope("zoe", "r1", "s1"), [f"m{i}" for i in range(1, 20, 2)])
    assert _stored_postings(led, engine) == _expected_postings(led)
    ingest(led, [Event("dialogue", Scope("sam"), "garden water again", "Sam", stamp=5000.0,
                       source_id="late")], CaptureConfig())
    assert _stored_postings(led, engine) == _expected_postings(led)
    expr = '"garden" OR "water" OR "robot"'
    before = led.search_sources(Scope("sam"), expr, 50)
    with led.write() as conn:
        conn.execute("DELETE FROM source_postings WHERE stem = 'garden'")
    led.rebuild_fts()
    assert _stored_postings(led, engine) == _expected_postings(led)
    assert led.search_sources(Scope("sam"), expr, 50) == before
    led.forget(Scope("sam"))
    assert led.query("SELECT count(*) FROM source_postings WHERE subject_id = 'sam'")[0][0] == 0


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_postings_appended_a_few_sources_at_a_time(
        open_engine: Callable[[str], Any], monkeypatch: pytest.MonkeyPatch,
        engine: str) -> None:
    """Capture commits a few sources at a time (a robot talking): each commit appends to
    the last block of its stems, and a full block starts another; the stored postings are
    those of the sources, and no block holds more than ``BLOCK`` entries."""
    monkeypatch.setattr(postings, "BLOCK", 4)
    led = open_engine(engine)
    events = [Event("dialogue", Scope(SUBJECTS[i % 2], "r1", "s1"),
                    " ".join(WORDS[i % 5: i % 5 + 3]), SPEAKERS[i % 4], stamp=1000.0 + i,
                    source_id=f"a{i}") for i in range(40)]
    for size in (1, 2, 3):
        ingest(led, events[:14 * size][-14:], CaptureConfig(), batch_size=size)
    assert _stored_postings(led, engine) == _expected_postings(led)
    assert led.query("SELECT max(n) FROM source_postings")[0][0] <= 4


def test_a_sqlite_ledger_before_m011_gets_its_postings_in_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trace_ros.ledger import Ledger

    monkeypatch.setattr(postings, "BLOCK", 4)  # several blocks per stem,
    monkeypatch.setattr(sq_postings, "REBUILD_CHUNK", 7)  # filled over several chunks

    path = tmp_path / "old.db"
    with Ledger(path) as led:
        _fill(led, [(SUBJECTS[i % 2], "Sam", f"garden water {WORDS[i % 14]}", "r1")
                    for i in range(30)])
        expected = _expected_postings(led)
        before = led.search_sources(Scope("sam"), '"garden" OR "basil"', 10)
        with led.write() as conn:  # as migration m010 left it
            conn.execute("DROP TABLE source_postings")
            conn.execute("DELETE FROM schema_version WHERE version = 11")
            conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm011_source_postings'")
    with Ledger(path) as led:
        assert _stored_postings(led, "sqlite") == expected
        assert led.search_sources(Scope("sam"), '"garden" OR "basil"', 10) == before
        # Laid out in key order: a stem's blocks are neighbours in the file.
        keys = led.query("SELECT subject_id, stem, block FROM source_postings ORDER BY rowid")
        assert keys == sorted(keys) and len(keys) > 1


def test_a_postgresql_ledger_before_p013_gets_its_postings_in_place(fresh_pg_url: Any) -> None:
    from trace_ros.storage.postgresql import PgLedger

    with PgLedger(fresh_pg_url) as led:
        _fill(led, [(SUBJECTS[i % 2], "Sam", f"garden water {WORDS[i % 14]}", "r1")
                    for i in range(30)])
        expected = _expected_postings(led)
        before = led.search_sources(Scope("sam"), '"garden" OR "basil"', 10)
        with led.write() as conn:  # as migration p012 left it
            conn.execute("DROP TABLE source_postings")
            conn.execute("DELETE FROM schema_version WHERE version = 13")
    with PgLedger(fresh_pg_url) as led:
        assert _stored_postings(led, "postgresql") == expected
        assert led.search_sources(Scope("sam"), '"garden" OR "basil"', 10) == before
        assert led.query("SELECT indisclustered FROM pg_index WHERE indexrelid = "
                         "'source_postings_pkey'::regclass") == [(True,)]


def test_sqlite_forget_leaves_no_stem_of_the_text_in_the_file(tmp_path: Path) -> None:
    """A forgotten source's stems leave the postings and the file: a stem only it held
    (its block deleted) and one it shared with a source that stays (the block rewritten)."""
    from trace_ros.ledger import Ledger

    secret = "zanzibarquokka"
    path = tmp_path / "f.db"
    led = Ledger(path)
    _fill(led, [("carol", "Carol", f"ordinary line {i} quixotically", "r1") for i in range(9)])
    ingest(led, [Event("dialogue", Scope("carol"), f"{secret} quixotically", "Carol",
                       stamp=99.0, source_id="secret")], CaptureConfig())
    stems = {r[0] for r in led.query("SELECT stem FROM source_postings")}
    assert any(s.startswith(secret) for s in stems)
    led.forget(None, ["secret"])
    assert not any(r[0].startswith(secret) for r in led.query("SELECT stem FROM source_postings"))
    assert _stored_postings(led, "sqlite") == _expected_postings(led)
    led.close()
    for p in path.parent.glob(path.name + "*"):
        assert secret.encode() not in p.read_bytes(), p.name


def test_postings_usable_only_for_single_stems_outside_the_subject() -> None:
    from trace_ros.storage.lexical import both, parse_match, phrase

    assert postings.usable(parse_match('"garden" OR ("water" AND "soil")'), "sam")
    assert not postings.usable(parse_match('"garden water"'), "sam")  # a phrase of two
    assert not postings.usable(parse_match('"garden" OR "Sam"'), "sam")  # the subject's own
    assert not postings.usable(both(phrase("sam", "C"), parse_match('"garden"')), "sam")
    assert postings.usable(parse_match('"..."'), "sam")  # a phrase of no stem


def test_blocks_fill_up_then_split_and_keep_seq_order() -> None:
    e = np.array([(s, 3, 1, 0) for s in (5, 9, 12)], dtype=postings.ENTRY)
    first = postings.blocks_after(None, e, block=2)
    assert [(b.key, b.entries["seq"].tolist()) for b in first] == [(5, [5, 9]), (12, [12])]
    late = np.array([(11, 2, 1, 0), (20, 2, 0, 1)], dtype=postings.ENTRY)  # 11: out of order
    nxt = postings.blocks_after(first[-1], late, block=2)
    assert [(b.key, b.entries["seq"].tolist()) for b in nxt] == [(12, [11, 12]), (20, [20])]
    left = postings.blocks_without(first, np.array([9, 12]))
    assert [(b.key, b.entries["seq"].tolist()) for b in left] == [(5, [5]), (12, [])]
    # FTS5's row: text, speaker and subject tokens counted; the subject's stems left out.
    assert postings.entries_of(7, "sam", "Sam Gardener", "Gardens, gardens watered") == {
        "garden": (7, 6, 2, 1), "water": (7, 6, 1, 0), "sam": (7, 6, 0, 1)}


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_a_frequency_adds_its_column_weights_in_fts5_order(
        open_engine: Callable[[str], Any], monkeypatch: pytest.MonkeyPatch,
        engine: str) -> None:
    """0.2 + 0.2 + 1.3 (text, text, speaker: FTS5's order) is not 1.3 + 0.2 + 0.2, and
    the scores differ too: the postings give the exhaustive road's double."""
    led = open_engine(engine)
    _fill(led, [("sam", "Zoe garden", "garden and gardens", "r1"),
                ("sam", "Sam", "the garden", "r1"), ("sam", "Sam", "water", "r1")])
    args = ("sam", '"garden"', 5, (0.2, 1.3), "", None)
    fast = _search(led, *args)
    assert fast == _exhaustive(monkeypatch, led, *args) and len(fast) == 2


def test_postgresql_writers_of_one_subject_keep_every_posting(
        open_engine: Callable[[str], Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Several capturing writers of one subject at once (a fleet): each locks the last
    blocks it appends to, so no entry is lost, and every block stays in seq order."""
    import threading

    from trace_ros.storage.postgresql import PgLedger

    monkeypatch.setattr(postings, "BLOCK", 4)
    owner = open_engine("postgresql")
    writers = [PgLedger(owner.url) for _ in range(3)]
    errors: list[BaseException] = []

    def write(w: int) -> None:
        try:
            for i in range(12):
                ingest(writers[w], [Event("dialogue", Scope("sam", f"r{w}", "s1"),
                                          f"garden water {WORDS[(i + w) % 14]}", "Sam",
                                          stamp=1000.0 + i, source_id=f"w{w}-{i}")],
                       CaptureConfig())
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for w in writers:
        w.close()
    assert not errors and owner.count_sources() == 36
    assert _stored_postings(owner, "postgresql") == _expected_postings(owner)
    for (blob,) in owner.query("SELECT postings FROM source_postings"):
        seqs = postings.decode(blob)["seq"]
        assert (np.diff(seqs) > 0).all()
