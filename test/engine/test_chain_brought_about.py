"""A next state told as something just brought about (issue 14).

"I've swapped with Gerda, so I do Thursday through Saturday." names no word of "Which
days am I on the café counter?": the chain joins it to the anchor when its speaker says
it in a later conversation, near the anchor in meaning, in the present perfect active
(``revision.brought_about``). The same words in the anchor's own conversation, a record
far from it, one by someone else, or one that tells of no change brought about, stay
out. ``current.chain`` over hand-built records with the cosines given, no encoder.
"""

from __future__ import annotations

import pytest

from trace_ros.language.revision import brought_about
from trace_ros.ledger import SourceRecord
from trace_ros.query import current
from trace_ros.query.plan import plan_question
from trace_ros.query.recall import Fused
from trace_ros.query.spans import asked

from .readerkit import turn

QUESTION = "Which days am I on the café counter?"
ANCHOR = "I'm on the café counter Monday to Wednesday this month."
SWAPPED = "I've swapped with Gerda, so I do Thursday through Saturday."


def _rec(seq: int, session: str, text: str, speaker: str = "Annelie") -> SourceRecord:
    return turn(seq, session, text, speaker)


def _lead(later: SourceRecord, cosine: float) -> list[str] | None:
    """The chain's lead for ``QUESTION`` over the anchor and ``later`` (None: no chain)."""
    plan = plan_question(QUESTION, 1.76e9)
    wanted = asked(QUESTION, plan)
    order = [_rec(1, "d1", ANCHOR), later]
    records = {r.seq: r for r in order}
    ranked = [Fused(r.seq, r.source_id, 1.0 / (i + 1)) for i, r in enumerate(order)]
    found = current.chain(QUESTION, plan.answer_type, ranked, records, None,
                          lambda seq: {later.seq: (later, cosine)} if later.seq > seq else {},
                          lambda seq: None, robot_id="r1", asked_kind=wanted.kind,
                          focus=wanted.focus)
    return None if found is None else found.lead


@pytest.mark.parametrize("text", [
    "I've swapped with Gerda.",
    "They've promoted me to operations manager already.",
    "We've finally moved Carol into a flat in Leeds.",
    "She's just changed her days.",
])
def test_a_state_brought_about(text: str) -> None:
    assert brought_about(text)


@pytest.mark.parametrize("text", [
    "I've been thinking about the rota.",
    "She's often late on Mondays.",
    "He's keen on the early shift.",
    "Our club meets on Fridays.",
    "She's right.",
])
def test_no_state_brought_about(text: str) -> None:
    assert not brought_about(text)


def test_a_later_conversation_tells_the_next_state() -> None:
    assert _lead(_rec(5, "d3", SWAPPED), 0.62) == ["s5"]


def test_the_same_conversation_tells_no_next_state() -> None:
    """Said in the anchor's own conversation, it is more of the same talk."""
    assert _lead(_rec(5, "d1", SWAPPED), 0.62) is None


def test_a_record_far_from_the_anchor_joins_nothing() -> None:
    assert _lead(_rec(5, "d3", SWAPPED), 0.4) is None


def test_someone_else_brings_about_nothing_of_the_speakers() -> None:
    assert _lead(_rec(5, "d3", SWAPPED, speaker="Gerda"), 0.62) is None


def test_no_change_brought_about_joins_nothing() -> None:
    """Near, later and the speaker's own, but a wish, not a change made."""
    later = _rec(5, "d3", "Thursday through Saturday would suit me better than Gerda's days.")
    assert _lead(later, 0.62) is None
