"""A weekday placed by another day told before it in the record (invented sentences):
"the following Wednesday" and "the Saturday after" are the first such weekday after that
day, "the Friday before (that)" the last before it, "that Friday" the one in its week;
a weekday turned down ("not the Sunday after") or "the Saturday after next" is not
placed so, nor one with no day told before it. Asked when the thing is, the sentence
about it that places its weekday so gives the date, not the day it is placed by."""

from __future__ import annotations

import calendar
import time

import pytest

from trace_ros.query.spans import anchored_weekday, answer_date

from .readerkit import read, rec


def _t(iso: str) -> float:
    return calendar.timegm(time.strptime(iso, "%Y-%m-%dT%H:%M:%SZ"))


# Wednesday 10 September 2025, 10:00 UTC.
SAID = _t("2025-09-10T10:00:00Z")


@pytest.mark.parametrize(("text", "want"), [
    ("The van comes on the 17th. The move slides to the following Wednesday.",
     "Wednesday 24 September 2025"),
    ("Launch is the 3rd of November now, and the training is the Friday before that.",
     "Friday 31 October 2025"),
    ("The crew leave on the 19th, so we'll shut that Friday, not the Sunday after.",
     "Friday 19 September 2025"),
    ("Fitting on Monday, then the collection itself on the Saturday after.",
     "Saturday 20 September 2025"),
])
def test_a_weekday_placed_by_the_day_told_before_it(text: str, want: str) -> None:
    assert answer_date(text, SAID) == want


def test_the_day_told_in_another_sentence_places_it() -> None:
    record = "The van comes on the 17th. The move slides to the following Wednesday."
    assert answer_date("The move slides to the following Wednesday.", SAID, "", "", False,
                       record) == "Wednesday 24 September 2025"


@pytest.mark.parametrize("text", [
    "The move slides to the following Wednesday.",              # no day told before it
    "The van's booked on the 17th, not the Wednesday after.",   # turned down
    "The compost comes the 12th, or the Saturday after next.",  # two weeks on, from now
])
def test_no_weekday_is_placed(text: str) -> None:
    assert anchored_weekday(text, text, SAID) is None


def test_when_asked_the_sentence_about_the_thing_gives_the_placed_date() -> None:
    # T0 is Monday 3 March 2025: the 17th is Monday 17 March, the Wednesday after it the 19th
    said = read("When is the manual handling refresher?",
                rec(1, "Half the new starters are on the Bolton job on the 17th. "
                       "Manual handling slides to the following Wednesday."))
    assert "19 March" in said
