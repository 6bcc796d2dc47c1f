"""Short revisions that give only the new value ("moved to thurs", "go to three now", "the
cheese is coming from Hafod now"): the reader reads the value of the asked kind from them,
and a short revision of another thing, or a name it changes from, does not answer."""

from __future__ import annotations

import sys
from pathlib import Path

from trace_ros.query.spans import figure_in_words, sum_stated, weekdays_written_out

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402


def test_a_clipped_weekday_after_a_word_that_leads_a_day_is_the_day() -> None:
    assert weekdays_written_out("parents evening moved to thurs, same time") == \
        "parents evening moved to Thursday, same time"
    assert weekdays_written_out("swim's on weds now") == "swim's on Wednesday now"
    assert weekdays_written_out("next fri at 6") == "next Friday at 6"


def test_sun_sat_and_wed_as_words_stay_words() -> None:
    for text in ("sat on the sun lounger", "bring the sun cream", "they're going to wed.",
                 "on sat nav"):
        assert weekdays_written_out(text) == text


def test_a_short_revision_names_its_clipped_day() -> None:
    answer = read("When is Amy's parents evening?",
                  rec(1, "amy's parents evening is on the 14th"),
                  rec(2, "school sent a text. parents evening moved to thurs, same time"))
    assert "Thursday" in answer


def test_a_figure_in_words_a_sum_moves_to() -> None:
    assert figure_in_words("We got so many donations, hardbacks go to three now.") == "three"
    assert figure_in_words("up to twenty-five each") == "twenty-five"
    assert figure_in_words("went to three shops") == ""  # three counts the shops
    assert figure_in_words("talked to one of them") == ""


def test_a_sum_said_in_words_beside_a_word_for_a_sum() -> None:
    assert sum_stated("From November rent is six-eighty each.") == "six-eighty"
    assert sum_stated("rent is split between the two of us") == ""
    assert sum_stated("the rent went up for three flats") == ""
    # "at five" is a clock time: its "-twenty" is no sum of its own
    assert sum_stated("rent's staying at five-twenty, he's not putting it up") == ""


def test_who_supplies_it_now_is_the_one_it_comes_from() -> None:
    answer = read("Who supplies the shop's cheese?",
                  rec(1, "The shop's cheese comes from the creamery."),
                  rec(2, "Teifi couldn't keep up with orders, so the cheese is coming from "
                         "Hafod now, not them."))
    assert answer == "Hafod"


def test_a_short_revision_of_another_thing_does_not_answer() -> None:
    answer = read("Who supplies the shop's cheese?",
                  rec(1, "Our cheese comes from Teifi."),
                  rec(2, "The butter is coming from Hafod now."))
    assert answer != "Hafod"


def test_the_one_taken_over_from_does_not_answer() -> None:
    answer = read("Who supplies the shop's cheese?",
                  rec(1, "He's taken over the cheese orders from Mark as of today."))
    assert answer != "Mark"
