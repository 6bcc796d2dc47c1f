"""A marked change of a value with no word of the thing shared: ``supersede.marked_revision``
and the edge it makes.

Invented sentences. A statement that marks its state as new and gives another value of
the kind an earlier close statement of the speaker's gave revises it ("I leave the car
in bay 14" … "reshuffle at the office garage, I've got space 23 now"); a restatement, someone
else's value, another titled person and another kind of a thing both name do not.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_plan_realised import _updates  # noqa: E402

from trace_ros.consolidation.supersede import marked_revision  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

ANA = frozenset({"ana"})
PARKING = "I park in bay 14 at work."


def test_a_marked_change_of_a_value_of_one_kind_revises() -> None:
    assert marked_revision(PARKING, "They've reshuffled the car park, I've got space 23 now.",
                           ANA)
    assert marked_revision("My gym locker is number 112.",
                           "They reshuffled the changing rooms, I'm on 140 now.", ANA)


def test_what_is_no_change_of_the_same_thing_does_not_revise() -> None:
    # the value said again
    assert not marked_revision("Book club meets on Tuesdays at the library.",
                               "Book club is still on Tuesdays, same as ever.", ANA)
    # someone else's value
    assert not marked_revision(PARKING, "They reshuffled the car park, my sister's spot is "
                                        "23 now.", ANA)
    # another kind of a thing both name
    assert not marked_revision("My garage code is 4471.",
                               "They changed the food bank code after the break-in, it's "
                               "7140 now.", ANA)
    # another titled person
    assert not marked_revision("There's a Mr Lee in bed 8 overnight.",
                               "We've moved Mrs Lee to the side room, 11 now.", ANA)
    # no value of the earlier's kind given
    assert not marked_revision(PARKING, "They've reshuffled the car park, it's chaos now.", ANA)


CHATTER = [(3, 4, "Ana", "The printer on the second floor is jammed again."),
           (3, 4, "Ana", "Someone left cake in the staff room, help yourselves.")]


def test_consolidation_relates_a_marked_change(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (3, 3, "Ana", "I leave the car in bay 14 at work."), *CHATTER,
        (3, 6, "Ana", "Reshuffle at the office garage, I've got space 23 now.")])
    assert ("t3", "t0") in {(n, o) for n, o, _ in rows}, rows
    assert any(why.startswith("marked change") for n, o, why in rows if (n, o) == ("t3", "t0")), \
        rows


def test_consolidation_leaves_someone_elses_value(ledger: Ledger,
                                                  encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (3, 3, "Ana", "I leave the car in bay 14 at work."), *CHATTER,
        (3, 6, "Ana", "Reshuffle at the office garage, my sister's got space 23 now.")])
    assert ("t3", "t0") not in {(n, o) for n, o, _ in rows}, rows
