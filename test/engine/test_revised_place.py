""""What/which X …?" answered from the graph stage's current record where no record tells
which X in words the check knows: the value stands in the place of the one a superseded
record gave X, a figure in the same unit ("35p now" after "45p a mile") or a new word
where the old record put one before X, which the current record names as left
("hated spin … gone over to yoga" after "the spin class")
(readers._in_revised_place); another unit, no superseded record, or a word the current
record does not leave is none."""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, Pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader, _in_revised_place
from trace_ros.query.readout import ReaderOutput
from trace_ros.query.spans import asked

DAY = 86400.0
T0 = float(calendar.timegm((2025, 3, 3, 9, 0, 0, 0, 0, 0)))


def _pack(*texts: tuple[str, dict[str, int]]) -> Pack:
    """Records given as (text, routes), in the order they were said, all Ann's."""
    return Pack([EvidenceItem(SourceRecord(i, f"s-{i}", "ann", "", "s1", "dialogue", "Ann",
                                           text, "", None, None, {}, T0 + i * DAY, False,
                                           T0 + i * DAY, "h"), 1.0, routes)
                 for i, (text, routes) in enumerate(texts, 1)])


def _holds(question: str, answer: str, p: Pack) -> bool:
    ask = asked(question, plan_question(question, T0 + 30 * DAY))
    return _in_revised_place(ask, question, ReaderOutput(answer, ["s-2"], "x"), p)


RATE = "What mileage rate does the council pay?"
OLD_RATE = ("The council pays mileage at 45p a mile for home visits.", {"dense": 1, "superseded": 1})
NEW_RATE = ("The council cut it, new budget. 35p now.", {"dense": 2, "graph": 1})
CLASS = "Which gym class am I doing this term?"
OLD_CLASS = ("Signed up for the Wednesday spin class this autumn.", {"dense": 1, "superseded": 1})
NEW_CLASS = ("My knees hated spin. I've jacked it in and gone over to Friday yoga.",
             {"dense": 2, "graph": 1})


def test_a_figure_in_the_unit_the_superseded_record_used_stands() -> None:
    assert _holds(RATE, "35p", _pack(OLD_RATE, NEW_RATE))
    # Not the same figure again, nor another unit, nor with no superseded record.
    assert not _holds(RATE, "45p", _pack(OLD_RATE, NEW_RATE))
    assert not _holds(RATE, "35 miles", _pack(OLD_RATE, NEW_RATE))
    assert not _holds(RATE, "35p", _pack((OLD_RATE[0], {"dense": 1}), NEW_RATE))


def test_a_new_word_in_place_of_the_one_the_current_record_leaves_stands() -> None:
    assert _holds(CLASS, "yoga", _pack(OLD_CLASS, NEW_CLASS))
    # The current record does not name the word it leaves: nothing tells the slot.
    quiet = ("They're now saying Friday, nine-ish. Yoga mats are in.", NEW_CLASS[1])
    assert not _holds(CLASS, "yoga", _pack(OLD_CLASS, quiet))
    # Only from the graph stage's current record.
    assert not _holds(CLASS, "yoga", _pack(OLD_CLASS, (NEW_CLASS[0], {"dense": 2})))


def test_the_reader_answers_the_new_figure() -> None:
    q = plan_question(RATE, T0 + 30 * DAY)
    out = ExtractiveReader().read(RATE, q, _pack(OLD_RATE, NEW_RATE))
    assert out.answer == "35p" and out.cited_ids[:1] == ["s-2"]
