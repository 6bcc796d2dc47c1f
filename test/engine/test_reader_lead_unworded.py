"""The graph stage's current record answers a question asking for a value of a kind
(a place, a time) though no shown record says a word of the question: people tell
where they live by moving ("I've ended up at my cousin's on Histon Road" for "Where am I
living now?"). Without that record nothing answers, and a current record giving no value
of the kind asked still does not.
"""

from __future__ import annotations

from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

from .readerkit import DAY, T0, rec

OLD = rec(1, "I'm renting a flat on Mill Road, above the bike shop.")
NEW = rec(2, "The landlord sold up, so I've ended up at my cousin's on Histon Road.",
          when=T0 + DAY)
CHAT = rec(3, "Lovely weather for it.", when=T0 + DAY)


def read(question: str, *items: EvidenceItem) -> tuple[str, list[str], str]:
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(list(items), 4000, 20))
    return out.answer, out.cited_ids, out.note


def led(current: EvidenceItem | None = None) -> list[EvidenceItem]:
    """NEW as the graph stage's current record (OLD superseded), or all unmarked."""
    if current is None:
        return [EvidenceItem(NEW, 1.0, {}), EvidenceItem(OLD, 1.0, {}),
                EvidenceItem(CHAT, 1.0, {})]
    return [current, EvidenceItem(OLD, 1.0, {"superseded": 1}), EvidenceItem(CHAT, 1.0, {})]


def test_the_current_record_answers_a_place_asked_in_other_words() -> None:
    answer, cited, _ = read("Where am I living now?", *led(EvidenceItem(NEW, 1.0, {"graph": 1})))
    assert cited == ["src-2"] and "Histon Road" in answer, (answer, cited)


def test_the_current_record_answers_a_time_asked_in_other_words() -> None:
    old = rec(1, "Early shifts for me this month, in at seven.")
    new = rec(2, "Back to half six, because of all the coach parties.", when=T0 + DAY)
    answer, cited, _ = read("When do I clock on?", EvidenceItem(new, 1.0, {"graph": 1}),
                            EvidenceItem(old, 1.0, {"superseded": 1}))
    assert cited == ["src-2"] and answer == "half six", (answer, cited)


def test_without_the_graph_stage_record_nothing_sharing_no_word_answers() -> None:
    answer, cited, note = read("Where am I living now?", *led())
    assert (answer, cited) == ("", []) and "no shown evidence matches" in note, note


def test_a_current_record_giving_no_value_of_the_kind_asked_still_abstains() -> None:
    answer, cited, _ = read("What time do I start now?",
                            *led(EvidenceItem(NEW, 1.0, {"graph": 1})))
    assert (answer, cited) == ("", []), (answer, cited)
