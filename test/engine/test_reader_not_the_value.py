"""What a record says beside the thing is not its value.

"The trainers are pinching my toes" says what the trainers do, not their brand ("What
brand are the new trainers?" is not told; "the bathroom blinds are charcoal" still tells
their colour). A name that owns the next thing ("took Ben's old room") says whose that
thing is: it does not stand for what the question asks ("What's Ana studying?"), while a
name with its "is" ("Jonah's on the bathroom") still may.
"""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader, _stands_for

DAY = 86400.0
T0 = float(calendar.timegm((2025, 3, 3, 10, 0, 0, 0, 0, 0)))


def rec(seq: int, text: str, speaker: str = "Noor") -> SourceRecord:
    when = T0 + seq * 120.0
    return SourceRecord(seq, f"src-{seq}", "noor", "r1", "s1", "dialogue", speaker, text, "",
                        None, None, {}, when, False, when, "h")


def read(question: str, *records: SourceRecord) -> str:
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20)
    return ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY), p).answer


def test_what_a_thing_does_is_not_what_it_is() -> None:
    assert read("What brand are the new trainers?",
                rec(1, "Honestly, the new trainers are pinching my toes.")) == ""


def test_a_value_said_of_the_thing_stands() -> None:
    assert read("What colour are the bathroom blinds?",
                rec(1, "Finally done: the bathroom blinds are charcoal.")) == "charcoal"


def test_an_owner_does_not_stand_for_the_value() -> None:
    assert not _stands_for("took Ben's old room", "What's Ana studying?", {"ana", "studi"},
                           {"Ben"})
    assert _stands_for("bins and Jonah's on the bathroom", "Which chore am I doing?",
                       {"chore"}, {"Jonah"})
