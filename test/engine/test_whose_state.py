"""Whose state a later statement tells (issue 14): the holder a question asks about.

A statement joins the chain only as the asked holder's: not when a clause that gives the
value opens on someone else ("Dayo's been moved to the N29, he gets my old chaos"), not
when its subject is another person or group ("The boiler man's coming on the
twenty-eighth", "Legal have moved down to the third floor"), not when its speaker tells
their own state where someone else's is asked ("they've shunted me to Friday"). The
other direction: the asker's own statement, a consequence the speaker states for
themselves and the holder's own restated value still lead. Real SQLite ledger, the real
MiniLM encoder, the CPU extractor and projector, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import CHATTER, ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402


def test_a_dated_statement_about_another_subject_does_not_join(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"When is David coming to visit?": the boiler man coming on the 28th is the boiler
    man's date; David's own shifted visit stays current."""
    history(ledger, encoder, [
        (6, "Ernest", "My son David is coming to visit on the 18th."),
        (6, "robot", "David visiting on Saturday 18 October."),
        *CHATTER,
        (9, "Ernest", "David's shifted his visit to the 25th, work got in the way."),
        (9, "robot", "David now visiting on the 25th."),
        (10, "Ernest", "The boiler man's coming on the twenty-eighth. Linda booked him."),
    ])
    res = ask(ledger, encoder, "When is David coming to visit?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def test_the_speakers_own_slot_is_not_the_one_asked(ledger: Ledger,
                                                   encoder: MiniLMEncoder) -> None:
    """"What time is Meera's fringe appointment?": Priya's own appointment moving ("they've
    shunted me to Friday") says nothing of Meera's; asked of Priya's, it leads."""
    history(ledger, encoder, [
        (6, "Priya", "I've booked Meera in for her fringe, Thursday at 4 at the salon."),
        (6, "robot", "Meera, fringe, Thursday at 4."),
        *CHATTER,
        (9, "Priya", "Salon just rang, they've shunted me to Friday, still 10 o'clock."),
        (9, "robot", "Your appointment is now Friday at 10."),
    ])
    res = ask(ledger, encoder, "What time is Meera's fringe appointment?")
    assert res.source_ids[:1] != ["t5"], (res.answer, res.source_ids)
    assert "t5" not in res.source_ids[:1] and "t6" not in res.source_ids[:1]


def test_a_move_of_someone_elses_does_not_revise_the_askers_route(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"Which route am I driving?": Dayo being moved to the N29 is Dayo's route, though the
    turn says "my" in a clause about him."""
    history(ledger, encoder, [
        (6, "Olu", "I'm driving the N29 all this month, nights."),
        (6, "robot", "Noted: you're on the N29 this month."),
        *CHATTER,
        (9, "Olu", "Depot reshuffle, I'm driving the N253 from tonight."),
        (9, "robot", "Updated: N253 from tonight."),
        (10, "Olu", "Dayo's been moved to the N29, poor guy, he gets my old chaos."),
    ])
    res = ask(ledger, encoder, "Which route am I driving?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def test_the_askers_own_consequence_still_revises(ledger: Ledger,
                                                   encoder: MiniLMEncoder) -> None:
    """The other direction: "Dayo's on the N253 now, so I'm back on the N29" opens on Dayo,
    but its last clause is the speaker's own route."""
    history(ledger, encoder, [
        (6, "Olu", "I'm driving the N29 all this month, nights."),
        (6, "robot", "Noted: you're on the N29 this month."),
        *CHATTER,
        (9, "Olu", "Depot reshuffle, I'm driving the N253 from tonight."),
        (9, "robot", "Updated: N253 from tonight."),
        (10, "Olu", "Dayo's taken the N253 off me, so I'm back driving the N29 route."),
    ])
    res = ask(ledger, encoder, "Which route am I driving?")
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)
