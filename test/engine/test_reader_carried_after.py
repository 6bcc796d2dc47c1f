"""A turn that says no word of the question is read as carrying on the turn before it
(``owners.carries_on``): what the turn after it says is not what it speaks of ("51
cents." before "People keep ringing the accounts extension" is no extension)."""

from __future__ import annotations

from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.typed import TypedReading

from .readerkit import DAY, T0, rec


def read_cited(question: str, *records) -> tuple[str, list[str]]:
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20))
    return out.answer, out.cited_ids


def test_a_short_reply_takes_no_topic_from_the_turn_after_it() -> None:
    answer, cited = read_cited(
        "What's the extension for accounts?",
        rec(1, "The fuel surcharge this week is 58 cents a mile."),
        rec(2, "58 cents a mile.", "robot"),
        rec(3, "Our office phone extension for accounts is 212."),
        rec(4, "Accounts, 212.", "robot"),
        rec(5, "Fuel prices dropped again, surcharge back down to 51."),
        rec(6, "51 cents.", "robot"),
        rec(7, "People keep ringing the accounts extension by mistake."))
    assert answer == "212"
    assert cited[0] == "src-3" and not {"src-2", "src-6"} & set(cited)


def test_continued_reads_the_later_turn_only_when_asked() -> None:
    items = [EvidenceItem(r, 1.0, {}) for r in (
        rec(1, "Fuel went up."), rec(2, "51 cents.", "robot"),
        rec(3, "The accounts extension is busy."))]
    both = TypedReading._continued(items[1].record, items, set(), set())
    before = TypedReading._continued(items[1].record, items, set(), set(), later=False)
    assert "extens" in both and "fuel" in before and "extens" not in before
