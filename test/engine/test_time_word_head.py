"""A question's asked kind is decided by the head of its noun phrase.

"What day rate …?" and "What year group …?" ask of a rate and a group that a time word
only modifies; "What's my day off now?" is headed by "day" and asks a day. A length
asked of a thing ("How long is the interval?", "How long is the loop?") is read from a
span said in minutes or a distance, not answered by a date. The look-alikes keep their
kind: "What day is the class?" still asks a day, "What is my day rate?" a rate, and
"What's the guest ale this month?" names a time without asking one.
"""

from __future__ import annotations

import pytest

from trace_ros.query.plan import plan_question
from trace_ros.query.spans import asked, states_duration, states_length

from .readerkit import T0, read, rec


@pytest.mark.parametrize("question", [
    "What day rate am I charging the brewery?",
    "What year group is Theo in?",
    "What time slot is mine?",
])
def test_a_time_word_modifying_another_noun_asks_no_time(question: str) -> None:
    plan = plan_question(question, T0)
    assert plan.answer_type != "date" and plan.operation != "temporal_lookup"


@pytest.mark.parametrize("question", [
    "What day is the class?",
    "What time does swimming start?",
    "What day of the week are the bins?",
    "What day and time is my lesson?",
    "Which day am I off?",
    "What time's dinner?",
    "What's my day off now?",
    "What is the closing time?",
])
def test_a_time_word_heading_the_question_asks_a_time(question: str) -> None:
    assert plan_question(question, T0).answer_type == "date"


@pytest.mark.parametrize("question", [
    "What is my day rate?",
    "What's my half-day rate?",
    "What's the guest ale this month?",
    "What's Mum's birthday?",
])
def test_a_noun_phrase_not_headed_by_a_time_word_stays_a_thing(question: str) -> None:
    assert plan_question(question, T0).answer_type == "thing"


@pytest.mark.parametrize("text", [
    "Interval's going to be twenty minutes.",
    "Twenty-minute interval still stands.",
    "It runs about six minutes.",
    "Three weeks, then we see.",
])
def test_minutes_and_joined_units_state_a_duration(text: str) -> None:
    assert states_duration(text)


@pytest.mark.parametrize("text", ["A one-off fee.", "Fifteen a side.", "It's a 5k loop."])
def test_no_unit_of_time_states_no_duration(text: str) -> None:
    assert not states_duration(text)


def test_a_distance_is_a_length_and_a_count_is_not() -> None:
    assert states_length("It's a 5k loop, then pints.") and states_length("two miles out")
    assert not states_length("five of us") and not states_length("at 5 past")


def test_how_long_is_read_from_minutes() -> None:
    answer = read("How long is the interval?",
                  rec(1, "The concert starts at seven on Friday."),
                  rec(2, "Interval's going to be twenty minutes so the WI can sell mince pies."))
    assert answer.lower() == "twenty minutes"


def test_how_long_is_a_thing_read_from_a_distance() -> None:
    answer = read("How long is the run club loop?",
                  rec(1, "Run club meets on Thursdays now."),
                  rec(2, "It's a 5k loop round the run club park, then pints."))
    assert "5k" in answer


def test_how_long_did_it_take_is_no_distance() -> None:
    # A span of time asked of an event: a distance said beside it does not answer.
    answer = read("How long did the run club loop take?",
                  rec(1, "It's a 5k loop round the run club park, then pints."))
    assert "5k" not in answer


@pytest.mark.parametrize("question, kind, focus", [
    ("What's my day off now?", "day", "day"),
    ("What's the night out?", "day", "night"),
    ("What's my day rate now?", "what", "rate"),
])
def test_a_particle_after_the_noun_is_no_head(question: str, kind: str, focus: str) -> None:
    got = asked(question, plan_question(question, T0))
    assert (got.kind, got.focus) == (kind, focus)


@pytest.mark.parametrize("question, kind", [
    ("What day is the class?", "day"),
    ("Which evening is book club?", "day"),
    ("What time does swimming start?", "clock"),
    ("What day and time is my lesson?", "day"),
])
def test_a_time_word_heading_the_wh_phrase_is_still_asked(question: str, kind: str) -> None:
    assert asked(question, plan_question(question, T0)).kind == kind


def test_day_off_is_read_as_a_day() -> None:
    answer = read("What's my day off now?",
                  rec(1, "Dee's put me on the tasting evenings, so my day off is Wednesday.",
                      speaker="Priya"))
    assert "wednesday" in answer.lower()

