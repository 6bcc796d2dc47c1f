"""An "X's" is read as a possessive only where one can be: "Wojtek's put the labour up"
is "Wojtek has put", not Wojtek's thing; and a capitalised word opening a sentence is a
name only where the conversation uses it as one ("Go on then" opens on a verb)."""
from __future__ import annotations

import pytest

from trace_ros.language import revision


def _after(text: str) -> int:
    return text.index("'s") + 2


@pytest.mark.parametrize("text", [
    "Wojtek's put the labour up from January.",
    "The gym's pushed spin to a quarter past seven.",
    "Sam's just moved it to Friday.",
    "Ivy's been promoted.",
    "Sandra's my key worker.",
    "Lauren's going to look after my regulars while I'm off.",
    "The garage is moving up the date.".replace(" is", "'s"),
])
def test_a_contracted_has_or_is_is_no_possessive(text: str) -> None:
    assert not revision.is_possessive(text, _after(text))


@pytest.mark.parametrize("text", [
    "Wojtek's van is in for its MOT.",
    "Sam's wedding is on Saturday.",
    "We had a sleepover at Freya's.",
    "Mum's dentist appointment moved to Friday.",
])
def test_a_possessive_stays_one(text: str) -> None:
    assert revision.is_possessive(text, _after(text))


def test_a_contraction_names_no_other_holder_of_the_thing() -> None:
    labour = frozenset({"labour"})
    assert revision.same_holder("Wojtek's put the labour up from January, £45 an hour now.",
                                frozenset(), frozenset(), labour)
    assert not revision.same_holder("Wojtek's labour is £45 an hour from January.",
                                    frozenset(), frozenset(), labour)


def test_a_name_before_going_to_is_who_does_it_not_whose() -> None:
    # "Lauren's going to look after my regulars" says who will (the value a "who"
    # question asks), not that the regulars are Lauren's.
    thing = frozenset({"look", "regular"})
    assert revision.same_holder("Lauren's going to look after my regulars while I'm off.",
                                frozenset(), frozenset(), thing)


def test_their_after_the_name_of_the_thing_is_the_things_own() -> None:
    # "the Ellis crates": a sentence that names Ellis first and then "their crates" speaks
    # of the Ellis crates; "their crates" naming no one before is a third party's.
    thing = frozenset({"elli", "crate", "row"})
    assert revision.same_holder("Ellis are collecting Monday, so I've brought their crates "
                                "right up front, row A.", frozenset(), frozenset(), thing)
    assert not revision.same_holder("Brennan rang. I've moved their crates to row A.",
                                    frozenset(), frozenset(), thing)
