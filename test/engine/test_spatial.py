"""Spatial memory: the latest perception of a label with its pose and time; region + window."""

from __future__ import annotations

from datetime import datetime

import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.errors import ValidationError
from trace_ros.ledger import Ledger, Scope
from trace_ros.query.answer import QueryEngine, QueryRequest
from trace_ros.query.spatial import Region, label_match, named_window

HOME = Scope("alice", "r1")
# A fixed local "now": 30 Nov 2026, 14:00 local time.
NOW = datetime(2026, 11, 30, 14, 0).astimezone().timestamp()
HOUR = 3600.0
KITCHEN = ("map", 4.0, 1.0, 0.0)


def _seen(label: str, at: float, x: float, y: float, frame: str = "map", desc: str = "",
          scope: Scope = HOME) -> Event:
    return Event("perception", scope, desc, "head_camera", label=label, confidence=0.8,
                 pose={"frame_id": frame, "x": x, "y": y, "z": 0.0, "qw": 1.0}, stamp=at)


@pytest.fixture
def engine(ledger: Ledger) -> QueryEngine:
    events = [
        _seen("keys", NOW - 30 * HOUR, 0.5, 0.5),               # yesterday, hall
        _seen("keys", NOW - 6 * HOUR, 4.2, 1.1),                 # 08:00 today, kitchen
        _seen("red mug", NOW - 5 * HOUR, 3.8, 0.7),              # 09:00, kitchen
        _seen("cat", NOW - 4 * HOUR, 9.0, 9.0),                  # 10:00, garden (outside)
        _seen("toaster", NOW - 1 * HOUR, 4.0, 1.5),              # 13:00, kitchen, afternoon
        _seen("keys", NOW - 2 * HOUR, 1.0, 1.0, frame="odom"),   # other frame
        _seen("wallet", NOW - 3 * HOUR, 4.0, 1.0, scope=Scope("bob", "r1")),
        Event("dialogue", HOME, "I always lose my keys", "alice", stamp=NOW - HOUR),
    ]
    assert {r.status for r in ingest(ledger, events, CaptureConfig())} == {"accepted"}
    return QueryEngine(ledger, None)


def test_where_did_you_last_see_answers_latest_pose_and_time(engine: QueryEngine) -> None:
    res = engine.ask(QueryRequest(HOME, "Where did you last see my keys?"), now=NOW)
    assert res.status == "answered" and res.reader == "spatial:locate"
    (record,) = [e.record for e in res.evidence]
    assert res.source_ids == [record.source_id]
    assert record.label == "keys" and record.pose["frame_id"] == "odom"
    assert record.source_time == NOW - 2 * HOUR
    assert "(1.00, 1.00, 0.00) in frame odom" in res.answer and "keys" in res.answer
    # within a region: the latest sighting there
    inside = engine.ask(QueryRequest(HOME, "Where did you last see my keys?",
                                     region=Region(*KITCHEN, radius=1.5)), now=NOW)
    assert inside.evidence[0].record.pose["x"] == 4.2
    assert inside.to_dict()["evidence"][0]["pose"]["frame_id"] == "map"


def test_what_did_you_see_in_the_kitchen_this_morning(engine: QueryEngine) -> None:
    res = engine.ask(QueryRequest(HOME, "What did you see in the kitchen this morning?",
                                  region=Region(*KITCHEN, radius=1.5)), now=NOW)
    assert res.status == "answered" and res.reader == "spatial:survey"
    labels = [e.record.label for e in res.evidence]
    assert labels == ["red mug", "keys"]  # newest first; no toaster (afternoon), no cat
    assert set(res.source_ids) == {e.source_id for e in res.evidence}
    # an explicit window wins over the words of the question
    afternoon = engine.ask(QueryRequest(HOME, "What did you see in the kitchen this morning?",
                                        region=Region(*KITCHEN, radius=1.5),
                                        window_start=NOW - 1.5 * HOUR, window_end=NOW), now=NOW)
    assert [e.record.label for e in afternoon.evidence] == ["toaster"]
    empty = engine.ask(QueryRequest(HOME, "What did you see?", region=Region(
        "map", 50.0, 50.0, 0.0, 1.0)), now=NOW)
    assert empty.status == "missing" and not empty.source_ids


def test_other_subjects_and_unknown_labels(engine: QueryEngine) -> None:
    res = engine.ask(QueryRequest(HOME, "Where did you last see my wallet?"), now=NOW)
    assert res.reader != "spatial:locate"  # bob's wallet is not alice's
    assert all(e.record.subject_id == "alice" for e in res.evidence)
    with pytest.raises(ValidationError) as err:
        engine.ask(QueryRequest(HOME, "What did you see?", region=Region("", 0, 0, 0, 1.0)))
    assert err.value.field == "region_center.header.frame_id"


def test_label_match_and_named_windows() -> None:
    q = {"where", "is", "the", "mug"}
    assert label_match("red mug", q) == 0.5 and label_match("mug holder", q) == 0.0
    start, end = named_window("what did you see this morning", NOW)
    assert datetime.fromtimestamp(start).hour == 5 and datetime.fromtimestamp(end).hour == 12
    start, end = named_window("anything yesterday?", NOW)
    assert end - start == 24 * HOUR and end <= NOW - 14 * HOUR + 1
    assert named_window("where are my keys", NOW) is None


def test_a_region_without_the_best_label_takes_the_next_best(ledger: Ledger) -> None:
    events = [_seen("red mug", NOW - 3 * HOUR, 9.0, 9.0),     # the full match, outside
              _seen("blue mug", NOW - 2 * HOUR, 4.1, 1.0)]    # half a match, in the kitchen
    assert {r.status for r in ingest(ledger, events, CaptureConfig())} == {"accepted"}
    assert ledger.perception_labels(HOME) == ["blue mug", "red mug"]
    engine = QueryEngine(ledger, None)
    anywhere = engine.ask(QueryRequest(HOME, "Where did you last see the red mug?"), now=NOW)
    assert anywhere.evidence[0].record.label == "red mug"
    inside = engine.ask(QueryRequest(HOME, "Where did you last see the red mug?",
                                     region=Region(*KITCHEN, radius=1.5)), now=NOW)
    assert inside.reader == "spatial:locate" and inside.evidence[0].record.label == "blue mug"
