"""A day of the month said in words ("the nineteenth", "the twenty-first of March") is a
time anchor as "the 19th" is; an ordinal that may be a rank ("the first to arrive", "the
third floor") is not, unless a month or a weekday names it as a day."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from trace_ros.language.timeanchor import find_candidates, ordinal_figures, resolve
from trace_ros.query.spans import answer_date

THURSDAY = datetime(2025, 10, 9, 10, 0, tzinfo=UTC).timestamp()


def day(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d")


@pytest.mark.parametrize(
    ("text", "expr", "expected"),
    [
        ("The clinic moved it to the nineteenth.", "the nineteenth", "2025-10-19"),
        ("It's the twenty-first, not the 12th.", "the twenty-first", "2025-10-21"),
        ("Assessment on the twenty-second of October.", "twenty-second of October", "2025-10-22"),
        ("Sunday the nineteenth at 3pm suits", "Sunday the nineteenth at 3pm", "2025-10-19"),
        ("Party's on October twenty first, I think.", "October twenty first", "2025-10-21"),
    ],
)
def test_a_day_of_the_month_in_words_is_a_date(text: str, expr: str, expected: str) -> None:
    assert [m.group(0) for m in find_candidates(text)][0] == expr
    anchor = resolve(text, THURSDAY, future=True)
    assert not anchor.fallback and day(anchor.time) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I was the first to arrive.",
        "It's the second, not the third.",
        "We're on the third floor.",
        "He came fourth in the race.",
    ],
)
def test_a_rank_is_no_date(text: str) -> None:
    assert find_candidates(text) == []


def test_ordinal_words_read_as_figures() -> None:
    assert ordinal_figures("the twenty-first") == "the 21st"
    assert ordinal_figures("the twelfth of may") == "the 12th of may"
    assert ordinal_figures("twenty second") == "22nd"


def test_the_answer_names_the_day_not_only_the_month() -> None:
    """ "The boiler man's coming on the twenty-eighth": a day, as "the 28th" is, not a
    month."""
    said = answer_date("The boiler man's coming on the twenty-eighth.", THURSDAY)
    assert said == answer_date("The boiler man's coming on the 28th.", THURSDAY)
    assert said.startswith("28 ")


@pytest.mark.parametrize(
    ("text", "expr"),
    [
        ("OK, the 19th's fine by me.", "the 19th"),
        ("the nineteenth's no good", "the nineteenth"),
        ("Told him no. Nineteenth's my last day, full stop.", "Nineteenth"),
        ("Told him no. 19th's my last day.", "19th"),
    ],
)
def test_a_day_of_the_month_as_the_subject_of_is(text: str, expr: str) -> None:
    """ "the 19th's fine": the day is the subject of a contracted "is"."""
    assert [m.group(0) for m in find_candidates(text)][0] == expr
    assert not resolve(text, THURSDAY).fallback
