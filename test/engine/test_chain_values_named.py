"""For "who", a name in a later turn is the value asked, not only another holder (issue 14,
the another-holder checks of ``query/current.py``).

"Who am I running the tombola with?": "Doris can't do the 21st. Mavis has said yes, so
it's me and Mavis after all." opens on another person, but its second sentence names the
new partner beside the speaker: the turn is the asker's (``told_of_another`` with
``who``). The other direction: a turn that tells only of others ("Mavis is doing the cake
stall with Joan") still does not lead. Real SQLite ledger, the real MiniLM encoder,
questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

NAMES = frozenset({"doris", "mavis", "joan", "pat"})
SWAPPED = "Doris can't do the 21st, her grandson's wedding. Mavis has said yes, so it's me " \
          "and Mavis after all."
OTHERS = "Doris can't do the 21st, her grandson's wedding. Mavis is doing the cake stall " \
         "with Joan."


CHATTER = [(7, "Pat", "The wind took two of the bunting strings down overnight."),
           (7, "robot", "I'll remind you to check the rest."),
           (8, "Pat", "Made forty jam tarts for the cake stall, my kitchen's a disaster.")]


def _tombola(later: str) -> list[tuple[int, str, str]]:
    return [(6, "Pat", "I'm running the tombola at the summer fete with Doris."),
            (6, "robot", "Noted: tombola with Doris."),
            *CHATTER,
            (9, "Pat", later)]


def test_the_new_partner_leads(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """On main the turn was read as told of Doris and Mavis, and Doris answered."""
    history(ledger, encoder, _tombola(SWAPPED))
    res = ask(ledger, encoder, "Who am I running the tombola with?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def test_others_plans_do_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The other direction: Mavis and Joan's cake stall is not the asker's tombola."""
    history(ledger, encoder, _tombola(OTHERS))
    res = ask(ledger, encoder, "Who am I running the tombola with?")
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)
