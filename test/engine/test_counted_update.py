"""Two more ways ``supersede.py`` tells one thing's new value (invented sentences).

A count is a value read from its shape, whatever is counted: a cardinal right before the
shared word ("nine members" … "Eleven members now", ``shapes.recounted``). And the person
both statements tell of is the thing's subject though the later opens on their name,
which ``holders`` cannot tell from a capitalised first word ("my cousin Tadeo drives the
number 12 bus" … "Tadeo has been moved to the 47 route now"). Each has its look-alike
that must not update: the count restated, another club's count, another holder's change
("Tadeo's brother …").
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_plan_realised import _updates  # noqa: E402
from test_same_thing_update import CHATTER, _pairs  # noqa: E402

from trace_ros.consolidation.shapes import counts, recounted  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

CLUB = "The book club has nine members at the moment."
BUS = "My cousin Tadeo drives the number 12 bus."


def test_a_cardinal_before_a_word_counts_it() -> None:
    assert counts("Forty-two families on the list, 3 vans.",
                  frozenset({"famili", "van"})) == {"famili": 42, "van": 3}
    assert counts("The families came in vans.", frozenset({"famili", "van"})) == {}


def test_a_thing_counted_otherwise_is_recounted() -> None:
    member = frozenset({"member"})
    assert recounted(CLUB, "Eleven members now.", member) == {"member"}
    assert not recounted(CLUB, "Nine members, as ever.", member)
    assert not recounted(CLUB, "The members meet on Thursdays.", member)


def test_a_new_count_updates(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [(3, 3, "Ana", CLUB), *CHATTER, (3, 6, "Ana", (
        "Eleven members in the book club now, two neighbours joined."))])
    # the rule's edge, with its evidence (where a judgement alone found it before)
    assert any(why.startswith("same-thing update") and "11 member" in why and "9 member" in why
               for n, o, why in rows if (n, o) == ("t3", "t0")), rows


def test_the_count_restated_does_not_update(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    pairs = _pairs(ledger, encoder, CLUB, "Still nine members in the book club, nobody new.")
    assert ("t3", "t0") not in pairs, pairs


def test_another_clubs_count_does_not_update(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    pairs = _pairs(ledger, encoder, CLUB, "The chess club has eleven members now.")
    assert ("t3", "t0") not in pairs, pairs


def test_a_change_of_the_persons_thing_told_less_closely_updates(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    pairs = _pairs(ledger, encoder, BUS, "Tadeo has been moved to the 47 route now, poor him.")
    assert ("t3", "t0") in pairs, pairs


def test_another_holders_change_told_less_closely_does_not_update(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    pairs = _pairs(ledger, encoder, BUS, "Tadeo's brother has been moved to the 47 route now.")
    assert ("t3", "t0") not in pairs, pairs


def test_a_count_of_one_more_does_not_update(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    pairs = _pairs(ledger, encoder, CLUB, "The chess club has eleven members too.")
    assert ("t3", "t0") not in pairs, pairs


def test_a_word_made_with_a_number_is_no_count() -> None:
    assert counts("He is on two-hourly obs.", frozenset({"hourli", "ob"})) == {}
