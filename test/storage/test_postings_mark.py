"""The source postings written after capture (issue 16): on SQLite, capture stores no
postings; ``index_postings`` indexes the sources above the mark (``postings_mark``,
migration m013), and a search reads the sources above it from their text. Whatever the
mark, the rows and BM25 doubles are those of the exhaustive scoring (and so of a ledger
indexed to the end); forget, rebuild, the migration, bulk ingest and the capture writer
keep the mark true.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trace_ros.capture import Event, GroupCommitWriter, ingest, prepare
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope, StoreResult
from trace_ros.storage import lexical, postings
from trace_ros.storage.sqlite.readonly import open_read_only

sys.path.insert(0, str(Path(__file__).parent))
from test_source_postings import (  # noqa: E402
    SPEAKERS,
    SUBJECTS,
    WORDS,
    _exhaustive,
    _expected_postings,
    _fill,
    _search,
    _stored_postings,
    expressions,
    texts,
)

CONFIG = CaptureConfig()


def _store(led: Any, items: list[tuple[str, str, str, str]], start: int) -> None:
    """Store sources (subject, speaker, text, robot) through capture's write alone: no
    postings are written."""
    events = [Event("dialogue", Scope(subject, robot, "s1"), text or "-", speaker,
                    stamp=1000.0 + start + i, source_id=f"m{start + i}")
              for i, (subject, speaker, text, robot) in enumerate(items)]
    results = led.store_sources([prepare(e, CONFIG) for e in events], now=2000.0)
    assert all(r.status == "accepted" for r in results)


def _mark(led: Any) -> int:
    return int(led.query("SELECT upto FROM postings_mark")[0][0])


def _indexed_as_expected(led: Any) -> bool:
    """The stored postings are exactly those of the sources up to the mark."""
    upto = _mark(led)
    rows = led.query("SELECT seq, subject_id, speaker, text FROM sources WHERE seq <= ?",
                     (upto,))
    expected = {k: [tuple(int(x) for x in e) for e in v]
                for k, v in postings.by_key([(int(r[0]), r[1], r[2], r[3])
                                             for r in rows]).items()}
    return _stored_postings(led, "sqlite") == expected


sources = st.tuples(st.sampled_from(SUBJECTS), st.sampled_from(SPEAKERS), texts,
                    st.sampled_from(("r1", "r2")))
queries = st.tuples(st.sampled_from(SUBJECTS), expressions, st.integers(1, 12),
                    st.sampled_from(((1.0, 1.0), (1.0, 0.5), (0.2, 1.3))),
                    st.sampled_from(("", "r1")), st.sampled_from((None, 1010.0)))
steps = st.lists(st.tuples(
    st.lists(sources, max_size=8),  # stored in one capture transaction
    st.integers(0, 9),  # then index_postings(n) (0: not called)
    st.sampled_from((None, "first", "last")),  # then forget this source of the ledger
    st.lists(queries, max_size=3),  # then searched: fast == exhaustive, on both ledgers
    st.booleans()), min_size=1, max_size=6)  # the reader searches too (else it lags)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(plan=steps)
def test_a_tail_above_the_mark_ranks_as_everything_indexed(
        tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
        plan: list[Any]) -> None:
    """Random ledgers captured a batch at a time, indexed to random marks, with forgets:
    every search (the writer's ledger, whose kept postings grow with each search, and a
    read-only reader that searches now and then) gives the exhaustive road's (seq, ID,
    score) to the last bit, and the stored postings are those of the sources up to the
    mark."""
    monkeypatch.setattr(postings, "BLOCK", 4)  # blocks fill and split across marks
    monkeypatch.setattr(postings, "TAIL", 3)  # kept postings are read afresh often
    path = tmp_path_factory.mktemp("tail") / "t.db"
    led = Ledger(path)
    reader = open_read_only(path)
    try:
        n = 0
        for items, index, forget, asked, reader_asks in plan:
            _store(led, items, n)
            n += len(items)
            if index:
                before = _mark(led)
                got = led.index_postings(index)
                pending = led.query("SELECT count(*) FROM sources WHERE seq > ?", (before,))[0][0]
                assert got == min(index, pending)
            if forget and led.count_sources():
                order = "ASC" if forget == "first" else "DESC"
                sid = led.query(f"SELECT source_id FROM sources ORDER BY seq {order} LIMIT 1")
                led.forget(None, [sid[0][0]])
            assert _indexed_as_expected(led)
            for args in asked:
                fast = _search(led, *args)
                assert fast == _exhaustive(monkeypatch, led, *args), args
                if reader_asks:
                    assert _search(reader, *args) == fast, args
    finally:
        reader.close()
        led.close()


def test_capture_writes_no_postings_and_the_index_follows_in_seq_order(
        tmp_path: Path) -> None:
    with Ledger(tmp_path / "c.db") as led:
        _store(led, [("sam", "Sam", "garden water", "r1"), ("zoe", "Zoe", "basil", "r1"),
                     ("sam", "Sam", "the garden again", "r2")], 0)
        assert led.query("SELECT count(*) FROM source_postings")[0][0] == 0
        assert _mark(led) == 0
        assert led.index_postings(2) == 2 and _mark(led) == 2 and _indexed_as_expected(led)
        assert led.index_postings(2) == 1 and _mark(led) == 3 and _indexed_as_expected(led)
        assert led.index_postings(2) == 0 and _mark(led) == 3
        # Indexed without waiting for the disk; capture's own commits still do.
        assert led.query("PRAGMA synchronous") == [(2,)]  # FULL
        assert _stored_postings(led, "sqlite") == _expected_postings(led)


def test_bulk_ingest_leaves_the_ledger_indexed(tmp_path: Path) -> None:
    with Ledger(tmp_path / "i.db") as led:
        events = [Event("dialogue", Scope(SUBJECTS[i % 2], "r1", "s1"), f"garden {WORDS[i % 14]}",
                        "Sam", stamp=1000.0 + i, source_id=f"i{i}") for i in range(23)]
        ingest(led, events, CONFIG, batch_size=5)
        assert _mark(led) == 23 and led.index_postings(10) == 0
        assert _stored_postings(led, "sqlite") == _expected_postings(led)


def test_rebuild_indexes_everything_and_moves_the_mark(tmp_path: Path) -> None:
    with Ledger(tmp_path / "r.db") as led:
        _store(led, [(SUBJECTS[i % 2], "Sam", f"water {WORDS[i % 14]}", "r1")
                     for i in range(9)], 0)
        led.index_postings(4)
        led.rebuild_fts()
        assert _mark(led) == 9 and _stored_postings(led, "sqlite") == _expected_postings(led)
        _store(led, [("sam", "Sam", "late water", "r1")], 9)
        led.reset_derived()
        assert _mark(led) == 10 and _stored_postings(led, "sqlite") == _expected_postings(led)


def test_a_ledger_before_m013_is_marked_indexed_to_its_last_source(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with Ledger(path) as led:
        _fill(led, [(SUBJECTS[i % 2], "Sam", f"garden water {WORDS[i % 14]}", "r1")
                    for i in range(12)])
        before = led.search_sources(Scope("sam"), '"garden" OR "basil"', 10)
        with led.write() as conn:  # as migration m012 left it (postings of every source)
            conn.execute("DROP TABLE postings_mark")
            conn.execute("DELETE FROM schema_version WHERE version = 13")
            conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm013_postings_mark'")
    reader = open_read_only(path)  # a reader may open it as it is: every source indexed
    assert reader.search_sources(Scope("sam"), '"garden" OR "basil"', 10) == before
    reader.close()
    with Ledger(path) as led:
        assert _mark(led) == 12 and led.index_postings(10) == 0
        assert led.search_sources(Scope("sam"), '"garden" OR "basil"', 10) == before


def test_forget_of_sources_above_the_mark_leaves_the_postings_alone(tmp_path: Path) -> None:
    """A source not indexed yet has no postings to remove: forget changes none, the
    indexed ones lose theirs, and the forgotten text is in no page of the file."""
    secret = "zanzibarquokka"
    path = tmp_path / "f.db"
    led = Ledger(path)
    _store(led, [("carol", "Carol", f"ordinary line {i} quixotically", "r1") for i in range(6)], 0)
    led.index_postings(4)
    _store(led, [("carol", "Carol", f"{secret} quixotically", "r1")], 6)
    assert not any(r[0].startswith(secret) for r in led.query("SELECT stem FROM source_postings"))
    stored = _stored_postings(led, "sqlite")
    led.forget(None, ["m6", "m5"])  # above the mark: nothing to rewrite
    assert _stored_postings(led, "sqlite") == stored
    led.forget(None, ["m1"])  # indexed: its entries go
    assert _indexed_as_expected(led)
    assert led.index_postings(10) == 1 and _indexed_as_expected(led)  # m4 only
    assert _stored_postings(led, "sqlite") == _expected_postings(led)
    led.close()
    for p in path.parent.glob(path.name + "*"):
        assert secret.encode() not in p.read_bytes(), p.name


def test_what_a_search_read_is_kept_while_only_captures_follow(tmp_path: Path) -> None:
    """Captures and the index moving on keep what searches read of a subject (extended
    with the new sources); a forget drops it. Also when the newest sources, indexed, were
    forgotten (the mark above every seq left)."""
    with Ledger(tmp_path / "k.db") as led:
        _store(led, [("sam", "Sam", f"garden {WORDS[i % 14]}", "r1") for i in range(8)], 0)
        led.index_postings(8)
        led.forget(None, ["m7", "m6"])

        def kept() -> Any:
            led.search_sources(Scope("sam"), '"garden"', 5)
            return led._postings._kept["sam"]

        first = kept()
        assert kept() is first
        _store(led, [("sam", "Sam", "garden late", "r1")], 8)
        assert kept() is first and first.seen == 9
        led.index_postings(8)
        assert kept() is first
        led.forget(None, ["m0"])
        assert kept() is not first


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_searches_are_the_same_before_and_after_indexing(
        open_engine: Callable[[str], Any], engine: str) -> None:
    """Both engines: what capture stored is found before ``index_postings`` runs, and
    found the same after (PostgreSQL indexes in the capture transaction: 0 to do)."""
    led = open_engine(engine)
    _store(led, [(SUBJECTS[i % 2], SPEAKERS[i % 4], " ".join(WORDS[i % 9: i % 9 + 3]), "r1")
                 for i in range(20)], 0)
    asked = [("sam", '"garden" OR "water"', 5, (1.0, 1.0), "", None),
             ("zoe", '("basil" NOT "the")', 5, (1.0, 0.5), "r1", 1010.0)]
    before = [_search(led, *a) for a in asked]
    assert all(before)
    assert led.index_postings(100) == (20 if engine == "sqlite" else 0)
    assert [_search(led, *a) for a in asked] == before
    assert _stored_postings(led, engine) == _expected_postings(led)


def test_the_writer_indexes_what_it_committed_while_idle(tmp_path: Path) -> None:
    led = Ledger(tmp_path / "w.db")
    writer = GroupCommitWriter(led, CaptureConfig(group_commit_ms=1.0), index_chunk=3)
    done = threading.Event()
    got: list[StoreResult] = []

    def answered(res: StoreResult) -> None:
        got.append(res)
        if len(got) == 10:
            done.set()

    for i in range(10):
        writer.submit(Event("dialogue", Scope("sam", "r1", "s1"), f"garden {WORDS[i]}", "Sam",
                            stamp=1.0 + i), answered)
    assert done.wait(30) and all(r.status == "accepted" for r in got)
    deadline = time.monotonic() + 30
    while writer.indexed < 10 and time.monotonic() < deadline:
        time.sleep(0.01)
    writer.close()
    assert writer.indexed == 10 and writer.index_errors == 0
    assert _mark(led) == 10 and _stored_postings(led, "sqlite") == _expected_postings(led)
    led.close()


def _submit_all(writer: GroupCommitWriter, n: int, first: int = 0) -> list[StoreResult]:
    """``n`` stamped events in one ``submit_many`` (stamps from ``first + 1`` on),
    answered before it returns."""
    done = threading.Event()
    got: list[StoreResult] = []

    def answered(res: StoreResult) -> None:
        got.append(res)
        if len(got) == n:
            done.set()

    writer.submit_many([(Event("dialogue", Scope("sam", "r1", "s1"), f"garden {WORDS[i % 14]}",
                               "Sam", stamp=1.0 + first + i), answered) for i in range(n)])
    assert done.wait(30) and all(r.status == "accepted" for r in got)
    return got


def test_the_index_yields_to_capture_below_its_backlog(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Between groups the writer indexes only a backlog over ``index_backlog`` (an idle
    hour never comes here, so nothing is indexed); what waits is searched as before."""
    led = Ledger(tmp_path / "w.db")
    writer = GroupCommitWriter(led, CaptureConfig(group_commit_ms=1.0), index_chunk=3,
                               index_idle_s=3600.0, index_backlog=1000)
    _submit_all(writer, 20)
    _submit_all(writer, 20, first=20)
    writer.close()
    assert writer.indexed == 0 and _mark(led) == 0
    asked = ("sam", '"garden"', 50, (1.0, 1.0), "", None)
    assert len(_search(led, *asked)) == 40
    assert _search(led, *asked) == _exhaustive(monkeypatch, led, *asked)
    led.close()


def test_a_backlog_over_the_bound_is_indexed_without_waiting_for_idle(tmp_path: Path) -> None:
    led = Ledger(tmp_path / "w.db")
    writer = GroupCommitWriter(led, CaptureConfig(group_commit_ms=1.0), index_chunk=3,
                               index_idle_s=3600.0, index_backlog=4)
    _submit_all(writer, 20)
    deadline = time.monotonic() + 30
    while writer.indexed < 18 and time.monotonic() < deadline:
        time.sleep(0.01)
    writer.close()
    # Chunks of 3 until at most 4 wait (the writer starts assuming one chunk waits).
    assert 18 <= writer.indexed <= 20 and writer.index_errors == 0
    assert _mark(led) == writer.indexed and _indexed_as_expected(led)
    led.close()


def test_a_backlog_over_its_text_bound_is_indexed_between_groups(tmp_path: Path) -> None:
    """The bound is the text waiting (issue 16: what a search splits), not the count: a
    backlog under ``index_backlog_bytes`` waits for idle however many sources it holds,
    one over it is indexed at the next group without waiting for idle, down to the
    bound, and what it left is indexed as the ledger's."""
    led = Ledger(tmp_path / "w.db")
    writer = GroupCommitWriter(led, CaptureConfig(group_commit_ms=1.0), index_chunk=3,
                               index_idle_s=3600.0, index_backlog=10**6, index_backlog_bytes=400,
                               index_chunk_max=3)
    _submit_all(writer, 20)  # ~15 characters each with the speaker: under 400
    time.sleep(0.05)
    assert writer.indexed == 0 and _mark(led) == 0
    _submit_all(writer, 20, first=20)  # over it: indexed at the next group
    deadline = time.monotonic() + 30
    while writer.indexed < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)
    writer.close()
    # Chunks of 3 until at most 400 characters wait: part of it, never all.
    assert 3 <= writer.indexed < 40 and writer.index_errors == 0
    assert _mark(led) == writer.indexed and _indexed_as_expected(led)
    led.close()


class _Backlog:
    """A ledger whose index holds ``left`` sources and takes ``per_source`` seconds each;
    records the chunk sizes asked."""

    def __init__(self, led: Ledger, left: int, per_source: float) -> None:
        self.led, self.left, self.per_source = led, left, per_source
        self.asked: list[int] = []
        self.done = threading.Event()

    def store_sources(self, items: Any, now: float | None = None, *,
                      durable: bool = True) -> list[StoreResult]:
        return self.led.store_sources(items, now=now, durable=durable)

    def sync(self) -> None:
        self.led.sync()

    def index_postings(self, max_sources: int = 500) -> int:
        self.asked.append(max_sources)
        n = min(max_sources, self.left)
        self.left -= n
        time.sleep(self.per_source * n)
        if n < max_sources:
            self.done.set()
        return n


@pytest.mark.parametrize("per_source", [0.0, 0.001])
def test_chunks_are_sized_to_the_time_slice(tmp_path: Path, per_source: float) -> None:
    """A chunk is timed to ``index_slice_s`` (an event waits for one at most): from
    ``index_chunk`` sources, as many as fit the slice at the time the chunks before it
    took a source, up to ``index_chunk_max``."""
    led = Ledger(tmp_path / "w.db")
    backlog = _Backlog(led, 3000, per_source)
    writer = GroupCommitWriter(backlog, CaptureConfig(group_commit_ms=1.0),  # type: ignore[arg-type]
                               index_chunk=2, index_slice_s=0.02, index_chunk_max=500,
                               index_idle_s=0.01)
    assert backlog.done.wait(60)
    writer.close()
    asked = backlog.asked
    assert asked[0] == 2 and sum(asked) >= 3000
    if per_source:  # 20 fit the slice (fewer where a sleep ran late)
        assert all(4 <= n <= 20 for n in asked[1:]), asked
    else:  # nothing to wait for: the chunks grow to the largest (a chunk the scheduler
        # held up under load may take fewer for a while, so only the growth is asserted)
        assert max(asked) == 500, asked
    led.close()


def test_the_clock_is_asked_for_zero_stamps_and_commits_only(tmp_path: Path) -> None:
    """A node's clock costs a call into rclpy: a stamped event does not ask it."""
    led = Ledger(tmp_path / "w.db")
    asked: list[float] = []

    def clock() -> float:
        asked.append(5000.0 + len(asked))
        return asked[-1]

    writer = GroupCommitWriter(led, CaptureConfig(group_commit_ms=1.0), clock=clock)
    _submit_all(writer, 6)
    assert len(asked) == writer.batches  # one known time per commit, no receipt time
    done = threading.Event()
    got: list[StoreResult] = []
    writer.submit(Event("dialogue", Scope("sam"), "now", "Sam"),
                  lambda r: (got.append(r), done.set()))
    assert done.wait(30)
    writer.close()
    (stored,) = led.get_sources([got[0].source_id])
    assert stored.time_from_receipt and stored.source_time in asked
    led.close()


class _Recording:
    """A ledger whose index is always behind: records each call, and an event arrives
    while the first chunk is being indexed."""

    def __init__(self, led: Ledger) -> None:
        self.led, self.calls = led, []
        self.arrive: Callable[[], None] = lambda: None
        self.ready = threading.Event()  # set once ``arrive`` is
        self.caught_up = threading.Event()

    def store_sources(self, items: Any, now: float | None = None, *,
                      durable: bool = True) -> list[StoreResult]:
        self.calls.append("store")
        return self.led.store_sources(items, now=now, durable=durable)

    def sync(self) -> None:
        self.led.sync()

    def index_postings(self, max_sources: int = 500) -> int:
        self.calls.append("index")
        if self.calls.count("index") == 1:
            assert self.ready.wait(30)
            self.arrive()
        if self.calls.count("index") > 3:
            self.caught_up.set()
            return 0
        return max_sources


def test_an_arriving_event_waits_for_one_chunk_at_most(tmp_path: Path) -> None:
    led = Ledger(tmp_path / "w.db")
    rec = _Recording(led)
    done = threading.Event()
    writer = GroupCommitWriter(rec, CaptureConfig(group_commit_ms=1.0),  # type: ignore[arg-type]
                               index_chunk=5)
    rec.arrive = lambda: writer.submit(
        Event("dialogue", Scope("sam"), "garden", "Sam", stamp=1.0), lambda r: done.set())
    rec.ready.set()
    assert done.wait(30) and rec.caught_up.wait(30)
    writer.close()
    # The writer starts behind (what an earlier one left): one chunk, then the event's
    # commit, then the rest of the index (once no event has come for a while).
    assert rec.calls[:3] == ["index", "store", "index"], rec.calls
    led.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=8))
def test_terms_of_many_texts_are_each_texts_terms(many: list[str]) -> None:
    assert lexical.terms_of(many) == [lexical.terms(t) for t in many]


def test_terms_of_more_texts_than_one_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical, "TERMS_BATCH", 3)
    many = [f"garden {w} watering" if i % 4 else "" for i, w in enumerate(WORDS)]
    assert lexical.terms_of(many) == [lexical.terms(t) for t in many]


def test_a_synced_ledger_is_indexed(tmp_path: Path) -> None:
    from trace_ros.sync import sync

    with Ledger(tmp_path / "robot.db") as robot, Ledger(tmp_path / "site.db") as site:
        _store(robot, [(SUBJECTS[i % 2], "Sam", f"garden {WORDS[i % 14]}", "r1")
                       for i in range(7)], 0)
        sync(robot, site, "robot", batch=3)
        assert site.count_sources() == 7 and _mark(site) == 7
        assert _stored_postings(site, "sqlite") == _expected_postings(site)
