"""Time anchors resolve against each message's own time (dateparser behind a regex filter)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from trace_ros.language import timeanchor
from trace_ros.language.timeanchor import find_candidates, resolve


def ts(y: int, mo: int, d: int, h: int = 0, mi: int = 0) -> float:
    return datetime(y, mo, d, h, mi, tzinfo=UTC).timestamp()


def day(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d")


MONDAY = ts(2023, 5, 8, 13, 56)  # a Monday afternoon


@pytest.mark.parametrize(("text", "expected", "expr"), [
    ("I went there yesterday", "2023-05-07", "yesterday"),
    ("Last Friday we met at the park", "2023-05-05", "Last Friday"),
    ("I start the new job next month", "2023-06-08", "next month"),
    ("We're moving in two weeks", "2023-05-22", "in two weeks"),
    ("I saw it two days ago", "2023-05-06", "two days ago"),
    ("a few days ago I fell", "2023-05-05", "a few days ago"),
    ("We're going camping this weekend", "2023-05-13", "this weekend"),
    ("we went hiking last weekend", "2023-05-06", "last weekend"),
    ("it happened on 5 May 2023", "2023-05-05", "5 May 2023"),
    ("my birthday is May 5th", "2023-05-05", "May 5th"),
    ("the day before yesterday was rough", "2023-05-06", "the day before yesterday"),
    ("I moved here in 2019", "2019-05-08", "in 2019"),
    ("last summer was hot", "2022-07-15", "last summer"),
    ("I saw her a fortnight ago", "2023-04-24", "a fortnight ago"),
    ("we fly in a fortnight", "2023-05-22", "in a fortnight"),
    ("it was the week before last", "2023-04-24", "the week before last"),
    ("the move is the week after next", "2023-05-22", "the week after next"),
    ("we played the weekend before last", "2023-04-29", "the weekend before last"),
    ("the gig is the weekend after next", "2023-05-20", "the weekend after next"),
])
def test_expressions_resolve_against_message_time(text: str, expected: str, expr: str) -> None:
    anchor = resolve(text, MONDAY, fallback_time=ts(2020, 1, 1))
    assert not anchor.fallback
    assert anchor.text == expr
    assert day(anchor.time) == expected


def test_clock_time_is_kept() -> None:
    anchor = resolve("I'll see you tomorrow at 3pm", MONDAY)
    assert datetime.fromtimestamp(anchor.time, UTC) == datetime(2023, 5, 9, 15, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "expected"), [
    ("I'll pick up the parcel on Tuesday", "2023-05-09"),   # plan: the coming Tuesday
    ("I'm going to the vet on Thursday", "2023-05-11"),
    ("I went to the vet on Thursday", "2023-05-04"),         # past: the last Thursday
    ("We met on Tuesday", "2023-05-02"),
])
def test_bare_weekday_follows_tense(text: str, expected: str) -> None:
    assert day(resolve(text, MONDAY).time) == expected


def test_each_message_uses_its_own_time_not_session_or_wall_clock() -> None:
    session = ts(2023, 5, 1, 9)
    first = resolve("I was at the dentist yesterday", ts(2023, 5, 3, 10), session)
    second = resolve("I was at the dentist yesterday", ts(2023, 6, 20, 10), session)
    assert day(first.time) == "2023-05-02"
    assert day(second.time) == "2023-06-19"
    assert not first.fallback and not second.fallback


def test_fallback_is_session_time_then_message_time() -> None:
    session = ts(2023, 5, 1, 9)
    anchor = resolve("The mug is on the table", MONDAY, session)
    assert anchor.fallback and anchor.text == "" and anchor.time == session
    anchor = resolve("The mug is on the table", MONDAY)
    assert anchor.fallback and anchor.time == MONDAY


@pytest.mark.parametrize("text", ["I may go later", "Let's march on", "see you in a second"])
def test_words_that_only_look_like_dates_are_not_candidates(text: str) -> None:
    assert find_candidates(text) == []
    assert resolve(text, MONDAY).fallback


def test_dateparser_is_only_called_on_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = timeanchor._dateparser_parse

    def counting(expr: str, settings: dict) -> datetime | None:
        calls.append(expr)
        return real(expr, settings)

    monkeypatch.setattr(timeanchor, "_dateparser_parse", counting)
    timeanchor._parse.cache_clear()
    resolve("Thanks so much, that sounds lovely and I may come along", MONDAY)
    assert calls == []
    resolve("We talked about it three days ago, it was fun", MONDAY)
    assert calls == ["3 days ago"] or calls == ["three days ago"]


def test_unresolvable_candidate_falls_back() -> None:
    anchor = resolve("in 99999999 years we will see", MONDAY, fallback_time=5.0)
    assert anchor.fallback and anchor.time == 5.0


@pytest.mark.parametrize(("text", "future", "expected"), [
    ("The recital is on Tuesday the 16th.", True, "2023-05-16"),  # the date, not next Tuesday
    ("We met on Saturday the 6th.", False, "2023-05-06"),
    ("Sports day is Friday, 2 June.", True, "2023-06-02"),
    ("It was on Thursday, April 27.", False, "2023-04-27"),
    # A named weekday settles the year: 8 May 2023 is a Monday, today, so not next year.
    ("The check-up is Monday, 8 May.", True, "2023-05-08"),
])
def test_weekday_with_a_date_resolves_to_the_date(text: str, future: bool, expected: str) -> None:
    anchor = resolve(text, MONDAY, future=future)
    assert not anchor.fallback and day(anchor.time) == expected


def test_a_day_of_the_month_alone_is_not_a_candidate() -> None:
    assert find_candidates("she came third on the 2nd attempt") == []


@pytest.mark.parametrize(("text", "expected"), [
    # A dash ends the day's clause as a comma does.
    ("The visit's off till the 10th — leaving at 6 still.", "the 10th"),
    ("Pushed to the 14th - same time.", "the 14th"),
    # A preposition or conjunction after it opens another phrase, not a rank's noun.
    ("He'll be with us on the 23rd for Christmas.", "the 23rd"),
    ("Booked the 9th when the van's free.", "the 9th"),
    # "and" opening another clause, not another day ("the 22nd and 23rd", below).
    ("Priory Motors will do it on the 29th and lend me a car.", "the 29th"),
])
def test_a_day_of_the_month_alone_before_another_phrase(text: str, expected: str) -> None:
    assert [m.group(0) for m in find_candidates(text)] == [expected]


def test_a_rank_before_its_noun_is_still_no_day() -> None:
    assert find_candidates("she came third on the 2nd attempt, with the 4th try next") == []
    assert find_candidates("it was the 2nd and final attempt") == []


def test_a_day_before_and_or_so_is_left_to_the_sentence() -> None:
    """ "cover the 22nd and 23rd", "home on the 13th so we're bringing it forward": a day
    joined to another, or the cause's day before "so", is not read alone."""
    assert find_candidates("someone has to cover the 22nd and 23rd") == []
    assert find_candidates("half the house goes home on the 13th so we move it") == []


@pytest.mark.parametrize(("text", "expected"), [
    ("He'll collect me Christmas Eve, after his shift.", "2023-12-24"),
    ("We went trick-or-treating on Halloween.", "2022-10-31"),
    ("The party is on New Year's Eve.", "2023-12-31"),
    ("Boxing Day we'll do the walk again.", "2023-12-26"),
])
def test_holidays_of_fixed_date_are_days(text: str, expected: str) -> None:
    """A holiday named as a day is that day, ahead or behind by the tense like any other
    ("he'll collect me Christmas Eve" in May is next December's)."""
    assert [m.group(0).lower() for m in find_candidates(text)] != []
    anchor = resolve(text, MONDAY)
    assert day(anchor.time) == expected, anchor


def test_a_day_of_the_month_with_an_hour_is_that_day() -> None:
    """"the 12th at 3" is the 12th at three, not 3 December (dateparser's reading)."""
    from trace_ros.language.timeanchor import resolve_expression

    t = resolve_expression("the 12th at 3", MONDAY, True)
    assert t is not None and day(t) == "2023-05-12"
    t = resolve_expression("the 4th at noon", MONDAY, True)
    assert t is not None and datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H") \
        == "2023-06-04 12"


def test_a_day_of_the_month_from_now_on_is_ahead() -> None:
    """"The landlord asked if rent can go on the 28th from now": a day of the month with a
    start ahead ("from now", "from next month") is a day, and the coming one, whatever
    the tense of the sentence around it. "The 3rd from the left" is a rank."""
    anchor = resolve("landlord asked if rent can go on the 28th from now, fine by me", MONDAY)
    assert not anchor.fallback and anchor.text == "the 28th"
    assert day(anchor.time) == "2023-05-28"
    assert [m.group(0) for m in find_candidates("the 3rd from the left")] == []


def test_a_day_of_the_month_heading_a_sentence_with_its_hour_is_that_day() -> None:
    """"Tickets came in the post. 20th, 9:15 from Kings Cross": a day of the month that
    opens a sentence with the clock time after it is a date; one that ends a sentence or
    stands alone is a rank ("I came 5th."), and so is one with no hour after it."""
    anchor = resolve("tickets came in the post. 20th, 9:15 from Kings Cross", MONDAY)
    assert not anchor.fallback and anchor.text == "20th"
    assert day(anchor.time) in ("2023-05-20", "2023-04-20")
    assert [m.group(0) for m in find_candidates("20th at 9:15, platform 4")] == ["20th at 9:15"]
    for text in ("I came 5th.", "25th", "5th, and final", "20th at the latest"):
        assert find_candidates(text) == [], text


@pytest.mark.parametrize("expr", ["7 july, 2023", "8th december, 2023", "31 of october 2022",
                                  "october 13, 2023", "sept 9th 2021", "may 2023", "feb, 2023",
                                  "2023", "in 2024", "31 february, 2023", "1850"])
@pytest.mark.parametrize("base", [datetime(2024, 2, 29, 23, 59, 59, 999999),
                                  datetime(2023, 1, 31, 8, 0), datetime(2022, 7, 4, 12, 30, 5)])
@pytest.mark.parametrize("prefer", ["past", "future"])
def test_a_dated_expression_reads_as_dateparser_reads_it(expr: str, base: datetime,
                                                         prefer: str) -> None:
    """The fast reading of a date with its year is dateparser's, or none (dateparser's then)."""
    fast = timeanchor._dated(expr, base)
    slow = timeanchor._dateparser_parse(expr, {"RELATIVE_BASE": base, "PREFER_DATES_FROM": prefer,
                                               "RETURN_AS_TIMEZONE_AWARE": False,
                                               "STRICT_PARSING": False})
    assert fast is None or fast == slow
    assert (fast is None) == (expr in ("31 february, 2023", "1850"))
