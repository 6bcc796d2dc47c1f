"""A day of the month said alone ("the 12th") is of the one month its text names alone
("slipped into January, the 12th"); with no month named, or a month that has its own day,
it stays the record's month as before."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from trace_ros.query.spans import answer_date

MONDAY = datetime(2025, 11, 10, 12, 0, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("The switchover's slipped into January, the 12th.", "12 January"),
        ("It's in January now, on the 12th.", "12 January"),
        ("Back in March we said the 12th.", "12 March"),
    ],
)
def test_a_day_alone_takes_the_month_named(text: str, said: str) -> None:
    assert said in answer_date(text, MONDAY)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("It's the 14th, not the 12th.", "14"),  # no month named: the record's month or next
        ("January 3rd, then the 12th.", "3 January"),  # the month has its own day
        ("We may go on the 12th.", "12"),  # "may" in lower case is no month
    ],
)
def test_a_day_alone_without_a_month_alone_is_unchanged(text: str, said: str) -> None:
    got = answer_date(text, MONDAY)
    assert got.startswith(said + " ")
    if not said.endswith("January"):
        assert got.split()[1] in ("October", "November")
