"""A clock time written with a colon ("the 8:10") is one token of the span readers, as a
decimal is: a sailing, a train or a bus named by its time is read whole, not cut at the
colon ("swapped onto the 8"). What only looks like one (a time with seconds, a score
"2:1", a long figure) is split as before."""

from __future__ import annotations

import pytest

from trace_ros.language.text import stems
from trace_ros.query.spans import scored_run, tokens

from .readerkit import read, rec


@pytest.mark.parametrize(("text", "whole"), [
    ("Got us swapped onto the 8:10 instead.", "8:10"),
    ("Newspapers come on the 7:05 too.", "7:05"),
    ("The last boat is the 19:25.", "19:25"),
])
def test_a_clock_time_is_one_token(text: str, whole: str) -> None:
    assert whole in [t.text for t in tokens(text)]


@pytest.mark.parametrize("text", [
    "The stopwatch said 12:30:45 at the end.",  # hours, minutes and seconds
    "We won 2:1 in the end.",                   # a score, not a time
    "Ratio 123:45 on the label.",               # no hour has three digits
])
def test_what_only_looks_like_a_clock_time_is_split(text: str) -> None:
    texts = [t.text for t in tokens(text)]
    assert ":" in texts


def test_the_span_keeps_the_time_that_names_the_thing() -> None:
    run, _ = scored_run("Got us swapped onto the 8:10 instead.",
                        stems("Which sailing are we on for the Christmas trip?"))
    assert "8:10" in run


def test_the_reader_answers_with_the_whole_time() -> None:
    answer = read("Which boat brings the newspapers?",
                  rec(1, "Newspapers come on the 7:05 too, in a bundle with string."))
    assert "7:05" in answer
    # A count beside a time is still read as the count.
    count = read("How many crates came over?", rec(1, "Six crates came over on the 7:05."))
    assert "six" in count.lower() and "7:05" not in count
