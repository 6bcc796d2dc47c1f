""""What colour …?" where no record says "colour": a value the newest record gives in place
of an older one the ledger holds superseded, naming the value it leaves, fills the slot
(focus._in_place_of_told); a restated value, a time, or a word said beside the old value
is none."""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.focus import _in_place_of_told
from trace_ros.query.pack import EvidenceItem, Pack
from trace_ros.query.readout import ReaderOutput

DAY = 86400.0
T0 = float(calendar.timegm((2025, 3, 3, 9, 0, 0, 0, 0, 0)))
Q = "What colour are our kitchen units going to be?"


def _pack(*texts: tuple[str, str, dict[str, int]]) -> Pack:
    """Records given as (text, speaker, routes), in the order they were said."""
    return Pack([EvidenceItem(SourceRecord(i, f"s-{i}", "ann", "", "s1", "dialogue", speaker,
                                           text, "", None, None, {}, T0 + i * DAY, False,
                                           T0 + i * DAY, "h"), 1.0, routes)
                 for i, (text, speaker, routes) in enumerate(texts, 1)])


OLD = ("We're going sage green for the kitchen units.", "Ann", {"dense": 1, "superseded": 1})
NEW = ("We saw the showroom and went with the navy for the units. Sage looked grey in our light.",
       "Ann", {"dense": 2, "graph": 1})


def test_the_value_said_in_place_of_the_one_left_fills_the_slot() -> None:
    assert _in_place_of_told(Q, ReaderOutput("navy", ["s-2"], "x"), _pack(OLD, NEW))


def test_without_an_older_superseded_record_nothing_is_taken() -> None:
    kept = (OLD[0], "Ann", {"dense": 1})  # not superseded: no change the ledger holds
    assert not _in_place_of_told(Q, ReaderOutput("navy", ["s-2"], "x"), _pack(kept, NEW))


def test_another_speakers_record_or_a_restated_value_is_not_a_change() -> None:
    other = (NEW[0], "Bob", NEW[2])
    assert not _in_place_of_told(Q, ReaderOutput("navy", ["s-2"], "x"), _pack(OLD, other))
    again = ("Sage green for the units, we're sure now. Sage it is.", "Ann", NEW[2])
    assert not _in_place_of_told(Q, ReaderOutput("sage", ["s-2"], "x"), _pack(OLD, again))


def test_a_word_said_beside_the_old_value_or_a_time_is_not_the_new_value() -> None:
    # The old value is said in the answer's own sentence: the span is about it, not instead.
    beside = ("The sage units are delayed, the fitters come later.", "Ann", NEW[2])
    assert not _in_place_of_told(Q, ReaderOutput("units are delayed", ["s-2"], "x"),
                                 _pack(OLD, beside))
    timed = ("Fitting moved to Friday at 4pm. Sage still.", "Ann", NEW[2])
    assert not _in_place_of_told(Q, ReaderOutput("Friday at 4pm", ["s-2"], "x"),
                                 _pack(OLD, timed))


def _read(question: str, p: Pack) -> tuple[str, list[str]]:
    from trace_ros.query.plan import plan_question
    from trace_ros.query.readers import ExtractiveReader
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY), p)
    return out.answer, out.cited_ids


def test_the_reader_answers_the_new_value_where_no_record_names_the_kind() -> None:
    new = ("Went back and got navy for the units. Sage looked grey in our light.", "Ann", NEW[2])
    answer, cited = _read(Q, _pack(OLD, new))
    assert "navy" in answer.lower() and cited == ["s-2"]
    # Kept, not changed (no record superseded): no value is read into the slot.
    answer, _ = _read(Q, _pack((OLD[0], "Ann", {"dense": 1}), new))
    assert answer == ""
