"""The graph stage's current record that tells the old value first and the new one
after it, in a sentence of its own ("Finished at the bakery on Friday. Monday I start at
the garage."): the new one answers (``typed._left_for``; invented sentences).
Look-alikes that keep the old value: a later sentence that tells what will be done
("I'll find it in the garden"), an old value said with "still", and a record that says
the old value last."""

from __future__ import annotations

import pytest

from trace_ros.query.amounts import value_tokens
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.typed import _left_for

from .readerkit import DAY, T0, rec


def _read(question: str, old: str, new: str) -> str:
    items = [EvidenceItem(rec(1, new), 1.0, {"graph": 1}),
             EvidenceItem(rec(0, old), 1.0, {"superseded": 1})]
    return ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                   pack(items, 4000, 20)).answer


@pytest.mark.parametrize(("text", "old", "new", "left"), [
    ("Handed my notice in at the farm today. The distillery's taken me on in the warehouse.",
     "farm", "warehouse", True),
    ("Finished at the bakery on Friday. Monday I start at the garage.", "bakery", "garage",
     True),
    ("Eli's borrowed the hammer out of the toolbox under the stairs. I'll find it in the "
     "garden in a month.", "under the stairs", "garden", False),
    ("Still at the bakery on Fridays. The garage has me on Mondays.", "bakery", "garage",
     False),
    ("The garage has me on Mondays. Still at the bakery on Fridays.", "bakery", "garage",
     False),
])
def test_the_old_value_told_before_the_new(text: str, old: str, new: str, left: bool) -> None:
    said = value_tokens(old)
    assert _left_for(text, old, said, value_tokens(new)) is left


def test_the_new_place_told_after_the_old_answers() -> None:
    assert _read("Where do I work?", "I work at the bakery.",
                 "Finished at the bakery on Friday. Monday I start at the garage.") == "garage"


def test_a_place_told_as_what_will_be_done_leaves_the_old_one() -> None:
    answer = _read("Where's the toolbox kept?", "Toolbox is kept under the stairs.",
                   "Eli's borrowed the hammer out of the toolbox under the stairs. "
                   "I'll find it in the garden in a month.")
    assert answer == "under the stairs"
