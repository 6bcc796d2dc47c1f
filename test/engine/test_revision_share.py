"""A revision that says little of the thing still holds as the newest (issue 14).

"Oh, and facilities reset all the lockers over the weekend; mine opens with 9022 now."
says less of "What's my locker code at work?" than the first telling ("my locker code at
work is 4471"), among other codes and rotas, but it is a revision of the same state: the
typed reader takes as revisions the records that cover at least ``revision_share`` of what
the best covers, and the newest of them holds. At 0.4 the later record fell short and the
old code answered; the cabinet's own code, told after it, still answers nothing.
Real SQLite ledger, the real MiniLM encoder, the CPU projector, ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import HOME, history, ts  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402
from trace_ros.query.answer import QueryEngine, QueryRequest  # noqa: E402
from trace_ros.query.readers import ExtractiveReader  # noqa: E402

TURNS = [
    (6, "Priya", "Evening. I've been put on call for the practice on Wednesday nights this "
                 "term, so keep those evenings clear."),
    (6, "robot", "Noted, you're on call Wednesday nights."),
    (6, "Priya", "Owen's drawn the Saturday nights, lucky him."),
    (6, "robot", "Owen on Saturdays, got it."),
    (6, "Priya", "Dinner's whatever is in the freezer, I can't face cooking."),
    (6, "robot", "There's a fish pie in there."),
    (9, "Priya", "Rain all day, and I spent the afternoon in a calving shed up at Pryce's."),
    (9, "robot", "Sounds muddy. Shall I put the heating on?"),
    (9, "Priya", "Please. And my locker code at work is 4471, before I forget it again."),
    (9, "robot", "Locker code 4471, saved."),
    (14, "Priya", "Big rota shake-up today. Harriet wanted her Wednesdays back for pottery, "
                  "so I've swapped onto Mondays."),
    (14, "robot", "Understood, your on-call night is Monday now."),
    (14, "Priya", "Owen's still stuck with Saturdays, nothing changed for him."),
    (14, "robot", "Okay."),
    (20, "Priya", "First Monday on call tonight, phone's charged. If anyone rings for "
                  "Harriet, her pottery's Wednesday evenings."),
    (20, "robot", "Phone's charged. Good luck tonight."),
    (20, "Priya", "Oh, and facilities reset all the lockers over the weekend; mine opens "
                  "with 9022 now."),
    (20, "robot", "Locker code 9022, noted."),
    (20, "Priya", "The controlled drugs cabinet has its own code, 7310, don't let me mix "
                  "them up."),
    (20, "robot", "I'll keep them separate."),
]


def test_the_default_revision_share() -> None:
    assert ExtractiveReader().revision_share == 0.3


def test_a_revision_saying_little_of_the_thing_holds(ledger: Ledger,
                                                      encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, TURNS)
    with QueryEngine(ledger, encoder, audit=False) as eng:
        res = eng.ask(QueryRequest(Scope(HOME), "What's my locker code at work?",
                                   asker="Priya"), now=ts(21))
    assert res.status == "answered", res.message
    assert res.source_ids[:1] == ["t16"], (res.answer, res.source_ids)
    assert "9022" in res.answer, res.answer
