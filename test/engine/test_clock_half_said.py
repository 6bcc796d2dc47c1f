"""A clock time keeps the half of the day said right after a bare hour ("at 10 am", "at 7
p.m.", "at 10 in the morning"), and a time with "am"/"pm" is written in figures ("at six
am" -> "at 6 am"); a date is read from a weekday and the day of the month after it that
falls on it ("the Sunday after, the 19th"), and a day said as what was, before one said as
what is now, is the one it changed from; a day ahead with its hour and half of the day is named with
its weekday."""

from __future__ import annotations

import calendar
import time

import pytest

from trace_ros.query.days import upcoming_weekday
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.spans import (
    answer_date,
    clock_time,
    held_days,
    hour_figures,
)

from .readerkit import rec


@pytest.mark.parametrize(("text", "want"), [
    ("The review is at 10 am on the 14th.", "at 10 am"),
    ("Meet me at 7 p.m. by the gate.", "at 7 pm"),
    ("My podiatrist is on the 14th too, at 10 in the morning.", "at 10 am"),
    ("Drop it round at 3 in the afternoon, then.", "at 3 pm"),
    ("Dinner's at seven pm.", "at 7 pm"),
    ("Harriet wants me in at six from Monday.", "at six"),      # none said: as it was
    ("at 10am", "10 am"),
    ("Book a table at 2 people.", ""),                           # a count, no time
])
def test_the_half_of_the_day_said_after_a_bare_hour(text: str, want: str) -> None:
    assert clock_time(text) == want


def test_an_hour_in_words_with_its_half_is_written_in_figures() -> None:
    assert hour_figures("at six am") == "at 6 am"
    assert hour_figures("eleven pm sharp") == "11 pm sharp"
    assert hour_figures("at six") == "at six"


def _t(iso: str) -> float:
    return calendar.timegm(time.strptime(iso, "%Y-%m-%dT%H:%M:%SZ"))


@pytest.mark.parametrize(("text", "said", "want"), [
    ("So head office moved the stocktake to the Sunday after, the 19th.",
     "2025-10-08T16:00:00Z", "Sunday 19 October 2025"),
    ("He sorted a Saturday slot so I don't have to leave work, the 15th.",
     "2025-11-07T19:30:00Z", "Saturday 15 November 2025"),
    ("Review's now on the Thursday, the 16th, same time.", "2025-10-08T11:05:00Z",
     "Thursday 16 October 2025"),
])
def test_a_weekday_dated_by_the_day_of_the_month_after_it(text: str, said: str,
                                                          want: str) -> None:
    assert answer_date(text, _t(said)) == want


def test_a_weekday_the_day_of_the_month_does_not_fall_on_is_read_as_before() -> None:
    # the 20th of October 2025 is a Monday, not a Sunday: the weekday is read as said
    assert answer_date("We moved it to Sunday, the 20th.", _t("2025-10-08T16:00:00Z")) \
        != "Sunday 20 October 2025"


def test_what_was_before_what_is_now_is_the_day_changed_from() -> None:
    text = "My tutor session moved though, that was the 9th and now it's the 16th."
    held = held_days(text)
    assert "9th" not in held and "16th" in held
    assert answer_date(held, _t("2025-10-02T12:38:00Z")) == "16 October 2025"
    assert held_days("It was Tuesday and it is still Tuesday.") \
        == "It was Tuesday and it is still Tuesday."


def test_a_day_ahead_with_its_hour_and_half_of_the_day_is_named_with_its_weekday() -> None:
    told = pack([EvidenceItem(rec(1, "The review is on the 14th at 10 am."), 1.0, {})],
                4000, 20)  # told Monday 3 March 2025
    assert upcoming_weekday("14 March 2025 at 10 am", ["src-1"], told) \
        == "Friday 14 March 2025 at 10 am"
    assert upcoming_weekday("14 March 2025 at 10", ["src-1"], told) \
        == "Friday 14 March 2025 at 10"
