"""A question about how a state was at first ("Which days did I originally …?") is answered
with the revisions in the order told; each is read as a value of the kind the question
asks for (days here), not as the phrase beside the question's words ("near the
station")."""

from __future__ import annotations

from .readerkit import DAY, T0, read, rec

RECORDS = (rec(0, "I've signed up at the pool near the station, I'll go Tuesdays and Fridays."),
           rec(1, "Weather's lovely today."),
           rec(2, "The pool changed its lanes, so I go Wednesdays now.", when=T0 + 10 * DAY))


def test_each_revision_is_read_as_the_days_asked():
    answer = read("Which days did I originally go to the pool?", *RECORDS)
    assert answer.startswith("3 March 2025: Tuesdays and Fridays")
    assert "station" not in answer and "lanes" not in answer


def test_a_thing_asked_is_still_read_as_a_phrase():
    assert read("What did I originally sign up for?", *RECORDS) \
        == "3 March 2025: pool near the station"
