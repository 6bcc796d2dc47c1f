"""A place the thread has given up, said again of something else, revises nothing (issue 14).

After "the ladders went from the garage to the shed", "the paint stays in the garage"
tells where the paint is, not where the ladders are: a later record that gives, for a
"where" question, only places earlier records of the thing gave, and none the latest
revision brought, is what keeps the old place. Both directions: a place said to hold
again ("back in the garage") still revises, and the one the question asks of, named
beside the old place, still tells their own. Real SQLite ledger, the real MiniLM
encoder, the CPU extractor and projector, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402
from trace_ros.query import current  # noqa: E402

CHATTER = [(7, "Ivo", "The frost on the windscreen took ten minutes to scrape off."),
           (7, "robot", "Leave a bit earlier tomorrow then."),
           (8, "Ivo", "The kids want pancakes every morning now, it's a campaign.")]

MOVED = [
    (6, "Ivo", "The long ladders are kept in the garage, hung on the back wall."),
    (6, "robot", "Long ladders: garage, back wall."),
    *CHATTER,
    (9, "Ivo", "We cleared out the shed at last, so the long ladders live in the shed now."),
    (9, "robot", "Long ladders are in the shed now."),
]


def test_the_old_place_said_of_another_thing_does_not_lead(ledger: Ledger,
                                                           encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        *MOVED,
        (9, "Ivo", "The step ladder and the paint stay in the garage, mind, only the long "
                   "ones moved."),
        (9, "robot", "Step ladder and paint stay in the garage."),
    ])
    res = ask(ledger, encoder, "Where are the long ladders kept?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def test_a_place_said_to_hold_again_revises(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        *MOVED,
        (10, "Ivo", "The shed roof leaks, so the long ladders are back in the garage."),
        (10, "robot", "Long ladders back in the garage."),
    ])
    res = ask(ledger, encoder, "Where are the long ladders kept?")
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)


def test_keeps_old_reads_places_given_up_and_brought() -> None:
    earlier = ["The long ladders are kept in the garage, hung on the back wall."]
    head = "We cleared out the shed at last, so the long ladders live in the shed now."
    assert current._keeps_old("The paint stays in the garage.", earlier, head)
    # a place the latest revision brought, or a new one, is no old place
    assert not current._keeps_old("The ladders in the shed are on hooks now.", earlier, head)
    assert not current._keeps_old("They've gone to the loft instead.", earlier, head)
    # said to hold again; and no thread before the latest revision, nothing given up
    assert not current._keeps_old("They're back in the garage.", earlier, head)
    assert not current._keeps_old("The paint stays in the garage.", [], head)
    assert current._places("moved to the cupboard by the lift, the mops stay in the "
                           "cellar") == {"cupboard", "lift", "cellar"}
