"""Another person's state of the thing asked is no revision of the asker's (issue 14).

"Priyanka got desk 12" after the asker's "My desk is 21" names the same kind of thing
and a value of its kind, but its value clause opens on another person, whom the
question ("What's my desk number?") neither names nor means: it is a look-alike, and
neither the chain nor the reader takes it for the asker's new desk
(``owners.told_of_another``, reading ``revision.opening_person``). The other direction:
the asker's own later change leads; a person who acts for the asker ("so she can drive
me"), on the thing asked ("moved today's meeting") or after a reason ("Storm warning,
so Hal took the car") does not make another's state.
"""

from __future__ import annotations

import dataclasses
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_currentness import ask, history  # noqa: E402

from trace_ros.embed import MiniLMEncoder  # noqa: E402
from trace_ros.language.revision import opening_person  # noqa: E402
from trace_ros.ledger import Ledger, SourceRecord  # noqa: E402
from trace_ros.query.owners import told_of_another  # noqa: E402


@pytest.mark.parametrize(("clause", "person"), [
    ("Priyanka got desk 12", "priyanka"),
    ("Wilf takes two spoons of honey", "wilf"),
    ("Anouk's doing the early shifts", "anouk"),
    ("Oh and Tobias keeps his bike in the shed", "tobias"),
    ("My cousin Ines took over the allotment", "ines"),
    ("my uncle works at the bakery", "uncle"),
    ("Hamid's lad has his trials on Sundays", "hamid"),
    ("The Anchor have donated a voucher", ""),
    ("Garden gate creaked all night", ""),
    ("Carrots get sown in April", ""),
    ("Finally finished the shed roof", ""),
    ("Luckily got the last two tickets", ""),
    ("He moved it to Friday", ""),
    ("Tuesday's fine for me", ""),
    ("Breakfast is at eight", ""),
    ("My desk is 21", ""),
])
def test_the_person_a_clause_opens_on(clause: str, person: str) -> None:
    assert opening_person(clause) == person


def _rec(speaker: str, text: str) -> SourceRecord:
    stamp = datetime(2025, 10, 6, 9, 0, tzinfo=UTC).timestamp()
    return SourceRecord(1, "s1", "home", "r1", "d1", "dialogue", speaker, text, "", None,
                        None, {}, stamp, False, stamp, "")


@pytest.mark.parametrize(("question", "text"), [
    ("What's my desk number?", "Priyanka got desk 12, right by the window."),
    ("How many spoons of honey do I take?", "Wilf takes two spoons of honey, the sweet tooth."),
    ("Which shifts am I on?", "Anouk's doing the early shifts, so that's sorted."),
    ("When is Milo's swimming?", "Hamid's lad has his swimming on Sundays."),
    ("Where do I live?", "My cousin Ines took over our old house in Leith."),
])
def test_another_persons_state(question: str, text: str) -> None:
    assert told_of_another(question, "Rosa", _rec("Rosa", text))


@pytest.mark.parametrize(("question", "text"), [
    # the asker's own, or one the question names
    ("What's my desk number?", "They've moved me to desk 12 now."),
    ("When is Milo's swimming?", "Milo's swimming is on Sundays now."),
    # a deed for the asker, on the thing asked, or after a reason
    ("When's my eye test?", "Our Bea's sorted the eye test for the 26th so she can drive me."),
    ("When is my team meeting?", "Laszlo moved the team meeting to four because of his train."),
    ("Which car do I drive?", "Storm warning, so Hal took the van and I've got the Fiesta."),
    # the speaker's own beside another's
    ("Which tablets am I on?", "Chemist reckoned the blue ones were gentler, so I'm on those."),
    # a question of who: the person named may be the answer
    ("Who is taking me to the clinic?", "Greta takes you on Tuesdays now."),
    ("What's my cat called?", "Pudding's been hunting mice again, the rascal."),
    # no holder asked
    ("When does the market open?", "Priyanka got there at seven."),
    # a short opening that is no clause of its own
    ("Where does Rosa live?", "Good news: Bertie found a flat in Ayr for us."),
])
def test_not_another_persons_state(question: str, text: str) -> None:
    assert not told_of_another(question, "Rosa", _rec("Rosa", text))


def test_the_one_asked_of_speaking_of_their_own() -> None:
    """Asked of Rosa by name, Rosa's "we" is hers, whoever opens the sentence."""
    text = "Finally settled: Bertie and me are renting the flat in Ayr, we move Friday."
    assert not told_of_another("Where does Rosa live?", "Joan", _rec("Rosa", text))
    assert told_of_another("Where does Rosa live?", "Joan", _rec(
        "Joan", "Bertie took the flat in Ayr on Friday."))


def test_a_perception_is_no_ones_state() -> None:
    rec = dataclasses.replace(_rec("head_camera", "Detected folded towels on the bed."),
                              modality="perception")
    assert not told_of_another("Where are my towels?", "Rosa", rec)


CHATTER = [(7, "Rosa", "The fog this morning was so thick I could barely see the gate."),
           (7, "robot", "Take care on the roads."),
           (8, "Rosa", "Baked a lemon drizzle for the neighbours, half of it's gone already.")]


def _desks(last: str) -> list[tuple[int, str, str]]:
    return [(6, "Rosa", "My desk at the new office is number 21."),
            (6, "robot", "Desk 21, noted."),
            *CHATTER,
            (9, "Rosa", last)]


def test_another_persons_desk_does_not_lead(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _desks("Priyanka got desk 12, the exact opposite of mine."))
    res = ask(ledger, encoder, "What's my desk number?")
    assert res.source_ids[:1] == ["t0"], (res.answer, res.source_ids)


def test_the_askers_own_new_desk_leads(ledger: Ledger, encoder: MiniLMEncoder) -> None:
    history(ledger, encoder, _desks("They've moved me to desk 12 by the window."))
    res = ask(ledger, encoder, "What's my desk number?")
    assert res.source_ids[:1] == ["t5"], (res.answer, res.source_ids)
