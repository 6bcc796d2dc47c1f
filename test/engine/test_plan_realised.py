"""A plan gives way to its outcome: ``supersede.realised`` and the edge it makes.

Invented sentences. A statement that tells in the past what the speaker planned for a
time ahead revises the plan; a restatement, a schedule that recurs, a wish with no time
ahead, and a name shared in place of a thing do not.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from graphkit import capture  # noqa: E402

from trace_ros.capture import Event  # noqa: E402
from trace_ros.consolidation.cpu import CpuExtractor  # noqa: E402
from trace_ros.consolidation.project import GraphProjector  # noqa: E402
from trace_ros.consolidation.supersede import realised  # noqa: E402
from trace_ros.consolidation.worker import Consolidator  # noqa: E402
from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger, Scope  # noqa: E402


def every(_: str) -> bool:
    return True


def test_a_plan_for_a_time_ahead_is_realised_by_its_outcome_told_in_the_past() -> None:
    assert realised(
        "Good news, I'm entering a chess tournament next month. Wish me luck!",
        "Guess what, I played in the chess tournament last weekend and came third!",
        every)
    assert realised("We're hoping to see the lantern festival this weekend.",
                    "Remember the lantern festival? The festival was magical, "
                    "we stayed till midnight.", every)


def test_the_outcome_may_name_the_planned_event_by_less() -> None:
    # "that dentist" for "a dentist appointment": the same event, not another
    assert realised("I have a dentist appointment next Tuesday about the cracked crown.",
                    "Went to that dentist yesterday, the cracked crown is fixed.", every)
    # an event the plan does not name is another one
    assert not realised("I have a dentist checkup next Tuesday.",
                        "The dentist ran a party for the whole street yesterday.", every)


def test_what_is_no_outcome_of_a_plan_realises_nothing() -> None:
    # a restatement of the plan
    assert not realised("The chess tournament is on Saturday next week.",
                        "Checked again, the chess tournament was still on Saturday.", every)
    # a schedule that recurs: an occasion of it does not end it
    assert not realised("Choir rehearsal is on Tuesdays at seven from next week.",
                        "The choir rehearsal went well, we nailed the new song.", every)
    # no time ahead: a wish, not a plan
    assert not realised("I'll always love the old lighthouse.",
                        "We walked up to the old lighthouse yesterday.", every)
    # the outcome told in the future again is a plan again
    assert not realised("I'm entering a chess tournament next month.",
                        "I'm going to play in the chess tournament with my cousin.", every)
    # what both share is a name, not a thing
    assert not realised("I'm meeting the Okafors for dinner next Friday.",
                        "Okafor cooked for us and we laughed all night.", every)


def _updates(ledger: Ledger, encoder: MiniLMEncoder,
             turns: list[tuple[int, int, str, str]]) -> list[tuple[str, str, str]]:
    """Consolidate ``turns`` ((month, day, speaker, text) of 2025, a session a day, the
    i-th at minute i) and return its ``updates`` edges as (newer source, older source,
    justification)."""
    events = [Event("dialogue", Scope("home", "r1", f"d{month}-{day}"), text, speaker,
                    stamp=datetime(2025, month, day, 9, i, tzinfo=UTC).timestamp(),
                    source_id=f"t{i}")
              for i, (month, day, speaker, text) in enumerate(turns)]
    capture(ledger, events)
    Consolidator(ledger, encoder, projector=GraphProjector(ledger, CpuExtractor())).drain()
    return [tuple(r) for r in ledger.query(
        "SELECT sn.source_id, so.source_id, e.justification FROM edges e "
        "JOIN fact_sources sn ON sn.fact_id = e.src JOIN fact_sources so ON so.fact_id = e.dst "
        "WHERE e.type = 'updates'")]


def test_consolidation_relates_the_outcome_to_the_plan(ledger: Ledger,
                                                        encoder: MiniLMEncoder) -> None:
    rows = _updates(ledger, encoder, [
        (10, 3, "Ines", "Big news, I'm running in a charity half marathon next month! "
                        "Training starts now."),
        (10, 3, "Tomas", "That's amazing, good luck!"),
        (10, 6, "Ines", "My sourdough starter finally bubbled, bread this weekend."),
        (10, 20, "Ines", "I ran the charity half marathon on Sunday and finished in two hours! "
                         "My legs are jelly."),
    ])
    assert ("t3", "t0") in {(n, o) for n, o, _ in rows}, rows
    assert any(why.startswith("plan realised") for n, o, why in rows if (n, o) == ("t3", "t0"))


def test_an_outcome_asking_back_is_related_once(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """A turn that tells the outcome and then asks back still realises the plan; a later
    retelling of the outcome does not realise the plan a second time."""
    rows = _updates(ledger, encoder, [
        (10, 2, "Ines", "I'm playing a solo piano recital at the library next week, so nervous!"),
        (10, 4, "Ines", "Repainted the hallway a lovely sage green, finally."),
        (10, 12, "Ines", "I played the piano recital on Saturday and nobody noticed my slip! "
                         "How was your week?"),
        (10, 25, "Ines", "Thinking back, the piano recital went really well, I played the "
                         "whole programme from memory."),
    ])
    assert {(n, o) for n, o, why in rows if why.startswith("plan realised")} == {("t2", "t0")}, \
        rows


def test_an_outcome_told_months_after_the_planned_time_is_another_occasion(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    turns = [
        (9, 5, "Ines", "I'm baking a carrot cake for the street party this weekend, wish me luck!"),
        (9, 9, "Ines", "Repainted the hallway a lovely sage green, finally."),
        (12, 14, "Ines", "The street party was great yesterday, my carrot cake vanished in "
                         "minutes."),
    ]
    rows = _updates(ledger, encoder, turns)
    assert not [why for _, _, why in rows if why.startswith("plan realised")], rows
    # the words alone would relate them: only the times tell the occasions apart
    assert realised(turns[0][3], turns[2][3], every)
