"""A later turn its speaker marks as another thing is no revision (issue 14, look-alikes).

"The alarm code for the garage is different, that's 5150, don't mix them up." after
the lock box's code changed names a code, shares the thing's word and comes last, but
its speaker says it is not the thing talked of ("is different", "that's separate",
"don't confuse them"): the chain passes over it (``current.sets_apart``) and the lock
box's own new code leads (without the check the garage's 5150 led). The other
direction: a later turn that changes the code itself, marking nothing apart, still
leads. Real SQLite ledger, the real MiniLM encoder,
questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.query.current import sets_apart  # noqa: E402


@pytest.mark.parametrize(("text", "apart"), [
    ("The alarm code for the shed is different, that's 1990.", True),
    ("Council tax goes out on the 10th, that's separate.", True),
    ("Her landline ends in 248, don't confuse them.", True),
    ("Pilates is on Thursdays, so don't mix the two up.", True),
    ("The veg box is separate, it turns up on Tuesdays.", True),
    ("We changed the code on Friday, it's 8204 now.", False),
    ("It makes no difference to me, Tuesday is fine.", False),
    ("Different day now: the club meets on Wednesdays.", False),
])
def test_a_turn_marked_as_another_thing(text: str, apart: bool) -> None:
    assert sets_apart(text) is apart


def _bike(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Omar", "The spare keys are in the lock box by the shed. Code's 3719."),
            (6, "robot", "Noted, lock box 3719."),
            (7, "Omar", "Rain again today, the whole estate is flooded."),
            (8, "Omar", "Correction: we changed the lock box code yesterday. It's 6402 now."),
            (8, "Omar", last)]


def test_a_code_set_apart_does_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _bike("The alarm code for the garage is different, that's "
                                   "5150, don't mix them up."))
    res = ask(ledger, encoder, "What's the code for the lock box?")
    assert res.source_ids[:1] == ["t3"], (res.answer, res.source_ids)
    assert "6402" in res.answer


def test_a_later_change_of_the_code_still_leads(ledger: Ledger,
                                               encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _bike("Changed it again this morning, the lock box is on "
                                   "5150 from today."))
    res = ask(ledger, encoder, "What's the code for the lock box?")
    assert res.source_ids[:1] == ["t4"], (res.answer, res.source_ids)
