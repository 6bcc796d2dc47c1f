"""A later turn that gives a value of another thing of the same kind joins no thread (issue 14).

"Quiz night is on Fridays now" in a thread about bingo names no word of bingo and has
another thing for its subject: another weekly event's night, not bingo's. The same turn
opening with a pronoun ("It's Fridays now"), with the thing ("Bingo's on Fridays now"),
or with the speaker's own value after an agent of the change ("The consulate's closed
that day, mine's now the 5th") still revises the thread. Real SQLite ledger, the real
MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.revision import keys, new_subject  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

THREAD = keys("What day is the choir? The choir meets on Tuesdays in the church hall.")


@pytest.mark.parametrize("text", [
    "Quiz night's on Fridays now.",
    "Quiz night is staying in the hall though, Fridays.",
    "The book club is on Thursday now.",
    "Funny thing, the pottery class is on Monday, so we'll all be out anyway.",
])
def test_another_subject_giving_the_value_is_another_thing(text: str) -> None:
    assert new_subject(text, THREAD)


@pytest.mark.parametrize("text", [
    "It's Fridays now.",                      # a pronoun carries the thread on
    "The choir's moved to Fridays.",          # the thing itself
    "Her rehearsal's been changed to Friday.",  # a possessive points back
    "Moved it to Friday.",                    # a verb opens it
    "Sarah's on Fridays now.",                # a name is whose, not what
    "The hall's closed that day, mine's now the 5th.",  # the speaker's own value
    "The trust has me elsewhere on Thursdays now, so I'll be here Mondays.",
    "The hall is free on Friday now.",        # a word the thread names
])
def test_a_turn_of_the_thread_or_the_speakers_own_is_no_other_subject(text: str) -> None:
    assert not new_subject(text, THREAD)


CHATTER = [(7, "Bea", "The fog this morning was so thick I could barely see the gate."),
           (7, "robot", "Take care on the roads."),
           (8, "Bea", "Baked a lemon drizzle for the neighbours, half of it's gone already.")]


def _bingo(later: str) -> list[tuple[int, str, str]]:
    return [(6, "Bea", "Bingo's Thursdays at two in the lounge."),
            (6, "robot", "Noted: bingo Thursdays 2pm, lounge."),
            *CHATTER,
            (9, "Bea", later)]


def test_another_weekly_events_day_does_not_lead(ledger: Ledger,
                                                 encoder: MiniLMEncoder) -> None:
    """Quiz night's day is not bingo's: bingo's own statement stays first (on m26 the quiz
    night led, "every Friday")."""
    history(ledger, encoder, _bingo("Quiz night is staying in the lounge though, Fridays."))
    res = ask(ledger, encoder, "What day is bingo?")
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)


def test_the_same_event_moved_leads(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The other direction: the same turn of bingo itself is its new day."""
    history(ledger, encoder, _bingo("Bingo is staying in the lounge though, Fridays now."))
    res = ask(ledger, encoder, "What day is bingo?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
