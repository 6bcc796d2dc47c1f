"""The value read for a question is of the kind it asks for.

A place is not a clock time ("the fête kicks off at eight" says when, not where); a time
of day after "since" says when a span up to now began, not when a thing happens; a
command ("don't put me on the late run") tells what to do, not what something is; a time
taken back ("not at nine") is none said; the resolver's value of another kind (a day for
"what time") does not answer; "how old" is an age, not the day a birthday was told of.
"""

from __future__ import annotations

import calendar

import pytest

from trace_ros.language.text import stems
from trace_ros.ledger import SourceRecord
from trace_ros.query.focus import not_of_kind
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import clock_time, day_part, place_phrase, scored_run

DAY = 86400.0
# Wednesday 4 June 2025, 09:00 UTC.
T0 = float(calendar.timegm((2025, 6, 4, 9, 0, 0, 0, 0, 0)))


def rec(seq: int, text: str, speaker: str = "Priya") -> SourceRecord:
    when = T0 + seq * 120.0
    return SourceRecord(seq, f"src-{seq}", "priya", "r1", "s1", "dialogue", speaker, text, "",
                        None, None, {}, when, False, when, "h")


def read(question: str, *records: SourceRecord) -> tuple[str, list[str]]:
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20)
    out = ExtractiveReader().read(question, plan_question(question, T0 + 2 * DAY), p)
    return out.answer, out.cited_ids


@pytest.mark.parametrize("sentence", [
    "The quiz begins at half eight.",
    "Same day as ever, and it still gets going at nine.",
    "Drinks from 6pm.",
])
def test_a_clock_time_is_no_place(sentence: str) -> None:
    assert place_phrase(sentence, set()) == ""


@pytest.mark.parametrize("sentence, place", [
    ("Drinks at 7pm at the Crown Inn.", "Crown Inn"),
    ("The fitting is at 10 in studio 3B.", "studio 3B"),
    ("She's moved, she's at 14 Orchard Way now.", "14 Orchard Way"),
])
def test_the_place_beside_a_time_is_read(sentence: str, place: str) -> None:
    assert place_phrase(sentence, set()) == place


def test_where_is_not_answered_by_when() -> None:
    answer, cited = read("Where is the choir concert?",
                         rec(1, "The choir concert is in St Anne's church hall this year."),
                         rec(2, "Oh, and the concert kicks off at eight."))
    assert answer == "St Anne's church hall"
    assert cited == ["src-1"]


def test_since_a_meal_is_no_time_of_the_thing() -> None:
    assert day_part("He's eaten nothing since lunch.") == ""
    assert day_part("He takes it with lunch.") == "with lunch"


def test_a_command_is_no_value() -> None:
    run, _ = scored_run("I'm on the vegan menu, so don't give me the cheese board.",
                        {"menu", "what"})
    assert "give me" not in run
    run, _ = scored_run("robot bring me a flat white pls", {"drink", "what"})
    assert "bring me" not in run


def test_a_time_taken_back_is_none_said() -> None:
    assert clock_time("They moved it, not at ten now. They said three in the afternoon.") \
        == "three in the afternoon"
    assert clock_time("Doors open at 10, not 9.") == "at 10"
    assert clock_time("Not at eight, anyway.") == ""


@pytest.mark.parametrize("kind, value", [
    ("clock", "Thursday 5 June 2025"),
    ("money", "next week"),
    ("count", "on Friday"),
    ("place", "Friday 6 June 2025"),
])
def test_a_value_of_another_kind(kind: str, value: str) -> None:
    assert not_of_kind(kind, value)


@pytest.mark.parametrize("kind, value", [
    ("clock", "half past two"),
    ("money", "£40"),
    ("count", "twelve"),
    ("place", "the garage"),
])
def test_a_value_of_the_kind(kind: str, value: str) -> None:
    assert not not_of_kind(kind, value)


def test_how_old_is_an_age_not_when_it_was_told() -> None:
    answer, _ = read("How old is Ruairí?",
                     rec(1, "Ruairí is nine, he's in the under-tens."),
                     rec(2, "Ruairí is actually ten now, his birthday was last week!"))
    assert answer == "ten"


@pytest.mark.parametrize("sentence, question", [
    ("Servicing still £90 flat.", "What do we charge for a service?"),
    ("If it is good, that is our new Friday place.", "What did I order on Friday?"),
    ("so Mrs Doyle is taking Gran instead.", "What size robe does Gran need?"),
])
def test_a_general_word_names_no_value(sentence: str, question: str) -> None:
    run, _ = scored_run(sentence, stems(question))
    assert run.lower() not in ("still", "place", "instead")


@pytest.mark.parametrize("records", [
    ("Keep the 7:15 alarm call for tomorrow too, in the new room.",),
    ("Keep the 7:15 alarm call for tomorrow too.", "I am in the new room."),
])
def test_which_is_not_told_by_an_ordering_word_or_anothers_time(records: tuple[str, ...]) -> None:
    # "the new room" says it is another room, not which; "the 7:15" tells a call apart.
    answer, _ = read("Which room is Dev in?",
                     *(rec(k, t, "Dev") for k, t in enumerate(records, start=1)))
    assert answer == ""


@pytest.mark.parametrize("sentence, place", [
    ("The party's at her place now, not the pub.", "her place"),
    ("We're in room 5 at 10.", "room 5"),
    ("The plumber comes Mondays, by the way.", ""),
])
def test_a_general_noun_is_a_place_only_with_its_owner(sentence: str, place: str) -> None:
    assert place_phrase(sentence, set()) == place


def test_not_until_says_when() -> None:
    assert clock_time("The shop won't open, not until three.") == "until three"
