"""An anchor its speaker sets beside an earlier thing is that thing's look-alike (issue 14).

"The Saturday desk closes at noon as well, that's different" said beside the weekday
lunch closing (changed once before it, again after it) is asked about in its own right
("What time does the Saturday desk close?"): the later change of the lunch closing ("…
We're closed from quarter to one till quarter to two instead.") carries on the earlier
statements, nearer them in meaning than the Saturday desk's, and is no revision of the
anchor (``current.set_beside``, ``_nearer_before``; without the rule it led). The other
directions: with "The chess club also meets on the second Tuesday" beside the quiz team's
second Tuesday, the chess club asked keeps its own day when the quiz team moves, the quiz
team asked still leads to its change, and a later change of the chess club itself still
leads. Real SQLite ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import CHATTER, ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.query.current import set_beside  # noqa: E402


@pytest.mark.parametrize(("text", "beside"), [
    ("The chess club also meets on the second Tuesday, at the library.", True),
    ("The Saturday desk closes at noon as well, that's different.", True),
    ("Bin men come Tuesdays too, same gate.", True),
    ("The veg box is separate, it turns up on Tuesdays.", True),
    ("Also, the plumber rang about the boiler.", False),
    ("The club moved to Wednesdays now, and the fee went up as well.", False),
    ("It's far too early for me, I'd rather go at ten.", False),
    ("Quiz night is the second Tuesday of the month.", False),
])
def test_a_statement_set_beside_another(text: str, beside: bool) -> None:
    assert set_beside(text) is beside


def _clubs(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Omar", "The quiz team meets on the second Tuesday of the month, in the "
                        "function room."),
            (6, "robot", "Quiz team, second Tuesday, function room."),
            (6, "Omar", "The chess club also meets on the second Tuesday, at the library. "
                        "They always want the big table."),
            (6, "robot", "Chess club, second Tuesday, at the library."),
            *CHATTER,
            (9, "Omar", last),
            (9, "robot", "Okay.")]


QUIZ_MOVES = ("The landlord's handed the second Tuesday to the darts team, so the quiz team "
              "is on second Wednesdays now.")


def test_the_look_alike_asked_keeps_its_own_value(ledger: Ledger,
                                                  encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _clubs(QUIZ_MOVES))
    res = ask(ledger, encoder, "When does the chess club meet?")
    assert res.status == "answered", res.message
    assert res.source_ids[:1] == ["t2"], (res.answer, res.source_ids)


def test_the_earlier_thing_still_moves_on(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _clubs(QUIZ_MOVES))
    res = ask(ledger, encoder, "When does the quiz team meet?")
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)
    assert "wednesday" in res.answer.lower()


def test_a_change_of_the_look_alike_itself_still_leads(ledger: Ledger,
                                                      encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _clubs("The library is being rewired, so the chess club meets "
                                    "on the last Friday now."))
    res = ask(ledger, encoder, "When does the chess club meet?")
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)


def test_a_desk_set_beside_the_lunch_closing_keeps_its_time(ledger: Ledger,
                                                           encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Colin", "The surgery desk closes for lunch between one and two."),
        (6, "robot", "Desk closed 1 to 2 for lunch."),
        *CHATTER,
        (8, "Colin", "The practice manager wants the desk lunch moved, it clashes with the "
                     "afternoon clinic. It's half twelve to half one now."),
        (8, "robot", "Desk lunch 12:30 to 1:30."),
        (8, "Colin", "The Saturday desk closes at noon as well, that's different, that's the "
                     "end of the day."),
        (8, "robot", "Saturday desk closes at 12."),
        (9, "Colin", "Forget that lunch change. Half the patients came at half twelve. We're "
                     "closed from quarter to one till quarter to two instead."),
        (9, "robot", "Desk lunch is now 12:45 to 1:45."),
    ])
    res = ask(ledger, encoder, "What time does the Saturday desk close?")
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)
