"""What a record says beside the thing is not its value.

"The trainers are pinching my toes" says what the trainers do, not their brand ("What
brand are the new trainers?" is not told; "the bathroom blinds are charcoal" still tells
their colour). A name that owns the next thing ("took Ben's old room") says whose that
thing is: it does not stand for what the question asks ("What's Ana studying?"), while a
name with its "is" ("Jonah's on the bathroom") still may.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.query.names import stands_for


def test_what_a_thing_does_is_not_what_it_is() -> None:
    assert read("What brand are the new trainers?",
                rec(1, "Honestly, the new trainers are pinching my toes.")) == ""


def test_a_value_said_of_the_thing_stands() -> None:
    assert read("What colour are the bathroom blinds?",
                rec(1, "Finally done: the bathroom blinds are charcoal.")) == "charcoal"


def test_an_owner_does_not_stand_for_the_value() -> None:
    assert not stands_for("took Ben's old room", "What's Ana studying?", {"ana", "studi"},
                           {"Ben"})
    assert stands_for("bins and Jonah's on the bathroom", "Which chore am I doing?",
                       {"chore"}, {"Jonah"})
