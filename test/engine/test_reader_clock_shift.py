"""A revision that moves a clock time by a span ("an hour later", "ten minutes earlier")
and says no new time: the answer is the time of the record it revises, moved. Only the
graph stage's current record is read so, and only against what it supersedes; a shift
said of another thing's time moves nothing asked."""

from __future__ import annotations

import pytest

from trace_ros.language.timeanchor import clock_minutes, clock_moved, clock_shift
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

from .readerkit import DAY, T0, rec


def read_items(question: str, items: list[EvidenceItem]) -> tuple[str, list[str]]:
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(items, 4000, 20))
    return out.answer, out.cited_ids


@pytest.mark.parametrize(("text", "minutes"), [
    ("Beginners go out an hour later from now on.", 60),
    ("Eli's bus is ten minutes earlier from today.", -10),
    ("Management have shoved our start back an hour.", 60),
    ("They want us in half an hour earlier.", -30),
    ("The 7:15 boat for me.", None),            # a time, no span it moves by
    ("Back to one a day.", None),               # a count, no unit of time
    ("The drill got pushed back a week.", None),  # a day's shift, not a clock's
    ("She came back an hour ago.", None),       # when something happened, not a move
])
def test_the_span_a_clock_time_is_moved_by(text: str, minutes: int | None) -> None:
    assert clock_shift(text) == minutes


@pytest.mark.parametrize(("said", "minutes", "moved"), [
    ("7:40", -10, "7:30"),
    ("at 9", 60, "10"),
    ("10pm", 60, "11 pm"),
    ("half five", 30, "6"),
    ("quarter to seven", -15, "6:30"),
    ("11:30pm", 60, "12:30 am"),
    ("19:30", 60, "20:30"),
    ("on Friday", 60, ""),
])
def test_a_clock_time_moved(said: str, minutes: int, moved: str) -> None:
    assert clock_moved(said, minutes) == moved


def test_clock_times_in_words_and_figures() -> None:
    assert clock_minutes("half seven") == (7 * 60 + 30, "")
    assert clock_minutes("quarter past 3") == (3 * 60 + 15, "")
    assert clock_minutes("10 pm") == (10 * 60, "pm")
    assert clock_minutes("noon") == (12 * 60, "")
    assert clock_minutes("every Tuesday") is None


def test_the_current_record_moving_the_time_answers_with_the_time_moved() -> None:
    old = rec(1, "The beginners' dinghy class starts at 9 on Saturdays this season.")
    new = rec(2, "Ugh, the slipway is busy early, so beginners go out an hour later from "
                 "now on.", when=T0 + 7 * DAY)
    q = "What time does the beginners' Saturday class start?"
    assert read_items(q, [EvidenceItem(new, 1.0, {"graph": 1}),
                          EvidenceItem(old, 1.0, {"superseded": 1})]) == ("10", ["src-2"])
    bus = rec(3, "Eli's bus to school is the 7:40 from the corner.")
    earlier = rec(4, "Eli's bus is ten minutes earlier from today, timetable change.",
                  when=T0 + 7 * DAY)
    assert read_items("What time is Eli's bus?",
                      [EvidenceItem(earlier, 1.0, {"graph": 1}),
                       EvidenceItem(bus, 1.0, {"superseded": 1})]) == ("7:30", ["src-4"])


def test_a_shift_not_marked_current_or_of_nothing_superseded_moves_nothing() -> None:
    """Not the graph stage's current record (it may be another thing's change), or no
    record it supersedes states a time: the shift gives no value, and the record that
    states one answers."""
    old = rec(1, "The beginners' dinghy class starts at 9 on Saturdays this season.")
    new = rec(2, "Beginners go out an hour later from now on.", when=T0 + 7 * DAY)
    q = "What time does the beginners' Saturday class start?"
    assert read_items(q, [EvidenceItem(new, 1.0, {}), EvidenceItem(old, 1.0, {})]) \
        == ("at 9", ["src-1"])
    # The only time it could move is another thing's (not superseded, marked another's).
    other = rec(3, "The advanced keelboat group goes out at 2 in the afternoon.")
    answer, _ = read_items(q, [EvidenceItem(new, 1.0, {"graph": 1}),
                               EvidenceItem(other, 1.0, {"other": 1})])
    assert answer != "3", answer
