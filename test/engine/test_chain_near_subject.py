"""A record joined by nearness alone is no revision when its value is another subject's
(issue 14, the chain's leads by vector nearness: the step whose leads were least often the
current record, 291 of 419 on the readable build halves, ``tools/lead_steps.py``).

"Also, gel nails are going up to thirty-five" after "Gel nails are thirty pounds, a full
pedicure is forty-five" names no word of the pedicure and is near the anchor in meaning
only because the anchor tells of the gel nails too: the subject of its value is a noun
phrase that neither the question nor the anchor's own clause about the pedicure names
(``current._slot_words``; ``revision.another_holds`` read against those words, not every
word of the anchor). A later change of the pedicure told without naming it ("I'm charging
fifty for those from Monday") still leads, and so does one whose subject is what became of
the old value. The cosines are given, as the vector index would give them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import turn  # noqa: E402

from trace_ros.language.revision import another_holds, asked_of  # noqa: E402
from trace_ros.ledger import SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402
from trace_ros.query.current import _slot_words  # noqa: E402
from trace_ros.query.plan import plan_question  # noqa: E402
from trace_ros.query.recall import Fused  # noqa: E402
from trace_ros.query.spans import asked  # noqa: E402

PEDICURE = "How much is a full pedicure?"
PRICES = "Gel nails are thirty pounds, a full pedicure is forty-five."


def _other(text: str, question: str = PEDICURE, anchor: str = PRICES) -> bool:
    thread = (turn(1, "d1", anchor, "Mina"),)
    return another_holds(text, asked_of(question), _slot_words(question, thread, frozenset()))


def test_the_anchors_slot_is_its_clause_about_the_thing() -> None:
    words = _slot_words(PEDICURE, (turn(1, "d1", PRICES, "Mina"),), frozenset())
    assert {"pedicur", "full"} <= words
    assert "gel" not in words and "nail" not in words  # the anchor's other clause


def test_another_subject_the_anchor_names_beside() -> None:
    assert _other("Also, gel nails are going up to thirty-five, the place down the road "
                  "charges that.")


def test_the_thing_told_otherwise_is_no_other_subject() -> None:
    # a pronoun subject, the old value as the subject, the thing named
    assert not _other("I'm charging fifty for those from Monday, like everyone else.")
    assert not _other("Forty-five was too cheap, so it's fifty from Monday.")
    assert not _other("The pedicure goes up to fifty on Monday.")
    assert not _other("Wimbledon's closed that weekend, so we're taking the kids to Queen's "
                      "Club instead.", "Where is the junior squad trip going?",
                      "The junior squad trip is to the Wimbledon museum on the 21st.")


def _said(seq: int, text: str, speaker: str = "Alan") -> SourceRecord:
    return SourceRecord(seq, f"s{seq}", "home", "r1", f"d{seq}", "dialogue", speaker, text,
                        "", None, None, {}, 1000.0 + seq, False, 1000.0 + seq, "")


def _chain(question: str, said: list[SourceRecord], near: dict[int, float]
           ) -> current.Chain | None:
    records = {r.seq: r for r in said}
    ranked = [Fused(r.seq, r.source_id, 1.0 / (i + 1)) for i, r in enumerate(said)]
    plan = plan_question(question)
    wanted = asked(question, plan)

    def later(seq: int) -> dict[int, tuple[SourceRecord, float]]:
        return {s: (records[s], c) for s, c in near.items() if s > seq}

    return current.chain(question, plan.answer_type, ranked, records, None, later,
                         lambda seq: None, robot_id="r1", asked_kind=wanted.kind,
                         focus=wanted.focus)


FERRY = "What time's the first ferry on a weekday morning?"
TIMES = _said(1, "First ferry in the morning's twenty past six on weekdays, the last one back "
                 "is half ten.")


def test_a_near_record_of_another_subject_does_not_lead() -> None:
    """The last boat's new time is not the first ferry's: nothing revises the anchor (on
    bu61 the last bus led and its time was read)."""
    later = _said(5, "The timetable's been cut. Last boat back from the island is quarter to "
                     "ten now.")
    found = _chain(FERRY, [TIMES, later], {5: 0.67})
    assert found is None or found.lead[:1] != ["s5"], found


def test_a_near_change_told_in_other_words_leads() -> None:
    """The other direction: the same cut told of the morning sailing, naming no word of the
    question, leads."""
    later = _said(5, "The timetable's been cut, so it's quarter to seven now, weekdays.")
    found = _chain(FERRY, [TIMES, later], {5: 0.67})
    assert found is not None and found.lead[:1] == ["s5"], found


def test_what_became_of_the_old_value_leads() -> None:
    """Its subject is the anchor's old value ("Wimbledon's closed"): its next step."""
    said = [_said(1, "The junior squad trip is a tour of the Wimbledon museum on the 21st."),
            _said(5, "Wimbledon's closed that weekend, so we're taking the kids to Queen's "
                     "Club instead.")]
    found = _chain("Where is the junior squad trip going?", said, {5: 0.64})
    assert found is not None and found.lead[:1] == ["s5"], found
