"""The number a record states of what a "how many" question counts, from the record the
reader cites (``spans.counted_noun``, ``ExtractiveReader._count_stated``,
``typed._denied_amount``; invented sentences).

"How many people came?" asked of "We had 2 tables short, but 46 people came" is told by
the figure said with the counted noun, not the record's first figure; a figure the
sentence turns down ("not 50") is what it is not. Look-alikes: the figure of another
noun counted from the same sentence, a threshold said with "from", and a question no
record answers with a figure (the mentions are counted, as before).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.query.spans import counted_noun  # noqa: E402


@pytest.mark.parametrize(("question", "noun"), [
    ("How many people came to the quiz night?", "people"),
    ("How many blood pressure tablets was I taking before the GP changed it?", "tablets"),
    ("At how many units does our bulk discount start?", "units"),
    ("When the wedding was first booked, how many guests was it for?", "guests"),
    ("What time does the quiz start?", ""),
])
def test_the_noun_a_how_many_question_counts(question: str, noun: str) -> None:
    assert counted_noun(question) == noun


def test_a_past_count_is_the_figure_said_with_the_counted_noun() -> None:
    r = rec(0, "We had 2 tables short, but 46 people came to the quiz night in the end.")
    assert read("How many people came to the quiz night?", r).startswith("46")


def test_a_figure_of_another_noun_counted_is_still_read() -> None:
    r = rec(0, "We had 2 tables short, but 46 people came to the quiz night in the end.")
    assert read("How many tables were short at the quiz night?", r).startswith("2")


def test_a_count_said_in_words_is_read_whole() -> None:
    r = rec(0, "Quiz night was packed, forty-six people came, 3 teams of them from the pub.")
    assert read("How many people came to the quiz night?", r).startswith("forty-six")


def test_a_count_booked_after_a_numbered_week() -> None:
    r = rec(0, "The retreat in week 3 was booked for 24 guests.")
    assert read("How many guests were booked for the retreat?", r).startswith("24")


def test_a_figure_turned_down_is_not_the_count() -> None:
    r = rec(0, "Not 50 chairs for the hall, we need 60.")
    assert read("How many chairs do we need for the hall?", r) == "60"


def test_a_threshold_from_a_figure_is_no_denial() -> None:
    r = rec(0, "Competitor is undercutting us. Discount's from 500 units now, same ten percent.")
    assert read("At how many units does our bulk discount start?", r).startswith("500")


def test_no_figure_stated_counts_the_mentions() -> None:
    a = rec(0, "I went swimming at the lido this morning.")
    b = rec(1, "Went swimming again after work, the lido was quiet.")
    assert read("How many times did I go swimming?", a, b) == "two"


def test_a_count_said_without_a_figure_is_no_article() -> None:
    """"Rejected a few times" states no figure of the times: the answer is not "a"."""
    r = rec(0, "My script got rejected again, that makes a few times now.")
    assert read("How many times has my script been rejected?", r) != "a"
