"""Another value of the kind, told in the conversation where the thread's value was just
given, is a neighbouring thing's unless its verb puts the thing there (issue 14, chain52;
``current._aside``, ``current._given_way``).

"The safe in the office is 9134, but that one's only for me." right after "The alarm
company reset the front door code, it's 2581 now." gives a code in place of the door's new
one, names less of what is asked ("What's the front door code?") and marks no change: it is
the safe's code, told beside the door's, and the door's new code leads. The other direction:
a value the turn's verb moves the thing to ("The shop pushed me to Thursday afternoon"),
shifts ("pushed back a week") or that someone has just brought about ("they've given me
Thursday") still takes the thread on, and a turn in another conversation is not held to
it. Real SQLite ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_chain_aside import _rec  # noqa: E402
from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.revision import question_terms  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.query.current import _aside, _given_way  # noqa: E402

Q = question_terms("What's the front door code?")
HEAD = _rec(1, "The alarm company reset the front door code, it's 2581 now.")


@pytest.mark.parametrize(("text", "session", "aside"), [
    ("The safe in the office is 9134, but that one's only for me.", "s1", True),
    ("The shed padlock is 1200.", "s1", True),
    ("The shed padlock is 1200.", "s2", False),  # another conversation
    ("They pushed it to 2590 after lunch.", "s1", False),  # put there by its verb
    ("Sorry, 2518, I read it backwards.", "s1", False),  # a repair
])
def test_another_value_beside_the_thread(text: str, session: str, aside: bool) -> None:
    assert _aside(_rec(2, text, session), text, HEAD, Q) is aside


@pytest.mark.parametrize(("text", "given"), [
    ("The shop pushed me to Thursday afternoon.", True),
    ("Camp's pushed back a week.", True),
    ("They've given me Thursday.", True),
    ("The safe in the office is 9134.", False),
    ("Gate 5 is staff parking at the hospital.", False),
])
def test_given_way(text: str, given: bool) -> None:
    assert _given_way(text) is given


def _codes(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Priya", "The front door keypad code is 4418."),
            (6, "robot", "Noted, front door code 4418."),
            (7, "Priya", "Rain again today, the whole street is flooded."),
            (8, "Priya", "The alarm company reset the front door code after the break-in, "
                         "it's 2581 now."),
            (8, "robot", "Front door code 2581, noted."),
            (8, "Priya", last)]


def test_another_things_value_said_beside_does_not_lead(ledger: Ledger,
                                                        encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _codes("The code for the office safe is 9134, "
                                    "but that one's only for me."))
    res = ask(ledger, encoder, "What's the front door code?")
    assert res.source_ids[:1] == ["t3"], (res.answer, res.source_ids)


def test_a_value_put_there_in_the_same_talk_still_leads(ledger: Ledger,
                                                       encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _codes("The engineer rang back and changed the door code "
                                    "to 2590 after lunch."))
    res = ask(ledger, encoder, "What's the front door code?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
