"""The right record, the right words of it (third round): the robot's acknowledgement right
after a person's record says back what it took the record to tell ("Flu jab Friday at
2:30pm at Boots." after "Boots on the high street can do me Friday"), so the name or place
it repeats is the answer, not one the record leaves behind ("Dr Hale" beside "Dr Mistry");
an age the record states answers "how old" before the day it was said; the day of the month
a source names stands over the resolver's weekday anchored elsewhere. Each with the
look-alike it must not touch: a next turn that is not the robot's, a reply that repeats
nothing, a robot record, a birth date said alone, an anchor on the day named."""

from __future__ import annotations

import calendar

from trace_ros.facts import Fact
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.readout import _echoed, heard_part
from trace_ros.state import Resolution

from .readerkit import read, rec


def _items(*records):  # type: ignore[no-untyped-def]
    return [EvidenceItem(r, 1.0, {}) for r in records]


def test_the_words_the_robot_says_back_are_the_records_stems_it_repeats() -> None:
    said = rec(1, "No peanuts in the catering, I'm allergic, properly allergic.")
    reply = rec(2, "No peanuts. Noted.", speaker="robot")
    assert _echoed(said, _items(said, reply), {"allerg"}) == {"peanut"}


def test_no_echo_from_a_person_a_later_turn_or_the_robots_own_record() -> None:
    said = rec(1, "No peanuts in the catering, I'm allergic, properly allergic.")
    other = rec(2, "No peanuts. Noted.", speaker="Sam")
    assert not _echoed(said, _items(said, other), set())
    later = rec(3, "No peanuts. Noted.", speaker="robot")
    assert not _echoed(said, _items(said, later), set())  # not the very next turn
    robot = rec(1, "No peanuts. Noted.", speaker="robot")
    reply = rec(2, "No peanuts.", speaker="robot")
    assert not _echoed(robot, _items(robot, reply), set())


def test_the_heard_part_keeps_the_clauses_saying_what_was_repeated() -> None:
    text = "Jamie's jacked in the garden centre. He's labouring for his uncle's building firm."
    assert heard_part(text, frozenset({"build", "firm"})) \
        == "He's labouring for his uncle's building firm."
    assert heard_part(text, frozenset({"garden", "build"})) == ""  # every clause: none
    assert heard_part(text, frozenset({"pier"})) == ""


def test_a_reply_leaving_aside_the_name_asked_about_is_no_acknowledgement_of_it() -> None:
    said = rec(1, "I've gone into Afrobeats lately, Burna Boy on repeat.")
    reply = rec(2, "Afrobeats for the rides now.", speaker="robot")
    assert _echoed(said, _items(said, reply), set()) == {"afrobeat"}
    assert not _echoed(said, _items(said, reply), set(), {"burna"})
    both = rec(2, "Burna Boy and Afrobeats, noted.", speaker="robot")
    assert "afrobeat" in _echoed(said, _items(said, both), set(), {"burna"})


def test_the_value_the_robot_says_back_answers_a_typed_question() -> None:
    q = "Where did I end up getting my flu jab?"
    said = rec(1, "Surgery's run out of vaccine, would you believe. Boots on the high street "
                  "can do me Friday afternoon, half two.")
    assert read(q, said, rec(2, "Flu jab Friday at 2:30pm at Boots.", speaker="robot")) \
        == "Boots"
    q = "Who is June's neurologist?"
    said = rec(1, "Letter came. Dr Hale's retired, and June's been handed over to a Dr Mistry.")
    got = read(q, said, rec(2, "I've put that in: June's neurologist is Dr Mistry.",
                            speaker="robot"))
    assert got == "Dr Mistry"  # a title the two names share is no value said back


def test_a_reply_repeating_nothing_leaves_the_typed_reading() -> None:
    q = "Where did I end up getting my flu jab?"
    said = rec(1, "Surgery's run out of vaccine, would you believe. Boots on the high street "
                  "can do me Friday afternoon, half two.")
    alone = read(q, said)
    assert read(q, said, rec(2, "Good luck with it.", speaker="robot")) == alone
    assert "Boots" not in alone


def test_an_age_the_record_states_answers_how_old_before_a_date() -> None:
    said = rec(1, "I got it wrong, Yaw is 35, I forgot he was born in ninety.")
    assert read("How old is my brother Yaw?", said) == "35"


def test_a_birth_date_stated_alone_still_answers_how_old() -> None:
    said = rec(1, "I got it wrong, Yaw was born on 3 May 1990.")
    assert read("How old is my brother Yaw?", said) == "3 May 1990"


def _resolved(text: str, anchor: float) -> str:
    # Wednesday 1 October 2025; the fact's anchor for "sunday" is ``anchor``.
    wednesday = float(calendar.timegm((2025, 10, 1, 9, 0, 0, 0, 0, 0)))
    said = rec(1, text, when=wednesday)
    fact = Fact("f-1", "noor", "", "s1", "state_change", (), "stocktake", "scheduled_for",
                "sunday", 1, "sunday", anchor, "sunday", False, said.source_time, None,
                said.source_time, None, "active", 1.0, 1, 0, "rules", (said.source_id,))
    res = Resolution("answer", "stocktake", "scheduled_for", "sunday", facts=[fact],
                     source_ids=[said.source_id])
    q = "When is the stocktake?"
    return ExtractiveReader().read(q, plan_question(q, wednesday + 3600), pack(
        [EvidenceItem(said, 1.0, {})], 4000, 20), resolution=res).answer


def test_the_day_of_the_month_the_source_names_stands_over_the_resolvers_weekday() -> None:
    sunday_5th = float(calendar.timegm((2025, 10, 5, 9, 0, 0, 0, 0, 0)))
    got = _resolved("Head office moved the stocktake to the Sunday after, the 19th.",
                    sunday_5th)
    assert "19" in got and "5 October" not in got


def test_the_resolvers_weekday_stands_where_the_source_names_its_day() -> None:
    sunday_19th = float(calendar.timegm((2025, 10, 19, 9, 0, 0, 0, 0, 0)))
    got = _resolved("Head office moved the stocktake to the Sunday after, the 19th.",
                    sunday_19th)
    assert got == "Sunday 19 October 2025"
    sunday_5th = float(calendar.timegm((2025, 10, 5, 9, 0, 0, 0, 0, 0)))
    assert _resolved("Head office moved the stocktake to Sunday.", sunday_5th) \
        == "Sunday 5 October 2025"
