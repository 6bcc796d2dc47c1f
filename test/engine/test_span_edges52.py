"""Where a span of the right clause begins and ends: a word limit never cuts a noun phrase
short of its head, a clause word inside a hyphened compound is part of it, "till" left
without its time is no part of a place, and a label that only gives the asked noun back
does not replace the name the answer read opens with its figure."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.query.spans import place_phrase, stems


@pytest.mark.parametrize(
    ("text", "place"),
    [
        # the limit reached inside "the utility room" / "the leisure centre": the phrase
        # goes on to its head
        ("Sheldon's going in the spare fridge in the utility room this year, at five "
         "degrees.", "spare fridge in the utility room"),
        ("So yoga has moved to the studio room at the leisure centre.",
         "studio room at the leisure centre"),
    ],
)
def test_the_word_limit_does_not_cut_a_noun_phrase(text: str, place: str) -> None:
    assert place_phrase(text, set()) == place


def test_a_phrase_within_the_limit_is_unchanged() -> None:
    assert place_phrase("It's in the shed this year.", set()) == "shed"
    assert place_phrase("It is in the red box on the shelf.", set()) == "red box on the shelf"


def test_a_limit_reached_after_a_function_word_cuts_as_before() -> None:
    # "… with the | under-13s": past the limit a function word begins another phrase
    assert place_phrase("It's in the big blue box on the top shelf in the garage.", set()) \
        == "big blue box"
    q = stems("Where was the cup final supposed to be?")
    assert "final" not in place_phrase("We're in the county cup final with the under-13s!", q)


def test_a_clause_word_inside_a_compound_is_part_of_it() -> None:
    assert place_phrase("He's going to the cash-and-carry with Lewis.", set()) \
        .startswith("cash-and-carry")
    # a free "and" still ends the place
    assert place_phrase("He's going to the depot and then home.", set()) == "depot"


def test_till_left_without_its_time_ends_no_place() -> None:
    assert place_phrase("Sam grabbed it, so it's at his flat till Saturday.", set()) \
        == "flat"
    # after "the" it is the till itself
    assert place_phrase("The van key's in the till itself.", set()) == "till"


def test_a_label_does_not_replace_the_name_its_figure_opens() -> None:
    # (the robot's echo says the label: "address 22")
    assert read("What's my address for the cast list?",
                rec(1, "The landlord sold Kingsway, so we've taken the little house at 22 "
                       "Orchard Road."),
                rec(2, "New address 22 Orchard Road.", speaker="robot")) == "22 Orchard Road"


def test_a_label_still_replaces_a_figure_said_with_other_words() -> None:
    assert read("Which room is Professor Grant's office?",
                rec(1, "Professor Grant has moved to room 307 instead.")) == "room 307"


def test_the_asked_things_own_verb_and_function_words_are_no_object() -> None:
    # "the textiles close and …": the verb of the clause the asked words open, not what
    # follows them as an object
    assert "November" in read("Until when is the textile exhibition on?",
                              rec(1, "A lady wanted to know when the textiles close and I "
                                     "said late November. That's still right, isn't it?"))


def test_a_verb_with_its_object_after_the_asked_words_still_answers() -> None:
    assert read("Which magazine does Mary get?",
                rec(1, "Mary still wants the big-print Radio Times, she can't read the "
                       "small one.")) == "still wants the big-print Radio Times"
    assert read("What does the bakery want?",
                rec(1, "The bakery wants 500 rolls for Saturday.")) == "500 rolls"
