"""The graph stage's current record, said by the one who asks of their own thing, answers
though it shares no word with the question (nor do the turns beside it) when it names
what the thing was and what it is now ("The hook on 4 has snapped, so I've put my things
on 9" after "my peg's number 4") or marks its state as new ("I'll be over at one now").
Said by someone else than the one asking, or asked of someone else's thing, it still
needs a word of the question: the superseded record answers, or nothing does.
"""

from __future__ import annotations

import dataclasses

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

from .readerkit import DAY, T0, rec

PEG = ("Settled in fine. Sue says my peg's number 4.",
       "The hook on 4 has snapped, so I've put my things on 9.")
LUNCH = ("I'll take the office's lunches over at half twelve each day.",
         "The new lad's quit already, hopeless. I'll be over at one now, after my busy spell.")
HOME = ("I live above the chemist on Bank Street, flat 2, if my post comes here.",
        "I'm moving at the weekend, into my aunt's house, 14 Elm Grove.")


def read(question: str, said: tuple[str, str], asker: str = "Noor",
         speaker: str = "Noor") -> tuple[str, list[str]]:
    """The old statement, the robot's word and some chat; a day later the graph stage's
    current record (``speaker``'s) and the robot's word."""
    old = rec(1, said[0])
    new = rec(10, said[1], speaker=speaker, when=T0 + DAY)
    others: list[SourceRecord] = [rec(2, "Noted.", speaker="robot"),
                                  rec(3, "Grey skies again today."),
                                  rec(11, "Okay.", speaker="robot", when=T0 + DAY)]
    items = [EvidenceItem(new, 1.0, {"graph": 1}), EvidenceItem(old, 1.0, {"superseded": 1}),
             *(EvidenceItem(r, 1.0, {}) for r in others)]
    plan = dataclasses.replace(plan_question(question, T0 + 30 * DAY), asker=asker)
    out = ExtractiveReader().read(question, plan, pack(items, 4000, 20))
    return out.answer, out.cited_ids


def test_the_askers_record_naming_the_old_and_a_new_number_answers() -> None:
    answer, cited = read("What's my peg number?", PEG)
    assert cited == ["src-10"] and "9" in answer, (answer, cited)


def test_the_askers_record_marking_a_new_time_answers() -> None:
    answer, cited = read("What time do I take the office's lunches over?", LUNCH)
    assert cited == ["src-10"] and "one" in answer, (answer, cited)


def test_the_askers_record_marking_a_move_answers_where() -> None:
    answer, cited = read("Where do I live now?", HOME)
    assert cited == ["src-10"] and "Elm Grove" in answer, (answer, cited)


def test_said_by_another_than_the_asker_it_still_needs_a_word_of_the_question() -> None:
    for question, said in (("What's my peg number?", PEG),
                           ("What time do I take the office's lunches over?", LUNCH)):
        answer, cited = read(question, said, asker="Sam")
        assert "src-10" not in cited, (question, answer, cited)


def test_asked_of_someone_else_it_still_needs_a_word_of_the_question() -> None:
    answer, cited = read("What's Sam's peg number?", PEG)
    assert "src-10" not in cited, (answer, cited)


OUR_LUNCH = ("We'll take the office's lunches over at half twelve each day.",
             "The new lad's quit already, hopeless. We'll be over at one now, after our rush.")


def test_asked_as_we_the_askers_record_opening_on_we_answers() -> None:
    answer, cited = read("What time do we take the office's lunches over?", OUR_LUNCH)
    assert cited == ["src-10"] and "one" in answer, (answer, cited)


def test_asked_as_we_another_speakers_record_still_needs_a_word_of_the_question() -> None:
    answer, cited = read("What time do we take the office's lunches over?", OUR_LUNCH,
                         asker="Sam")
    assert "src-10" not in cited, (answer, cited)
