"""Whose state a record tells, when the holder's name opens its sentence (issue 14).

Third-person reports open on the person: "Daniels is teaching on Fridays now, so we've
shifted to Wednesdays" for "my meeting with Professor Daniels". A capitalised word
opening a sentence is a name only when the conversation calls someone so
(``revision.holders_known``); then the record names the holder asked, and its change
leads. Both ways: another person's name there still names someone else; a word of the
thing opening a sentence ("Hair's …") is no other holder.
"""

from __future__ import annotations

from datetime import UTC, datetime

from trace_ros.language import revision
from trace_ros.ledger import SourceRecord
from trace_ros.query import current
from trace_ros.query.recall import Fused

HOME = "home"
MEETING = revision.keys("When is my meeting with Professor Daniels?")


def _said(speaker: str, text: str, seq: int) -> SourceRecord:
    stamp = datetime(2025, 10, 6, 9, seq, tzinfo=UTC).timestamp()
    return SourceRecord(seq, f"s{seq}", HOME, "r1", "d1", "dialogue", speaker, text, "", None,
                        None, {}, stamp, False, stamp, "")


def _chain(question: str, order: list[SourceRecord], near: dict[int, float]
           ) -> current.Chain | None:
    records = {r.seq: r for r in order}
    ranked = [Fused(r.seq, r.source_id, 1.0 / (i + 1)) for i, r in enumerate(order)]
    return current.chain(question, "date", ranked, records, None,
                         lambda seq: {s: (records[s], c) for s, c in near.items() if s > seq},
                         lambda seq: None, robot_id="r1", asked_kind="when")


def test_a_known_name_opening_a_sentence_is_a_holder() -> None:
    known = frozenset({"daniels", "kemi"})
    text = "Daniels is teaching on Fridays now, so we've shifted to Wednesdays after lunch."
    assert "daniels" not in revision.holders(text)
    assert "daniels" in revision.holders_known(text, known)
    # (a word the conversation never calls anyone, and a name only addressed, are no one)
    assert revision.holders_known("Swimming is on Fridays now.", known) == frozenset()
    assert "kemi" not in revision.holders_known("Kemi, it's Fridays now.", known)


def test_the_asked_name_opening_a_sentence_is_the_same_holder() -> None:
    asked = frozenset({"daniels", "professor"})
    known = frozenset({"daniels", "professor", "kemi"})
    assert revision.same_holder(
        "Daniels is teaching on Fridays now, so we've shifted to Wednesdays after lunch.",
        asked, frozenset(), MEETING, known)
    assert not revision.same_holder(
        "Kemi is teaching on Fridays now, so her meeting's on Wednesdays after lunch.",
        asked, frozenset(), MEETING, known)


def test_a_word_of_the_thing_opening_a_sentence_is_no_other_holder() -> None:
    hair = revision.keys("What time is Mum's hair appointment?")
    mum = frozenset({"mum"})
    assert revision.same_holder("Hair's at half nine now, she likes the stylist early.",
                                mum, mum, hair)
    assert not revision.same_holder("Joan's hair is at half nine now, she likes it early.",
                                    mum, mum, hair)


def test_a_change_told_of_the_one_named_at_the_opening_leads() -> None:
    old = _said("Seun", "My standing meeting with Professor Daniels is Fridays at three.", 1)
    aside = _said("Seun", "The lab coffee machine broke again this morning.", 2)
    new = _said("Seun", "Daniels is teaching on Fridays now, so we've shifted to "
                "Wednesdays after lunch.", 3)
    found = _chain("When is my meeting with Professor Daniels?", [old, new, aside], {3: 0.77})
    assert found is not None and found.lead[:1] == ["s3"], found


def test_another_named_at_the_opening_does_not_lead() -> None:
    old = _said("Seun", "My standing meeting with Professor Daniels is Fridays at three.", 1)
    aside = _said("Seun", "I share the postdoc office with Kemi, she runs the lab meeting.", 2)
    other = _said("Seun", "Kemi is teaching on Fridays now, so her meeting's moved to "
                  "Wednesdays after lunch.", 3)
    found = _chain("When is my meeting with Professor Daniels?", [old, other, aside], {3: 0.77})
    assert found is None or found.lead[:1] != ["s3"], found


def test_the_speakers_own_is_not_the_named_holders() -> None:
    """Asked of Ada by name, Kemi's "And mine's the 21st, two days after Ada's" is Kemi's
    birthday, whoever it names; Ada's own change, told by anyone, still leads."""
    ada = _said("Seun", "Ada's birthday is the 19th and I have no idea what to get her.", 1)
    kemi = _said("Kemi", "And mine's the 21st, Seun, two days after Ada's.", 3)
    lookalikes: list[str] = []
    records = {r.seq: r for r in (ada, kemi)}
    ranked = [Fused(r.seq, r.source_id, 1.0 / (i + 1)) for i, r in enumerate((kemi, ada))]
    found = current.chain("When is Ada's birthday?", "date", ranked, records, None,
                          lambda seq: {3: (kemi, 0.5)} if seq < 3 else {},
                          lambda seq: None, robot_id="r1", asked_kind="when",
                          lookalikes=lookalikes)
    assert found is None or found.lead[:1] != ["s3"], found
    assert "s3" in lookalikes
    moved = _said("Kemi", "Ada says her birthday's the 20th, not the 19th, my mistake.", 3)
    found = _chain("When is Ada's birthday?", [ada, moved], {3: 0.6})
    assert found is not None and found.lead[:1] == ["s3"], found


def test_my_before_a_relative_holds_the_relative_not_the_thing() -> None:
    parents = frozenset({"visit", "parents"})
    assert current._speakers_own("My parents are coming on the 15th.", parents)
    assert not current._speakers_own("My boyfriend Sam's parents are visiting on the 15th.",
                                     parents)
