"""A later record joins the chain only with a value of the kind the question asks
(issue 14, the first cited record about something else).

"Which day is the autoclave coming?" is not answered by a new mobile number: bare figures
tell no day. "What's my solo at the concert?" is not answered by "the concert's on
the 18th at 4": a time alone adds nothing of the thing asked. Real SQLite ledger, the real
MiniLM encoder, the CPU extractor and projector, questions through ``QueryEngine.ask``;
beside each, the revision of the right kind that must still lead.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.query import current  # noqa: E402

CHATTER = [(7, "Pavel", "The canteen has run out of oat milk again, third time this month."),
           (7, "robot", "I'll mention it to the canteen."),
           (8, "Pavel", "Forklift three has a flat tyre, it's parked by the loading bay.")]


def test_a_bare_count_tells_no_day(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """A new phone number is no day the autoclave comes: the day it slipped to leads."""
    history(ledger, encoder, [
        (6, "Kenji", "ok so the new autoclave is arriving Wednesday"),
        (6, "robot", "Autoclave arriving Wednesday."),
        (6, "Kenji", "the x-ray sensor repair comes back Monday"),
        (6, "robot", "X-ray sensor back Monday."),
        (9, "Kenji", "supplier emailed, autoclave slips to friday"),
        (9, "robot", "Autoclave now Friday."),
        (9, "Kenji", "lunch was sushi btw, from the place across the road"),
        (10, "Kenji", "practice manager's new mobile is 07700 900 418"),
        (10, "robot", "07700 900 418 saved."),
        (10, "Kenji", "the old landline stays for patients"),
    ])
    res = ask(ledger, encoder, "Which day is the new autoclave coming?")
    assert res.source_ids[:1] == ["t4"], (res.answer, res.source_ids)


def test_a_time_alone_is_no_new_value_of_a_thing(ledger: Ledger,
                                                 encoder: MiniLMEncoder) -> None:
    """When the concert is says nothing of the solo sung in it; a new song does."""
    history(ledger, encoder, [
        (6, "Lottie", "The choir is singing at the Christmas concert, and I've got the solo "
                      "in Silent Night."),
        (6, "robot", "A solo in Silent Night, lovely."),
        *CHATTER,
        (9, "Lottie", "The concert's on the 18th at 4 o'clock."),
    ])
    res = ask(ledger, encoder, "What's my solo at the Christmas concert?")
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)
    assert current._only_when("The concert's on the 18th at 4 o'clock.",
                              "I've got the solo in Silent Night at the concert.")
    assert not current._only_when("Changed my mind. Hake, salsa verde. Friday.",
                                  "Friday special, lamb tagine.")
