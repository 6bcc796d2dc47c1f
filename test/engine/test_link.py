"""Linking rules and the extractor context (issue 6 item 5): each rule, its gate and
its justification, on a real ledger with drafts stated by the test."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from graphkit import DAY, PayloadExtractor, capture, consolidate, fact  # noqa: E402

from trace_ros.capture import Event  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402

T0 = 1_700_000_000.0
RULES = ("key-", "paraphrase-", "causal-cue", "anchor-order", "provenance", "mentions",
         "session order", "topic")


def _edges(ledger: Ledger, type_: str) -> list[tuple[str, str, str]]:
    """(src source id, dst source id, justification) of fact edges of one type."""
    src_of = dict(ledger.query("SELECT fact_id, source_id FROM fact_sources"))
    return sorted((src_of[s], src_of[d], j) for s, d, j in ledger.query(
        "SELECT src, dst, justification FROM edges WHERE type = ?", (type_,)))


def test_context_gives_addressee_people_and_session_time(ledger: Ledger) -> None:
    s = Scope("home", "r1", "evening")
    capture(ledger, [
        Event("dialogue", s, "Hi Bob.", "Alice", stamp=T0, source_id="a1"),
        Event("perception", s, "a cat on the sofa", "camera", stamp=T0 + 5, source_id="p1"),
        Event("dialogue", s, "Hi. You live in Boston, right?", "Bob", stamp=T0 + 10, source_id="b1",
              payload={"facts": [fact(entity="Alice", relation="lives_in", value="Boston",
                                      participants=["@addressee"])]}),
        Event("dialogue", s, "And I am in Denver.", "Bob", stamp=T0 + 20, source_id="b2"),
    ])
    ext = PayloadExtractor()
    consolidate(ledger, extractor=ext)
    ctx = ext.contexts
    assert ctx["a1"].addressee == "" and ctx["a1"].people == frozenset({"Alice"})
    assert ctx["b1"].addressee == "Alice"  # the perception record in between is no turn
    assert ctx["b2"].addressee == "Alice"  # Bob's previous turn is his own: look further back
    assert ctx["b2"].people == frozenset({"Alice", "Bob", "camera"})
    assert all(c.session_time == T0 for c in ctx.values())
    [f] = ledger.facts_for_key("home", "alice", "lives_in")
    assert f.participants == ("Alice",)


def test_same_time_change_cue_updates(ledger: Ledger) -> None:
    s = Scope("kim", "r1", "s1")
    capture(ledger, [
        Event("dialogue", s, "The pickup is on Tuesday.", "Kim", stamp=T0, source_id="tue",
              payload={"facts": [fact("plan", entity="pickup", relation="scheduled_for",
                                      value="Tuesday", anchor_time=T0 + 2 * DAY,
                                      anchor_fallback=False, anchor_text="Tuesday")]}),
        Event("dialogue", s, "Actually, it's Thursday.", "Kim", stamp=T0, source_id="thu",
              payload={"facts": [fact("plan", entity="pickup", relation="scheduled_for",
                                      value="Thursday", anchor_time=T0 + 4 * DAY, cues=["actually"],
                                      anchor_fallback=False, anchor_text="Thursday")]}),
    ])
    consolidate(ledger)
    [(src, dst, why)] = _edges(ledger, "updates")
    assert (src, dst) == ("thu", "tue") and why.startswith("key-update") and "actually" in why
    # A future anchor is the appointment's value, not when the plan starts to hold.
    assert {f.valid_from for f in ledger.facts_for_key("kim", "pickup", "scheduled_for")} == {T0}


def test_causal_cues_within_a_message_and_across_turns(ledger: Ledger) -> None:
    s = Scope("lee", "r1", "s1")
    capture(ledger, [
        Event("dialogue", s, "I sold my car because I moved downtown.", "Lee", stamp=T0,
              source_id="m1",
              payload={"facts": [fact("action", description="Lee sold the car", cues=["because"]),
                                 fact("state_change", entity="Lee", relation="lives_in",
                                      value="downtown", cues=["because"])]}),
        Event("dialogue", s, "My knee is injured.", "Lee", stamp=T0 + 60, source_id="m2",
              payload={"facts": [fact("observation", entity="knee", relation="status",
                                      value="injured")]}),
        Event("dialogue", s, "So I can't run the marathon.", "Lee", stamp=T0 + 120, source_id="m3",
              payload={"facts": [fact("plan", description="Lee runs the marathon", polarity=0,
                                      cues=["so", "can't"])]}),
    ])
    consolidate(ledger)
    causes = _edges(ledger, "causes")
    assert [(a, b) for a, b, _ in causes] == [("m1", "m1")]
    src_fact = ledger.query("SELECT src FROM edges WHERE type = 'causes'")[0][0]
    assert ledger.facts_by_ids(ledger.conn, [src_fact])[0].relation == "lives_in"
    [(a, b, why)] = _edges(ledger, "prevents")
    assert (a, b) == ("m2", "m3") and why.startswith("causal-cue") and "previous turn" in why


def test_before_edges_only_between_related_resolved_facts(ledger: Ledger) -> None:
    s = Scope("max", "r1", "s1")
    capture(ledger, [
        Event("dialogue", s, "Last Monday I visited my aunt.", "Max", stamp=T0, source_id="e1",
              payload={"facts": [fact("action", anchor_time=T0 - 3 * DAY, anchor_fallback=False,
                                      anchor_text="last Monday")]}),
        Event("dialogue", s, "Yesterday I went climbing.", "Max", stamp=T0 + 10, source_id="e2",
              payload={"facts": [fact("action", anchor_time=T0 - DAY, anchor_fallback=False,
                                      anchor_text="yesterday")]}),
        Event("dialogue", s, "Two days ago Zoe got a dog.", "Max", stamp=T0 + 20, source_id="e3",
              payload={"facts": [fact("action", participants=["Zoe"], anchor_time=T0 - 2 * DAY,
                                      anchor_fallback=False, anchor_text="two days ago")]}),
        Event("dialogue", s, "I like tea.", "Max", stamp=T0 + 30, source_id="e4",
              payload={"facts": [fact("preference")]}),
    ])
    consolidate(ledger)
    before = _edges(ledger, "before")
    assert [(a, b) for a, b, _ in before] == [("e1", "e2")]
    assert before[0][2].startswith("anchor-order")


def test_paraphrase_with_changed_value_and_the_cross_session_gate(ledger: Ledger) -> None:
    s1, s2 = Scope("ola", "r1", "s1"), Scope("ola", "r1", "s2")
    capture(ledger, [
        Event("dialogue", s1, "The dentist appointment is at 3 pm.", "Ola", stamp=T0, source_id="d1",
              payload={"facts": [fact("plan")]}),
        Event("dialogue", s1, "The dentist appointment is at 5 pm now.", "Ola", stamp=T0 + 60,
              source_id="d2", payload={"facts": [fact("plan", cues=["now"])]}),
        # Another session, nobody in common: the gate keeps it apart.
        Event("dialogue", s2, "The dentist appointment is at 7 pm now.", "Pia", stamp=T0 + DAY,
              source_id="d3", payload={"facts": [fact("plan", cues=["now"])]}),
    ])
    consolidate(ledger)
    [(a, b, why)] = _edges(ledger, "updates")
    assert (a, b) == ("d2", "d1") and why.startswith("paraphrase-update")


def test_every_edge_names_its_rule(ledger: Ledger) -> None:
    capture(ledger, [
        Event("dialogue", Scope("ria", "r1", f"day{i}"), f"I live in town {i}.", "Ria",
              stamp=T0 + i * DAY, source_id=f"r{i}",
              payload={"facts": [fact(entity="Ria", relation="lives_in", value=f"town {i}")]})
        for i in range(4)
    ])
    consolidate(ledger)
    rows = ledger.query("SELECT type, confidence, justification FROM edges")
    assert {r[0] for r in rows} >= {"updates", "in_session", "mentions"}
    for _type, conf, why in rows:
        assert 0 < conf <= 1 and why.startswith(RULES), why
    assert len(_edges(ledger, "updates")) == 3  # a chain, not all pairs


def test_refined_value_is_a_restatement_not_a_conflict(ledger: Ledger) -> None:
    s = Scope("una", "r1", "s1")
    capture(ledger, [
        Event("dialogue", s, "I am an engineer.", "Una", stamp=T0, source_id="j1",
              payload={"facts": [fact(entity="Una", relation="occupation", value="engineer")]}),
        Event("dialogue", s, "An automotive engineer, to be precise.", "Una", stamp=T0,
              source_id="j2", payload={"facts": [fact(entity="Una", relation="occupation",
                                                      value="automotive engineer")]}),
        Event("dialogue", s, "I am a teacher.", "Una", stamp=T0, source_id="j3",
              payload={"facts": [fact(entity="Una", relation="occupation", value="teacher")]}),
    ])
    consolidate(ledger)
    assert _edges(ledger, "updates") == []
    [(a, b, why)] = _edges(ledger, "contradicts")
    assert (a, b) == ("j3", "j2") and why.startswith("key-conflict")


def test_same_conversation_disagreement_conflicts_sensor_readings_update(ledger: Ledger) -> None:
    s = Scope("vic", "r1", "s1")
    capture(ledger, [
        Event("dialogue", s, "The boiler check is on the 8th.", "Vic", stamp=T0, source_id="c1",
              payload={"facts": [fact("plan", entity="boiler check", relation="scheduled_for",
                                      value="8th", participants=[])]}),
        Event("dialogue", s, "The boiler check is on the 11th.", "Wes", stamp=T0 + 60,
              source_id="c2", payload={"facts": [fact("plan", entity="boiler check",
                                                      relation="scheduled_for", value="11th",
                                                      participants=[])]}),
        Event("perception", s, "keys on the desk", "camera", stamp=T0 + 100, source_id="k1",
              payload={"facts": [fact("observation", entity="keys", relation="located_at",
                                      value="desk", participants=[])]}),
        Event("perception", s, "keys in the drawer", "camera", stamp=T0 + 900, source_id="k2",
              payload={"facts": [fact("observation", entity="keys", relation="located_at",
                                      value="drawer", participants=[])]}),
    ])
    consolidate(ledger)
    assert [(a, b) for a, b, _ in _edges(ledger, "contradicts")] == [("c2", "c1")]
    assert [(a, b) for a, b, _ in _edges(ledger, "updates")] == [("k2", "k1")]


def test_time_valued_keys_compare_resolved_days(ledger: Ledger) -> None:
    s = Scope("xia", "r1", "s1")
    sat = T0 + 3 * DAY
    capture(ledger, [
        Event("dialogue", s, "The lesson is on Saturday.", "Xia", stamp=T0, source_id="l1",
              payload={"facts": [fact("plan", entity="lesson", relation="scheduled_for",
                                      value="Saturday", anchor_time=sat, anchor_fallback=False,
                                      participants=[])]}),
        Event("dialogue", s, "Understood, the lesson is on 18 November.", "robot", stamp=T0 + 30,
              source_id="l2", payload={"facts": [fact("plan", entity="lesson",
                                                      relation="scheduled_for", value="18 November",
                                                      anchor_time=sat + 3600, anchor_fallback=False,
                                                      participants=[])]}),
    ])
    consolidate(ledger)
    assert _edges(ledger, "contradicts") == [] and _edges(ledger, "updates") == []


# -- with the CPU extractor: repairs, same-message parts, the robot's turns ------------------


def _cpu() -> object:
    from trace_ros.consolidation.cpu import CpuExtractor

    return CpuExtractor()


def _resolve(ledger: Ledger, subject: str, entity: str, relation: str,
             as_of: float | None = None) -> tuple[str, str]:
    from trace_ros.state import resolve

    r = resolve(ledger, Scope(subject), entity, relation, as_of_valid=as_of)
    return r.status, r.value


MON = 1_684_152_000.0  # Monday 2023-05-15 12:00 UTC


def test_a_self_repair_updates_another_persons_correction_conflicts(ledger: Ledger) -> None:
    a, b = Scope("uma", "r1", "s1"), Scope("uma", "r1", "s2")
    capture(ledger, [
        Event("dialogue", a, "The recital is on Friday the 19th.", "Uma", stamp=MON, source_id="u1"),
        Event("dialogue", a, "Sorry, I meant Saturday.", "Uma", stamp=MON + 30, source_id="u2"),
        Event("dialogue", b, "My haircut is on Thursday the 25th.", "Uma", stamp=MON + DAY,
              source_id="h1"),
        Event("dialogue", b, "No, the haircut is on Friday the 26th, I am certain.", "Ivo",
              stamp=MON + DAY + 30, source_id="h2"),
    ])
    consolidate(ledger, extractor=_cpu())
    assert [(s, d) for s, d, _ in _edges(ledger, "updates")] == [("u2", "u1")]
    assert [(s, d) for s, d, _ in _edges(ledger, "contradicts")] == [("h2", "h1")]
    assert _resolve(ledger, "uma", "recital", "scheduled_for") == ("answer", "saturday")
    assert _resolve(ledger, "uma", "haircut", "scheduled_for")[0] == "conflict"
    [fact_] = [f for f in ledger.facts_for_key("uma", "recital", "scheduled_for")
               if f.value == "saturday"]
    assert datetime.fromtimestamp(fact_.anchor_time, UTC).day == 20  # that week's Saturday


def test_parts_of_one_statement_do_not_revise_each_other(ledger: Ledger) -> None:
    s = Scope("ned", "r1", "s1")
    capture(ledger, [
        Event("dialogue", s, "I live in Leeds.", "Ned", stamp=MON, source_id="n1"),
        Event("dialogue", Scope("ned", "r1", "s2"),
              "I don't live in Leeds anymore; I rent a flat in York.", "Ned",
              stamp=MON + 9 * DAY, source_id="n2"),
    ])
    consolidate(ledger, extractor=_cpu())
    assert all(s != d for s, d, _ in _edges(ledger, "updates"))
    assert _resolve(ledger, "ned", "ned", "lives_in") == ("answer", "york")


def test_a_vaguely_dated_move_does_not_predate_what_was_last_told(ledger: Ledger) -> None:
    capture(ledger, [
        Event("dialogue", Scope("ona", "r1", "s1"), "Our house in Leeds is lovely.", "Ona",
              stamp=MON, source_id="o1"),
        Event("dialogue", Scope("ona", "r1", "s2"), "We moved to York last week.", "Ona",
              stamp=MON + 4 * DAY, source_id="o2"),
    ])
    consolidate(ledger, extractor=_cpu())
    assert _resolve(ledger, "ona", "ona", "lives_in", MON + 2 * DAY) == ("answer", "leeds")
    assert _resolve(ledger, "ona", "ona", "lives_in") == ("answer", "york")


def test_the_robot_speaks_to_the_person_it_answers(ledger: Ledger) -> None:
    s = Scope("home", "r1", "s1")
    capture(ledger, [
        Event("dialogue", s, "Hello, Nadia.", "robot", stamp=MON, source_id="r1"),
        Event("dialogue", s, "Is it raining?", "Theo", stamp=MON + 10, source_id="t1"),
        Event("dialogue", s, "Your parcel is waiting downstairs.", "robot", stamp=MON + 20,
              source_id="r2"),
        Event("dialogue", s, "I ordered new boots from the shop.", "Nadia", stamp=MON + 30,
              source_id="n1"),
        Event("dialogue", s, "Fine.", "Theo", stamp=MON + 40, source_id="t2"),
        Event("dialogue", s, "Your boots from the shop arrive tomorrow.", "robot",
              stamp=MON + 50, source_id="r3"),
        Event("dialogue", s, "Theo, your keys are by the door.", "robot", stamp=MON + 60,
              source_id="r4"),
    ])
    ext = PayloadExtractor()
    consolidate(ledger, extractor=ext)
    ctx = ext.contexts
    assert ctx["r2"].addressee == "Nadia"  # named by the robot earlier; Theo's question is unrelated
    assert ctx["r3"].addressee == "Nadia"  # it answers her turn
    assert ctx["r4"].addressee == "Theo"  # named
    assert ctx["t1"].addressee == "robot" and ctx["n1"].addressee == "robot"


def test_recent_keys_come_from_the_sessions_earlier_facts(ledger: Ledger) -> None:
    s = Scope("pia", "r1", "s1")
    capture(ledger, [
        Event("dialogue", s, "The plumber visit is on Tuesday the 16th.", "Pia", stamp=MON,
              source_id="p1"),
        Event("dialogue", s, "Is that all?", "robot", stamp=MON + 10, source_id="p2"),
        Event("dialogue", s, "No, Wednesday. My mistake.", "Pia", stamp=MON + 20, source_id="p3"),
        Event("dialogue", Scope("pia", "r1", "s2"), "No, Friday.", "Pia", stamp=MON + DAY,
              source_id="p4"),
    ])
    consolidate(ledger, extractor=_cpu())
    assert [(s_, d) for s_, d, _ in _edges(ledger, "updates")] == [("p3", "p1")]
    assert _resolve(ledger, "pia", "plumber visit", "scheduled_for") == ("answer", "wednesday")
    # Another session knows nothing of it: the bare "No, Friday." stays unkeyed.
    assert len(ledger.facts_for_key("pia", "plumber visit", "scheduled_for")) == 2
