"""Numbers said in words are read whole: "a hundred and fifty" is one value, not "fifty"
after a "hundred"; a unit is a whole word ("38 guests" counts guests, not grams)."""

from __future__ import annotations

import calendar

import pytest

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import measures, money, number_head, quantities

T0 = float(calendar.timegm((2025, 3, 3, 10, 0, 0, 0, 0, 0)))


def read(question: str, text: str) -> str:
    r = SourceRecord(
        1, "src-1", "noor", "r1", "s1", "dialogue", "Noor", text, "", None, None, {}, T0, False, T0, "h"
    )
    p = pack([EvidenceItem(r, 1.0, {})], 4000, 20)
    return ExtractiveReader().read(question, plan_question(question, T0 + 86400), p).answer


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("so it's a hundred and fifty now", "a hundred and fifty"),
        ("two thousand and five copies", "two thousand and five copies"),
        ("one hundred twenty people", "one hundred twenty people"),
        ("Thirty-eight guests confirmed", "Thirty-eight guests confirmed"),
    ],
)
def test_a_number_in_words_is_one_phrase(text: str, phrase: str) -> None:
    assert [p for _, p in quantities(text)] == [phrase]


def test_and_joins_numbers_only_after_a_hundred_or_a_thousand() -> None:
    assert [p for _, p in quantities("three and four tablets")] == ["three", "four tablets"]
    assert number_head("a hundred and fifty copies") == "a hundred and fifty"
    assert number_head("one-visitor rule") == "one-visitor"


def test_a_unit_is_a_whole_word() -> None:
    assert [p for _, p in quantities("Thirty-eight guests")] == ["Thirty-eight guests"]
    assert [p for _, p in quantities("take 20g of oats")] == ["20g"]
    assert [p for _, p in quantities("5 mg at night")] == ["5 mg"]


def test_a_number_in_words_is_no_unit_of_itself() -> None:
    """ "a hundred and fifty" measures nothing: "fifty" is not its unit."""
    assert measures("it's a hundred and fifty now") == {}
    assert measures("two litres a day") == {"litr": "two litres"}


def test_a_sum_in_words_is_read_whole() -> None:
    assert money("Three hundred and eighty quid, can you believe it") == "Three hundred and eighty quid"


def test_the_reader_answers_the_whole_number() -> None:
    q = "How many wedding invitations are we printing?"
    said = "The bride rang about the invitations, so it's a hundred and fifty now."
    assert read(q, said) == "a hundred and fifty"
    q = "How many people are coming to the wedding?"
    assert read(q, "The wedding in May, that one is one hundred twenty people.") == "one hundred twenty people"
