"""Validity and the bitemporal resolver over a real ledger (issue 6, DESIGN §3)."""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from graphkit import capture, consolidate, fact  # noqa: E402

from trace_ros.capture import Event  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.state import resolve, update_chains  # noqa: E402

ALICE = Scope("alice", "r1", "")


def ts(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, 12, tzinfo=UTC).timestamp()


def _move(ledger: Ledger) -> float:
    """Boston in May (and a plan resting on it), Seattle in July; returns a time
    between the two captures (for as_of_known)."""
    s1 = Scope("alice", "r1", "may")
    capture(ledger, [
        Event("dialogue", s1, "I live in Boston.", "Alice", stamp=ts(2024, 5, 2), source_id="boston",
              payload={"facts": [fact(entity="Alice", relation="lives_in", value="Boston")]}),
        Event("dialogue", s1, "That's why I plan to join the rowing club on the Charles.", "Alice",
              stamp=ts(2024, 5, 2) + 60, source_id="rowing",
              payload={"facts": [fact("plan", entity="Alice", relation="plans",
                                      value="join the rowing club", cues=["that's why"])]}),
    ])
    consolidate(ledger)
    time.sleep(0.05)
    between = time.time()
    time.sleep(0.05)
    s2 = Scope("alice", "r1", "july")
    capture(ledger, [
        Event("dialogue", s2, "We moved to Seattle last week.", "Alice", stamp=ts(2024, 7, 10),
              source_id="seattle",
              payload={"facts": [fact(entity="Alice", relation="lives_in", value="Seattle",
                                      participants=["Alice", "Bob"], cues=["moved"],
                                      anchor_time=ts(2024, 7, 3), anchor_text="last week",
                                      anchor_fallback=False)]}),
    ])
    consolidate(ledger)
    return between


def test_update_chain_now_and_as_of(ledger: Ledger) -> None:
    between = _move(ledger)
    now = resolve(ledger, ALICE, "Alice", "lives_in")
    assert (now.status, now.value, now.source_ids) == ("answer", "seattle", ["seattle"])
    assert [f.value for f in now.superseded] == ["boston"]
    june = resolve(ledger, ALICE, "alice", "lives_in", as_of_valid=ts(2024, 6, 1))
    assert (june.status, june.value, june.source_ids) == ("answer", "boston", ["boston"])
    assert june.superseded == []
    # What the robot knew before it was told about the move.
    known = resolve(ledger, ALICE, "alice", "lives_in", as_of_known=between)
    assert (known.status, known.value) == ("answer", "boston")
    before_may = resolve(ledger, ALICE, "alice", "lives_in", as_of_valid=ts(2024, 4, 1))
    assert before_may.status == "missing"


def test_superseded_fact_keeps_history_and_dependents_weaken(ledger: Ledger) -> None:
    _move(ledger)
    [boston] = ledger.facts_for_key("alice", "alice", "lives_in")[:1]
    [seattle] = [f for f in ledger.facts_for_key("alice", "alice", "lives_in")
                 if f.value == "seattle"]
    assert boston.value == "boston" and boston.status == "superseded" and boston.validity == 0.0
    assert boston.valid_to == ts(2024, 7, 3)  # the anchor of "last week", in July
    assert datetime.fromtimestamp(boston.valid_to, UTC).month == 7
    assert boston.known_to == seattle.known_from
    assert seattle.status == "active" and seattle.valid_to is None
    [plan] = ledger.facts_for_key("alice", "alice", "plans")
    assert plan.validity == 0.5 and plan.status == "active"
    edges = ledger.edges_among([boston.fact_id, plan.fact_id, seattle.fact_id],
                               ("updates", "enables", "causes"))
    types = {(e.type, e.src, e.dst) for e in edges}
    assert ("updates", seattle.fact_id, boston.fact_id) in types
    assert ("enables", boston.fact_id, plan.fact_id) in types
    assert all(e.justification and 0 < e.confidence <= 1 for e in edges)
    [chain] = update_chains(ledger, "alice", entity="alice")
    assert [f.value for f in chain.revisions] == ["boston", "seattle"]


def test_perception_place_changes(ledger: Ledger) -> None:
    scope = Scope("home", "r1", "patrol")

    def seen(place: str, day: int) -> Event:
        return Event("perception", scope, f"red mug on the {place}", "front_camera", label="red mug",
                     stamp=ts(2024, 3, day), source_id=f"mug-{day}",
                     payload={"facts": [fact("observation", entity="red mug", relation="located_at",
                                             value=place, participants=[])]})

    capture(ledger, [seen("kitchen table", 1), seen("sink", 3)])
    consolidate(ledger)
    # One patrol session: the anchors fell back to its start, the message times order.
    assert {f.anchor_time for f in ledger.facts_since("home")} == {ts(2024, 3, 1)}
    home = Scope("home")
    now = resolve(ledger, home, "the red mug", "located_at")
    assert (now.status, now.value, now.source_ids) == ("answer", "sink", ["mug-3"])
    then = resolve(ledger, home, "red mug", "located_at", as_of_valid=ts(2024, 3, 2))
    assert (then.status, then.value, then.source_ids) == ("answer", "kitchen table", ["mug-1"])


def test_contradiction_stays_unresolved(ledger: Ledger) -> None:
    scope = Scope("team", "r1", "standup")
    t = ts(2024, 2, 5)
    capture(ledger, [
        Event("dialogue", scope, "The review is on Monday.", "Bob", stamp=t, source_id="mon",
              payload={"facts": [fact("plan", entity="review", relation="scheduled_for",
                                      value="Monday", participants=["Bob"])]}),
        Event("dialogue", scope, "No, the review is on Tuesday.", "Carol", stamp=t, source_id="tue",
              payload={"facts": [fact("plan", entity="review", relation="scheduled_for",
                                      value="Tuesday", participants=[])]}),
    ])
    consolidate(ledger)
    res = resolve(ledger, Scope("team"), "review", "scheduled_for")
    assert res.status == "conflict"
    assert sorted(res.source_ids) == ["mon", "tue"]
    assert {f.value for f in res.facts} == {"monday", "tuesday"}
    assert {f.status for f in ledger.facts_for_key("team", "review", "scheduled_for")} == {
        "unresolved"}
    assert all(f.validity == 1.0 for f in res.facts)  # contradicts changes no validity


def test_denial_without_cue_conflicts_with_cue_withdraws(ledger: Ledger) -> None:
    s = Scope("dora", "r1", "s")
    capture(ledger, [
        Event("dialogue", s, "I work at the bakery.", "Dora", stamp=ts(2024, 1, 1), source_id="w1",
              payload={"facts": [fact(entity="Dora", relation="works_at", value="bakery")]}),
        Event("dialogue", s, "I don't work at the bakery.", "Dora", stamp=ts(2024, 2, 1),
              source_id="w2", payload={"facts": [fact(entity="Dora", relation="works_at",
                                                      value="bakery", polarity=0)]}),
    ])
    consolidate(ledger)
    assert resolve(ledger, Scope("dora"), "dora", "works_at").status == "conflict"
    capture(ledger, [
        Event("dialogue", s, "I no longer work at the bakery.", "Dora", stamp=ts(2024, 3, 1),
              source_id="w3", payload={"facts": [fact(entity="Dora", relation="works_at",
                                                      value="bakery", polarity=0,
                                                      cues=["no longer"])]}),
    ])
    consolidate(ledger)
    res = resolve(ledger, Scope("dora"), "dora", "works_at")
    assert res.status == "missing" and res.source_ids == ["w3"] and "denies" in res.reason


def test_multi_valued_preferences_accumulate(ledger: Ledger) -> None:
    s = Scope("eve", "r1", "s")
    capture(ledger, [
        Event("dialogue", s, "I like jazz.", "Eve", stamp=ts(2024, 1, 1), source_id="p1",
              payload={"facts": [fact("preference", entity="Eve", relation="prefers:music",
                                      value="jazz")]}),
        Event("dialogue", s, "I like techno too.", "Eve", stamp=ts(2024, 2, 1), source_id="p2",
              payload={"facts": [fact("preference", entity="Eve", relation="prefers:music",
                                      value="techno")]}),
    ])
    consolidate(ledger)
    res = resolve(ledger, Scope("eve"), "eve", "prefers")
    assert res.status == "answer" and res.value == "techno"
    assert [f.value for f in res.facts] == ["techno", "jazz"]


def test_subjects_never_link(ledger: Ledger) -> None:
    events = []
    for who in ("ann", "ben"):
        s = Scope(who, "r1", "s1")
        events += [
            Event("dialogue", s, "I live in Oslo.", who, stamp=ts(2024, 1, 1), source_id=f"{who}-1",
                  payload={"facts": [fact(entity="me", relation="lives_in", value="Oslo")]}),
            Event("dialogue", s, "I moved to Bergen.", who, stamp=ts(2024, 1, 2),
                  source_id=f"{who}-2",
                  payload={"facts": [fact(entity="me", relation="lives_in", value="Bergen",
                                          cues=["moved"])]}),
        ]
    capture(ledger, events[:2] + events[2:3])
    consolidate(ledger)
    capture(ledger, events[3:])
    consolidate(ledger)
    subject_of = {r[0]: r[1] for r in ledger.query("SELECT fact_id, subject_id FROM facts")}
    edges = ledger.query("SELECT subject_id, src, dst FROM edges")
    assert edges
    for subject, src, dst in edges:
        for vertex in (src, dst):
            if vertex in subject_of:
                assert subject_of[vertex] == subject
            else:
                assert vertex.split(":", 1)[1].startswith(subject + "/")
    assert resolve(ledger, Scope("ann"), "me", "lives_in").source_ids == ["ann-2"]
    assert resolve(ledger, Scope("ben"), "me", "lives_in").source_ids == ["ben-2"]
    # ben's Oslo fact was stated after ann's move; it must not be touched by it.
    assert resolve(ledger, Scope("ben"), "me", "lives_in",
                   as_of_valid=ts(2024, 1, 1) + 1).value == "oslo"


def test_forget_removes_facts_edges_and_restores_state(ledger: Ledger) -> None:
    _move(ledger)
    ledger.forget(source_ids=["seattle"])
    assert ledger.query("SELECT count(*) FROM fact_sources WHERE source_id = 'seattle'")[0][0] == 0
    facts = ledger.facts_for_key("alice", "alice", "lives_in")
    assert [(f.value, f.status, f.valid_to, f.validity) for f in facts] == [
        ("boston", "active", None, 1.0)]
    [plan] = ledger.facts_for_key("alice", "alice", "plans")
    assert plan.validity == 1.0
    ids = {r[0] for r in ledger.query("SELECT fact_id FROM facts")}
    for src, dst in ledger.query("SELECT src, dst FROM edges"):
        assert src in ids or not src.startswith("f:")
        assert dst in ids or not dst.startswith("f:")
    assert ledger.query("SELECT count(*) FROM vectors WHERE owner_id = 'seattle'")[0][0] == 0
    assert resolve(ledger, ALICE, "alice", "lives_in").value == "boston"
    ledger.forget(Scope("alice"))
    assert ledger.query("SELECT count(*) FROM facts")[0][0] == 0
    assert ledger.query("SELECT count(*) FROM edges")[0][0] == 0


def test_causes_edge_out_of_a_superseded_fact_is_invalidated(ledger: Ledger) -> None:
    s = Scope("finn", "r1", "s")
    capture(ledger, [
        Event("dialogue", s, "My bike is broken, so I bought a bus pass.", "Finn",
              stamp=ts(2024, 1, 1), source_id="b1",
              payload={"facts": [fact("observation", entity="bike", relation="status",
                                      value="broken", participants=[], cues=["so"]),
                                 fact("action", description="Finn bought a bus pass",
                                      cues=["so"])]}),
        Event("dialogue", s, "The bike is fixed now.", "Finn", stamp=ts(2024, 2, 1), source_id="b2",
              payload={"facts": [fact("state_change", entity="bike", relation="status",
                                      value="fixed", participants=[], cues=["now"])]}),
    ])
    consolidate(ledger)
    [(invalidated,)] = ledger.query("SELECT invalidated_at FROM edges WHERE type = 'causes'")
    assert invalidated == ts(2024, 2, 1)
    [action] = [f for f in ledger.facts_since("finn") if f.type == "action"]
    assert action.validity == 0.5
    assert resolve(ledger, Scope("finn"), "bike", "status").value == "fixed"


def test_participants_and_scope_narrow_the_key(ledger: Ledger) -> None:
    capture(ledger, [
        Event("dialogue", Scope("gus", "r1", "a"), "My meeting is on Monday.", "Gus",
              stamp=ts(2024, 1, 1), source_id="g1",
              payload={"facts": [fact("plan", entity="meeting", relation="scheduled_for",
                                      value="Monday")]}),
        Event("dialogue", Scope("gus", "r2", "b"), "My meeting is on Friday.", "Hal",
              stamp=ts(2024, 1, 2), source_id="h1",
              payload={"facts": [fact("plan", entity="meeting", relation="scheduled_for",
                                      value="Friday")]}),
    ])
    consolidate(ledger)
    # Different people's meetings are not revisions of one another.
    assert ledger.query("SELECT count(*) FROM edges WHERE type IN ('updates', 'contradicts')"
                        )[0][0] == 0
    assert resolve(ledger, Scope("gus"), "meeting", "scheduled_for",
                   participants=["gus"]).source_ids == ["g1"]
    assert resolve(ledger, Scope("gus"), "meeting", "scheduled_for",
                   participants=["Hal"]).value == "friday"
    assert resolve(ledger, Scope("gus", "r1"), "meeting", "scheduled_for").value == "monday"
    assert resolve(ledger, Scope("gus"), "meeting", "scheduled_for").value == "friday"


def test_a_cued_update_settles_an_open_conflict(ledger: Ledger) -> None:
    s = Scope("ivy", "r1", "s1")
    t = ts(2024, 4, 1)
    capture(ledger, [
        Event("dialogue", s, "The vet visit is on Monday.", "Ivy", stamp=t, source_id="v1",
              payload={"facts": [fact("plan", entity="vet visit", relation="scheduled_for",
                                      value="Monday", participants=[])]}),
        Event("dialogue", s, "I think it is on Wednesday.", "Jo", stamp=t + 60, source_id="v2",
              payload={"facts": [fact("plan", entity="vet visit", relation="scheduled_for",
                                      value="Wednesday", participants=[])]}),
    ])
    consolidate(ledger)
    assert resolve(ledger, Scope("ivy"), "vet visit", "scheduled_for").status == "conflict"
    capture(ledger, [
        Event("dialogue", Scope("ivy", "r1", "s2"), "The vet moved it to Friday.", "Ivy",
              stamp=t + 86400, source_id="v3",
              payload={"facts": [fact("plan", entity="vet visit", relation="scheduled_for",
                                      value="Friday", participants=[], cues=["moved"])]}),
    ])
    consolidate(ledger)
    res = resolve(ledger, Scope("ivy"), "vet visit", "scheduled_for")
    assert (res.status, res.value, res.source_ids) == ("answer", "friday", ["v3"])
    assert {f.status for f in res.superseded} == {"superseded"} and len(res.superseded) == 2
    # Before the change the conflict is what the robot knew.
    assert resolve(ledger, Scope("ivy"), "vet visit", "scheduled_for",
                   as_of_valid=t + 3600).status == "conflict"
