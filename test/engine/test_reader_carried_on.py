"""A turn found only by carrying on the one before it (it says no word of the question)
that gives another value adds something else to that turn, where that turn states a
value of the kind asked too: it is no newer revision of the thing, unless it marks a
change; one giving the same value again says the same."""

from __future__ import annotations

from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

from .readerkit import DAY, T0, rec


def read_cited(question: str, *records) -> tuple[str, list[str]]:
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20))
    return out.answer, out.cited_ids


def test_a_turn_adding_something_else_is_no_revision() -> None:
    answer, cited = read_cited(
        "Where is Mr Reid's insulin kept?",
        rec(1, "Mr Reid's insulin is in the treatment room fridge."),
        rec(2, "He has twelve units at breakfast."))
    assert cited[0] == "src-1" and "treatment room" in answer


def test_a_turn_marking_a_change_still_revises() -> None:
    answer, cited = read_cited(
        "Where is Mr Reid's insulin kept?",
        rec(1, "Mr Reid's insulin is in the treatment room fridge."),
        rec(2, "Actually it's in the office now."))
    assert cited[0] == "src-2" and "office" in answer
