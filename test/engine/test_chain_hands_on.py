"""A later turn that names the chain's own value as the one it changes from (issue 14).

"When is Marek's Polish hearing?": the chain holds "The Polish hearing is Friday now";
two turns later someone gives a date of another hearing, and in the next conversation
"the court's just emailed: the Polish hearing won't be Friday after all, it's going to
Monday the 13th" — a change marked by no change word the chain knows. Naming the held
value in a clause of its own and a new value of the kind asked in another
(``current._hands_on``) ties the turn to the chain's thing whatever came in between, and
marks it as a change. A held value that only qualifies the new one in one clause ("that
policy renews on the 1st of March"), a value kept ("still Friday"), or another thing the
speaker sets apart, hands nothing on.
"""

from __future__ import annotations

from collections.abc import Sequence

from trace_ros.ledger import SourceRecord
from trace_ros.query import current
from trace_ros.query.current import _ASKED_VALUES, _hands_on

READ = _ASKED_VALUES["when"]


def _turn(seq: int, speaker: str, text: str, session: str) -> SourceRecord:
    return SourceRecord(seq, f"t{seq}", "home", "r1", session, "dialogue",
                        speaker, text, "", None, None, {}, float(seq), False, float(seq), "")


ANCHOR = _turn(1, "Ines", "Marek is booked for the Polish hearing on Thursday the 9th.", "s0")
LEAD = _turn(3, "Ines", "The listing office rang. The Polish hearing is Friday now.", "s1")
OTHER = _turn(5, "Tomasz", "I've got the Lithuanian one at Southwark on Tuesday at 10.", "s1")


def _forward(turns: Sequence[SourceRecord]) -> list[str]:
    steps = [ANCHOR, LEAD]
    every = [*steps, *turns]
    found = current.forward(steps, LEAD.seq, lambda seq: [t for t in every if t.seq > seq - 1],
                            "when", frozenset({"marek"}), "When is Marek's Polish hearing?",
                            frozenset({"polish", "hear"}), "robot")
    return [r.text for r in found]


def _held(text: str) -> bool:
    return _hands_on(text, READ(LEAD.text), READ, [ANCHOR, LEAD])


def test_naming_the_held_value_and_another_hands_on() -> None:
    """The held Friday in one clause, Monday the 13th in another."""
    assert _held("Oh, and the court's just emailed: it won't be Friday after all, "
                 "it's going to Monday the 13th.")
    assert _held("The airline's cancelled my Friday flight. They've rebooked me on the 21st.")


def test_a_held_value_qualifying_the_new_one_or_kept_hands_nothing_on() -> None:
    """One clause with both, a value kept, or no held value named: no hand-over."""
    assert not _held("The van's policy renews on Friday the 1st of March.")
    assert not _held("Still Friday, and the Lithuanian one moves to Monday.")
    assert not _held("The Lithuanian one is going to Monday the 13th.")


def test_the_hand_over_steps_on_past_another_value_in_between() -> None:
    """Another hearing's date in between does not end the stepping for a hand-over."""
    moved = _turn(8, "Ines", "Oh, and the court's just emailed: the Polish hearing won't be "
                  "Friday after all, it's going to Monday the 13th.", "s2")
    assert _forward([OTHER, moved]) == [moved.text]


def test_another_things_value_in_between_still_ends_a_turn_naming_no_held_value() -> None:
    """Without the held value named, the date after another hearing's is not the chain's."""
    moved = _turn(8, "Ines", "Right, it's going to Monday the 13th now, they said.", "s2")
    assert _forward([OTHER, moved]) == []


def test_another_persons_thing_on_the_held_day_is_no_step() -> None:
    """Tomasz's own hearing, moved off the same Friday, is his, not Marek's."""
    his = _turn(8, "Tomasz", "My own hearing was Friday too, but it's going to Monday the "
                "13th.", "s2")
    assert _forward([his]) == []
