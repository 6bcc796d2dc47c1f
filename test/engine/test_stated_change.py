"""A change stated to the robot that the chain used to pass over (issue 14, first-stale).

The robot's reading of a turn, let stand ("We're two short." - "So that's nine
volunteers."), says what the turn changed when the person's words name neither the
thing nor the new value; someone telling the speaker, by name and in the second
person, of a change to their thing speaks for them; a question in the present tense
that names a weekday, or asks a rate or an allowance, asks what holds now. Each comes
with the look-alike that must still not supersede: another person's statement read
back, a read-back the person takes back, a change told to someone else.
Real SQLite ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history, ts  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger, SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402
from trace_ros.query.plan import plan_question  # noqa: E402

CHATTER = [(7, "Nia", "The weather has been miserable all week, rain every single day."),
           (7, "robot", "Sorry to hear that. Stay dry."),
           (8, "Nia", "Made a huge pot of lentil soup, it should last until Sunday.")]


def rec(seq: int, speaker: str, text: str, session: str = "d9") -> SourceRecord:
    return SourceRecord(seq=seq, source_id=f"s{seq}", subject_id="home", robot_id="r1",
                        session_id=session, modality="dialogue", speaker=speaker, text=text,
                        label="", confidence=None, pose=None, payload={},
                        source_time=ts(9, 9, seq), time_from_receipt=False,
                        known_time=ts(9, 9, seq), content_hash="")


def test_the_robots_reading_let_stand_says_what_the_turn_changed(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """"we're two short now" names no volunteers and no count; the robot's "So that's
    nine volunteers." right after it, which Nia lets stand, does: the turn is current."""
    history(ledger, encoder, [
        (6, "Nia", "I've got eleven volunteers signed up for the litter pick so far."),
        (6, "robot", "Eleven volunteers so far."),
        *CHATTER,
        (9, "Nia", "Two of them have flu and dropped out, so we're two short now."),
        (9, "robot", "So that's nine volunteers."),
    ])
    res = ask(ledger, encoder, "How many volunteers have I got for the litter pick?")
    assert res.source_ids[:1] in (["t5"], ["t6"]), (res.answer, res.source_ids)


def test_another_persons_count_read_back_does_not_supersede(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Nia", "I've got eleven volunteers signed up for the litter pick so far."),
        (6, "robot", "Eleven volunteers so far."),
        *CHATTER,
        (9, "Nia", "My sister Ama is sorting the beach clean on Sunday."),
        (9, "robot", "So Ama has nine volunteers."),
    ])
    res = ask(ledger, encoder, "How many volunteers have I got for the litter pick?")
    assert res.source_ids[:1] in (["t0"], ["t1"]), (res.answer, res.source_ids)


def test_a_reading_is_one_the_person_lets_stand() -> None:
    said = rec(10, "Nia", "Two of them dropped out, so we're two short now.")
    robot = rec(11, "robot", "So that's nine volunteers.")
    assert current.reads_back(robot, said, None, "r1")
    assert current.reads_back(robot, said, rec(12, "Nia", "Great, thanks."), "r1")
    # what follows from a turn is a change it states
    assert current.reads_back(rec(11, "robot", "Thirty-eight guests."),
                              rec(10, "Nia", "Seven of the cousins cannot come, so we are "
                                             "thirty-eight."), None, "r1")
    # after a remark that states no change, the robot speaks of something else
    assert not current.reads_back(robot, rec(10, "Nia", "My cousin is coming on the 3rd."),
                                  None, "r1")
    # taken back in the person's next turn
    assert not current.reads_back(robot, said, rec(12, "Nia", "No, ten, not nine."), "r1")
    # a question asks; it reads nothing
    assert not current.reads_back(rec(11, "robot", "So is that nine volunteers?"), said,
                                  None, "r1")
    # not the turn right after, or another session
    assert not current.reads_back(rec(13, "robot", "So that's nine volunteers."), said,
                                  None, "r1")
    assert not current.reads_back(rec(11, "robot", "So that's nine volunteers.", "d10"),
                                  said, None, "r1")


def test_a_change_told_to_the_speaker_by_name_speaks_for_them(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """Someone else telling Nia, by name, that her locker was moved revises her statement
    of it; the same words told to Tom are Tom's locker."""
    history(ledger, encoder, [
        (6, "Nia", "The gym gave me locker 31 by the pool doors."),
        (6, "robot", "Locker 31, noted."),
        *CHATTER,
        (9, "Priya", "Nia, the gym rang while you were out, so your locker is 58 now, the "
                     "pool doors are being refitted."),
    ])
    res = ask(ledger, encoder, "Which locker have I got at the gym?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def test_a_change_told_to_someone_else_does_not_supersede(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Nia", "The gym gave me locker 31 by the pool doors."),
        (6, "robot", "Locker 31, noted."),
        *CHATTER,
        (9, "Priya", "Tom, the gym rang while you were out, so your locker is 58 now, the "
                     "pool doors are being refitted."),
    ])
    res = ask(ledger, encoder, "Which locker have I got at the gym?")
    assert res.source_ids[:1] != ["t5"] and "58" not in res.answer, (res.answer,
                                                                     res.source_ids)


def test_a_weekday_a_rate_or_an_allowance_asked_in_the_present_is_now() -> None:
    def present(q: str) -> bool:
        return current.asks_present(q, plan_question(q))

    assert present("What time does the Saturday choir practice start?")
    assert present("Where is Monday's book club held?")
    assert present("How many days a week does Jo work at the shop?")
    assert present("How long can the kids stay up on Fridays?")
    assert not present("What did we eat on Saturday?")
    assert not present("Which Sunday am I on the church rota?")  # the day is what is asked
    assert not present("How long ago did Jo start at the shop?")
    assert not present("How long has Jo worked at the shop?")
    assert not present("How many days until the holiday?")


def test_one_who_moved_the_thing_named_in_a_later_change_is_no_other_holder(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """Tom moved the date (the robot's reading says to what); Nia's later change that
    names him ("Tom's taking it off work") is still of their move, not Tom's own thing:
    the one whose turn the thread's latest revision is holds the thing too."""
    history(ledger, encoder, [
        (6, "Nia", "Moving day is Saturday the 4th, the removal van's booked."),
        (6, "robot", "Moving day, Saturday 4 October."),
        *CHATTER,
        (9, "Tom", "The solicitor's dragging his heels. Everything's slipped a week."),
        (9, "robot", "So moving day is now Saturday 11 October."),
        (10, "Nia", "Completion's been brought forward a day. Moving Friday the 10th, Tom's "
                    "taking it off work."),
    ])
    res = ask(ledger, encoder, "When are we moving?")
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)
