"""A later conversation's statement that retells the thread's slot in words of its own
(issue 14).

"I couldn't face another spreadsheet. I've transferred onto marine engineering." names
no word of "What course am I studying?" and is not near "My online course is
accountancy" in meaning by ``NEAR``: the old value was cited first. The chain joins it
(``current._retells``) when the anchor's speaker says it in a later conversation where
the robot takes part, the question ranks it among its ``RETELL_RANK`` best matches, the
statement said before it nearest in meaning is the thread's, and it marks a new state or
one just brought about; for a time or number asked, it must give one of a kind the
thread gave. Another person's words, the anchor's own conversation, a statement nearer
another earlier one, one ranked low, a restated value, a change denied, one with no sign
of a change and a date moved with no date given stay out. ``current.chain`` over
hand-built records, cosines given, no encoder.
"""

from __future__ import annotations

from trace_ros.language.revision import gives_another
from trace_ros.ledger import SourceRecord
from trace_ros.query import current
from trace_ros.query.plan import plan_question
from trace_ros.query.recall import Fused
from trace_ros.query.spans import asked

from .readerkit import turn

COURSE = "What course am I studying?"
COURSE_ANCHOR = "My online course is accountancy, through the Open University."
TRANSFERRED = ("I couldn't face another spreadsheet. I've transferred onto marine "
               "engineering, the skipper's been on at me for ages.")
ARRIVING = "When is my mother-in-law arriving?"
ARRIVING_ANCHOR = "My mother-in-law arrives for Christmas on the 20th of December."
SPEAKER = "Mei"
LATER = 9  # the later record's seq


def _lead(question: str, anchor: str, later: SourceRecord,
          nearest: dict[int, float] | None = None, fillers: int = 0,
          robot: bool = True) -> list[str] | None:
    """The chain's lead over the anchor (seq 1), the robot's echo of it (seq 2) and
    ``later``, ranked in that order after ``fillers`` other people's small talk (None: no
    chain). ``nearest``: the statements said before ``later`` nearest it, seq -> cosine
    (default: the anchor)."""
    plan = plan_question(question, 1.76e9)
    wanted = asked(question, plan)
    small_talk = [turn(20 + i, "d2", "Lovely weather for it today.", "Sam")
                  for i in range(fillers)]
    echo = turn(2, "d1", "Noted.", "robot" if robot else "Sam")
    order = [turn(1, "d1", anchor, SPEAKER), echo, *small_talk, later]
    records = {r.seq: r for r in order}
    ranked = [Fused(r.seq, r.source_id, 1.0 / (i + 1)) for i, r in enumerate(order)]
    said = {1: 0.44} if nearest is None else nearest
    found = current.chain(question, plan.answer_type, ranked, records, None,
                          lambda seq: {}, lambda seq: None, robot_id="r1",
                          asked_kind=wanted.kind, focus=wanted.focus,
                          said_before=lambda seq: said if seq == later.seq else {})
    return None if found is None else found.lead


def _later(text: str, session: str = "d3", speaker: str = SPEAKER) -> SourceRecord:
    return turn(LATER, session, text, speaker)


def test_a_later_conversation_retells_the_slot() -> None:
    assert _lead(COURSE, COURSE_ANCHOR, _later(TRANSFERRED)) == ["s9"]


def test_a_time_asked_is_retold_with_a_value_of_its_kind() -> None:
    later = _later("Storm warning, so her flight's now the 22nd. She's livid.")
    assert _lead(ARRIVING, ARRIVING_ANCHOR, later) == ["s9"]


def test_the_anchors_own_conversation_retells_nothing() -> None:
    assert _lead(COURSE, COURSE_ANCHOR, _later(TRANSFERRED, session="d1")) is None


def test_another_person_retells_nothing_of_the_speakers() -> None:
    assert _lead(COURSE, COURSE_ANCHOR, _later(TRANSFERRED, speaker="Jun")) is None


def test_a_statement_nearer_another_earlier_one_carries_that_one_on() -> None:
    """Nearest in meaning to another thing the speaker spoke of (seq 5), not the thread."""
    assert _lead(COURSE, COURSE_ANCHOR, _later(TRANSFERRED), nearest={5: 0.61, 1: 0.44}) \
        is None


def test_one_the_question_ranks_low_retells_nothing() -> None:
    assert _lead(COURSE, COURSE_ANCHOR, _later(TRANSFERRED),
                 fillers=current.RETELL_RANK) is None


def test_two_people_talking_between_themselves_retell_nothing() -> None:
    """Where the robot takes no part, every turn carries on the talk (LoCoMo)."""
    assert _lead(COURSE, COURSE_ANCHOR, _later(TRANSFERRED), robot=False) is None


def test_a_restated_value_is_no_retelling() -> None:
    later = _later("Still accountancy, still through the Open University.")
    assert _lead(COURSE, COURSE_ANCHOR, later) is None


def test_a_change_denied_is_no_retelling() -> None:
    later = _later("Right, yes, the same course as always. Nothing's changed there.")
    assert _lead(COURSE, COURSE_ANCHOR, later) is None


def test_no_sign_of_a_change_is_no_retelling() -> None:
    later = _later("The skipper's been on at me about marine engineering for ages.")
    assert _lead(COURSE, COURSE_ANCHOR, later) is None


def test_a_retelling_of_a_date_gives_a_date() -> None:
    """Moved, but with no value of a kind the thread gave (a day of the month): it does
    not say which day, so it retells nothing the question asks."""
    later = _later("Her flight's been moved, it lands in the evening now.")
    assert _lead(ARRIVING, ARRIVING_ANCHOR, later) is None


def test_gives_another_value_of_a_kind_given() -> None:
    assert gives_another(ARRIVING_ANCHOR, "Her flight's now the 22nd.")
    assert gives_another("Book club is on Tuesdays.", "We've moved it to Thursdays.")


def test_gives_no_other_value_of_a_kind_given() -> None:
    assert not gives_another(ARRIVING_ANCHOR, "Still the 20th of December.")
    assert not gives_another(ARRIVING_ANCHOR, "She's bringing Aunt Rose now.")
    assert not gives_another("Book club is on Tuesdays.", "We've moved it to the 14th.")
