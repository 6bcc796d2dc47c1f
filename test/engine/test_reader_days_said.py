"""The day a record says is when: not a week said around it, not a day it turns down,
not the day of the cause a consequence follows from; a monthly day is monthly.

"On the Milan run this week, home Friday night" is home on Friday; "Wednesday's not
happening, I've grabbed next Friday" is Friday; "the last Friday of each month" is no
last Friday; "general waste is Thursdays now, so the black bins go out Wednesday night"
puts the bins out on Wednesday. A decimal ("desk 2.09") is one number, and "the great
hall" keeps its adjective.
"""

from __future__ import annotations

import calendar

from trace_ros.language.text import stems
from trace_ros.query.days import so_held
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import answer_date, place_phrase, tokens, weekly_slots

# Monday 20 October 2025, noon UTC.
T0 = float(calendar.timegm((2025, 10, 20, 12, 0, 0, 0, 0, 0)))


def test_a_weekday_said_after_a_week_is_when() -> None:
    said = "Dave rang, he's on the Milan run this week and should be home Friday night."
    assert answer_date(said, T0).startswith("Friday")


def test_a_day_turned_down_is_not_the_weekday_of_the_next() -> None:
    said = "Right, Wednesday's not happening either, I've grabbed next Friday from the facility."
    assert ExtractiveReader._day(said, T0, "day", "Which day is my booking?", True) \
        .startswith("Friday")


def test_a_monthly_day() -> None:
    said = "Sharps are going to the last Friday of each month from March, new company."
    assert weekly_slots(said) == ["the last Friday of each month"]
    assert answer_date(said, T0) == "the last Friday of each month"


def test_the_day_that_follows_from_the_cause() -> None:
    said = "General waste is Thursdays now, so the black bins go out Wednesday night."
    held = so_held(said, stems("Which night do the black bins go out?"))
    assert "Thursday" not in held and "Wednesday" in held
    # The side that says what is asked holds, where it is the cause.
    said = "The drawings have to be with the client by the 31st, so realistically the Friday."
    held = so_held(said, stems("When are the drawings due with the client?"))
    assert "31st" in held and "Friday" not in held


def test_a_decimal_is_one_token_and_an_adjective_after_the_is_kept() -> None:
    assert [t.text for t in tokens("Sorry, 2.09, not 2.07.")] \
        == ["Sorry", ",", "2.09", ",", "not", "2.07", "."]
    assert place_phrase("mine's on the 22nd, in the great hall", {"exam"}, 6, False,
                        moving=False) == "great hall"
