"""Current by default, history on request, conflicts and gaps reported (issue 7, DESIGN §3–§4).

Real SQLite ledger, real consolidation with the rule-based CPU extractor and the
graph projector, questions through ``QueryEngine.ask`` with the extractive reader.
"""

from __future__ import annotations

import re
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from graphkit import HashEncoder, capture  # noqa: E402

from trace_ros.capture import Event  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.consolidation.project import GraphProjector  # noqa: E402
from trace_ros.consolidation.worker import Consolidator  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.query.answer import QueryEngine, QueryRequest, QueryResult  # noqa: E402
from trace_ros.query.readers import format_day  # noqa: E402
from trace_ros.query.spatial import Region  # noqa: E402

U = Scope("u")


def ts(y: int, m: int, d: int, h: int = 12) -> float:
    return datetime(y, m, d, h, tzinfo=UTC).timestamp()


def consolidate(ledger: Ledger) -> None:
    projector = GraphProjector(ledger, CpuExtractor())
    Consolidator(ledger, HashEncoder(), projector=projector).drain()


def engine(ledger: Ledger) -> QueryEngine:
    return QueryEngine(ledger, HashEncoder(), audit=False)


def ask(ledger: Ledger, question: str, **view: float) -> QueryResult:
    with engine(ledger) as eng:
        return eng.ask(QueryRequest(U, question, **view))


def parcel(ledger: Ledger) -> float:
    """Monday in a first session, the move to Tuesday in a later one; returns a time
    after the first was stored and before the second was."""
    s1, s2 = Scope("u", "r1", "s1"), Scope("u", "r1", "s2")
    capture(ledger, [
        Event("dialogue", s1, "I'll pick up the parcel on Monday.", "Maya", stamp=ts(2025, 3, 1),
              source_id="src-a"),
        Event("dialogue", s1, "Okay, I will remind you.", "robot", stamp=ts(2025, 3, 1) + 30,
              source_id="src-r"),
    ])
    consolidate(ledger)
    time.sleep(0.02)
    between = time.time()
    time.sleep(0.02)
    capture(ledger, [
        Event("dialogue", s2, "The parcel pickup moved from Monday to Tuesday.", "Maya",
              stamp=ts(2025, 3, 5), source_id="src-b"),
    ])
    consolidate(ledger)
    return between


def test_current_state_without_cue_words(ledger: Ledger) -> None:
    parcel(ledger)
    res = ask(ledger, "When is my parcel pickup?")
    assert res.status == "answered"
    assert res.source_ids[0] == "src-b"
    # the Tuesday after 5 March, with the weekday the record says
    assert res.answer == f"Tuesday {format_day(ts(2025, 3, 11, 0))}"
    shown = [e.source_id for e in res.evidence]
    assert shown[0] == "src-b" and "src-a" in shown  # the old revision is kept, after the new
    # ... and the pack says the old one is superseded.
    assert any(p.startswith("[src-b]") and "updates [src-a]" in p
               and "superseded on 2025-03-05" in p for p in res.paths)


def test_pack_shows_the_newest_revision_and_marks_the_older_superseded(ledger: Ledger) -> None:
    parcel(ledger)
    req = QueryRequest(U, "When is my parcel pickup?")
    with engine(ledger) as eng:
        plan, timings = eng.plan(req), {}
        recalled = eng.recall(req, timings)
        ranked = eng.rank(req, plan, recalled, timings)
        packed = eng.pack(req, ranked, timings, eng.graph(req, plan, recalled, ranked, timings))
    text = packed.render()
    assert text.index("[src-b]") < text.index("[src-a]")  # records first, newest revision first
    lines = text.split("Support paths:")[1]
    assert re.search(r"\[src-b\] \([^)]*tuesday\) updates \[src-a\] \([^)]*monday\) "
                     r"— superseded on 2025-03-05", lines), lines
    assert packed.tokens <= packed.budget


@pytest.mark.parametrize("question", ["What is the latest plan for the parcel pickup?",
                                      "What is the newest plan for the parcel pickup now?",
                                      "What is the most recent plan for the parcel pickup?"])
def test_words_of_recency_frame_the_question_and_never_name_the_thing(
        ledger: Ledger, question: str) -> None:
    """"latest"/"newest" ask for the current state; the never-stated guards must not
    take them for part of the thing asked about (no record says "latest parcel")."""
    parcel(ledger)
    res = ask(ledger, question)
    assert res.status == "answered", res.message
    assert res.source_ids[0] == "src-b" and "tuesday" in res.answer.lower()


def test_question_about_the_past_gets_the_superseded_revision(ledger: Ledger) -> None:
    parcel(ledger)
    res = ask(ledger, "When was my parcel pickup before?")
    assert res.status == "answered"
    assert res.source_ids[0] == "src-a"
    assert res.answer == f"Monday {format_day(ts(2025, 3, 3, 0))}"  # the Monday after 1 March


def test_as_of_before_the_change_sees_only_the_old_revision(ledger: Ledger) -> None:
    between = parcel(ledger)
    for view in ({"as_of_valid": ts(2025, 3, 3)}, {"as_of_known": between}):
        res = ask(ledger, "When is my parcel pickup?", **view)
        assert res.status == "answered", view
        assert res.source_ids == ["src-a"], view
        assert res.answer == f"Monday {format_day(ts(2025, 3, 3, 0))}"
        # Historical views never include later records, nor paths through them.
        assert "src-b" not in [e.source_id for e in res.evidence]
        assert not any("src-b" in p for p in res.paths)


def test_contradiction_is_a_conflict_citing_both_sources(ledger: Ledger) -> None:
    s1 = Scope("u", "r1", "s1")
    capture(ledger, [
        Event("dialogue", s1, "My passport is on the kitchen table.", "Maya",
              stamp=ts(2025, 3, 1), source_id="c-1"),
        Event("dialogue", s1, "The passport is in the garage.", "Sam", stamp=ts(2025, 3, 1),
              source_id="c-2"),
    ])
    consolidate(ledger)
    res = ask(ledger, "Where is my passport?")
    assert res.status == "conflict"
    assert sorted(res.source_ids) == ["c-1", "c-2"]
    assert res.answer == ""
    assert any("contradicts" in p and "unresolved conflict" in p for p in res.paths)


def test_never_stated_fact_is_missing_not_a_similar_fact(ledger: Ledger) -> None:
    parcel(ledger)
    res = ask(ledger, "When is my dentist appointment?")
    assert res.status in ("missing", "abstained")
    assert res.source_ids == [] and res.answer == ""
    assert not any("src-a" in p or "src-b" in p for p in res.paths)


def test_answerable_question_without_a_key_is_still_read(ledger: Ledger) -> None:
    """No state key is asked about: the stage must not turn it into missing."""
    s1 = Scope("u", "r1", "s1")
    capture(ledger, [Event("dialogue", s1, "I studied biology at university.", "Maya",
                           stamp=ts(2025, 3, 1), source_id="bio")])
    consolidate(ledger)
    res = ask(ledger, "What did Maya study at university?")
    assert res.status == "answered" and res.source_ids == ["bio"]


def test_question_quoting_another_subject_returns_nothing_of_it(ledger: Ledger) -> None:
    parcel(ledger)
    other = Scope("v", "r1", "s1")
    capture(ledger, [
        Event("dialogue", other, "My bicycle is in the blue shed.", "Ines", stamp=ts(2025, 3, 2),
              source_id="v-1"),
        Event("dialogue", other, "The bicycle moved from the blue shed to the cellar.", "Ines",
              stamp=ts(2025, 3, 6), source_id="v-2"),
    ])
    consolidate(ledger)
    v_facts = {f.fact_id for f in ledger.facts_since("v")}
    assert v_facts  # the other subject has a graph the question could reach
    with engine(ledger) as eng:
        res = eng.ask(QueryRequest(U, "Where is my bicycle? My bicycle is in the blue shed."))
        graph = eng.graph_stage.run(U, "My bicycle is in the blue shed.",
                                    eng.plan(QueryRequest(U, "Where is my bicycle?")), [],
                                    set(), None, None)
    assert not {"v-1", "v-2"} & {e.source_id for e in res.evidence}
    assert not {"v-1", "v-2"} & set(res.source_ids)
    assert not any("v-1" in p or "v-2" in p for p in res.paths)
    assert not v_facts & set(graph.seeds.facts)
    assert not any(f.subject_id != "u" for p in graph.paths for f in p.facts)


@pytest.mark.parametrize("ablate", [{"graph"}, {"update_seeds"}])
def test_ablation_switches_the_stage_off(ledger: Ledger, ablate: set[str]) -> None:
    parcel(ledger)
    with QueryEngine(ledger, HashEncoder(), audit=False, ablate=ablate) as eng:
        res = eng.ask(QueryRequest(U, "When is my parcel pickup?"))
    assert ("graph" in res.timings_ms) == ("graph" not in ablate)
    if "graph" in ablate:
        assert res.paths == []


def test_a_persons_state_never_recorded_is_missing(ledger: Ledger) -> None:
    s1 = Scope("u", "r1", "s1")
    capture(ledger, [
        Event("dialogue", s1, "I live in Lisbon.", "Maya", stamp=ts(2025, 3, 1), source_id="home"),
        Event("dialogue", s1, "My brother works at the harbour.", "Maya", stamp=ts(2025, 3, 1) + 60,
              source_id="brother"),
    ])
    consolidate(ledger)
    where = ask(ledger, "Where does Maya live?")
    assert where.status == "answered" and where.source_ids == ["home"]
    # Maya's own work was never stated (only her brother's): not her brother's job.
    work = ask(ledger, "Where does Maya work?")
    assert work.status == "missing" and work.source_ids == [] and work.answer == ""


def test_relation_words_must_really_ask_about_the_key(ledger: Ledger) -> None:
    """"for a living" asks for an occupation, not a home ("living" only stems like
    "live"); a job said in the first person ("I work … at the city hospital") answers
    where someone works instead of the guard calling it never recorded."""
    s1 = Scope("u", "r1", "s1")
    capture(ledger, [
        Event("dialogue", s1, "I live in Lisbon.", "Maya", stamp=ts(2025, 3, 1), source_id="home"),
        Event("dialogue", s1, "I work as a nurse at the city hospital.", "Maya",
              stamp=ts(2025, 3, 1) + 60, source_id="job"),
    ])
    consolidate(ledger)
    living = ask(ledger, "What does Maya do for a living?")
    assert living.status == "answered" and living.source_ids == ["job"], living.answer
    assert "lisbon" not in living.answer.lower()
    work = ask(ledger, "Where does Maya work?")
    assert work.status == "answered" and work.source_ids == ["job"], work.message
    assert "hospital" in work.answer


def test_where_is_a_thing_is_state_and_the_last_sighting_is_a_report(tmp_path: Path) -> None:
    """A sighting and a later spoken move: "where is" follows the move (the resolver),
    "where did you last see" reports the sighting after the place it has been moved to
    (the move cited first); same-time sightings that disagree are a conflict, never one
    picked."""
    home, hall = Scope("u", "r1", "s1"), Scope("u", "r1", "s2")
    pose = {"frame_id": "map", "x": 1.0, "y": 2.0, "z": 0.0}
    with Ledger(tmp_path / "m.db") as ledger:
        capture(ledger, [
            Event("perception", home, "red mug on the kitchen table", "head_camera",
                  label="red mug", confidence=0.9, pose=pose, stamp=ts(2025, 4, 1),
                  source_id="see-1"),
            Event("dialogue", hall, "I moved the red mug to the sink.", "Maya",
                  stamp=ts(2025, 4, 2), source_id="say-1"),
            Event("perception", hall, "umbrella by the front door", "door_camera",
                  label="umbrella", confidence=0.8, pose=pose, stamp=ts(2025, 4, 3),
                  source_id="see-2"),
            Event("perception", hall, "umbrella in the garage", "garage_camera",
                  label="umbrella", confidence=0.8, pose=pose, stamp=ts(2025, 4, 3),
                  source_id="see-3"),
        ])
        consolidate(ledger)
        now = ask(ledger, "Where is the red mug?")
        assert not now.reader.startswith("spatial")
        assert now.status == "answered" and "sink" in now.answer
        assert now.source_ids[0] == "say-1"
        seen = ask(ledger, "Where did you last see the red mug?")
        assert seen.reader == "spatial:locate" and seen.source_ids == ["say-1", "see-1"]
        assert seen.answer.index("sink") < seen.answer.index("last seen")
        both = ask(ledger, "Where did you last see the umbrella?")
        assert not both.reader.startswith("spatial")
        assert both.status == "conflict" and set(both.source_ids) >= {"see-2", "see-3"}


def test_a_sighting_older_than_the_known_place_is_not_cited_first(tmp_path: Path) -> None:
    """"Where did you see X last" with no time named asks where X is: a place learnt after
    the last sighting leads and is cited first; a sighting newer than every spoken place,
    or one asked about within a region, is reported alone."""
    s1, s2, s3 = (Scope("u", "r1", f"s{i}") for i in (1, 2, 3))
    pose = {"frame_id": "map", "x": 3.0, "y": 1.0, "z": 0.0}
    with Ledger(tmp_path / "m.db") as ledger:
        capture(ledger, [
            Event("perception", s1, "Spotted the scissors in the craft drawer.", "arm_camera",
                  label="scissors", confidence=0.7, pose=pose, stamp=ts(2025, 6, 2),
                  source_id="cam-1"),
            Event("dialogue", s2, "I moved the scissors to the garden shed.", "Lee",
                  stamp=ts(2025, 6, 5), source_id="lee-1"),
            Event("dialogue", s1, "I left the stapler on the piano.", "Lee",
                  stamp=ts(2025, 6, 1), source_id="lee-2"),
            Event("perception", s3, "Spotted the stapler on the windowsill.", "arm_camera",
                  label="stapler", confidence=0.7, pose=pose, stamp=ts(2025, 6, 8),
                  source_id="cam-2"),
        ])
        consolidate(ledger)
        moved = ask(ledger, "Where did you see the scissors last?")
        assert moved.status == "answered" and moved.source_ids[:1] == ["lee-1"], moved.answer
        assert "cam-1" in moved.source_ids and "garden shed" in moved.answer
        seen = ask(ledger, "Where did you see the stapler last?")
        assert seen.reader == "spatial:locate" and seen.source_ids == ["cam-2"], seen.answer
        with engine(ledger) as eng:
            there = eng.ask(QueryRequest(U, "Where did you see the scissors last?",
                                         region=Region("map", 3.0, 1.0, 0.0, 1.0)))
        assert there.reader == "spatial:locate" and there.source_ids == ["cam-1"]
