"""A "which X" question whose chosen record does not tell which X is answered with the
label another shown record gives X, not abstained.

The graph stage may lead with a record about another side of the thing ("the yoga class
moves to Thursdays") and mark the one that labels X superseded; the label of X is then
read from the newest record that gives one ("the Cedar room now" over "the Lotus room"),
about what is asked and about whom it asks: the room of someone else's class, or of
another thing, is no answer.
"""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader, ReaderOutput

DAY = 86400.0
T0 = float(calendar.timegm((2025, 3, 3, 10, 0, 0, 0, 0, 0)))


def rec(seq: int, text: str, speaker: str = "Noor") -> SourceRecord:
    when = T0 + seq * 3600.0
    return SourceRecord(seq, f"src-{seq}", "noor", "r1", "s1", "dialogue", speaker, text, "",
                        None, None, {}, when, False, when, "h")


def read(question: str, *items: tuple[SourceRecord, dict[str, int]]) -> ReaderOutput:
    p = pack([EvidenceItem(r, 1.0, routes) for r, routes in items], 4000, 20)
    return ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY), p)


LEAD = (rec(5, "The yoga class moves to Thursdays from next week, same teacher."), {"graph": 1})


def test_the_label_another_record_gives() -> None:
    out = read("Which room is the yoga class in?", LEAD,
               (rec(1, "The yoga class is in the Lotus room upstairs."), {"superseded": 1}))
    assert out.answer == "Lotus room"
    assert out.cited_ids == ["src-1"]


def test_the_newest_label_holds() -> None:
    out = read("Which room is the yoga class in?", LEAD,
               (rec(1, "The yoga class is in the Lotus room upstairs."), {"superseded": 1}),
               (rec(3, "They painted upstairs, so the yoga class is in the Cedar room now."),
                {"superseded": 1}))
    assert out.answer == "Cedar room"


def test_another_holders_label_is_no_answer() -> None:
    out = read("Which room is Priya's yoga class in?", LEAD,
               (rec(1, "Tom's yoga class is in the Lotus room upstairs."), {}))
    assert out.answer == ""


def test_a_label_of_another_thing_is_no_answer() -> None:
    out = read("Which room is the yoga class in?", LEAD,
               (rec(1, "My coat is in the Lotus room upstairs."), {}))
    assert out.answer == ""
