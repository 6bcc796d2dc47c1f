"""A count of the speaker's own carried on by an ordinal, and a plan "two weekends later"
(``supersede._counted``, ``shapes.counted_on``, ``supersede._ahead``; invented sentences).

"I ran my second marathon" … "I finished my third marathon": the number of marathons the
speaker has run is now three, though the two turns may share no word the speaker seldom
says and their vectors may lie apart. Each has its look-alikes that must not update: the
same ordinal again, a lower one looked back on, someone else's ("the third runner"), a
plan for the next ("it's gonna be my fourth"), another thing numbered.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_plan_realised import _updates, every  # noqa: E402

from trace_ros.consolidation.shapes import counted_on, ordinals  # noqa: E402
from trace_ros.consolidation.supersede import _ahead, realised  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402

SECOND = "Wow, last Sunday I ran my second marathon, my knees are still sore!"


def test_an_ordinal_after_my_numbers_the_speakers_own_thing() -> None:
    assert ordinals("I won my fourth chess tournament on Friday!") == {
        "chess": 4, "tournament": 4}
    assert ordinals("Our 3rd baby is due soon.") == {"babi": 3}
    # another's rank, or an ordinal not after "my" / "our"
    assert ordinals("She was the first to arrive, in the 4th quarter.") == {}
    assert ordinals("My first, and best, was in Leeds.") == {}


def test_a_higher_ordinal_of_the_same_thing_carries_the_count_on() -> None:
    assert counted_on(SECOND, "I finished my third marathon today!") == {"marathon": (2, 3)}
    # the same ordinal again, or a lower one looked back on
    assert not counted_on(SECOND, "My second marathon was tougher than I thought.")
    assert not counted_on(SECOND, "I still remember my first marathon, so slow.")
    # a plan for the next is no count yet; a question neither
    assert not counted_on(SECOND, "Next spring it's gonna be my third marathon!")
    assert not counted_on(SECOND, "Should I sign up for my third marathon?")
    # another thing numbered
    assert not counted_on(SECOND, "I bought my third pair of trainers.")


def test_consolidation_relates_the_count_carried_on(ledger: Ledger,
                                                   encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (4, 2, "Ines", SECOND),
        (4, 2, "Tomas", "Congrats! How long did it take?"),
        (4, 9, "Ines", "The garden is full of tulips, the neighbours love them."),
        (6, 1, "Ines", "Guess what, I finished my third marathon on Saturday, in the rain!"),
    ])
    assert any(why.startswith("count carried on") and "marathon 3" in why
               for n, o, why in rows if (n, o) == ("t3", "t0")), rows


def test_a_lower_ordinal_looked_back_on_does_not_update(ledger: Ledger,
                                                        encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (4, 2, "Ines", SECOND),
        (4, 9, "Ines", "The garden is full of tulips, the neighbours love them."),
        (6, 1, "Ines", "I keep thinking of my first marathon, I was so slow back then."),
    ])
    assert not [r for r in rows if r[2].startswith("count carried on")], rows


def test_a_count_of_days_or_weeks_later_is_a_time_ahead() -> None:
    assert _ahead("I'm organizing a quiz night two weekends later, it'll be chaos!")
    assert _ahead("The move is a few weeks from now.")
    # told in the past, "later" looks back from another time
    assert not _ahead("Two weeks later we moved to Leeds.")
    assert realised("I'm organizing a quiz night two weekends later, it'll be chaos!",
                    "The quiz night was a great success, we raised loads.", every)
