"""A first-person aside does not make another's value the speaker's (issue 14, fresh50):
"Dana's got peg 41. I keep grabbing her coat by mistake." names Dana as whose the peg
is; the chain reads whose a later record is from its sentences that are no aside
(``revision.about_another(..., valued_only=True)``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import CHATTER, ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language import revision  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

THING = frozenset({"peg", "number", "cloakroom"})


def test_a_first_person_aside_leaves_anothers_value_theirs(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The sentence in the first person states no value, names no word of the thing and
    points at Dana ("her coat"): the later record is Dana's, and the asker's own peg
    stays the one they gave."""
    history(ledger, encoder, [
        (6, "Nia", "My peg in the cloakroom is number 14, if anyone asks you to fetch "
                   "my scarf."),
        (6, "robot", "Noted: your cloakroom peg is 14."),
        *CHATTER,
        (9, "Nia", "Dana's got peg 41. I keep grabbing her coat by mistake."),
        (9, "robot", "Noted."),
    ])
    res = ask(ledger, encoder, "What's my peg number in the cloakroom?")
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)
    aside = "Dana's got peg 41. I keep grabbing her coat by mistake."
    assert revision.about_another(aside, {"nia"}, THING, valued_only=True)
    assert not revision.about_another(aside, {"nia"}, THING)  # the default reads it all


def test_a_first_person_sentence_that_is_no_aside_still_speaks_for_the_speaker() -> None:
    """A first-person sentence that states the value ("I'm on peg 41 now"), or points at
    no one else though no value word is found in it ("We've got a van now, a blue
    Berlingo" after "The Fiesta finally gave up"), is the speaker's own state."""
    assert not revision.about_another("Dana's swapped with me. I'm on peg 41 now.",
                                      {"nia"}, THING, valued_only=True)
    assert not revision.about_another("The Fiesta finally gave up. We've got a van now, "
                                      "a blue Berlingo.", {"nia"},
                                      frozenset({"car", "drive"}), valued_only=True)
    assert not revision.about_another("Dana's got peg 41. I'll tell her to swap with "
                                      "me, I want 41.", {"nia"}, THING, valued_only=True)
