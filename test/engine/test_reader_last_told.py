"""A question the plan reads as of no present state ("What time did the ferry leave?",
"What's the puppy called?") that names no time: of the records that say most of what is
asked, the last told answers, not the best word match; a question dated by a phrase
("at the first clinic visit") or a later record that says less of the thing does not."""

from __future__ import annotations

import pytest

from trace_ros.language.timeanchor import dated_by_phrase
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.typed import _last_word_asked

from .readerkit import DAY, T0, rec


def read_cited(question: str, *records) -> tuple[str, list[str]]:
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20))
    return out.answer, out.cited_ids


@pytest.mark.parametrize(("question", "dated"), [
    ("What was her weight at the first clinic visit?", True),
    ("How many students did I have after the first one left?", True),
    ("Where did the van park during the refit?", True),
    ("What time did the Vilnius flight leave?", False),
    ("What's the puppy called?", False),
    ("Where is the party at?", False),  # a preposition that opens no phrase
])
def test_a_question_dated_by_a_phrase(question: str, dated: bool) -> None:
    assert dated_by_phrase(question) is dated


@pytest.mark.parametrize(("question", "last"), [
    ("What time did the Vilnius flight leave?", True),
    ("What time did the Vilnius flight leave in March?", False),   # a time named
    ("What time did the flight originally leave?", False),         # the first word asked
    ("Before the strike, what time did the flight leave?", False),  # dated by an event
    ("What time did the flight leave after the storm?", False),     # dated by a phrase
])
def test_which_questions_take_the_last_word(question: str, last: bool) -> None:
    assert _last_word_asked(question, plan_question(question, T0 + 30 * DAY)) is last


def test_the_last_told_of_the_thing_answers_a_past_question() -> None:
    answer, cited = read_cited(
        "What time did the Vilnius flight leave?",
        rec(1, "The Vilnius flight leaves at 20:15, on time so far."),
        rec(2, "Vilnius flight got away at 20:20 in the end."))
    assert "20:20" in answer and cited[0] == "src-2"


def test_a_later_record_saying_less_of_the_thing_does_not_answer() -> None:
    answer, cited = read_cited(
        "What time did the Vilnius flight leave?",
        rec(1, "The Vilnius flight left at 20:15, on time."),
        rec(2, "The bus left at 20:40."))
    assert "20:15" in answer and cited[0] == "src-1"
