"""A place said to hold again revises (issue 14): after "the ladders went from the garage
to the shed", "the long ladders are back in the garage" is where they are now. (The rule
that a later record naming only places the thread gave up keeps the old place,
``_keeps_old``, was removed by the forty-second session's ablation: on the confirm half
it cost more right answers than it saved.) Real SQLite ledger, the real MiniLM encoder,
the CPU extractor and projector, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

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


def test_a_place_said_to_hold_again_revises(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        *MOVED,
        (10, "Ivo", "The shed roof leaks, so the long ladders are back in the garage."),
        (10, "robot", "Long ladders back in the garage."),
    ])
    res = ask(ledger, encoder, "Where are the long ladders kept?")
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)
