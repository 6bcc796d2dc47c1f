"""A code or label asked by its thing and its kind ("What's the shower block keypad code?")
is stated by a record that names the thing whole with a value, the kind unsaid ("The
shower block keypad is 3390"): the typed reader read it as talking about the topic only
and abstained (issue 14). A record naming only part of the thing ("the entrance barrier
code") does not answer for it, nor does any record for a code never given.
Real SQLite ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

TURNS = [(6, "Kofi", "For your records, the entrance barrier code this season is 4471."),
         (6, "robot", "Noted, I'll keep it safe."),
         (6, "Kofi", "The shower block keypad is 3390, guests get that one on their welcome "
                     "sheet."),
         (6, "robot", "Understood."),
         (7, "Kofi", "Brr, frost on the caravans this morning."),
         (7, "robot", "Wrap up warm.")]


def test_a_code_said_by_its_whole_thing(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, TURNS)
    res = ask(ledger, encoder, "What's the shower block keypad code?")
    assert res.status == "answered", res.message
    assert res.source_ids[:1] == ["t2"], (res.answer, res.source_ids)
    assert "3390" in res.answer


def test_no_code_for_a_thing_never_given_one(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, TURNS)
    res = ask(ledger, encoder, "What's the bike shed padlock code?")
    assert "3390" not in res.answer and "4471" not in res.answer, res.answer
