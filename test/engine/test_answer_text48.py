"""The right record, the right words of it (second round): the words of the event a question
dates its state by are not cut from the answer ("before she went off salmon": "the salmon
pouches"), a deadline asks a date, and the pence said after the pounds are part of the sum
("two pounds twenty"), and who opens a clause the record marks as the new arrangement takes
over from the one it leaves ("Owen … has said he'll do the cat instead"). Each with the
look-alike it must not touch."""

from __future__ import annotations

from trace_ros.language.text import stems
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader, _asked_of_state
from trace_ros.query.spans import asked, money
from trace_ros.query.typed import _left_for, _new_doer

from .readerkit import DAY, T0, read, rec


def _asked(question: str) -> str:
    return asked(question, plan_question(question, T0 + 30 * DAY)).kind


def _kept(question: str) -> set[str]:
    plan = plan_question(question, T0 + 30 * DAY)
    return _asked_of_state(question, plan, set(stems(question)))


def test_the_event_dated_by_keeps_its_words_for_the_answer() -> None:
    kept = _kept("What did Biscuit eat before she went off salmon?")
    assert "salmon" not in kept and {"biscuit", "eat"} <= kept
    # a word the question says outside the event too stays the question's own
    assert "biscuit" in _kept("What did Biscuit eat before Biscuit went off it?")


def test_a_before_of_a_habit_asked_now_is_part_of_the_thing_asked() -> None:
    q = "How does Ann cope before an exam?"
    assert _kept(q) == set(stems(q))
    q = "What does Biscuit eat now?"  # no event: the question's words as they are
    assert _kept(q) == set(stems(q))


def test_the_value_that_held_may_be_a_word_of_the_event() -> None:
    got = read("What did Biscuit eat before she went off salmon?",
               rec(1, "Biscuit only eats the salmon pouches, don't even try the chicken."))
    assert "salmon" in got


def test_a_deadline_asks_a_date() -> None:
    assert _asked("What was the DBS deadline when I first told the coaches?") == "date"
    assert _asked("What is the manuscript deadline?") == "date"
    assert _asked("What is the line manager called?") != "date"


def test_the_pence_after_the_pounds_are_read_whole() -> None:
    assert money("Correction: a token's two pounds twenty, not two fifty.") \
        == "two pounds twenty"
    assert money("A bacon roll is two pounds fifty.") == "two pounds fifty"
    assert money("It's 3 dollars 50.") == "3 dollars 50"


def test_a_figure_after_a_sum_that_opens_another_phrase_is_not_its_pence() -> None:
    assert money("It's 5 pounds 20 people came.") == "5 pounds"
    assert money("twenty-five pounds a half hour") == "twenty-five pounds a half"
    assert money("50 cents 20.") == "50 cents"
    assert money("Two pounds. Fifty came.") == "Two pounds"


def _current(question: str, new: str, old: str) -> str:
    items = [EvidenceItem(rec(2, new, when=T0 + 7 * DAY), 1.0, {"graph": 1}),
             EvidenceItem(rec(1, old), 1.0, {"superseded": 1})]
    return ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                   pack(items, 4000, 20)).answer


def test_who_opens_the_clause_marked_new_takes_over() -> None:
    got = _current("Who feeds Mittens when I'm on nights?",
                   "Mrs Patel's hip is playing up, bless her. Owen at number seven has said "
                   "he'll do the cat instead, he's saving for a bike.",
                   "Mrs Patel next door feeds Mittens when I'm on nights.")
    assert got == "Owen"
    assert _new_doer(" hip is bad. The pharmacy's going to bring my tablets round instead.",
                     frozenset()) == "The pharmacy"
    # an arrangement marked as the new one leaves the old holder, though said ahead
    assert _left_for("Mrs Patel's hip is bad. Owen has said he'll do it instead.", "Mrs Patel",
                     frozenset({"mr", "patel"}), frozenset({"owen"}))


def test_no_one_opens_a_clause_that_is_no_new_arrangement() -> None:
    assert _new_doer("The van is fixed now.", frozenset()) == ""
    assert _new_doer("Tuesday is fine now.", frozenset()) == ""
    assert _new_doer("He does it now.", frozenset()) == ""
    assert _new_doer("Karen is doing it now.", frozenset({"karen"})) == ""
    # a plan said with no mark of a new state does not leave the old one
    assert not _left_for("Mrs Patel's hip is bad. Owen will ask around.", "Mrs Patel",
                         frozenset({"mr", "patel"}), frozenset({"owen"}))
    got = _current("Who feeds Mittens when I'm on nights?",
                   "Mrs Patel's hip is better, she's still doing the cat. Owen at number "
                   "seven will help if she needs it.",
                   "Mrs Patel next door feeds Mittens when I'm on nights.")
    assert got == "Mrs Patel"
