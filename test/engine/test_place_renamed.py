"""A place named again right after the place phrase ("Flat 3, above the bakery, Church
Street.") is part of the answer: the clause only says where that is, by its name."""

from __future__ import annotations

import pytest

from trace_ros.query.spans import place_phrase


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Your mother: Flat 3, above the bakery, Church Street.", "above the bakery, Church Street"),
        ("He's at the depot, Unit 4 Carr Lane.", "depot, Unit 4 Carr Lane"),
        # A day, a reply word or a clause that says more is no name of the place.
        ("It's in the shed, Thursday.", "shed"),
        ("She lives at the flat, thanks.", "flat"),
        ("It went in the kitchen drawer, by the fridge.", "kitchen drawer"),
        ("It's in the shed, Tom put it there.", "shed"),
    ],
)
def test_a_place_named_again_joins_the_place(text: str, place: str) -> None:
    assert place_phrase(text, set()) == place
