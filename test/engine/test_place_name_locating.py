"""The name a place phrase locates ("Casa Verde on Main") is looked for only where a
capitalised word and a locating preposition come right before the place: the pattern
built for each new place is not compiled for the many phrases with none (speed49)."""

from __future__ import annotations

import pytest

from trace_ros.query import spans
from trace_ros.query.spans import _may_be_located, _name_locating, place_phrase, states_time


@pytest.mark.parametrize(("sentence", "place"), [
    ("We ate at Casa Verde on Main Street last night.", "Main Street"),
    ("Dinner is at Luigi's near the station.", "station"),
    ("I left it at the bakery. Rosa's Deli at the bakery corner too.", "bakery corner"),
])
def test_a_name_before_the_place_is_still_found(sentence: str, place: str) -> None:
    assert _may_be_located(sentence, place)
    assert _name_locating(place).search(sentence) is not None


@pytest.mark.parametrize(("sentence", "place"), [
    ("I work at the bakery on Mill Lane.", "bakery on Mill Lane"),
    ("it's in the car park.", "car park"),
    ("We moved to Leeds in March.", "Leeds"),
    ("The keys are at Main Street", "Oak Road"),  # the place not in the sentence at all
])
def test_no_name_before_the_place_none_is_looked_for(sentence: str, place: str) -> None:
    assert not _may_be_located(sentence, place)
    assert _name_locating(place).search(sentence) is None


def test_place_phrase_the_same_with_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    sentences = ["We ate at Casa Verde on Main Street last night.",
                 "I work at the bakery on Mill Lane.", "It's in the car park.",
                 "She's staying with Tom at the Grand in Brighton."]
    fast = [place_phrase(s, set()) for s in sentences]
    monkeypatch.setattr(spans, "_may_be_located", lambda sentence, place: True)
    assert [place_phrase(s, set()) for s in sentences] == fast
    assert fast[0] == "Casa Verde on Main Street"


def test_states_time_kept_per_text() -> None:
    assert states_time("Parents' evening is on Thursday the 12th.")
    assert states_time("Swimming every Tuesday.")
    assert not states_time("Swimming is fun.")
    assert states_time.__wrapped__("Swimming every Tuesday.") is True
