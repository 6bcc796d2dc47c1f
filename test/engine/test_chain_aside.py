"""A later turn of the same conversation that names less of what is asked is no revision
(issue 14, look-alikes; ``current._aside``).

"My old pump is on the landing." right after "Moved the bike pump to the garage shelf."
shares a word of the question ("Where is the bike pump kept?"), gives a place and comes
last, but it names fewer of the question's words than the turn before it and marks no
change nor denies anything: in one conversation a speaker takes back what they just said
with a sign of it. The chain passes over it and the pump's move leads (without the check
the landing led). The other direction: a repair in the same
conversation ("Actually no, …") and a change marked anew still lead; so does a state
given as what follows ("…, so it's …"), and two people talking between themselves (no
robot there) are not held to it. Real SQLite ledger,
the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.revision import question_terms  # noqa: E402
from trace_ros.ledger import Ledger, SourceRecord  # noqa: E402
from trace_ros.query.current import _aside  # noqa: E402


def _rec(seq: int, text: str, session: str = "s1") -> SourceRecord:
    return SourceRecord(seq=seq, source_id=f"t{seq}", subject_id="home", robot_id="r1",
                        session_id=session, modality="dialogue", speaker="Omar", text=text,
                        label="", confidence=None, pose=None, payload={},
                        source_time=float(seq), time_from_receipt=False,
                        known_time=float(seq), content_hash="")


Q = question_terms("Where is the bike pump kept?")
HEAD = _rec(1, "Moved the bike pump to the garage shelf.")


@pytest.mark.parametrize(("text", "session", "aside"), [
    ("The tyre levers stay in the hall cupboard.", "s1", True),
    ("The tyre levers stay in the hall cupboard.", "s2", False),  # another conversation
    ("Actually no, the pump went in the shed.", "s1", False),  # a repair denies
    ("The pump's in the shed now instead.", "s1", False),  # a change marked
    ("It got rained on, so it's on the radiator to dry.", "s1", False),  # what follows
    ("The bike pump is on the garage shelf, by the pump clips.", "s1", False),  # as many
])
def test_aside(text: str, session: str, aside: bool) -> None:
    assert _aside(_rec(2, text, session), text, HEAD, Q) is aside


def test_a_value_giving_way_is_no_aside() -> None:
    """The head's day gives way to another, though the turn names less of what is asked."""
    head = _rec(1, "My bike service is on Monday at 3pm.")
    later = "The shop pushed me to Thursday afternoon."
    q = question_terms("When is my bike service?")
    assert _aside(_rec(2, later), later, head, q) is False
    assert _aside(_rec(2, "The pump is in the shed."), "The pump is in the shed.",
                  head, q) is True


def _pump(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Omar", "The bike pump lives in the hall cupboard with the tyre levers."),
            (6, "robot", "Noted, the bike pump is in the hall cupboard."),
            (7, "Omar", "Rain again today, the whole estate is flooded."),
            (8, "Omar", "Moved the bike pump to the garage shelf, easier to grab."),
            (8, "Omar", last)]


def test_a_neighbouring_thing_does_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _pump("My old pump is on the landing."))
    res = ask(ledger, encoder, "Where is the bike pump kept?")
    assert res.source_ids[:1] == ["t3"], (res.answer, res.source_ids)


def test_a_repair_in_the_same_talk_still_leads(ledger: Ledger,
                                              encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _pump("Actually no, I put the pump in the shed, not the garage."))
    res = ask(ledger, encoder, "Where is the bike pump kept?")
    assert res.source_ids[:1] == ["t4"], (res.answer, res.source_ids)
