"""When a thing is, read from what is said beside the day (invented sentences):

- a weekday and its day of the month in apposition ("next Friday, the 24th") are one
  date, the 24th; "next Friday" alone stays relative, and "next week, the 24th" keeps
  its week;
- a day of the month alone followed by an adverb ("on the 16th as well", "the 3rd too")
  is a day, a rank with its noun ("the 2nd attempt") is none;
- a day of the month said alone in its own sentence is of the one month the rest of the
  record names ("… put off till January. The 12th."), not where the record names none or
  two;
- asked when a thing is (not a habit), a day said relative to the turn ("Tomorrow's the
  dentist, quarter past eleven") is part of the answer with the clock time; "yesterday"
  is not;
- the one part of the day a sentence says apart from its weekday ("a Thursday, the
  morning one") stays with the day.
"""

from __future__ import annotations

import calendar

import pytest

from trace_ros.language.timeanchor import find_candidates
from trace_ros.query.days import dated_weekday
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import answer_date
from trace_ros.query.typed import _said_ahead

from .readerkit import DAY, T0, read, rec

# Thursday 16 October 2025, 10:00 UTC.
THU = float(calendar.timegm((2025, 10, 16, 10, 0, 0, 0, 0, 0)))
# Monday 10 November 2025, 10:00 UTC.
MON = float(calendar.timegm((2025, 11, 10, 10, 0, 0, 0, 0, 0)))


def _said(text: str) -> list[str]:
    return [m.group(0) for m in find_candidates(text)]


def test_a_weekday_and_its_day_of_the_month_are_one_date() -> None:
    assert _said("Our party is next Friday, the 24th.") == ["Friday, the 24th"]
    assert answer_date("Our party is next Friday, the 24th.", THU) == "Friday 24 October 2025"


@pytest.mark.parametrize(("text", "said"), [
    ("Our party is next Friday.", ["next Friday"]),
    ("Our party is next week, the 24th.", ["next week", "the 24th"]),
])
def test_a_relative_day_without_its_date_is_unchanged(text: str, said: list[str]) -> None:
    assert _said(text) == said


@pytest.mark.parametrize(("text", "said"), [
    ("The van goes over on the 16th as well.", ["the 16th"]),
    ("Payday's the 3rd too.", ["the 3rd"]),
])
def test_a_day_of_the_month_before_an_adverb(text: str, said: list[str]) -> None:
    assert _said(text) == said


@pytest.mark.parametrize("text", ["He passed on the 2nd attempt.", "It was the 3rd time."])
def test_a_rank_with_its_noun_is_no_day(text: str) -> None:
    assert _said(text) == []


def test_a_day_alone_takes_the_month_the_record_names() -> None:
    record = "The boiler's leaking, so the fitting's put off till January. The 12th."
    day = ExtractiveReader._day("The 12th.", MON, "when", "When is the fitting?", True,
                                frozenset(), record)
    assert "12 January 2026" in day


@pytest.mark.parametrize("record", [
    "The boiler's leaking, so the fitting's put off. The 12th.",  # no month named
    "Not in December, in January. The 12th.",  # two months named
])
def test_a_day_alone_without_one_month_named_is_of_the_record_month(record: str) -> None:
    day = ExtractiveReader._day("The 12th.", MON, "when", "When is the fitting?", True,
                                frozenset(), record)
    assert "January" not in day


@pytest.mark.parametrize(("sentence", "ahead"), [
    ("Tomorrow's the dentist, quarter past eleven.", True),
    ("Tonight at eight.", True),
    ("Yesterday's was at eleven.", False),
    ("Quarter past eleven on Friday.", False),  # a day named by itself is read as before
    ("Quarter past eleven.", False),
])
def test_said_ahead(sentence: str, ahead: bool) -> None:
    assert _said_ahead(sentence) is ahead


def test_when_a_thing_is_said_tomorrow_with_a_time_gives_the_day() -> None:
    got = read("When is my dentist appointment?",
               rec(1, "Tomorrow's the dentist, quarter past eleven.", when=T0 + 20 * DAY))
    assert "quarter past eleven" in got
    assert "24 March 2025" in got  # the day after it was said


def test_a_habit_asked_keeps_the_time() -> None:
    got = read("When do I take my tablets?",
               rec(1, "Tomorrow I start the new tablets, quarter past eleven every night.",
                   when=T0 + 20 * DAY))
    assert "March" not in got


def test_the_part_of_the_day_said_apart_stays_with_the_weekday() -> None:
    assert ExtractiveReader._day("Yoga's a Thursday too, the morning one.", THU, "when",
                                 "When's my yoga class?", True).startswith("Thursday morning,")
    # two parts of the day said: neither is the weekday's
    assert not ExtractiveReader._day("Yoga's a Thursday, morning or evening.", THU, "when",
                                     "When's my yoga class?", True).startswith("Thursday m")


def test_a_weekday_with_its_part_takes_the_date_another_sentence_gives() -> None:
    assert dated_weekday("Tuesday morning, 20 January 2026", ["27 January 2026"]) \
        == "Tuesday morning, 27 January 2026"
