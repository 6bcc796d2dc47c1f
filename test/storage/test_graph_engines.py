"""The evidence graph, lexical search, validity and the hierarchy, run on every engine.

The same conversation is consolidated on SQLite and on PostgreSQL with the real CPU
extractor; both ledgers must hold the same facts, provenance, edges, sessions and
topics, rank lexical searches alike, resolve keys alike and answer the same questions
with the same evidence. The statements themselves are also checked one by one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))

from graphkit import DAY, HashEncoder, consolidate, fact  # noqa: E402

from trace_ros.capture import Event, prepare  # noqa: E402
from trace_ros.config import CaptureConfig, ConsolidationConfig, RecallConfig  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.consolidation.hierarchy import rederive_hierarchy  # noqa: E402
from trace_ros.facts import Fact, fact_from_row  # noqa: E402
from trace_ros.formats import locomo_events, read_locomo  # noqa: E402
from trace_ros.ledger import Scope  # noqa: E402
from trace_ros.state import resolve, update_chains  # noqa: E402
from trace_ros.storage import graph_of  # noqa: E402

T0 = 1_700_000_000.0
LOCOMO = Path("/work/shared/data/locomo10.json")
TOPICS = ConsolidationConfig(topic_threshold=0.5, topic_neighbour=0.4, topic_rederive_every=2)


def _conversation() -> list[list[Event]]:
    """Five sessions: a home that changes twice, a plan that rests on it, chatter in two
    topics, a contradiction and a mug that moves."""
    chatter = ("garden tomatoes basil soil", "football match goal referee",
               "garden roses soil water", "football league goal coach", "garden compost soil")
    out = []
    for n, words in enumerate(chatter):
        s = Scope("sam", "r1", f"week{n}")
        t = T0 + n * 7 * DAY
        ev = [Event("dialogue", s, f"We talked about {words} today.", "Sam", stamp=t,
                    source_id=f"w{n}-chat", payload={"facts": [fact("action")]}),
              Event("dialogue", s, f"Yes, {words} again.", "Robot", stamp=t + 30,
                    source_id=f"w{n}-reply")]
        if n in (0, 2, 4):
            city = ("Leeds", "York", "Bath")[n // 2]
            ev.append(Event("dialogue", s, f"I live in {city} now.", "Sam", stamp=t + 60,
                            source_id=f"w{n}-home",
                            payload={"facts": [fact(entity="Sam", relation="lives_in",
                                                    value=city, cues=["now"])]}))
            ev.append(Event("perception", s, f"mug on the shelf {n}", "camera", stamp=t + 90,
                            source_id=f"w{n}-mug",
                            payload={"facts": [fact("observation", entity="mug",
                                                    relation="located_at", value=f"shelf {n}",
                                                    participants=[])]}))
        if n == 1:
            ev.append(Event("dialogue", s, "Because of that I plan to join the club.", "Sam",
                            stamp=t + 60, source_id="w1-plan",
                            payload={"facts": [fact("plan", entity="Sam", relation="plans",
                                                    value="join the club", cues=["because"])]}))
        if n == 3:
            ev.append(Event("dialogue", s, "My favourite drink is tea.", "Sam", stamp=t + 60,
                            source_id="w3-tea",
                            payload={"facts": [fact("preference", entity="Sam",
                                                    relation="prefers:drink", value="tea")]}))
            ev.append(Event("dialogue", s, "No, my favourite drink is coffee.", "Sam",
                            stamp=t + 70, source_id="w3-coffee",
                            payload={"facts": [fact("preference", entity="Sam",
                                                    relation="prefers:drink", value="coffee",
                                                    cues=["no"])]}))
        out.append(ev)
    return out


def capture(ledger: Any, events: list[Event]) -> None:
    """Store ``events`` as if received one second after they happened (the same known
    times on both engines)."""
    cfg = CaptureConfig()
    for e in events:
        [res] = ledger.store_sources([prepare(e, cfg)], now=float(e.stamp or T0) + 1.0)
        assert res.status == "accepted", res


def _both(open_engine: Callable[[str], Any]) -> list[Any]:
    return [open_engine("sqlite"), open_engine("postgresql")]


def _build(ledger: Any, sessions: list[list[Event]], config: ConsolidationConfig,
           extractor: Any = None) -> None:
    for session in sessions:
        capture(ledger, session)
        consolidate(ledger, config, extractor)


def test_the_same_conversation_gives_the_same_graph(open_engine: Callable[[str], Any]) -> None:
    sqlite, pg = _both(open_engine)
    for led in (sqlite, pg):
        _build(led, _conversation(), TOPICS)
    want = sqlite.graph_snapshot("sam")
    assert want["facts"] and want["edges"] and want["topics"]
    assert pg.graph_snapshot("sam") == want
    assert pg.graph_counts("sam") == sqlite.graph_counts("sam")
    assert pg.graph_counts() == sqlite.graph_counts()


def test_validity_and_the_resolver_agree(open_engine: Callable[[str], Any]) -> None:
    sqlite, pg = _both(open_engine)
    for led in (sqlite, pg):
        _build(led, _conversation(), TOPICS)
    for entity, relation in (("sam", "lives_in"), ("mug", "located_at"), ("sam", "prefers:")):
        a, b = (resolve(led, Scope("sam"), entity, relation) for led in (sqlite, pg))
        assert (b.status, b.value, [f.fact_id for f in b.facts]) == \
            (a.status, a.value, [f.fact_id for f in a.facts]), (entity, relation)
    home = resolve(pg, Scope("sam"), "sam", "lives_in")
    assert (home.status, home.value) == ("answer", "bath")
    assert [c.entity for c in update_chains(pg, "sam")] == \
        [c.entity for c in update_chains(sqlite, "sam")]
    assert [f.fact_id for f in pg.keyed_facts("sam")] == \
        [f.fact_id for f in sqlite.keyed_facts("sam")]


def test_hierarchy_rederives_alike_after_forget(open_engine: Callable[[str], Any]) -> None:
    sqlite, pg = _both(open_engine)
    for led in (sqlite, pg):
        _build(led, _conversation(), TOPICS)
        led.forget(source_ids=["w2-home", "w2-chat"])
        rederive_hierarchy(led, TOPICS, ["sam"])
    assert pg.graph_snapshot("sam") == sqlite.graph_snapshot("sam")
    assert [s.vertex for s in pg.sessions_of("sam")] == \
        [s.vertex for s in sqlite.sessions_of("sam")]
    assert [(t.topic_id, t.n_sessions) for t in pg.topics_of("sam")] == \
        [(t.topic_id, t.n_sessions) for t in sqlite.topics_of("sam")]
    assert pg.orphans() == sqlite.orphans() == {"jobless_sources": 0, "orphan_vectors": 0,
                                                  "orphan_facts": 0}
    assert pg.integrity_check() == "ok"


def test_forgetting_a_subject_drops_its_graph(open_engine: Callable[[str], Any]) -> None:
    for led in _both(open_engine):
        _build(led, _conversation(), TOPICS)
        led.forget(Scope("sam"))
        assert led.graph_counts("sam")["facts"] == 0 and led.topics_of("sam") == []
        assert led.search_sources(Scope("sam"), '"garden"', 5) == []


@pytest.mark.parametrize("match", ['"garden"', '"garden" OR "football"', '"soil" AND "garden"',
                                   '("live" AND "York") OR "mug"', '"garden" NOT "roses"',
                                   '"talked about"', '"nothing-here"'])
def test_lexical_search_ranks_alike(open_engine: Callable[[str], Any], match: str) -> None:
    sqlite, pg = _both(open_engine)
    for led in (sqlite, pg):
        _build(led, _conversation(), TOPICS)
        capture(led, [Event("dialogue", Scope("other", "r1", "s1"), "garden garden party", "Al",
                            stamp=T0, source_id="o-1")])
    for weights in ((1.0, 1.0), (1.0, 0.5)):
        a = sqlite.search_sources(Scope("sam"), match, 8, weights=weights)
        b = pg.search_sources(Scope("sam"), match, 8, weights=weights)
        assert [r[:2] for r in b] == [r[:2] for r in a]
        assert [round(r[2], 6) for r in b] == [round(r[2], 6) for r in a]
    view = T0 + 15 * DAY
    a = sqlite.search_sources(Scope("sam", "r1", "week0"), match, 8, as_of_valid=view)
    b = pg.search_sources(Scope("sam", "r1", "week0"), match, 8, as_of_valid=view)
    assert [(r[0], r[1], round(r[2], 6)) for r in b] == [(r[0], r[1], round(r[2], 6)) for r in a]
    fa = sqlite.search_facts(Scope("sam"), match, 8)
    fb = pg.search_facts(Scope("sam"), match, 8)
    assert [r[:3] + r[4:] for r in fb] == [r[:3] + r[4:] for r in fa]
    assert [round(r[3], 6) for r in fb] == [round(r[3], 6) for r in fa]


@pytest.mark.parametrize("subject", ["o'brien", "back\\slash", "two words: a & !b", "zoë",
                                     "long" * 63])
def test_a_subject_finds_its_own_rows_whatever_its_id(open_engine: Callable[[str], Any],
                                                       subject: str) -> None:
    """PostgreSQL asks its subject-keyed index for the subject's own lexeme (tsquery text
    of its digest): an ID with quotes, a backslash, tsquery operators, other letters or
    nearly the most bytes capture allows finds its rows alone."""
    sqlite, pg = _both(open_engine)
    subjects = (subject, subject + "x", "sam")
    for led in (sqlite, pg):
        for i, s in enumerate(subjects):
            capture(led, [Event("dialogue", Scope(s, "r1", "s1"), f"garden party {i} garden",
                                "Al", stamp=T0 + i, source_id=f"g-{i}")])
    for i, s in enumerate(subjects):
        a = sqlite.search_sources(Scope(s), '"garden" OR "party"', 8)
        b = pg.search_sources(Scope(s), '"garden" OR "party"', 8)
        assert [r[1] for r in a] == [f"g-{i}"]
        assert [(r[0], r[1], round(r[2], 6)) for r in b] == \
            [(r[0], r[1], round(r[2], 6)) for r in a]


def test_the_statements_agree_inside_a_transaction(open_engine: Callable[[str], Any]) -> None:
    sqlite, pg = _both(open_engine)
    for led in (sqlite, pg):
        _build(led, _conversation(), TOPICS)
    out = []
    for led in (sqlite, pg):
        with led.write() as tx:
            g = led.graph
            assert graph_of(tx) is g
            seq = led.seqs_of(["w2-home"])["w2-home"]
            home = g.facts_of_seq(tx, seq)
            out.append((
                [f.fact_id for f in home],
                [f.fact_id for f in g.facts_by_key(tx, "sam", "sam", "prefers:")],
                [f.fact_id for f in g.facts_near_time(tx, "sam", T0 + 14 * DAY, True, 3, seq)],
                [f.fact_id for f in g.facts_matching_text(tx, "sam", '"garden" OR "live"', 4,
                                                          seq + 100)],
                [(e.type, e.src, e.dst) for e in g.fact_edges(tx, [f.fact_id for f in home],
                                                               ("updates",))],
                g.origins(tx, [seq, seq - 1]), g.speakers_first_seen(tx, "sam"),
                g.session_turns(tx, ("sam", "r1", "week2"), seq),
                [(s.vertex, s.topic_id) for s in g.session_rows(tx, "sam")],
                sorted(g.sessions_with_vectors(tx, "sam")),
                [(e.type, e.src, e.dst) for e in g.member_edges(tx, "sam", "in_topic",
                                                                "session:")],
                g.facts_of_sources(tx, ["w2-home"]),
                g.get_meta(tx, "topics_closed:sam"),
            ))
            mean, n, model = g.session_source_mean(tx, "sam", "r1", "week2")
            assert n == 4 and model == HashEncoder.name and mean is not None
            vec = g.source_vector(tx, "w2-home")
            assert vec is not None and vec.shape == (HashEncoder.dim,)
            said = g.speaker_statements(tx, "sam", "Sam", seq + 1)
            assert [r[1] for r in said][-1] == "w2-home"
    assert out[1] == out[0]


def test_fact_rows_round_trip(open_engine: Callable[[str], Any]) -> None:
    fact_ = Fact(fact_id="f:1", subject_id="ann", robot_id="r1", session_id="s1",
                 type="state_change", participants=("Ann", "Bo"), entity="ann",
                 relation="lives_in", value="oslo", polarity=1, description="Ann lives in Oslo",
                 anchor_time=5.0, anchor_text="today", anchor_fallback=True, valid_from=5.0,
                 valid_to=None, known_from=6.0, known_to=None, status="active", validity=1.0,
                 source_seq=1, generation=3, extractor="x", source_ids=("a", "b"))
    for led in _both(open_engine):
        with led.write() as tx:
            led.graph.insert_facts(tx, [fact_])
            assert led.graph.insert_edges(tx, "ann", [("mentions", "f:1", "entity:ann/ann", 1.0,
                                                       "", 5.0)] * 2, 3) == 1
            assert led.graph.set_fact_state(tx, [("f:1", 9.0, 9.5, "superseded", 0.0)], 4) == 1
            assert led.graph.set_fact_state(tx, [("f:1", 9.0, 9.5, "superseded", 0.0)], 4) == 0
        [got] = led.facts_with_ids(["f:1"])
        assert got.participants == ("Ann", "Bo") and got.anchor_fallback is True
        assert (got.valid_to, got.status, got.generation, got.source_ids) == \
            (9.0, "superseded", 4, ("a", "b"))
        assert [e.dst for e in led.edges_since("ann")] == ["entity:ann/ann"]
        # only the types asked for (the query's fact cache reads fact-to-fact edges alone)
        assert [e.dst for e in led.edges_since("ann", -1, ("mentions", "updates"))] == \
            ["entity:ann/ann"]
        assert led.edges_since("ann", -1, ("updates", "before")) == []
        assert led.edges_since("ann", -1, ()) == []
        # rows not yet made into facts: fact_from_row makes the fact facts_since reads
        [(row, prov)] = led.fact_rows_since("ann")
        assert prov == ("a", "b") and fact_from_row(row, prov) == got == \
            led.facts_since("ann")[0]
        assert led.fact_rows_since("ann", 4) == []
        epoch = led.graph_epoch()
        with led.write() as tx:
            assert led.graph.delete_facts(tx, ["f:1"]) == set()
        assert led.facts_with_ids(["f:1"]) == [] and led.graph_epoch() != epoch


@pytest.mark.skipif(not LOCOMO.exists(), reason="LoCoMo data not present")
def test_a_locomo_conversation_consolidates_and_answers_alike(
        open_engine: Callable[[str], Any]) -> None:
    """Three sessions of the first LoCoMo conversation with the CPU extractor: the same
    graph on both engines, and the query engine finds the same evidence."""
    from trace_ros.query.answer import QueryEngine, QueryRequest
    from trace_ros.query.readers import ExtractiveReader

    [sample] = read_locomo(LOCOMO, 1)
    events = list(locomo_events(sample))
    sessions: dict[str, list[Event]] = {}
    for e in events:
        sessions.setdefault(e.scope.session_id, []).append(e)
    chosen = list(sessions.values())[:3]
    subject = events[0].scope.subject_id
    sqlite, pg = _both(open_engine)
    for led in (sqlite, pg):
        _build(led, chosen, ConsolidationConfig(), CpuExtractor())
    assert sqlite.graph_counts(subject)["facts"] > 20
    assert pg.graph_snapshot(subject) == sqlite.graph_snapshot(subject)
    questions = [q["question"] for q in sample["qa"][:12]]
    answers = []
    for led in (sqlite, pg):
        engine = QueryEngine(led, HashEncoder(), ExtractiveReader(), RecallConfig(), audit=False)
        answers.append([(r.status, r.answer, r.source_ids, r.routes) for r in
                        (engine.ask(QueryRequest(Scope(subject), q), now=T0) for q in questions)])
        engine.close()
    assert answers[1] == answers[0]
