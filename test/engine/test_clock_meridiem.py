"""A bare hour read for "what time" ("at 11", "at 8") takes the half of the day the other
times found for the same thing state: the same hour said with "pm", else a time it moved
from up to two hours away; nothing where none says it, they disagree, or the value has
its own half of the day, minutes or is no bare hour."""

from __future__ import annotations

import pytest

from trace_ros.query.days import with_meridiem


def found(*values: str) -> list:
    return [(None, v, 0.0) for v in values]


@pytest.mark.parametrize(("value", "others", "want"), [
    ("at 11", ("10 pm", "11 pm"), "at 11 pm"),          # the same hour with its half
    ("at 8", ("7:30", "7 pm", "at seven"), "at 8 pm"),    # moved from seven in the evening
    ("at ten", ("9 am",), "at 10 am"),                   # with its half: in figures
    ("at 8", ("at seven",), "at 8"),                      # no half of the day said
    ("at 8", ("7 pm", "9 am"), "at 8"),                   # they disagree
    ("at 8", ("3 pm",), "at 8"),                          # too far to be the same half
    ("8 pm", ("8 am",), "8 pm"),                          # its own half kept
    ("at 7:30", ("7 pm",), "at 7:30"),                    # minutes: not a bare hour
    ("Eight o'clock", ("7 pm",), "Eight o'clock"),        # said in full already
    ("noon", ("11 am",), "noon"),
])
def test_a_bare_hour_takes_the_half_of_the_day(value: str, others: tuple[str, ...],
                                               want: str) -> None:
    assert with_meridiem(value, found(*others)) == want
