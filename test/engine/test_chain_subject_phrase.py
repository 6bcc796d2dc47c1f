"""A subject phrase with a place or time after its noun is still its clause's subject
(issue 14, alike50: the chain's lead another thing of the same kind).

"The tool store by the gate is on 4321" opens on "the tool store", then a place that
qualifies it, then its verb: the value is the tool store's, not the shed padlock's
asked about. ``revision.clause_subject`` read no subject where a preposition came before
the verb, so ``revision.another_holds`` could not tell whose the value is and the chain
stepped to it. The look-alikes it must not touch: the asked thing itself with a place
after it ("The padlock on the shed is 1215 now"), a verb with its own preposition ("Rent
goes out on the 1st"), no auxiliary after the phrase ("wholesaler came at 1 again"). A
turn that carries on its speaker's turn is read for whose subject its value is too
("Dad's physio is Thursday afternoons now, the same slot the box used to come"). Real
SQLite ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.revision import (  # noqa: E402
    another_holds,
    asked_of,
    clause_subject,
    keys,
)
from trace_ros.ledger import Ledger  # noqa: E402


@pytest.mark.parametrize(("clause", "subject"), [
    ("The Christmas party on the 13th is sixty", ("christmas", "party")),
    ("The safe in the office is 9134", ("safe",)),
    ("The tool store by the gate is on 4321", ("tool", "store")),
    ("Eggs at the farm shop are £2.50 now", ("eggs",)),
    ("The dentist in town will see me on Friday", ("dentist",)),
    # untouched: a verb before its preposition, or no verb after the place
    ("Rent goes out on the 1st", ("rent",)),
    ("The kitchen's on 216", ("kitchen",)),
    ("wholesaler came at 1 again", None),
    ("Moved it to Friday", None),
    ("In the morning is best", None),
])
def test_a_place_or_time_after_the_subjects_noun(clause: str,
                                                  subject: tuple[str, ...] | None) -> None:
    assert clause_subject(clause) == subject


PADLOCK = "What's the combination for the shed padlock?"
WEDDING = "When is the Pengelly wedding?"


@pytest.mark.parametrize(("text", "question"), [
    ("The tool store by the gate is on 4321, mind.", PADLOCK),
    ("The Christmas party on the 13th is sixty, same as the wedding was.", WEDDING),
])
def test_another_subject_with_a_place_after_it(text: str, question: str) -> None:
    assert another_holds(text, asked_of(question), keys(question))


@pytest.mark.parametrize(("text", "question"), [
    ("The padlock on the shed is 1215 now.", PADLOCK),            # the thing asked
    ("The combination for the shed is 1215 now.", PADLOCK),
    ("The wedding on the 6th has moved to the 13th.", WEDDING),    # the asked head
    ("Her wedding in Truro is on the 13th now.", WEDDING),        # a pronoun: whose
])
def test_the_thing_itself_with_a_place_after_it(text: str, question: str) -> None:
    assert not another_holds(text, asked_of(question), keys(question))


CHATTER = [(7, "Gwen", "Courgettes have gone mad this year, I can't give them away."),
           (7, "robot", "Lucky neighbours."),
           (8, "Gwen", "The water butt by the greenhouse sprang a leak again.")]


def _padlock(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Gwen", "The shed padlock combination is 1066, if I forget it."),
            (6, "robot", "Shed padlock: 1066."),
            *CHATTER,
            (9, "Gwen", "Somebody's been pinching tools, so the committee changed the shed "
                        "padlock. The combination is 1215 now."),
            (9, "robot", "Shed padlock: 1215."),
            (10, "Gwen", last)]


def test_another_things_value_with_a_place_does_not_lead(ledger: Ledger,
                                                         encoder: MiniLMEncoder) -> None:
    """The tool store's number is not the shed padlock's: the padlock's 1215 stays first."""
    history(ledger, encoder, _padlock("The tool store by the gate is still on the old one, "
                                      "nobody's bothered with that."))
    res = ask(ledger, encoder, PADLOCK)
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def test_the_padlocks_own_new_value_still_leads(ledger: Ledger,
                                                encoder: MiniLMEncoder) -> None:
    """The other direction: the padlock itself, a place after it, told anew, leads."""
    history(ledger, encoder, _padlock("The padlock on the shed is 2468 now, they changed it "
                                      "again after the break-in."))
    res = ask(ledger, encoder, PADLOCK)
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)


def _box(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Joan", "Our weekly veg box from the farm comes on Thursday afternoons."),
            *CHATTER,
            (9, "Joan", "Can we have the veg box on Wednesday morning instead? I'm home "
                        "Wednesdays now."),
            (9, "robot", "Wednesday morning, noted."),
            (9, "Joan", "Actually mornings are hectic with the carers, so later on Wednesday "
                        "is better. Afternoon please."),
            (9, "Joan", last)]


BOX = "When does my weekly veg box come?"


def test_a_carried_turn_of_another_subject_does_not_lead(ledger: Ledger,
                                                         encoder: MiniLMEncoder) -> None:
    """A turn carrying on the speaker's turn is still read for whose subject its value is
    (alike50: ``another_holds`` for carried turns too): Dad's physio keeps the old slot,
    the box is on Wednesday afternoons."""
    history(ledger, encoder, _box("Dad's physio is Thursday afternoons now, the same slot "
                                  "the box used to come."))
    res = ask(ledger, encoder, BOX)
    assert res.source_ids[:1] == ["t6"], (res.answer, res.source_ids)


def test_a_carried_turn_of_the_thing_still_leads(ledger: Ledger,
                                                 encoder: MiniLMEncoder) -> None:
    """The other direction: the box's own new slot, told in a carried turn, leads."""
    history(ledger, encoder, _box("Sorry, the farm says Friday afternoons now, same slot as "
                                  "the old Thursday one."))
    res = ask(ledger, encoder, BOX)
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)
