"""A later turn that sets its thing beside the one talked of is no revision (issue 14).

"My own boiler service is in January." after "The firm's coming Wednesday" for the
flat's boiler, or "Colin also plays the organ on Sundays." after "The pianist for
silent-film night is Colin": the later turn shares a word of the thing (or is near it
in meaning) and gives a value of the kind asked, but its speaker marks it as a thing
of someone's *own* or one its subject does *also*, beside the thing talked of
(``current._another_beside``): the chain passes over it and the earlier statement
stays current. A later turn that changes the thing itself still leads. Real SQLite
ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.query.current import _another_beside  # noqa: E402


@pytest.mark.parametrize(("text", "talked", "beside"), [
    ("My own boiler service is in January. Not fussed about that.",
     "When is the boiler being looked at?", True),
    ("Luis's own Sunday show is being covered by Marta while he's away.",
     "When is Luis flying to Lisbon?", True),
    ("Colin also plays the organ at St Jude's on Sundays.",
     "Who plays piano at the silent-film nights?", True),
    # asked of one's own thing, "own" names the thing asked of
    ("My own I'm still collecting Thursdays.",
     "Which day do I collect my own prescription?", False),
    # "own" inside a value, not whose thing the sentence opens on
    ("We're doing the party in our own café after closing.",
     "Where is the staff party?", False),
    # an opening "Also" adds a turn's news; a change marked is a change
    ("Also Zara's PE has moved to Tuesday for this half term.", "What day is PE?", False),
    ("She's also moved the class to Tuesdays now.", "When is the class?", False),
])
def test_a_turn_set_beside_the_thing(text: str, talked: str, beside: bool) -> None:
    assert _another_beside(text, talked) is beside


def _boiler(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Victor", "The tenant in flat 3 says the boiler keeps losing pressure. "
                          "The heating firm's coming on Wednesday to look at it."),
            (6, "robot", "Noted, boiler engineer for flat 3 on Wednesday."),
            (7, "Victor", "Rain again today, the gutters are overflowing."),
            (8, "Victor", last)]


def test_a_thing_of_ones_own_does_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _boiler("My own boiler service is on the 14th of January. "
                                     "Not fussed about that."))
    res = ask(ledger, encoder, "When is the heating firm looking at flat 3's boiler?")
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)


def test_a_later_change_of_the_visit_still_leads(ledger: Ledger,
                                                 encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _boiler("The heating firm rang, they're coming to flat 3's "
                                     "boiler on Friday instead."))
    res = ask(ledger, encoder, "When is the heating firm looking at flat 3's boiler?")
    assert res.source_ids[:1] == ["t3"], (res.answer, res.source_ids)
