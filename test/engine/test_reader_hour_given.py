"""The hour the graph stage's current record gives a time it revises, in words: moved to
it ("Storytime's going to eleven from next week", "pushed choir to eight") or said alone
in a sentence of its own ("They've moved my shift. Seven now.")
(``timeanchor.destination_hour``, ``spans.hour_alone``; invented sentences). Look-alikes:
a count after "to" ("going to twelve people", "one of the clubs"), an hour word inside a
longer sentence, and a record that revises no clock time."""

from __future__ import annotations

import pytest

from trace_ros.language.timeanchor import destination_hour
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import hour_alone

from .readerkit import DAY, T0, rec


def _read(question: str, old: str, new: str) -> str:
    items = [EvidenceItem(rec(1, new), 1.0, {"graph": 1}),
             EvidenceItem(rec(0, old), 1.0, {"superseded": 1})]
    return ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                   pack(items, 4000, 20)).answer


@pytest.mark.parametrize(("text", "hour"), [
    ("my lesson has moved to 9", "9"),
    ("Storytime's going to eleven from next week.", "eleven"),
    ("They pushed choir to eight because of the cubs.", "eight"),
    ("Swimming's moved to half eight.", "half eight"),
    ("We're going to twelve people for dinner.", ""),
    ("He's going to one of the clubs.", ""),
    ("Lessons moved to 9 classes a week.", ""),
])
def test_the_hour_a_thing_moves_to(text: str, hour: str) -> None:
    assert destination_hour(text) == hour


@pytest.mark.parametrize(("sentence", "hour"), [
    ("Seven now.", "Seven"),
    ("Eight.", "Eight"),
    ("Half seven from now on.", "Half seven"),
    ("It's eleven then.", "eleven"),
    ("Seven of them came.", ""),
    ("He's ten now.", ""),
])
def test_an_hour_said_alone(sentence: str, hour: str) -> None:
    assert hour_alone(sentence) == hour


def test_the_current_record_gives_the_hour_in_words() -> None:
    old = "Choir starts at seven on Tuesdays."
    assert _read("What time does choir start?", old,
                 "Choir's going to eight from next week.") == "eight"
    assert _read("What time does choir start?", old,
                 "They pushed choir to eight because of the cubs.") == "eight"


def test_the_current_record_gives_the_hour_alone() -> None:
    assert _read("What time does my shift start?", "My shift starts at 6am.",
                 "They've moved my shift. Seven now.") == "7 am"  # the half 6am said, in figures
