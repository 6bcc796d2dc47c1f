"""Turns read in their context must not supersede what they do not change (issue 14).

A later turn that names no word of the thing is near the anchor once read with the turn
it answers; that reading must still leave alone a value restated in reply ("No, still the
same, six o'clock.") and another person's change told in reply to a question about theirs
("Sam, is your physio still on Wednesdays?" - "No, they've moved me to Fridays now.").
Real SQLite ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``. They
pass on the chain as it is and held with the context-aware join tried in 0c699fd (window
vectors, reverted: no gain on the natural sets); any later context join must keep them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import CHATTER, ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402


def test_a_value_restated_in_reply_is_no_update(ledger: Ledger,
                                                 encoder: MiniLMEncoder) -> None:
    """Tom asks whether the class moved; Nia's reply names no class and keeps its day."""
    history(ledger, encoder, [
        (6, "Nia", "My Spanish class is on Tuesdays at six."),
        (6, "robot", "Noted: Spanish on Tuesdays at six."),
        *CHATTER,
        (9, "Tom", "Nia, did your Spanish class move to Thursdays like the French one?"),
        (9, "Nia", "No, still the same, six o'clock."),
    ])
    res = ask(ledger, encoder, "When is my Spanish class?")
    assert res.status == "answered", res.message
    assert res.source_ids[:1] in (["t0"], ["t1"], ["t6"]), (res.answer, res.source_ids)
    assert "thursday" not in res.answer.lower(), res.answer


def test_another_persons_change_told_in_reply_does_not_supersede(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """Sam's "they've moved me to Fridays now", answering Tom's question about Sam's
    physio, is near Nia's physio in context, and is Sam's."""
    history(ledger, encoder, [
        (6, "Nia", "My physio is on Wednesdays at ten."),
        (6, "robot", "Noted: physio on Wednesdays at ten."),
        *CHATTER,
        (9, "Tom", "Sam, is your physio still on Wednesdays?"),
        (9, "Sam", "No, they've moved me to Fridays now."),
    ])
    res = ask(ledger, encoder, "What day is my physio?")
    assert res.status == "answered", res.message
    assert res.source_ids[:1] in (["t0"], ["t1"]), (res.answer, res.source_ids)
    assert "friday" not in res.answer.lower(), res.answer

