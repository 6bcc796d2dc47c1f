"""Answers to questions no shown record answers, refused by what the record's value is
(``amounts.not_counted``, ``endpoints.other_end``; invented sentences).

A count is no sum of money ("forty quid a year for members" for "How many members …?")
nor the first day of a range of dates ("the 18th and 19th October" for "How many films
…?"); a clock time is the end of a stretch of time it is said as ("the gym shuts at
four" is no answer to "What time does the gym open?"). Look-alikes: a count said with
its noun beside a sum, a count in money's own unit, a time said with the end asked for,
a range, a time said bare (a reply to the turn before it), "end up".
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.query.amounts import not_counted  # noqa: E402
from trace_ros.query.endpoints import asked_end, other_end  # noqa: E402


def test_a_sum_of_money_is_no_count() -> None:
    r = rec(0, "From April it's forty quid a year for members of the bowls club.")
    assert read("How many members does the bowls club have?", r) == ""


def test_the_first_day_of_a_range_of_dates_is_no_count() -> None:
    r = rec(0, "The village film festival runs the weekend of 18 and 19 October.")
    assert read("How many films are in the village film festival?", r) == ""


def test_a_count_beside_a_sum_is_read() -> None:
    r = rec(0, "The bowls club has 46 members now, and it's forty quid a year.")
    assert read("How many members does the bowls club have?", r).startswith("46")


@pytest.mark.parametrize(("text", "at", "counted", "refused"), [
    ("it's forty quid a year", (5, "forty quid"), "members", True),
    ("it's forty quid a year", (5, "forty quid"), "pounds", False),
    ("runs 18 and 19 October", (5, "18"), "films", True),
    ("we need 18 chairs and 19 tables", (8, "18 chairs"), "chairs", False),
])
def test_what_counts_no_things(text: str, at: tuple[int, str], counted: str,
                               refused: bool) -> None:
    assert not_counted(text, at, counted) is refused


@pytest.mark.parametrize(("question", "end"), [
    ("What time does the gym open on Sundays?", "begin"),
    ("What time does my shift finish?", "end"),
    ("What time does the quiz start?", "begin"),
    ("What time is yoga?", ""),
    ("What time did the site visit end up being?", ""),
])
def test_the_end_a_question_asks_for(question: str, end: str) -> None:
    assert asked_end(question) == end


@pytest.mark.parametrize(("question", "text", "refused"), [
    ("What time does the gym open on Sundays?", "The gym shuts at four now.", True),
    ("What time does my shift finish?", "My shift starts at six this week.", True),
    ("What time does Jo's football finish?", "Jo's got football at ten.", False),
    ("What time does the yard close?", "One o'clock on a Wednesday, always.", False),
    ("What time does the gym open on Sundays?", "The gym opens at nine on Sundays.", False),
    ("What time does the gym close on Sundays?", "The gym shuts at four now.", False),
    ("What time does my shift finish?", "I'm on six till two this week.", False),
    ("What time does the quiz start?", "Quiz is at eight on Friday.", False),
    ("What time does the quiz start?", "Quiz is at eight; the bar shuts early.", False),
])
def test_a_time_of_the_other_end(question: str, text: str, refused: bool) -> None:
    assert other_end(question, [text]) is refused


def test_the_other_end_is_no_answer_but_the_end_asked_is() -> None:
    r = rec(0, "Winter hours from today: the gym shuts at four instead of five.")
    assert read("What time does the gym open on Sundays?", r) == ""
    assert read("What time does the gym close on Sundays?", r) != ""
