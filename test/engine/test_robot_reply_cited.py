"""The robot's reply is not where an answer comes from (issue 14, first-other).

A robot's turn right after a person's statement that takes it up in its words ("Okay,
Christmas at your place." after "Yaw's coming to us instead") or reads it back as a
value ("So that's nine volunteers." after "we're two short now") says what the person
said: the person's statement is cited first, the reply after it. The look-alikes keep
the robot's turn where it was: a reply that shares no word of the statement ("Done,
you're in room 808 now." after "Yes, please."), a question, a turn further on or in
another session. Real SQLite ledger, the real MiniLM encoder for the end-to-end checks.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history, ts  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.ledger import Ledger, SourceRecord  # noqa: E402
from trace_ros.query import current  # noqa: E402


def rec(seq: int, speaker: str, text: str, session: str = "d9") -> SourceRecord:
    return SourceRecord(seq=seq, source_id=f"s{seq}", subject_id="home", robot_id="r1",
                        session_id=session, modality="dialogue", speaker=speaker, text=text,
                        label="", confidence=None, pose=None, payload={},
                        source_time=ts(9, 9, seq), time_from_receipt=False,
                        known_time=ts(9, 9, seq), content_hash="")


SAID = rec(10, "Kofi", "Change of plan for Christmas, Yaw's coming to us instead.")


def test_a_reply_taking_up_the_statement_answers_it() -> None:
    assert current.answers_turn(rec(11, "robot", "Okay, Christmas at your place."), SAID, "r1")


def test_a_reply_of_its_own_is_no_answer_to_the_turn_before() -> None:
    # shares no word of the statement: what it says is the robot's own
    assert not current.answers_turn(rec(11, "robot", "Done, you're in room 808 now."),
                                    rec(10, "Hiro", "Yes, please."), "r1")
    # news with a value of its own, beside a word the person happened to say
    assert not current.answers_turn(
        rec(11, "robot", "I've put your car service in the calendar for Saturday."),
        rec(10, "Leila", "I drove past the library today, the car park was full."), "r1")
    # a question asks; a person's turn is no reply; after a question nothing is taken up
    assert not current.answers_turn(rec(11, "robot", "Shall I put Christmas at yours?"),
                                    SAID, "r1")
    assert not current.answers_turn(rec(11, "Yaw", "Christmas at yours then."), SAID, "r1")
    assert not current.answers_turn(rec(11, "robot", "Christmas at yours, noted."),
                                    rec(10, "Kofi", "Where is Christmas this year?"), "r1")
    # not the turn right after, or another session
    assert not current.answers_turn(rec(13, "robot", "Okay, Christmas at your place."),
                                    SAID, "r1")
    assert not current.answers_turn(rec(11, "robot", "Okay, Christmas at your place.", "d10"),
                                    SAID, "r1")


CHATTER = [(7, "Kofi", "The weather has been miserable all week, rain every single day."),
           (7, "robot", "Sorry to hear that. Stay dry."),
           (8, "Kofi", "Made a huge pot of groundnut soup, it should last until Sunday.")]


def test_the_persons_statement_is_cited_before_the_robots_reply(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, [
        (6, "Kofi", "We're driving up to my sister Efua's for Easter, it's five hours."),
        (6, "robot", "Easter at Efua's, noted."),
        *CHATTER,
        (9, "Kofi", "Change of plan for Easter, Efua's coming down to us instead, her roof is "
                    "leaking."),
        (9, "robot", "Okay, Easter at your place."),
        (9, "Kofi", "My neighbour is off to her daughter's for Easter, a long drive too."),
        (9, "robot", "Noted."),
    ])
    res = ask(ledger, encoder, "Where are we spending Easter?")
    assert res.status == "answered", res.message
    assert res.source_ids[:2] == ["t5", "t6"], (res.answer, res.source_ids)


def test_the_robots_own_news_stays_first(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The robot told of the new room itself; "Yes, please." before it says nothing of it."""
    history(ledger, encoder, [
        (6, "Hiro", "I've just checked in, room 521. Could you book a wake-up call for 6:30?"),
        (6, "robot", "Wake-up call at 6:30 for room 521."),
        *[(d, "Hiro" if s == "Kofi" else s, t) for d, s, t in CHATTER],
        (9, "robot", "Housekeeping has a quieter room free, 808 on the eighth floor. Shall I "
                     "move you?"),
        (9, "Hiro", "Yes, please."),
        (9, "robot", "Done. You're in room 808 now; a porter will bring your bags up."),
    ])
    res = ask(ledger, encoder, "What's my room number?")
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)


def test_a_reply_saying_it_again_in_other_words_cites_the_statement(
        ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The robot's reply shares no word or value with the statement before it ("once a
    fortnight" - "every two weeks"), but their vectors are near: the person said it."""
    history(ledger, encoder, [
        (6, "Kofi", "Shelly gets a handful of dandelion leaves every three days."),
        (6, "robot", "Dandelions every three days, noted."),
        *CHATTER,
        (9, "Kofi", "The reptile man reckons she's a bit heavy. We're spacing her meals out to "
                    "once a fortnight."),
        (9, "robot", "Shelly now eats every two weeks."),
    ])
    res = ask(ledger, encoder, "How often does Shelly eat?")
    assert res.status == "answered", res.message
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
