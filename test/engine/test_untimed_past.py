"""A past-tense question naming no time asks what was last settled, where the robot was told.

"When was my GP appointment?" put in the past tense asks a thing's time and names no time,
no event it is dated by and no earlier version ("first", "originally", "before …"): told
the robot, it asks the appointment as it was last settled, not the first telling. A named time, an earlier
version or a conversation between people alone keep the past reading.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from graphkit import capture  # noqa: E402

from trace_ros.capture import Event  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.consolidation.project import GraphProjector  # noqa: E402
from trace_ros.consolidation.worker import Consolidator  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.query.answer import QueryEngine, QueryRequest, QueryResult  # noqa: E402
from trace_ros.query.plan import plan_question, untimed_past  # noqa: E402

HOME = "home"
REF = datetime(2025, 10, 20, tzinfo=UTC).timestamp()


def _untimed(question: str) -> bool:
    return untimed_past(question, plan_question(question, REF))


def test_a_past_question_naming_no_time_is_untimed() -> None:
    assert _untimed("When was my GP appointment?")
    assert _untimed("What time did the Vilnius flight leave?")
    assert _untimed("Which day was Mike's van booked in for its MOT?")


def test_a_named_time_or_earlier_version_is_not() -> None:
    assert not _untimed("When was my GP appointment first booked for?")
    assert not _untimed("When was the appointment originally?")
    assert not _untimed("Where was the AGM held before the flood?")
    assert not _untimed("Where was the AGM held in May?")
    assert not _untimed("Where did the AGM use to be held?")
    assert not _untimed("When is my GP appointment?")  # present: asks now anyway
    assert not _untimed("Did the plumber come?")  # yes/no
    assert not _untimed("Why was the AGM moved?")  # a reason
    assert not _untimed("Which photo pack did I order?")  # a thing done: one of several


def _history(ledger: Ledger, encoder: MiniLMEncoder, other: str) -> None:
    turns = [(6, "Nia", "My GP appointment is on Tuesday the 14th at 10am."),
             (6, other, "Got it, Tuesday the 14th at 10."),
             (7, "Nia", "The weather has been miserable all week, rain every day."),
             (8, "Nia", "The surgery rang and moved my GP appointment to Thursday the 16th at 2pm."),
             (8, other, "Thursday the 16th at 2, noted.")]
    events = [Event("dialogue", Scope(HOME, "r1", f"d{day}"), text, speaker,
                    stamp=datetime(2025, 10, day, 9, i, tzinfo=UTC).timestamp(),
                    source_id=f"t{i}")
              for i, (day, speaker, text) in enumerate(turns)]
    capture(ledger, events)
    Consolidator(ledger, encoder, projector=GraphProjector(ledger, CpuExtractor())).drain()


def _ask(ledger: Ledger, encoder: MiniLMEncoder, question: str) -> QueryResult:
    with QueryEngine(ledger, encoder, audit=False) as eng:
        return eng.ask(QueryRequest(Scope(HOME), question))


def test_told_the_robot_the_last_settled_value_answers(ledger: Ledger,
                                                       encoder: MiniLMEncoder) -> None:
    _history(ledger, encoder, "robot")
    res = _ask(ledger, encoder, "When was my GP appointment?")
    assert res.plan.settled
    assert "16" in res.answer and "t3" in res.source_ids


def test_between_people_the_past_reading_stays(ledger: Ledger,
                                               encoder: MiniLMEncoder) -> None:
    _history(ledger, encoder, "Tom")
    assert not _ask(ledger, encoder, "When was my GP appointment?").plan.settled
    assert not _ask(ledger, encoder, "When was my GP appointment first booked for?").plan.settled
