"""A phrase put before the wh-word frames the question without changing what it asks
("Originally, what time …?" asks a clock time, not a day)."""

from __future__ import annotations

import calendar

import pytest

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import asked

T0 = float(calendar.timegm((2025, 3, 3, 10, 0, 0, 0, 0, 0)))  # Monday 3 March 2025


def rec(seq: int, text: str, speaker: str = "Noor") -> SourceRecord:
    when = T0 + 120 * seq
    return SourceRecord(seq, f"src-{seq}", "noor", "r1", "s1", "dialogue", speaker, text, "",
                        None, None, {}, when, False, when, "h")


def read(question: str, *records: SourceRecord) -> str:
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20)
    return ExtractiveReader().read(question, plan_question(question, T0 + 86400.0), p).answer


@pytest.mark.parametrize(("question", "kind", "focus"), [
    ("Originally, what time was the site visit booked for?", "clock", "time"),
    ("When Kofi first did the rota, which night did he give me?", "day", "night"),
    ("After the mix-up but before the move, what was the ops room's extension?", "ident",
     "extension"),
    ("In January, which night was my Spanish class?", "day", "night"),
    # no comma before a wh-word: read as before
    ("When is the site visit?", "when", ""),
    ("What time, roughly, does it start?", "clock", "time"),
])
def test_a_fronted_phrase_does_not_change_what_is_asked(question: str, kind: str,
                                                        focus: str) -> None:
    got = asked(question, plan_question(question, T0))
    assert (got.kind, got.focus) == (kind, focus)


def test_the_time_asked_after_a_fronted_word_is_the_clock_time() -> None:
    answer = read("Originally, what time was the Whitakers' site visit booked for?",
                  rec(1, "Site visit with the Whitakers on Wednesday at ten. They want gravel."))
    assert "ten" in answer and "Wednesday" not in answer
