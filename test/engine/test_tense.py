"""Time anchors by tense and mood: plans and schedules point forward, past narrative
backward, and a message may change an anchor ("pushed back a week", "the 14th, not
the 12th", "starting this month") rather than name a new one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from trace_ros.consolidation.cpu import CpuExtractor
from trace_ros.consolidation.extract import ExtractContext
from trace_ros.language import timeanchor
from trace_ros.language.timeanchor import forward_at, resolve, shifted, tense
from trace_ros.ledger import SourceRecord


def ts(y: int, mo: int, d: int, h: int = 0, mi: int = 0) -> float:
    return datetime(y, mo, d, h, mi, tzinfo=UTC).timestamp()


def when(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%a %Y-%m-%d %H:%M")


THURSDAY = ts(2025, 10, 9, 10, 30)  # Thursday 9 October 2025, mid-morning
MONDAY = ts(2025, 10, 6, 9, 15)


def at(text: str, message_time: float = THURSDAY, **kw: object) -> str:
    anchor = resolve(text, message_time, **kw)  # type: ignore[arg-type]
    assert not anchor.fallback, text
    return when(anchor.time)


# -- the examples ----------------------------------------------------------------


def test_a_flight_that_leaves_friday_is_the_coming_friday() -> None:
    assert at("My flight to Denver leaves Friday morning") == "Fri 2025-10-10 09:00"


def test_pushed_to_a_weekday_is_the_coming_one_even_in_the_past_tense() -> None:
    text = "The dentist's office called and pushed me to Thursday afternoon."
    assert at(text, MONDAY) == "Thu 2025-10-09 15:00"


def test_a_past_narrative_names_the_past_weekday() -> None:
    assert at("we went to the market on Friday") == "Fri 2025-10-03 00:00"


def test_a_schedule_change_starting_this_month() -> None:
    anchor = resolve("Heads up, book club switched to Tuesday evenings starting this month.",
                     THURSDAY)
    assert when(anchor.time) == "Tue 2025-10-14 18:00"  # the next Tuesday evening
    assert anchor.text == "Tuesday evenings"
    assert anchor.effective is not None and when(anchor.effective) == "Wed 2025-10-01 00:00"


def test_a_change_from_next_week_on_reads_its_day_from_then() -> None:
    anchor = resolve("From next week on, the piano lesson is on Mondays.", THURSDAY)
    assert when(anchor.time) == "Mon 2025-10-13 00:00"
    anchor = resolve("Starting next month, yoga is on Tuesdays.", THURSDAY)
    assert when(anchor.time) == "Tue 2025-11-04 00:00"  # the first Tuesday of November
    only = resolve("I'm working from home starting next month.", THURSDAY)
    assert when(only.time) == "Sat 2025-11-01 00:00" and only.effective == only.time


# -- tense and mood, not event words -----------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    # modal / auxiliary future, intention, request
    ("I'll call her on Saturday", "Sat 2025-10-11"),
    ("We're gonna paint the fence on Saturday", "Sat 2025-10-11"),
    ("I'm about to book something for Saturday", "Sat 2025-10-11"),
    ("Could you remind me on Saturday?", "Sat 2025-10-11"),
    ("I need to finish the report by Friday", "Fri 2025-10-10"),
    # present progressive and simple present with a time: what comes
    ("I'm leaving Friday", "Fri 2025-10-10"),
    ("We are having dinner with Sam on Saturday", "Sat 2025-10-11"),
    ("The party is on Saturday", "Sat 2025-10-11"),
    ("It was a long week, my flight leaves Friday", "Fri 2025-10-10"),
    # imperatives
    ("Call me on Sunday", "Sun 2025-10-12"),
    ("See you Friday!", "Fri 2025-10-10"),
    ("saturday's the big day", "Sat 2025-10-11"),  # the day is what the present is said of
    # a plan verb's new time, whatever its tense
    ("I booked the haircut for Tuesday", "Tue 2025-10-14"),
    ("The appointment was moved to Monday", "Mon 2025-10-13"),
    # ... including a planning verb done again, in the present perfect
    ("Done, I've rebooked the dentist for October 18.", "Sat 2025-10-18"),
    ("We re-arranged the call for Friday", "Fri 2025-10-10"),
    ("I've rescheduled the vet for 20 October", "Mon 2025-10-20"),
    # past tense: -ed, irregular forms, past auxiliaries
    ("We visited grandma on Sunday", "Sun 2025-10-05"),
    ("On Friday, we went to the market", "Fri 2025-10-03"),
    ("Maya told me on Monday that she quit", "Mon 2025-10-06"),
    ("The appointment was on Tuesday", "Tue 2025-10-07"),
    ("I was going to call her on Saturday", "Sat 2025-10-04"),  # a future seen from the past
    ("I finished the report by Friday", "Fri 2025-10-03"),
])
def test_direction_follows_tense_and_mood(text: str, expected: str) -> None:
    assert at(text)[:14] == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I will go", "future"), ("She's gonna call", "future"), ("Please call me", "future"),
    ("We went home", "past"), ("They called us", "past"), ("It was fine", "past"),
    ("I'm so excited", "present"), ("The bus leaves at noon", ""),  # adjacency decides that
    ("The updated plan is good", "present"), ("Take the bins out", "present"),
])
def test_tense_of_a_clause(text: str, expected: str) -> None:
    assert tense(text) == expected


def test_a_present_tense_verb_right_before_the_day_points_forward() -> None:
    text = "The bus leaves Friday"
    assert forward_at(text, text.index("Friday"))
    assert not forward_at("Nice weather", 0)  # nothing marked: the caller's lean
    assert forward_at("Nice weather", 0, lean=True)


@pytest.mark.parametrize(("text", "expected"), [
    ("We planned it for Friday", True), ("My flight leaves Friday", True),
    ("The meeting was moved to Monday", True), ("I went on Friday", False),
    ("I will go", True), ("We went home", False),
])
def test_is_future_reads_the_first_time_expression(text: str, expected: bool) -> None:
    assert timeanchor.is_future(text) is expected


def test_todays_own_weekday_is_today() -> None:
    assert at("My dentist appointment is on Thursday at 3pm") == "Thu 2025-10-09 15:00"
    assert at("I'll see you Thursday") == "Thu 2025-10-09 00:00"
    # In a past narrative only if it is not still to come.
    assert at("We met on Thursday at 8am") == "Thu 2025-10-09 08:00"
    assert at("We met on Thursday evening") == "Thu 2025-10-02 18:00"


# -- recurring days: the next occurrence at or after the message ---------------------------


@pytest.mark.parametrize(("text", "message_time", "expected"), [
    ("Book club meets on Wednesdays at 7.", THURSDAY, "Wed 2025-10-15 07:00"),
    ("I have yoga every Tuesday.", THURSDAY, "Tue 2025-10-14 00:00"),
    ("We meet on Thursdays.", THURSDAY, "Thu 2025-10-09 00:00"),  # today
    ("Choir is on Thursday evenings.", THURSDAY, "Thu 2025-10-09 18:00"),
    ("Choir is on Thursday evenings.", ts(2025, 10, 9, 21), "Thu 2025-10-16 18:00"),  # over
])
def test_a_recurring_day_is_its_next_occurrence(text: str, message_time: float,
                                                expected: str) -> None:
    assert at(text, message_time) == expected


def test_a_past_habit_on_a_recurring_day_looks_back() -> None:
    assert at("I used to swim on Mondays") == "Mon 2025-10-06 00:00"


# -- changes of an anchor --------------------------------------------------------------


def test_the_rejected_date_is_not_the_anchor() -> None:
    anchor = resolve("It's the 14th, not the 12th.", THURSDAY)
    assert anchor.text == "the 14th" and when(anchor.time) == "Tue 2025-10-14 00:00"
    # Present tense points forward: once this month's 14th has passed, the next one.
    assert at("It's the 14th, not the 12th.", ts(2025, 10, 20)) == "Fri 2025-11-14 00:00"
    # Past tense points back.
    assert at("It was the 14th, not the 12th.") == "Sun 2025-09-14 00:00"
    assert at("The dentist is Friday instead of Wednesday.") == "Fri 2025-10-10 00:00"
    assert at("Not Wednesday, the dentist is on Friday.") == "Fri 2025-10-10 00:00"
    assert resolve("It is not on Friday.", THURSDAY).fallback  # nothing left that holds


def test_moved_from_one_day_to_another_is_the_new_day() -> None:
    assert at("The appointment was moved from Monday to Tuesday") == "Tue 2025-10-14 00:00"
    assert at("I'm off from Monday to Wednesday") == "Mon 2025-10-13 00:00"  # a span
    assert at("They rebooked it from Monday to Tuesday") == "Tue 2025-10-14 00:00"
    # "re-" marks a planning verb done again, not any verb: "removed" is no plan verb.
    assert at("I removed it for Friday") == "Fri 2025-10-03 00:00"


def test_a_day_of_the_month_alone_needs_a_lead_and_an_end() -> None:
    assert timeanchor.find_candidates("she came third on the 2nd attempt") == []
    assert [m.group(0) for m in timeanchor.find_candidates("The party is on the 3rd.")] == \
        ["the 3rd"]


@pytest.mark.parametrize(("text", "days"), [
    ("The dinner got pushed back a week.", 7),
    ("They pushed the dinner back two weeks", 14),
    ("The meeting got moved up two days", -2),
    ("The vet visit was brought forward a day", -1),
    ("The launch was postponed by three days", 3),
    ("The launch is now a week later than planned", 7),
    # Pushing, bumping or slipping a time without a direction said moves it later; "another"
    # is one more.
    ("Gran's op has been bumped again, another week.", 7),
    ("The handover slipped two days", 2),
])
def test_a_shift_moves_the_previous_anchor(text: str, days: int) -> None:
    previous = ts(2025, 10, 10, 19)
    anchor = resolve(text, THURSDAY, previous=previous)
    assert not anchor.fallback and anchor.shift
    assert anchor.time == previous + days * 86400
    assert shifted(previous, text) == previous + days * 86400


def test_a_shift_without_a_previous_anchor() -> None:
    # The message's own named date carries it ("a week later than Friday") ...
    anchor = resolve("The Friday dinner got pushed back a week.", THURSDAY)
    assert when(anchor.time) == "Fri 2025-10-17 00:00" and anchor.shift == "pushed back a week"
    # ... else it falls back, keeping the phrase for the linker (``shifted``).
    anchor = resolve("The dinner got pushed back a week.", THURSDAY, fallback_time=5.0)
    assert anchor.fallback and anchor.time == 5.0
    assert anchor.text == anchor.shift == "pushed back a week"
    assert shifted(ts(2025, 10, 10), anchor.text) == ts(2025, 10, 17)
    # A new time named outright wins over the shift.
    assert at("It got pushed back a week, to Monday the 20th.") == "Mon 2025-10-20 00:00"
    assert at("The check-up is now Friday, a week later than planned.") == "Fri 2025-10-10 00:00"
    # "bumped a week to the 25th": the time it moves to is said, the shift only tells how.
    assert shifted(ts(2025, 10, 10), "The race got bumped a week to the 25th.") is None


def test_same_time_next_week() -> None:
    lesson = ts(2025, 10, 9, 16)
    assert at("Same time next week?", ts(2025, 10, 9, 17), previous=lesson) == \
        "Thu 2025-10-16 16:00"
    assert at("Same time next week?", ts(2025, 10, 9, 17)) == "Thu 2025-10-16 17:00"


@pytest.mark.parametrize("text", ["We moved house two weeks ago", "I moved it two days",
                                  "It was delayed, two days ago", "I pushed myself a week ago"])
def test_no_shift_without_a_direction_or_in_a_past_span(text: str) -> None:
    assert resolve(text, THURSDAY).shift == ""
    assert shifted(THURSDAY, text) is None


# -- cost and the extractor ---------------------------------------------------------------


def test_bare_weekdays_never_reach_dateparser(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(timeanchor, "_dateparser_parse", lambda e, s: calls.append(e))
    timeanchor._parse.cache_clear()
    at("My flight to Denver leaves Friday morning")
    at("Book club meets on Wednesdays at 7.")
    at("It's the 14th, not the 12th.")
    assert calls == []


def _fact_time(text: str, message_time: float) -> str:
    record = SourceRecord(1, "src-1", "subj", "", "sess-1", "dialogue", "Alex", text, "",
                          None, None, {}, message_time, False, message_time, "hash")
    drafts = CpuExtractor().extract(record, ExtractContext(addressee="Sam"))
    assert len(drafts) == 1
    assert not drafts[0].anchor_fallback
    return when(drafts[0].anchor_time)


def test_the_extractor_anchors_by_tense() -> None:
    assert _fact_time("My flight to Denver leaves Friday morning", THURSDAY) == \
        "Fri 2025-10-10 09:00"
    assert _fact_time("The dentist's office called and pushed me to Thursday afternoon.",
                      MONDAY) == "Thu 2025-10-09 15:00"
    assert _fact_time("We went to the market on Friday.", THURSDAY) == "Fri 2025-10-03 00:00"
    assert _fact_time("My dentist appointment is on Thursday at 3pm.", THURSDAY) == \
        "Thu 2025-10-09 15:00"
    assert _fact_time("Done, I've rebooked the dentist appointment for October 18.",
                      THURSDAY) == "Sat 2025-10-18 00:00"


@pytest.mark.parametrize("text", ["The dentist appointment is now the 14th, not the 12th.",
                                  "It's the 14th, not the 12th.", "No, the 14th."])
def test_a_corrected_day_of_the_month_is_the_new_one(text: str) -> None:
    twelfth = ts(2025, 10, 12, 15)
    ctx = ExtractContext(addressee="Sam", recent=(("dentist appointment", "scheduled_for"),),
                         recent_times=(twelfth,))
    record = SourceRecord(1, "src-1", "subj", "", "sess-1", "dialogue", "Alex", text, "",
                          None, None, {}, THURSDAY, False, THURSDAY, "hash")
    drafts = [d for d in CpuExtractor().extract(record, ctx) if d.key]
    assert [d.key for d in drafts] == [("dentist appointment", "scheduled_for")]
    assert when(drafts[0].anchor_time) == "Tue 2025-10-14 00:00"
    assert drafts[0].anchor_text == "the 14th"
