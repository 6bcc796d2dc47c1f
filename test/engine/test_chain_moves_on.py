"""A later turn the question alone ties to the thing joins the chain (issue 14).

"Storm warning, so her flight's now the 22nd." names no word of "my sister arrives on
the 20th": the question (a time asked) recalls it, its speaker marks a change and gives
"her" a new day. ``current._moves_on`` takes such a turn as the thread's next step; a
turn that brings in a name of its own ("they had a slot at Gasworks on the 10th"), keeps
the thread's value, or is said in the thread's own session is not one. Real SQLite
ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger, SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402

CHATTER = [(7, "Bea", "The fog this morning was so thick I could barely see the gate."),
           (7, "robot", "Take care on the roads."),
           (8, "Bea", "Baked a lemon drizzle for the neighbours, half of it's gone already.")]


def _turn(seq: int, speaker: str, text: str, session: str = "") -> SourceRecord:
    return SourceRecord(seq, f"t{seq}", "home", "r1", session or f"d{seq}", "dialogue",
                        speaker, text, "", None, None, {}, float(seq), False, float(seq), "")


ANCHOR = _turn(1, "Bea", "My sister arrives for the holidays on the 20th of December.")


def test_a_new_day_given_by_a_pronoun_moves_the_thread_on() -> None:
    """The new day, given to "her" and marked as new, in a later session."""
    later = _turn(5, "Bea", "Storm warning, so her flight's now the 22nd. She's livid.")
    assert current._moves_on(later, (ANCHOR, ANCHOR, ANCHOR), "when", frozenset(),
                             "When is my sister arriving?")


def test_what_is_no_next_step_is_not_taken() -> None:
    """Not for a kind asked that any word may be (a place), not in the thread's own
    session, not without a change marked, not for a value the thread gave, and not
    when the turn names another thing ("Gasworks", "the airport shuttle", "the piano
    lesson" that "it" then points back at)."""
    thread = (ANCHOR, ANCHOR, ANCHOR)
    q = "When is my sister arriving?"
    moved = "Storm warning, so her flight's now the 22nd."
    assert not current._moves_on(_turn(5, "Bea", moved), thread, "place", frozenset(), q)
    assert not current._moves_on(_turn(5, "Bea", moved, "d1"), thread, "when", frozenset(), q)
    assert not current._moves_on(_turn(5, "Bea", "Her flight lands on the 22nd."), thread,
                                 "when", frozenset(), q)
    assert not current._moves_on(_turn(5, "Bea", "So she's now on the 20th, as planned."),
                                 thread, "when", frozenset(), q)
    assert not current._moves_on(_turn(5, "Bea", "Gasworks had a slot on the 22nd, so I "
                                                 "took that instead."), thread, "when",
                                 frozenset(), q)
    assert not current._moves_on(_turn(5, "Bea", "The airport shuttle's changed its route, "
                                                 "it's the 22nd now."), thread, "when",
                                 frozenset(), q)
    assert not current._moves_on(_turn(5, "Bea", "I can't do the piano lesson on Monday, "
                                                 "so I've moved it to the 22nd."), thread,
                                 "when", frozenset(), q)


def test_a_new_day_told_by_a_pronoun_leads(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The question recalls the later turn that shares no word with it: it leads."""
    history(ledger, encoder, [
        (6, "Bea", "My sister arrives for the holidays on the 20th of December."),
        (6, "robot", "Noted: your sister arrives on the 20th of December."),
        *CHATTER,
        (9, "Bea", "Storm warning, so her flight's now the 22nd. She's livid."),
    ])
    res = ask(ledger, encoder, "When is my sister arriving?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def test_another_things_new_day_does_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """A later turn that brings in a name of its own, or opens on another thing, gives
    another thing's day."""
    history(ledger, encoder, [
        (6, "Bea", "My car insurance renews on the 3rd of April."),
        (6, "robot", "Noted: car insurance renews on 3 April."),
        *CHATTER,
        (9, "Bea", "Booked the boiler service with Gasworks, they had a slot on the 10th so "
                   "I took that instead."),
    ])
    res = ask(ledger, encoder, "When does my car insurance renew?")
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)
