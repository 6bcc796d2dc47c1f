"""Someone else doing what the asker is asked about tells their own value (issue 14, the
misses of bv and bw read for the first time).

"What IELTS score do I need?" asks what the asker needs: "Kasia needs a 7, for nursing.
She's more stressed than me." has Kasia for the subject of "needs", whatever first-person
words it has beside ("than me"), so it neither anchors nor revises the asker's score
(``language.doers``). The other direction: the speaker's own clause with the verb and a
value ("I need a 7 now"), or a subject that is the speaker's own thing ("My train goes
at 6"), still tells the asker's. Also here: a span of time before the thing's
word ("From next week Tuesdays are ramen") does not qualify it as another thing
(``revision.requalified``). Real SQLite ledger, the real MiniLM encoder, questions
through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.doers import another_does, asked_verb, named_verb  # noqa: E402
from trace_ros.language.revision import keys, requalified  # noqa: E402
from trace_ros.ledger import Ledger  # noqa: E402


@pytest.mark.parametrize(("question", "verb"), [
    ("What IELTS score do I need?", "need"),
    ("When do I fly to Lisbon?", "fly"),
    ("Which hotel are we staying in for the comp?", "staying"),
    ("Where are we going on holiday?", "going"),
    ("When do I usually take my tablet?", "take"),
    ("What have I got on Friday?", ""),        # a light verb tells no doer apart
    ("When is my dentist appointment?", ""),   # no verb asked of the asker
    ("When does Sam fly to Lisbon?", ""),      # asked of someone named
])
def test_the_verb_asked_of_the_asker(question: str, verb: str) -> None:
    assert asked_verb(question) == verb


@pytest.mark.parametrize(("text", "question"), [
    ("Kasia needs a 7, for nursing. She's more stressed than me.",
     "What IELTS score do I need?"),
    ("My brother Dan flies out to join me on the 5th.", "When do I fly to Lisbon?"),
    ("My friend Sue is still going to Cornwall, she's in Padstow.",
     "Where are we going on holiday?"),
    ("Her coach is staying at the Premier Inn, lucky him.",
     "Which hotel are we staying in for the comp?"),
    ("Harold takes his statin at night, just before bed. I have to nag him.",
     "When do I take my blood pressure tablet?"),
])
def test_another_subject_of_the_asked_verb(text: str, question: str) -> None:
    assert another_does(text, asked_verb(question))


@pytest.mark.parametrize(("text", "question"), [
    # the speaker's own clause with a value
    ("Kasia starts at 9 and I start at 10.", "What time do I start work?"),
    ("The airline moved me, I fly out on the 5th now.", "When do I fly to Lisbon?"),
    # the subject is the speaker's own thing, or acts on the speaker
    ("My flight's been moved, it leaves on the 5th now.", "When do I fly to Lisbon?"),
    ("My train goes at 6 from now on.", "When am I going to Leeds?"),
    ("The surgery moved me to Thursday.", "When do I see the nurse?"),
    # another verb than the one asked
    ("Hannah says the setters come in early now, so I'm to start at 6 instead.",
     "What time do I start cleaning at the wall?"),
])
def test_not_another_doer(text: str, question: str) -> None:
    assert not another_does(text, asked_verb(question))


@pytest.mark.parametrize(("question", "named"), [
    ("When does Sam fly to Lisbon?", ("sam", "fly")),
    ("What time does Antek go to bed?", ("antek", "go")),
    ("What has Priya got on Friday?", ("", "")),   # a light verb
    ("When do I fly to Lisbon?", ("", "")),        # asked of the asker
])
def test_the_verb_asked_of_someone_named(question: str, named: tuple[str, str]) -> None:
    assert named_verb(question) == named


def test_another_subject_of_the_verb_asked_of_someone_named() -> None:
    """Dan flying is not Sam flying; Sam's own clause is Sam's."""
    name, verb = named_verb("When does Sam fly to Lisbon?")
    assert another_does("My brother Dan flies out on the 5th.", verb, name)
    assert not another_does("Sam flies on the 5th now, the 3rd was full.", verb, name)
    assert not another_does("Her flight's been moved to the 5th.", verb, name)  # a pronoun


def test_a_span_of_time_before_the_thing_qualifies_nothing() -> None:
    """"From next week Tuesdays are ramen": "week" ends a span of time, it does not sort out
    another kind of Tuesday; "Weekday emergencies" still does."""
    thing = keys("What's the Tuesday special at the café?") - {"special", "cafe", "caf"}
    assert not requalified("The chilli didn't sell. From next week Tuesdays are ramen.",
                           thing, frozenset({"special"}), frozenset({"special", "chilli"}))
    assert requalified("Weekday emergencies still ring through to the practice mobile.",
                       keys("emergency"), frozenset({"call"}), frozenset({"weekend", "call"}))


CHATTER = [(7, "Bartek", "The fog this morning was so thick I could barely see the gate."),
           (7, "robot", "Take care on the roads."),
           (8, "Bartek", "Baked a lemon drizzle for the neighbours, half of it's gone already.")]
IELTS = "What IELTS score do I need?"


def _ielts(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Bartek", "For my visa I need 6.5 overall in the IELTS. I'm studying every night."),
            (6, "robot", "You need an IELTS score of 6.5."),
            *CHATTER,
            (9, "Bartek", last)]


def test_another_doers_value_does_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """Kasia's score is not the asker's (on bv73 and on main 494ee40 her turn led, "7")."""
    history(ledger, encoder, _ielts("Kasia needs a 7, for nursing. She's more stressed than me."))
    res = ask(ledger, encoder, IELTS)
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)


def test_the_askers_own_new_value_leads(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The other direction: the asker's own later score is the new value."""
    history(ledger, encoder, _ielts("The visa rules changed, I need a 7 now."))
    res = ask(ledger, encoder, IELTS)
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def _plot(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Mehmet", "Bank holiday, so I'm on the allotment this afternoon. I grow my "
                          "beans on plot 37."),
            (6, "robot", "Your beans are on plot 37."),
            *CHATTER,
            (9, "Mehmet", last)]


def test_the_reader_passes_over_another_doers_value(ledger: Ledger,
                                                    encoder: MiniLMEncoder) -> None:
    """With no revision for the chain to lead with, the reader too takes no value of
    someone else doing what is asked: the brother's plot is not where the asker grows (a
    guard: main 494ee40 answers it right too; on the natural sets the reader's check moved
    ah09 and ao05 right, ``typed._another_doer``)."""
    history(ledger, encoder, _plot("My brother grows his beans on plot 73, same digits the "
                                   "other way round."))
    res = ask(ledger, encoder, "Which plot do I grow my beans on?")
    assert res.source_ids[:1] in (["t0"], ["t1"]), (res.answer, res.source_ids)
