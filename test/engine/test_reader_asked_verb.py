"""A record that shares with a question only the verb it asks with ("Take care of
yourself" for "How do I take my tea?") is no revision of the thing asked, where other
shown records say the question's other words; where none does, it still counts."""

from __future__ import annotations

import pytest

from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader, _asked_verbs

from .readerkit import DAY, T0, rec


def read_cited(question: str, *records) -> tuple[str, list[str]]:
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20))
    return out.answer, out.cited_ids


@pytest.mark.parametrize(("question", "verbs"), [
    ("How do I take my tea?", {"take"}),
    ("What music does Mum like?", {"like"}),
    ("What does my mother like to drink?", {"like", "drink"}),
    ("What can't Pepper eat?", {"eat"}),
    ("What does Mrs Cole drink?", {"drink"}),
    ("Where is the spare key?", set()),
    ("What's my job now?", set()),
])
def test_the_verb_a_question_asks_with(question: str, verbs: set[str]) -> None:
    from trace_ros.language.text import stem
    assert _asked_verbs(question) == {stem(v) for v in verbs}


def test_a_record_sharing_only_the_verb_is_no_revision() -> None:
    answer, cited = read_cited(
        "How do I take my coffee?",
        rec(1, "I drink my coffee black these days."),
        rec(2, "A splash of oat milk in my coffee from now on."),
        rec(3, "Bea is taking our repairs now."))
    assert "oat" in answer and cited[0] == "src-2"


def test_the_verb_alone_counts_where_nothing_else_is_shared() -> None:
    answer, cited = read_cited(
        "How do I take my coffee?",
        rec(1, "I take it black."),
        rec(2, "I take it with oat milk now."))
    assert "oat" in answer and cited[0] == "src-2"
