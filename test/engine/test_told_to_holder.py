"""News told to the holder by name, weighed in the holder's words (``Supersession.
_relayed_judged`` with ``revision.as_listener``).

Invented sentences. One person states a thing of their own; later another tells them, by
name, that it changed ("Ana, your …"). The judgement, fitted on a speaker's own
statements, reads "you" as talk with the listener; told in the listener's words ("my …")
it weighs the news as the holder's own statement of it. The one spoken to holds what is
told them. The teller's own thing told to the holder ("Ana, my …") relates nothing. What
a person told of their own ("My driving test …") has them as its holder, so news of it by
their name ("Ana's test got bumped") relates; news of another's by name does not.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_plan_realised import _updates  # noqa: E402

from trace_ros.consolidation import judge  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.revision import as_listener, of_listener  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

CHATTER = [(3, 4, "Bo", "The printer on the second floor is jammed again."),
           (3, 4, "Ana", "Someone left cake in the staff room, help yourselves.")]


def test_the_second_person_in_the_listeners_words() -> None:
    assert as_listener("Ana, your scan's on Friday now.") == "Ana, my scan's on Friday now."
    assert as_listener("Did you see? You're on lates, they swapped you.") \
        == "Did I see? I'm on lates, they swapped me."
    assert as_listener("You've been moved to Wednesday.") == "I've been moved to Wednesday."
    assert as_listener("I'm off to the gym on Friday.") == "I'm off to the gym on Friday."


def test_news_told_to_the_holder_of_their_own_thing_updates(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (3, 3, "Ana", "I take my iron tablet every morning, before I leave for work."),
        *CHATTER,
        (3, 5, "Bo", "Ana, the pharmacist rang: your iron tablet moves to bedtime from now "
                     "on, it upsets your stomach."),
    ])
    edges = {(n, o): why for n, o, why in rows}
    assert ("t3", "t0") in edges, rows
    assert "relayed" in edges[("t3", "t0")], rows


def test_the_tellers_own_thing_told_to_the_holder_does_not_update(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (3, 3, "Ana", "I take my iron tablet every morning, before I leave for work."),
        *CHATTER,
        (3, 5, "Bo", "Ana, the pharmacist rang: my iron tablet moves to bedtime from now "
                     "on, it upsets my stomach."),
    ])
    assert ("t3", "t0") not in {(n, o) for n, o, _ in rows}, rows


def test_news_told_to_someone_else_of_the_holder_does_not_join_by_the_listener(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """Spoken to another person than the one who stated the thing, "your" is theirs."""
    rows = _updates(ledger, encoder, [
        (3, 3, "Ana", "I take my iron tablet every morning, before I leave for work."),
        *CHATTER,
        (3, 5, "Bo", "Cal, the pharmacist rang: your iron tablet moves to bedtime from now "
                     "on, it upsets your stomach."),
    ])
    assert ("t3", "t0") not in {(n, o) for n, o, _ in rows}, rows


def test_news_of_the_holder_by_name_is_of_what_they_told_of_their_own() -> None:
    """What a person told of their own ("My driving test …") has them as its holder: news
    of it by their name from someone else is of the same holder's thing; news of
    another's by name is not."""
    old = "My driving test is on the 27th."
    names = frozenset({"jude", "mireille"})
    shared = judge.shared_terms(old, "The examiner rang, Mireille's test got bumped.")
    assert not judge.elsewhere(old, "The examiner rang, Mireille's test got bumped to the "
                                    "2nd.", shared, names, "Mireille")
    assert judge.elsewhere(old, "The examiner rang, Chloe's test got bumped to the 2nd.",
                           shared, names, "Mireille")
    # told by the speaker of their own, the name is the holder's as before
    assert judge.elsewhere(old, "The examiner rang, Mireille's test got bumped to the "
                                "2nd.", shared, names)


HOLDERS_OWN = [
    ("My driving test is on the 27th of May.",
     "The examiner rang, {}'s test got bumped to the 2nd of June."),
    ("My epipen lives in the front pocket of my rucksack.",
     "The nurse says it mustn't get cold, so {}'s epipen goes in her handbag now."),
    ("My piano lessons are on Mondays after school.",
     "Her teacher rang, {}'s piano lessons move to Wednesdays from next week."),
]


def test_news_by_the_holders_name_updates_what_they_told(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """Weighed by the judgement (``_relayed_judged``), which reads the holder so; the
    same-thing rule across speakers (``_relayed``) still reads holders as before."""
    old, new = HOLDERS_OWN[1]
    rows = _updates(ledger, encoder, [(3, 3, "Ana", old), *CHATTER,
                                      (3, 5, "Bo", new.format("Ana"))])
    edges = {(n, o): why for n, o, why in rows}
    assert ("t3", "t0") in edges, rows
    assert "judged" in edges[("t3", "t0")], rows


@pytest.mark.parametrize(("old", "new"), HOLDERS_OWN)
def test_news_of_another_by_name_does_not_update_what_the_holder_told(
        ledger: Ledger, encoder: MiniLMEncoder, old: str, new: str) -> None:
    rows = _updates(ledger, encoder, [(3, 3, "Ana", old), *CHATTER,
                                      (3, 5, "Bo", new.format("Cal"))])
    assert ("t3", "t0") not in {(n, o) for n, o, _ in rows}, rows


def test_what_may_be_the_listeners() -> None:
    assert of_listener("Ana, your scan's on Friday now, I checked my diary.")
    assert of_listener("Bea, I took the spare key off that hook, it's in the tin now.")
    assert of_listener("Agnes, the letter came. Drops go down to twice a day.")
    assert not of_listener("Ana, my scan's on Friday now.")
