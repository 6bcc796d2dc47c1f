"""Short words of a thing ("tea", "van", "bus", "gym") in ``things.thing_terms``.

Invented sentences. A stem of three letters or fewer is as often a generic verb's or
adjective's ("go", "put", "new") as a thing's, so the shared-word rules once dropped
them all, and a change of the school bus's time shared no word with the time it changed.
Such a stem now counts where both statements name it as the head of a noun phrase; a
short word that modifies two different nouns ("the car park" / "the car service") names
two things, and a generic verb both say names none.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_plan_realised import _updates  # noqa: E402

from trace_ros.consolidation.things import other_compound, thing_terms  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

CHATTER = [(3, 4, "Ana", "The printer on the second floor is jammed again."),
           (3, 4, "Ana", "Someone left cake in the staff room, help yourselves.")]


def _pairs(ledger: Ledger, encoder: MiniLMEncoder, first: str, later: str) -> set[tuple[str, str]]:
    rows = _updates(ledger, encoder, [(3, 3, "Ana", first), *CHATTER, (3, 6, "Ana", later)])
    return {(n, o) for n, o, _ in rows}


def test_a_short_word_named_as_a_thing_in_both_is_shared() -> None:
    assert thing_terms("Our bus to school leaves at 8:10.", "From next week the bus is at 8:25.",
                       frozenset({"bu"})) == {"bu"}
    assert thing_terms("My tea in the mornings is green tea.", "My tea is rooibos these days.",
                       frozenset({"tea"})) == {"tea"}


def test_a_short_word_not_named_as_a_thing_is_not_shared() -> None:
    assert thing_terms("I go swimming on Mondays.", "I go running on Thursdays now.",
                       frozenset({"go"})) == frozenset()


def test_a_short_word_before_two_other_nouns_names_two_things() -> None:
    old, new = "The car park opens at seven.", "The car service is at nine now."
    assert other_compound(old, new, "car")
    assert thing_terms(old, new, frozenset({"car"})) == frozenset()
    assert not other_compound("The car is booked in on Monday.",
                              "The car is booked in on Friday now.", "car")


def test_long_stems_are_kept_as_they_were() -> None:
    assert thing_terms("a", "b", frozenset({"rehears", "gym"})) == {"rehears"}


def test_a_change_of_a_thing_with_a_short_name_updates(ledger: Ledger,
                                                        encoder: MiniLMEncoder) -> None:
    pairs = _pairs(ledger, encoder, "Our bus to school leaves at 8:10 every morning.",
                   "Change of plan, from next week the bus is at 8:25.")
    assert ("t3", "t0") in pairs, pairs


def test_a_short_word_modifying_another_noun_does_not_update(ledger: Ledger,
                                                             encoder: MiniLMEncoder) -> None:
    pairs = _pairs(ledger, encoder, "The car park opens at 7:30.",
                   "Change of plan, the car service is at 9:00.")
    assert ("t3", "t0") not in pairs, pairs


def test_a_short_word_a_question_is_built_of_names_no_thing() -> None:
    assert thing_terms("I have two coffees a day.", "Down to one coffee a day now.",
                       frozenset({"dai", "coffe"})) == {"coffe"}
