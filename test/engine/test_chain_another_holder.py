"""A later value given of another subject is not the asked thing's (issue 14, look-alikes).

"The cat still gets two meals" after "he's on two meals a day … we've gone to three"
shares the thing's word ("meals") but tells of the cat, not of how many meals the
greyhound gets: the subject of its verb is a noun phrase neither the question nor the
thread names (``revision.another_holds``), and the question asks of another subject
(``revision.asked_of``). The same turn with the thing for its subject, or with a
pronoun that may point at the one asked about, still revises the thread. Real SQLite
ledger, the real MiniLM encoder, questions through ``QueryEngine.ask``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.revision import (  # noqa: E402
    another_holds,
    asked_of,
    clause_subject,
    keys,
)
from trace_ros.ledger import Ledger  # noqa: E402


@pytest.mark.parametrize(("clause", "subject"), [
    ("The cat still gets two meals", ("cat",)),
    ("Council tax goes out on the 10th", ("council", "tax")),
    ("The vitamin D I keep taking in the morning", ("vitamin", "d")),
    ("Theirs starts at 300 units", ("theirs",)),
    ("The kitchen's on 216", ("kitchen",)),
    ("Ahmed takes three sugars", ("ahmed",)),
    ("The spare snare skins are in the band store", ("spare", "snare", "skins")),
    ("Moved it to Friday", None),              # a verb opens it
    ("Cut the sugar down to one", None),
    ("She's switching the amlodipine to bedtime", None),  # a pronoun
    ("Ward 5 are staying on half seven", None),  # a value
])
def test_the_subject_a_clause_opens_with(clause: str, subject: tuple[str, ...] | None) -> None:
    assert clause_subject(clause) == subject


@pytest.mark.parametrize(("question", "asked"), [
    ("How many meals a day does the greyhound get?", {"greyhound"}),
    ("At how many units does our bulk discount start?", {"bulk", "discount"}),
    ("When do I take my amlodipine?", {"amlodipin"}),
    ("How many cats are in the cattery waiting for homes?", {"cat"}),
    ("How many guests are coming to the Hartley wedding?", {"guest"}),
    ("What's the office extension?", {"offic", "extens"}),
    ("Which nights am I on?", set()),
    ("What's the name of the vet?", {"vet"}),
])
def test_whose_or_what_state_a_question_asks(question: str, asked: set[str]) -> None:
    assert asked_of(question) == asked


GREYHOUND = "How many meals a day does the greyhound get?"


@pytest.mark.parametrize(("text", "question"), [
    ("The cat still gets two meals, she'd riot otherwise.", GREYHOUND),
    ("Council tax goes out on the 10th, that's separate from the rent.", "When is the rent due?"),
    ("The vitamin D I keep taking in the morning, that hasn't changed.",
     "When do I take my amlodipine?"),
    ("Fairway shuffled offices inside the building, they're on five now.",
     "Which floor are the accountants on?"),
    ("Theirs starts at 300 units, mind, but their binding's rubbish.",
     "At how many units does our bulk discount start?"),
])
def test_a_value_of_another_subject(text: str, question: str) -> None:
    assert another_holds(text, asked_of(question), keys(question))


@pytest.mark.parametrize(("text", "question"), [
    # a pronoun after the subject may point at the one asked about
    ("The vet nurse suggested three smaller meals to stop him bolting, so we've gone to "
     "three.", GREYHOUND),
    ("The clinic shuffled her, she's going in Tuesday the 20th now.",
     "When is Mum's heart check-up?"),
    ("Storm warning, so her flight's now the 22nd.", "When is my mother-in-law arriving?"),
    # reported speech gives the value for someone else
    ("The NMC letter says April, I misread it.", "When is my revalidation due?"),
    # the speaker's own, or the thing itself, acted on by another
    ("College rang. Room clash. My lot are on Tuesdays instead.",
     "Which night do I teach the cookery course?"),
    ("The school moved pickup to 3:15.", "When is pickup?"),
    ("The school moved the whole beginners group to Thursdays at 7.",
     "When is my Portuguese lesson?"),
    ("Discount's from 500 units now, same ten percent.",
     "At how many units does our bulk discount start?"),
    # the thing is the subject of another clause ("the reason's subject": Marta)
    ("Marta's got a late shift Sunday, so the book club meeting slides a day.",
     "When is the book club meeting?"),
    # a word of the question is the subject ("time")
    ("Airline emailed, new departure time is ten past nine.", "What time is my flight to Malaga?"),
])
def test_no_other_subject(text: str, question: str) -> None:
    assert not another_holds(text, asked_of(question), keys(question))


CHATTER = [(7, "Leontyne", "The fog this morning was so thick I could barely see the gate."),
           (7, "robot", "Take care on the roads."),
           (8, "Leontyne", "Baked a lemon drizzle for the neighbours, half of it's gone already.")]


def _greyhound(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Leontyne", "Our new rescue greyhound is called Dash."),
            (6, "Leontyne", "He's on two meals a day, morning and evening."),
            *CHATTER,
            (9, "Leontyne", "The vet nurse suggested three smaller meals to stop him "
                            "bolting, so we've gone to three."),
            (9, "robot", "Three meals a day."),
            (10, "Leontyne", last)]


def test_another_subjects_value_does_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The cat's meals are not the greyhound's: the greyhound's three stays first (on ab23
    the cat's turn led, "two meals")."""
    history(ledger, encoder, _greyhound("The cat still gets two meals, she'd riot otherwise."))
    res = ask(ledger, encoder, GREYHOUND)
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)


def test_the_things_own_value_leads(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    """The other direction: the same turn of the greyhound itself is its new count."""
    history(ledger, encoder, _greyhound("The greyhound's on four meals a day now."))
    res = ask(ledger, encoder, GREYHOUND)
    assert res.source_ids[:1] == ["t7"], (res.answer, res.source_ids)


def _waste(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Nadia", "General waste goes out every Friday."),
            (6, "robot", "Noted."),
            *CHATTER,
            (9, "Nadia", last)]


def test_the_reader_passes_over_another_subjects_value(ledger: Ledger,
                                                       encoder: MiniLMEncoder) -> None:
    """When no chain leads, the reader too takes no value given of another subject: the
    sharps' day is not general waste's (on w17 "the last Friday of each month")."""
    history(ledger, encoder, _waste("Sharps are going to the last Friday of each month from "
                                    "March, new company."))
    res = ask(ledger, encoder, "When does general waste go out?")
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)


def test_the_reader_takes_the_things_own_new_value(ledger: Ledger,
                                                   encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _waste("General waste is going to the last Friday of each month "
                                    "from March, new company."))
    res = ask(ledger, encoder, "When does general waste go out?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
