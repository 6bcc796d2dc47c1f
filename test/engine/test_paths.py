"""Support paths of the graph stage (query/paths.py): traversal limits, the three
pruning rules, the fused path score, the answer-aware trace. Real SQLite ledger;
facts come from consolidation, the edges under test are written through the
ledger's graph store so each test states exactly which edges exist."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from graphkit import DAY, capture, consolidate, fact  # noqa: E402

from trace_ros.capture import Event  # noqa: E402
from trace_ros.config import RecallConfig  # noqa: E402
from trace_ros.facts import FACT_EDGE_TYPES, Fact  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.query.answer import QueryEngine  # noqa: E402
from trace_ros.query.paths import (  # noqa: E402
    CONTRADICTION_PENALTY,
    RELATION_DISCOUNT,
    GraphOutcome,
    GraphStage,
    SupportPath,
)
from trace_ros.query.recall import Participants  # noqa: E402
from trace_ros.query.seeds import Seeds, View  # noqa: E402

P = Scope("p", "r1", "")
T0 = 1_740_000_000.0
# name -> (day, text); each source yields one unkeyed fact.
EVENTS = {
    "e1": (1, "The kettle broke in the kitchen."),
    "e6": (1.5, "Sam repainted the garden shed."),
    "e2": (2, "The storm knocked out the power line."),
    "e3": (3, "The freezer thawed overnight."),
    "e4": (4, "Someone said the freezer was fine."),
    "e5": (5, "The ice cream melted on the floor."),
}


@pytest.fixture
def graph(ledger: Ledger) -> dict[str, Fact]:
    capture(ledger, [
        Event("dialogue", Scope("p", "r1", "s1"), text, "Maya", stamp=T0 + day * DAY,
              source_id=sid, payload={"facts": [fact("observation")]})
        for sid, (day, text) in EVENTS.items()])
    consolidate(ledger)
    by_source = {f.source_ids[0]: f for f in ledger.facts_since("p")}
    f = {sid: by_source[sid].fact_id for sid in EVENTS}
    with ledger.write() as conn:
        conn.execute("DELETE FROM edges WHERE subject_id = 'p' AND type IN "
                     "('updates', 'contradicts', 'causes', 'enables', 'prevents', 'before')")
        ledger.insert_edges(conn, "p", [
            ("causes", f["e2"], f["e3"], 0.9, "test", T0),       # in time order
            ("causes", f["e3"], f["e1"], 0.9, "test", T0),       # effect before its cause
            ("contradicts", f["e4"], f["e3"], 0.8, "test", T0),
            ("contradicts", f["e5"], f["e4"], 0.8, "test", T0),
            ("enables", f["e2"], f["e5"], 0.9, "test", T0),      # invalidated below
            ("before", f["e6"], f["e3"], 1.0, "test", T0),
        ], 0)
        conn.execute("UPDATE edges SET invalidated_at = ? WHERE type = 'enables'", (T0,))
    return {sid: by_source[sid] for sid in EVENTS}


def stage(ledger: Ledger, **cfg: float) -> GraphStage:
    return GraphStage(ledger, replace(RecallConfig(), **cfg), Participants(ledger))


def seeds_of(graph: dict[str, Fact], *names: str) -> Seeds:
    s = Seeds()
    for n in names:
        s.add(graph[n], 1.0, "recalled")
    return s


def walk(ledger: Ledger, graph: dict[str, Fact], *names: str,
         view: View | None = None, **cfg: float) -> list[SupportPath]:
    return stage(ledger, **cfg).walk(P, view or View(), "freezer", seeds_of(graph, *names))


def sources(path: SupportPath) -> frozenset[str]:
    """The sources a path joins (a path is kept once, whichever end it was walked from)."""
    return frozenset(f.source_ids[0] for f in path.facts)


def S(*names: str) -> frozenset[str]:  # noqa: N802 - reads like a set literal
    return frozenset(names)


def test_pruning_rules(ledger: Ledger, graph: dict[str, Fact]) -> None:
    paths = walk(ledger, graph, "e2", "e3", "e4", graph_max_hops=3)
    assert any(len(p.edges) == 2 for p in paths)
    walked = [sources(p) for p in paths]
    types = [[e.type for e in p.edges] for p in paths]
    assert S("e3", "e2") in walked and S("e3", "e4") in walked and S("e2", "e3", "e4") in walked
    # Never across the invalidated enables edge, never along an effect-before-cause edge.
    assert not any(e.type == "enables" for p in paths for e in p.edges)
    assert not any("e1" in w for w in walked)
    # Never two consecutive contradicts (e3–e4–e5).
    assert not any(["contradicts", "contradicts"] == t[i:i + 2]
                   for t in types for i in range(len(t)))
    # A walk goes one way in time: e2 → e3 → e6 would go forward then back.
    assert not any("e2" in w and "e6" in w for w in walked)
    assert S("e3", "e6") in walked  # ... though each of its edges alone is fine


def test_invalidated_edge_is_crossable_in_a_view_before_it_was_invalidated(
        ledger: Ledger, graph: dict[str, Fact]) -> None:
    early = View(valid=T0 - 1)
    assert not walk(ledger, graph, "e2", view=early)  # nothing valid that early
    later = walk(ledger, graph, "e2", graph_max_hops=1)
    assert not any(e.type == "enables" for p in later for e in p.edges)
    with ledger.write() as conn:
        conn.execute("UPDATE edges SET invalidated_at = ? WHERE type = 'enables'",
                     (T0 + 10 * DAY,))
    view = View(valid=T0 + 6 * DAY)
    assert any(e.type == "enables" for p in walk(ledger, graph, "e2", view=view,
                                                 graph_max_hops=1) for e in p.edges)


def test_hop_and_fanout_limits(ledger: Ledger, graph: dict[str, Fact]) -> None:
    one_hop = walk(ledger, graph, "e3", graph_max_hops=1)
    assert one_hop and all(len(p.edges) == 1 for p in one_hop)
    two_hops = walk(ledger, graph, "e2", graph_max_hops=2)
    assert S("e2", "e3", "e4") in [sources(p) for p in two_hops]
    narrow = walk(ledger, graph, "e3", graph_max_hops=1, graph_fanout=1)
    assert len(narrow) == 1
    assert len(walk(ledger, graph, "e3", graph_max_hops=3, graph_max_paths=2)) == 2


def test_fused_score_uses_the_configured_weights(ledger: Ledger, graph: dict[str, Fact]) -> None:
    weights = {"path_weight_ns": 0.1, "path_weight_pc": 0.5, "path_weight_tc": 0.2,
               "path_weight_uv": 0.2}
    paths = walk(ledger, graph, "e2", "e3", graph_max_hops=2, **weights)
    for p in paths:
        assert p.score == pytest.approx(0.1 * p.ns + 0.5 * p.pc + 0.2 * p.tc + 0.2 * p.uv)
        expected_pc = 1.0
        for e in p.edges:
            expected_pc *= e.confidence * RELATION_DISCOUNT[e.type]
            expected_pc *= CONTRADICTION_PENALTY if e.type == "contradicts" else 1.0
        assert p.pc == pytest.approx(expected_pc)
        assert 0.0 <= p.ns <= 1.0 and p.uv == 1.0
    # Best first; a contradiction costs more than a cause of the same standing.
    assert [p.score for p in paths] == sorted((p.score for p in paths), reverse=True)
    by_walk = {sources(p): p for p in paths}
    assert by_walk[S("e3", "e2")].pc > by_walk[S("e3", "e4")].pc


def test_trace_ranks_paths_touching_the_cited_sources_first(
        ledger: Ledger, graph: dict[str, Fact]) -> None:
    paths = walk(ledger, graph, "e3", graph_max_hops=1)
    out = GraphOutcome(paths=paths)
    for cited in ("e4", "e6", "e2"):
        first = out.trace([cited])[0]
        assert f"[{cited}]" in first, (cited, first)


def test_engine_components_include_the_graph_stage(ledger: Ledger) -> None:
    assert {"graph", "update_seeds"} <= set(QueryEngine.COMPONENTS)


# -- the per-subject cache of facts and edges (query/factcache.py) -----------------------


def _keyed(entity: str, value: str) -> dict[str, str]:
    return fact("state_change", entity=entity, relation="located_at", value=value)


def test_fact_cache_answers_as_the_ledger_reads(ledger: Ledger, graph: dict[str, Fact]) -> None:
    capture(ledger, [
        Event("dialogue", Scope("p", "r1", "s2"), f"The {thing} is in the {place}.", "Maya",
              stamp=T0 + day * DAY, source_id=f"k{i}", payload={"facts": [_keyed(thing, place)]})
        for i, (day, thing, place) in enumerate([(6, "mug", "sink"), (7, "mug", "shelf"),
                                                 (7, "mug", "desk"), (8, "lamp", "hall")])])
    consolidate(ledger)
    sub = stage(ledger).facts.subject("p")
    ids = sorted(sub.facts)
    sources = [*EVENTS, "k0", "k2", "nope"]
    assert [f.fact_id for f in sub.of_sources(sources)] == \
        [f.fact_id for f in ledger.facts_of_sources_in("p", sources)]
    assert [f.fact_id for f in sub.with_ids(ids[::2])] == \
        [f.fact_id for f in ledger.facts_with_ids(ids[::2])]
    for types in (("updates", "contradicts"), ("causes", "before", "contradicts", "updates")):
        assert sub.edges_among(ids, types) == ledger.edges_among(ids, types)
    for limit in (1, 2, 5):
        got = sub.of_entities(["mug", "lamp", "kettle"], limit)
        assert [f.fact_id for f in got] == [
            f.fact_id for f in ledger.facts_of_entities("p", ["mug", "lamp", "kettle"], limit)]
    assert [f.value for f in sub.of_entities(["mug"], 2)][0] in ("shelf", "desk")
    # The cache makes a fact of a row only when a lookup returns it: those it made and
    # those it has not are the ledger's facts, and it read only the fact-to-fact edges.
    fresh = stage(ledger).facts.subject("p")
    assert [f.fact_id for f in fresh.with_ids(ids[:1])] == ids[:1]
    assert list(fresh.facts._made) == ids[:1] and len(fresh.facts) == len(ids)
    assert dict(fresh.facts) == dict(sub.facts) == {f.fact_id: f for f in ledger.facts_since("p")}
    assert sub.edges == {e.edge_id: e for e in ledger.edges_since("p")
                         if e.type in FACT_EDGE_TYPES
                         and not e.src.startswith(("session:", "topic:", "entity:"))}
    assert len(ledger.edges_since("p")) > len(sub.edges)


def test_fact_cache_follows_the_ledger(ledger: Ledger, graph: dict[str, Fact]) -> None:
    st = stage(ledger)
    before = st.facts.subject("p")
    assert st.facts.subject("p") is before  # same generation: no reload
    capture(ledger, [Event("dialogue", Scope("p", "r1", "s1"), "The fridge hummed loudly.",
                           "Maya", stamp=T0 + 6 * DAY, source_id="e7",
                           payload={"facts": [fact("observation")]})])
    consolidate(ledger)
    (new,) = ledger.facts_of_sources_in("p", ["e7"])
    after = st.facts.subject("p")
    assert new.fact_id in after.facts and new.fact_id not in before.facts
    # a new edge from the newest fact: the walk from e5 now reaches it
    with ledger.write() as conn:
        gen = ledger.bump_generation(conn)
        ledger.insert_edges(conn, "p", [("causes", graph["e5"].fact_id, new.fact_id, 0.9,
                                         "test", T0)], gen)
    paths = st.walk(P, View(), "freezer", seeds_of(graph, "e5"))
    assert any(sources(p) == {"e5", "e7"} for p in paths)
    # forgetting a source drops its fact and edges (a full reload)
    ledger.forget(source_ids=["e7"])
    gone = st.facts.subject("p")
    assert new.fact_id not in gone.facts
    assert not any("e7" in sources(p) for p in st.walk(P, View(), "freezer",
                                                       seeds_of(graph, "e5")))


def test_a_paths_closeness_is_worked_out_as_for_every_fact_reached(
        ledger: Ledger, graph: dict[str, Fact]) -> None:
    """NS is each fact's closeness to the question (its seed weight, or the share of the
    question's stems it says), averaged over the path: worked out only for the facts on
    a path, it is what it was when worked out for every fact the walk reached."""
    from trace_ros.language.text import stems
    from trace_ros.query.paths import _overlap

    seeds = seeds_of(graph, "e2")
    seeds.weight[graph["e2"].fact_id] = 0.3
    paths = stage(ledger, graph_max_hops=3).walk(P, View(), "the freezer thawed", seeds)
    assert paths
    q = stems("the freezer thawed")
    for p in paths:
        eager = [max(seeds.weight.get(f.fact_id, 0.0), _overlap(f, q)) for f in p.facts]
        assert p.ns == sum(eager) / len(eager)
    assert any(p.ns > 0.3 for p in paths)  # the question's words count where they are said
