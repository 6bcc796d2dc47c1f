"""Which value of a record answers: the one the record states, not another it mentions.

A clock time written with a hyphen ("five-fifteen") is the hour and its minutes; a time
in a clause that denies it ("I'm not picking her up at six again") is not stated; a
sentence that is only a figure ("Eleven.") is the amount the rest of the record works
out to; "How many are in …?" counts the people or things, left unsaid.
"""

from __future__ import annotations

import calendar
import sys
from pathlib import Path

import pytest

from trace_ros.facts import Fact
from trace_ros.language.text import stems
from trace_ros.language.timeanchor import find_candidates
from trace_ros.query.days import so_held
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import answer_date, asked, clock_time, scored_run
from trace_ros.state import Resolution

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


def test_a_day_that_labels_the_thing_asked_is_not_when_it_is() -> None:
    said = "The Friday quiz clashes with the darts now, so we're doing Thursdays at eight."
    held = so_held(said, stems("When's the weekly quiz?"))
    assert "Thursdays" in held and "Friday" not in held
    # A cause that says when the thing asked is, not which one, still holds.
    said = "The quiz is on Fridays now, so the darts go to Thursdays."
    assert "Fridays" in so_held(said, stems("When's the quiz?"))


def test_a_weekday_its_day_and_month_are_one_date() -> None:
    said = "The party's Saturday the 12th of September, at the hall."
    assert [m.group(0) for m in find_candidates(said)] == ["Saturday the 12th of September"]
    march = float(calendar.timegm((2026, 3, 10, 10, 0, 0, 0, 0, 0)))
    assert answer_date(said, march) == "Saturday 12 September 2026"


def test_the_resolver_s_date_does_not_stand_where_its_source_turns_a_day_down() -> None:
    # Wednesday 5 March 2025: "today" is turned down; the fact was anchored to it.
    wednesday = float(calendar.timegm((2025, 3, 5, 9, 0, 0, 0, 0, 0)))
    said = rec(1, "Your dentist is on Friday, not today, I mixed them up.", when=wednesday)
    fact = Fact("f-1", "noor", "", "s1", "state_change", (), "dentist", "scheduled_for",
                "friday", 1, "friday", said.source_time, "today", False, said.source_time, None,
                said.source_time, None, "active", 1.0, 1, 0, "rules", (said.source_id,))
    res = Resolution("answer", "dentist", "scheduled_for", "friday", facts=[fact],
                     source_ids=[said.source_id])
    q = "What day is my dentist?"
    out = ExtractiveReader().read(q, plan_question(q, wednesday + 3600), pack(
        [EvidenceItem(said, 1.0, {})], 4000, 20), resolution=res)
    assert out.answer.startswith("Friday") and "5 March" not in out.answer


def test_a_quoted_title_is_said_whole_though_it_holds_a_word_of_the_question() -> None:
    said = "The first one was far too slow. 'Sing Me to Sleep', upbeat, final."
    assert scored_run("'Sing Me to Sleep', upbeat, final.", stems("What's our last song?"), 6,
                      said)[0] == "Sing Me to Sleep"



def test_which_days_a_single_day_in_the_best_sentence_is_not_passed_over_for_a_list() -> None:
    got = read("Which days does the cleaner come now?",
               rec(1, "The cleaner comes Tuesdays and Fridays."),
               rec(2, "From next month the cleaner comes just the once, Wednesdays. The Tuesday "
                      "and Friday slots go to the flat upstairs."))
    assert "Wednesday" in got and "Tuesday" not in got


def test_a_day_said_of_the_asker_before_one_said_of_someone_else() -> None:
    got = read("Which day am I on the till?",
               rec(1, "Sam's away, so the manager is on the till Mondays. I'm still on the till "
                      "Thursdays."))
    assert "Thursday" in got
