"""A clock time read whole (invented sentences):

- a clock time is one token ("the 7:05"), not "7" ":" "05", so a span holding one keeps
  its minutes; a decimal beside it stays one token too, and a figure with a colon inside
  a longer run of digits is not read as a time.
"""

from __future__ import annotations

from trace_ros.query.spans import tokens

from .readerkit import read, rec


def test_a_clock_time_is_one_token() -> None:
    assert [t.text for t in tokens("on the 7:05 too")] == ["on", "the", "7:05", "too"]
    assert [t.text for t in tokens("desk 2.09, 12:30")] == ["desk", "2.09", ",", "12:30"]


def test_digits_with_more_colons_are_no_clock_time() -> None:
    assert "10:30:15" not in [t.text for t in tokens("logged at 10:30:15")]


def test_a_span_keeps_the_minutes_of_its_time() -> None:
    got = read("Which boat brings the post?",
               rec(1, "The post comes on the 7:05 too, in a bundle with string."))
    assert "7:05" in got
