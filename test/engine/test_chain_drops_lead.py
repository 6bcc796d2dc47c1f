"""The second revision that names the first revision's value as gone (issue 14, step48).

A, then "changed to B", then a record that leaves B behind without any word of the thing
("Josh got a summer job, so Carmen's doing the fish instead" after "Ben's nephew Josh is
doing the fish"): ``current._drops_lead`` joins it to the lead. A record that names B
as the state again ("So we'll be at Merton Road two weeks running"), or another thing
newly at B ("Wipers are on the rack behind the lift now"), is no step.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from trace_ros.ledger import SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402

from .readerkit import turn  # noqa: E402

POOL = [frozenset({"fish"}), frozenset({"cruis"}), frozenset({"fog"}), frozenset({"lemon"})]
FISH = frozenset({"fish", "feed"})


def _rec(seq: int, session: str, text: str, speaker: str = "Lydia") -> SourceRecord:
    return turn(seq, session, text, speaker)


ANCHOR = _rec(1, "d1", "Our neighbour Pat's feeding the fish while we're away.")
LEAD = _rec(2, "d2", "Pat's off on a cruise herself, so Ben's nephew Josh is doing the fish.")


def _drops(text: str, speaker: str = "Ben", lead: SourceRecord = LEAD,
           anchor: SourceRecord = ANCHOR, thing: frozenset[str] = FISH) -> str:
    return current._drops_lead(_rec(3, "d3", text, speaker), lead, anchor, thing, POOL)


def test_the_lead_value_left_behind_is_the_next_step() -> None:
    """Relayed by another speaker, the lead's new one opens a clause beside a change."""
    why = _drops("Josh got a summer job, so Lydia's friend Carmen's doing the fish instead.")
    assert why.startswith("drops s2"), why


def test_the_lead_value_denied_is_the_next_step() -> None:
    assert _drops("Carmen's taking over, Josh can't do it any more.").startswith("drops s2")


def test_the_lead_value_said_again_is_no_step() -> None:
    """A restatement names B without leaving it."""
    assert _drops("Josh is still doing the fish, he loves it.") == ""
    assert _drops("Josh is brilliant, he even cleaned the tank.") == ""


def test_another_thing_newly_at_the_lead_value_is_no_step() -> None:
    """B named as another thing's new place: no clause beside it moves on."""
    anchor = _rec(1, "d1", "The spare air filters are kept on the top shelf in the parts cage.",
                  "Keith")
    lead = _rec(2, "d2", "I reorganized. Air filters went to the metal rack behind the lift.",
                "Keith")
    thing = frozenset({"air", "filter", "spare"})
    assert _drops("Wipers are on the rack behind the lift now.", "Keith", lead, anchor,
                  thing) == ""
    assert _drops("So we'll be using the metal rack two weeks running.", "Keith", lead,
                  anchor, thing) == ""


def test_nothing_named_of_the_lead_is_no_step() -> None:
    assert _drops("Carmen's car broke down again, so she's walking now.") == ""


def test_the_lead_value_told_as_what_befell_it_is_the_next_step() -> None:
    """Named anywhere in a past clause ("have poached Dev") beside a new state."""
    anchor = _rec(1, "d1", "Sunday morning senior lifeguard is Bethan this month.", "Marcus")
    lead = _rec(2, "d2", "Bethan broke her wrist at netball, so Dev's stepping up for the "
                         "Sunday mornings.", "Marcus")
    thing = frozenset({"senior", "lifeguard", "sundai", "morn"})
    why = _drops("Council baths have poached Dev. Ruth's got Sunday mornings now.", "Marcus",
                 lead, anchor, thing)
    assert why.startswith("drops s2"), why
    assert _drops("Dev will be great at it, Sunday mornings suit him.", "Marcus", lead,
                  anchor, thing) == ""
