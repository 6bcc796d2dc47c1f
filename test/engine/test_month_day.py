"""One reading of a day of the month (``language.monthday``) and the readers that use it."""

from __future__ import annotations

import pathlib
import re

import pytest

import trace_ros
from trace_ros.language import monthday
from trace_ros.language.monthday import BARE_DAY, DAY_OF_MONTH, ORDINAL_WORD, figure_of
from trace_ros.language.revision import _days_of_month
from trace_ros.language.valuekinds import kinds_of
from trace_ros.query.days import bare_weekday


@pytest.mark.parametrize(("text", "day"), [
    ("See you on the 28th.", "28"),
    ("It's on the 3rd, not the 5th", "3"),
    ("the dentist moved to March 4th", "4"),
    ("the 4th of March works", "4"),
    ("Saturday 14th March, 2 o'clock", "14"),
    ("Friday the 19th now", "19"),
    ("the 23rd at 10", "23"),
    ("The 31st", "31"),
    # a verb after the day, not a noun it ranks
    ("the 12th clashes with the under-16s", "12"),
    ("The 8th clashed with the rugby", "8"),
    ("And the 28th hasn't moved", "28"),
    ("the 19th I've booked Fiona", "19"),
])
def test_day_of_month_read(text: str, day: str) -> None:
    m = DAY_OF_MONTH.search(text)
    assert m is not None and m.group(1) == day


@pytest.mark.parametrize("text", [
    "the office is on the 4th floor",
    "that's the 3rd time this week",
    "she came 2nd place",
    "he's in the 1st team",
    "a 2nd class ticket",
    "Mum's 70th is at the pub",  # an age, no day
    "the 32nd",
])
def test_rank_or_figure_is_no_day(text: str) -> None:
    assert DAY_OF_MONTH.search(text) is None


def test_word_and_bare_day() -> None:
    assert figure_of("12th") == "12" and figure_of("floor") == "floor" and figure_of("123rd") == "123rd"
    assert ORDINAL_WORD.fullmatch("3RD") is not None and ORDINAL_WORD.fullmatch("3") is None
    for expr in ("on the 12th", "by the 3rd", "19th", "the 2nd"):
        assert BARE_DAY.fullmatch(expr) is not None
    for expr in ("the 12th floor", "12", "on the twelfth"):
        assert BARE_DAY.fullmatch(expr) is None


def test_value_kinds_rank_is_a_figure() -> None:
    assert kinds_of("Now the 7th of February") == {"date": frozenset({"7", "feb"})}
    assert kinds_of("on the 21st") == {"date": frozenset({"21"})}
    assert kinds_of("moved to the 4th floor") == {"figure": frozenset({"4"})}


def test_revision_days_and_bare_weekday() -> None:
    assert _days_of_month("the 23rd at 10") == {"23"}
    assert _days_of_month("the 3rd time at 10") == frozenset()
    assert not bare_weekday("Tuesday the 4th.")
    assert bare_weekday("Tuesday, 4th floor.")


def test_one_module_writes_the_calendar() -> None:
    """No other engine module writes the ordinal ending as a day's or the names' alternation."""
    root = pathlib.Path(trace_ros.__file__).parent
    copies = re.compile(r"\\d\{1,2\}\(\?:st\|nd\|rd\|th\)|january\|february|monday\|tuesday")
    found = [str(p.relative_to(root)) for p in root.rglob("*.py")
             if p.name != "monthday.py" and "bench" not in p.parts and copies.search(p.read_text())]
    assert found == []
    assert monthday.MONTH_NAMES.split("|") == list(monthday.MONTHS)
