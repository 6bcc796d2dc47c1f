"""An elliptical revision joins the latest earlier value of its kind: ``consolidation.ellipsis``
and the edge ``supersede.Supersession`` makes from it; ``language.valuekinds``.

Invented sentences. A statement that marks a change and gives a value of a kind, naming
no subject of its own ("Organisers shifted it to the 21st"), revises the speaker's latest
earlier statement holding a value of that kind ("Race day's the 14th of September") even
though the two share no word and their vectors are far. Not when that latest statement is
another thing's (a second weekly event, someone else's), when the new one names another
holder ("my cousin's wedding"), or when it restates the value ("still the 14th").
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_plan_realised import _updates  # noqa: E402

from trace_ros.consolidation.ellipsis import antecedent, moved_to  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.valuekinds import kinds_of  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

MAYA = frozenset({"maya"})
RACE = "Race day's the 14th of September."
CHATTER = ["The weather has been awful all week.", "I made a lasagne last night."]


@pytest.mark.parametrize(("text", "kinds"), [
    ("Organisers shifted it to the 21st.", {"date": {"21"}}),
    ("Drums moved to Wednesdays.", {"weekday": {"wednesday"}}),
    ("Recital's at four now.", {"clock": {"4"}}),
    ("Bedtime is half nine, handover quarter past seven.", {"clock": {"9:30", "7:15"}}),
    ("10am, or 22:00, or at ten", {"clock": {"10"}}),
    ("I'm in bay 12 from the 9th of Jan.", {"figure": {"12"}, "date": {"9", "jan"}}),
])
def test_values_are_read_by_their_own_kind(text: str, kinds: dict[str, set[str]]) -> None:
    assert {k: set(v) for k, v in kinds_of(text).items()} == kinds


def test_a_change_sent_to_a_value_is_marked_whatever_the_verb() -> None:
    assert moved_to("Organisers shifted it to the 21st, some festival in town.")
    assert moved_to("Promoter double-booked us, we've been bumped to November the 1st.")
    assert not moved_to("I talked to him on Friday.")
    assert not moved_to("I walked to the shop at 5.")


def test_an_elliptical_change_revises_the_latest_value_of_its_kind() -> None:
    assert antecedent("Organisers shifted it to the 21st, some festival in town.",
                      [RACE, *CHATTER], MAYA) == 0
    assert antecedent("Recital's at four now.",
                      ["The recital is at two on Saturday.", *CHATTER], MAYA) == 0
    # a chain: the latest value is the one revised
    assert antecedent("And again, road closures, so it's the 28th now.",
                      [RACE, "Organisers shifted it to the 21st, some festival in town."],
                      MAYA) == 1


def test_another_things_value_nearer_leaves_the_change_unjoined() -> None:
    lessons = "Piano lessons are on Tuesdays after school."
    moved = "They've moved it to Fridays now."
    assert antecedent(moved, [lessons, *CHATTER], MAYA) == 0
    # a second weekly event between, of one thing more or of someone else: ambiguous
    assert antecedent(moved, [lessons, "Choir is on Thursdays too."], MAYA) is None
    assert antecedent(moved, [lessons, "The twins have swimming on Thursdays."], MAYA) is None
    # someone else's value, the speaker's own given
    assert antecedent("I'm on the 16:40 now.",
                      ["I'm on the 17:10 train home.", "My sister's on an 18:05 too."],
                      MAYA) is None


def test_another_holder_or_a_restatement_revises_nothing() -> None:
    assert antecedent("My cousin's wedding got moved to the 28th.", [RACE, *CHATTER],
                      MAYA) is None
    assert antecedent("Still the 14th, nothing's changed.", [RACE, *CHATTER], MAYA) is None
    assert antecedent("Quiz night's on Fridays now.",
                      ["Bingo is on Tuesdays at the club.", *CHATTER], MAYA) is None


def test_consolidation_relates_an_elliptical_change(ledger: Ledger,
                                                    encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (9, 1, "Maya", RACE),
        (9, 1, "Maya", CHATTER[0]),
        (9, 3, "Maya", CHATTER[1]),
        (9, 5, "Maya", "Organisers shifted it to the 21st, some festival in town.")])
    assert ("t3", "t0") in {(n, o) for n, o, _ in rows}, rows
    assert any(why.startswith("elliptical revision") for n, o, why in rows
               if (n, o) == ("t3", "t0")), rows


def test_consolidation_leaves_another_holders_date(ledger: Ledger,
                                                   encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (9, 1, "Maya", RACE),
        (9, 1, "Maya", CHATTER[0]),
        (9, 5, "Maya", "My cousin's wedding got moved to the 21st.")])
    assert ("t2", "t0") not in {(n, o) for n, o, _ in rows}, rows


def test_consolidation_relates_a_change_relayed_by_the_household(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (9, 1, "Ana", "My brother Tomas is taking me to the match on Saturday."),
        (9, 1, "Ana", CHATTER[0]),
        (9, 2, "Ben", CHATTER[1]),
        (9, 2, "Ben", "Ana, Tomas rang. Work again, so it'll be Sunday instead.")])
    assert any(why.startswith("elliptical revision: Ben's") for n, o, why in rows
               if (n, o) == ("t3", "t0")), rows
