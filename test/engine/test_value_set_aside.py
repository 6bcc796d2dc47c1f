"""Of the values of the kind asked that one record tells, the one it sets aside (denies,
cancels, replaces) is not the state where another clause tells one it holds to."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.language.text import stems
from trace_ros.query.newstate import state_first
from trace_ros.query.spans import clock_time, place_phrase
from trace_ros.query.typed import _dates_said


def test_a_value_the_record_sets_aside_gives_way_to_the_one_it_holds_to() -> None:
    assert read("What's the code?",
                rec(1, "I typed 8821 and it failed, not that code. Yes, 8812 works.")) == "8812"


def test_a_cancelled_day_is_not_read_first() -> None:
    said = ["The airline has cancelled the Monday flight.", "They've shoved me onto the Wednesday."]
    assert state_first(said, lambda x: _dates_said(x, set()))[0] == said[1]


def test_a_value_said_before_the_one_it_denies_holds() -> None:
    # "9023 not 9032": the "not" sets aside the value after it, not the one before.
    assert read("What's the padlock code?",
                rec(1, "Typo from Derek, padlock code is 9023 not 9032. Got locked out for 20 min.")) \
        == "9023"


def test_unchanged_where_the_first_value_is_held_to() -> None:
    said = ["The bus goes at 8:10, and the later one at 9:40, not that I take it."]
    assert state_first(said, clock_time) == said
    # A list joined by "and" is one clause.
    said = ["I'm going to split the cells on Tuesdays and Fridays instead."]
    assert state_first(said, lambda x: _dates_said(x, set())) == said


def test_a_later_clause_marking_the_new_state_leads_over_the_cause() -> None:
    said = ["Batteries kept going walkabout in that drawer.",
            "They're in the bathroom cabinet now, top shelf."]
    assert state_first(said, lambda x: place_phrase(x, stems("Where are the batteries?")))[0] \
        == said[1]
    assert read("Where are the batteries?", rec(1, " ".join(said))) == "bathroom cabinet"
    # The first value marked as new stays first ("teaching on Fridays now, so …").
    said = ["She's on lates now, so the dog walker comes at 7:30 instead of 6."]
    assert state_first(said, clock_time) == said


def test_a_capital_a_after_a_noun_is_its_label() -> None:
    assert place_phrase("Linen trolley, corridor outside bay A.",
                        stems("Where is the linen trolley?")) == "outside bay A"
