"""A "now" that closes a duration or names the moment marks no change
(``revision.marks_change``).

Invented sentences. "I've had them for three years now" tells how long a state has
lasted, and "busy right now" the moment; neither sets a new state against an old one, so
neither may make a statement the update of an earlier one. A "now" after a rate ("twice a
day now", "every day now") or a plain present ("he's Nacho now") still marks a change.
"""

from __future__ import annotations

import pytest

from trace_ros.language.revision import denies_change, marks_change


@pytest.mark.parametrize("text", [
    "I've had the two cats for three years now and they're great company.",
    "I've been playing the violin for just under a year now.",
    "We've been looking at flats for a while now, no luck yet.",
    "It's been seven years now since we opened.",
    "Been wanting to try that bakery for ages now!",
    "The shop is on shaky ground right now, but I'm hopeful.",
    "Seven years now, and I've finally found my real muses: painting and pottery.",
    "Three months now. Loving every minute of the new routine.",
])
def test_a_now_that_closes_a_duration_or_names_the_moment_marks_no_change(text: str) -> None:
    assert not marks_change(text)


@pytest.mark.parametrize("text", [
    "My physio is on Thursdays now.",
    "Doctor says it's twice a day now, morning and night.",
    "Leo does breakfast club every day now.",
    "They go to nursery three days a week now.",
    "Thanks for asking, the clinic is on Fridays now.",
    "I've switched to oat milk now.",
    "I've been at the bakery for a year, but I'm at the café now.",
    "For now I'm on the night shift.",
    "Two hours now between doses, not four.",
    "Six weeks now, they've moved the review.",
])
def test_a_now_that_sets_a_new_state_still_marks_a_change(text: str) -> None:
    assert marks_change(text)


def test_a_number_word_is_no_participle_of_a_perfect_passive() -> None:
    assert not marks_change("It's been seven weeks.")
    assert marks_change("The match has been pushed back a week.")


def test_a_duration_is_no_denied_change() -> None:
    assert not denies_change("I've lived here for ten years now.")
    assert denies_change("Still four-hourly, nothing's changed.")
