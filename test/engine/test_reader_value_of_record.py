"""Which value of a record answers: the one the record states, not another it mentions.

A clock time written with a hyphen ("five-fifteen") is the hour and its minutes; a time
in a clause that denies it ("I'm not picking her up at six again") is not stated; a
sentence that is only a figure ("Eleven.") is the amount the rest of the record works
out to; "How many are in …?" counts the people or things, left unsaid.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from trace_ros.query.plan import plan_question
from trace_ros.query.spans import asked, clock_time

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402


@pytest.mark.parametrize(("text", "expected"), [
    ("The clinic shuts at five-fifteen on Fridays.", "five-fifteen"),
    ("Doors at seven-thirty sharp.", "seven-thirty"),
    ("Just so you know I'm not collecting her at six any more.", ""),
    ("Remember it's at 8 tomorrow.", "at 8"),
    ("Don't forget it's at 8 tomorrow.", "at 8"),  # the denial is another clause's
    ("I can't do it at six, come at seven.", "at seven"),
    ("We can't open until ten.", "until ten"),  # "not until" says when it is
])
def test_clock_time_said_and_denied(text: str, expected: str) -> None:
    assert clock_time(text) == expected


def test_a_time_the_clause_denies_is_not_the_answer() -> None:
    got = read("What time is Ada's piano lesson?",
               rec(1, "Ada's piano lesson is on Thursday at five."),
               rec(2, "Ada's piano lesson is Thursday, yes? I'm not taking her there at four "
                      "again."))
    assert got == "at five"


@pytest.mark.parametrize("question", ["How many are in the Lees' party?",
                                      "How many are coming to the barbecue?"])
def test_how_many_with_the_counted_noun_unsaid_is_a_count(question: str) -> None:
    assert asked(question, plan_question(question)).kind == "count"


def test_a_sentence_that_is_only_a_figure_is_the_amount() -> None:
    got = read("How many are in the Lees' party?",
               rec(1, "The Lees have booked a table for nine."),
               rec(2, "The Lees rang again. Their two sons are coming after all, with a friend "
                      "each. Thirteen."))
    assert got == "Thirteen"
