"""A statement beside the anchor is not its revision.

Later in the same conversation, the anchor's speaker, who gave a value of the kind asked,
says a value of another thing that shares a word with it ("The book group that shares our
room has about 15." after "Film club has 42 paying members as of tonight."), marking
neither a change nor a repair: two statements side by side, not a revision
(``current._beside``), where the robot takes part. The same words in a later conversation, or with a change or a
repair marked, still revise. The cosines are given, as the vector index would give them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from trace_ros.ledger import SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402
from trace_ros.query.plan import plan_question  # noqa: E402
from trace_ros.query.recall import Fused  # noqa: E402
from trace_ros.query.spans import asked  # noqa: E402


def _said(seq: int, text: str, session: str = "d1", speaker: str = "Aoife") -> SourceRecord:
    return SourceRecord(seq, f"s{seq}", "home", "r1", session, "dialogue", speaker, text,
                        "", None, None, {}, 1000.0 + seq, False, 1000.0 + seq, "")


def _chain(question: str, said: list[SourceRecord], near: dict[int, float]
           ) -> current.Chain | None:
    said = [*said, ROBOT]  # the robot takes part in the conversation
    records = {r.seq: r for r in said}
    ranked = [Fused(r.seq, r.source_id, 1.0 / (i + 1)) for i, r in enumerate(said)]
    plan = plan_question(question)
    wanted = asked(question, plan)

    def later(seq: int) -> dict[int, tuple[SourceRecord, float]]:
        return {s: (records[s], c) for s, c in near.items() if s > seq}

    return current.chain(question, plan.answer_type, ranked, records, None, later,
                         lambda seq: None, robot_id="r1", asked_kind=wanted.kind,
                         focus=wanted.focus)


ROBOT = _said(2, "Noted.", speaker="robot")
QUESTION = "How many members does the film club have?"
ANCHOR = _said(1, "Film club has 42 paying members as of tonight.")


def test_a_statement_beside_the_anchor_does_not_lead() -> None:
    said = [ANCHOR, _said(3, "The book group that shares our room has about 15 members.")]
    found = _chain(QUESTION, said, {3: 0.6})
    assert found is None or found.lead[:1] != ["s3"], found


def test_the_same_words_in_a_later_conversation_still_revise() -> None:
    said = [ANCHOR, _said(3, "The club has about 15 members now.", session="d2")]
    found = _chain(QUESTION, said, {3: 0.6})
    assert found is not None and found.lead[:1] == ["s3"], found


def test_a_repair_in_the_same_conversation_still_revises() -> None:
    said = [ANCHOR, _said(3, "Sorry, 45 members, I miscounted the club.")]
    found = _chain(QUESTION, said, {3: 0.6})
    assert found is not None and found.lead[:1] == ["s3"], found


def test_beside_reads_session_speaker_marks_and_the_anchor_value() -> None:
    later = _said(3, "The book group has about 15.")
    assert current._beside(later, ANCHOR, "number", "count")
    assert not current._beside(_said(3, "The book group has about 15.", session="d2"),
                               ANCHOR, "number", "count")
    assert not current._beside(_said(3, "The book group has about 15.", speaker="Fern"),
                               ANCHOR, "number", "count")
    assert not current._beside(_said(3, "Actually, no wait, it's 15."), ANCHOR, "number",
                               "count")
    # A value given as what follows from something, or carried on, is a change told.
    assert not current._beside(_said(3, "The room is too small, so 15 it is."), ANCHOR,
                               "number", "count")
    assert not current._beside(_said(3, "Down again, the club is at 15."), ANCHOR, "number",
                               "count")
    # The speaker telling of their own ("pushed me to …"): a change told, unmarked.
    question = "When is my dentist appointment?"
    wanted = asked(question, plan_question(question))
    dentist = _said(1, "My dentist appointment is on Monday at 3pm.")
    pushed = _said(3, "The dentist's office called and pushed me to Thursday afternoon.")
    assert not current._beside(pushed, dentist, "date", wanted.kind)
    assert current._beside(_said(3, "The dentist's other patient is on Thursday afternoon."),
                           dentist, "date", wanted.kind)
    # An anchor that gives no value of the kind asked: the later one may be the first.
    assert not current._beside(later, _said(1, "Film club is great fun."), "number", "count")
