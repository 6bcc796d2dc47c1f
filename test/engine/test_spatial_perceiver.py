"""Spatial answers only for what the robot perceived; someone else's experience goes to recall."""

from __future__ import annotations

from datetime import datetime

import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig
from trace_ros.ledger import Ledger, Scope
from trace_ros.query.answer import QueryEngine, QueryRequest
from trace_ros.query.spatial import Region, perceiver

HOME = Scope("dana", "r2")
NOW = datetime(2026, 11, 30, 15, 0).astimezone().timestamp()
HOUR = 3600.0


@pytest.mark.parametrize(("question", "who", "perceiving"), [
    ("Where did you last see my keys?", "robot", True),
    ("What did you see in the hall this afternoon?", "robot", True),
    ("What objects did your camera detect?", "robot", True),
    ("What did the robot observe near the stairs?", "robot", True),
    ("Where was the mug seen by the robot?", "robot", True),
    ("Where was the red mug last seen?", "none", True),
    ("Where are my glasses?", "none", False),
    ("Where did I leave my wallet?", "asker", False),
    ("What did Priya notice at the harbour festival?", "other", True),
    ("What sign did Ravi see at the station?", "other", True),
    ("What has Omar seen lately?", "other", True),
    ("What is Lena hoping to see in Rome?", "other", True),
    ("Which films have both Ida and Sam seen?", "other", True),
    ("What did she spot on her walk?", "other", True),
    ("Where did Marco put the ladder?", "other", False),
    ("Where did my brother leave his bike?", "other", False),
    ("Where was the mug seen by Tom?", "other", True),
    ("Where did he move from?", "other", False),
])
def test_perceiver(question: str, who: str, perceiving: bool) -> None:
    got = perceiver(question)
    assert (got.who, got.perceiving) == (who, perceiving)


@pytest.fixture
def engine(ledger: Ledger) -> QueryEngine:
    pose = {"frame_id": "map", "x": 2.0, "y": 3.0, "z": 0.0, "qw": 1.0}
    events = [
        # A person's photo, stored as a perception (as a chat client's image would be).
        Event("dialogue", HOME, "Priya: the harbour festival had a huge lantern parade",
              "priya", stamp=NOW - 5 * HOUR),
        Event("perception", HOME, "Priya shared a photo: lanterns over the harbour", "priya",
              label="photo", stamp=NOW - 5 * HOUR),
        Event("dialogue", HOME, "Marco put the ladder in the garage after painting", "marco",
              stamp=NOW - 4 * HOUR),
        Event("perception", HOME, "", "head_camera", label="ladder", confidence=0.9,
              pose=pose, stamp=NOW - 3 * HOUR),
        Event("perception", HOME, "", "head_camera", label="wallet", confidence=0.7,
              pose=pose, stamp=NOW - 2 * HOUR),
    ]
    assert {r.status for r in ingest(ledger, events, CaptureConfig())} == {"accepted"}
    return QueryEngine(ledger, None)


def test_third_party_questions_go_through_recall(engine: QueryEngine) -> None:
    res = engine.ask(QueryRequest(HOME, "What did Priya notice at the harbour festival?"), now=NOW)
    assert not res.reader.startswith("spatial")
    assert any("lantern" in e.record.text for e in res.evidence)
    res = engine.ask(QueryRequest(HOME, "Where did Marco put the ladder?"), now=NOW)
    assert not res.reader.startswith("spatial")  # Marco's doing, though a ladder was seen
    assert any("garage" in e.record.text for e in res.evidence)
    # a region does not make someone else's experience the robot's
    res = engine.ask(QueryRequest(HOME, "What did Priya notice?",
                                  region=Region("map", 2.0, 3.0, 0.0, 1.0)), now=NOW)
    assert not res.reader.startswith("spatial")


def test_robot_and_object_questions_stay_spatial(engine: QueryEngine) -> None:
    # No fact holds the ladder's or the wallet's place (only a pose was perceived):
    # the perception report answers, whoever asks.
    for question in ("Where did you last see the ladder?", "Where is the ladder?",
                     "Where was the ladder last seen?"):
        res = engine.ask(QueryRequest(HOME, question), now=NOW)
        assert res.reader == "spatial:locate", question
        assert [e.record.label for e in res.evidence] == ["ladder"]
    res = engine.ask(QueryRequest(HOME, "Where did I leave my wallet?"), now=NOW)
    assert res.reader == "spatial:locate" and "wallet" in res.answer
    res = engine.ask(QueryRequest(HOME, "What did your camera detect this afternoon?"), now=NOW)
    assert res.reader == "spatial:survey"
    assert [e.record.label for e in res.evidence] == ["wallet", "ladder"]
