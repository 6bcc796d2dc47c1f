"""Holder agreement in the reader's choice (issue 14): a record whose sentence opens on
another holder than the one the question asks about ("Peanut eats sunflower seeds" for
"What does Biscuit eat?", the speaker's own "I drive the silver Corolla" for "What car
does Funmi drive?") is no candidate where a record about the one asked states the value.
The other direction: a sentence that points back at the thing or at the asker ("Dr Patel
moved it", "so Brian will run me"), names the one asked, opens on a pronoun, or gives
another's reason before the asker's own state still answers; and a "who" question's
answer is someone else by its nature."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import DAY, T0, rec  # noqa: E402

from trace_ros.ledger import SourceRecord  # noqa: E402
from trace_ros.query.owners import holder_clash, sentence_holder  # noqa: E402
from trace_ros.query.pack import EvidenceItem, pack  # noqa: E402
from trace_ros.query.plan import plan_question  # noqa: E402
from trace_ros.query.readers import ExtractiveReader  # noqa: E402

KNOWN = frozenset({"peanut", "joan", "patel", "luke", "morag", "brian", "darren", "brenda",
                   "helen", "sharon"})


def _said(speaker: str, text: str) -> SourceRecord:
    return rec(1, text, speaker)


@pytest.mark.parametrize(("question", "asker", "speaker", "text"), [
    ("What does Biscuit eat?", "Olu", "Olu", "Peanut eats sunflower seeds, the class sent a bag."),
    ("What car does Funmi drive?", "Olu", "Olu", "I drive the silver Corolla, it ends in KJP."),
    ("When is Kirsty's dentist appointment?", "Hamish", "Kirsty",
     "Morag's got the dentist too, the 25th, after school."),
    ("What shift am I on?", "Ann", "Ann", "My brother just started on the late shift."),
    ("Are Hannah and Kieran engaged?", "Peggy", "Hannah", "My brother Luke just got engaged."),
    ("When is my physio?", "Marguerite", "Arthur", "My physio's still Thursdays with Sharon."),
])
def test_another_holders_sentence_clashes(question: str, asker: str, speaker: str,
                                          text: str) -> None:
    assert holder_clash(question, asker, _said(speaker, text), text, KNOWN)


@pytest.mark.parametrize(("question", "asker", "speaker", "text"), [
    ("What does Biscuit eat?", "Olu", "Olu", "Kale gave Biscuit the runs. Hay these days."),
    ("What car does Funmi drive?", "Olu", "Olu", "My wife Funmi drives a red Fiesta."),
    ("When is Kirsty's dentist appointment?", "Hamish", "Kirsty", "My dentist's the 23rd."),
    ("When is my dentist?", "Ann", "Receptionist", "Dr Patel moved it to Friday."),
    ("When is my dentist?", "Ann", "Receptionist", "I've booked you in for Friday."),
    ("When is my dentist?", "Ann", "Bob", "She moved it to Friday."),
    ("Who is taking me to the eye hospital?", "Patricia", "Patricia",
     "Helen's away the last week of August, so Brian next door will run me there."),
    ("What shift am I on?", "Sunita", "Sunita",
     "Darren called in sick so I'm swapping onto lates for the rest of the week."),
    ("What time does Geoffrey take his tablet?", "Brenda", "Geoffrey",
     "Brenda love, the doctor said I'm to take it at night now, ten o'clock."),
    ("What day is Oscar's football?", "Ben", "Oscar", "Football's Thursday now."),
    ("Who's feeding the cats while I'm away?", "Esme", "Esme",
     "Mrs Patel's going to her daughter's, so Harriet is doing the cats instead."),
    ("What's my extension?", "", "Kev", "I'm on 216 now."),  # no asker known
])
def test_the_asked_holders_sentence_does_not_clash(question: str, asker: str, speaker: str,
                                                   text: str) -> None:
    assert not holder_clash(question, asker, _said(speaker, text), text, KNOWN)


def test_the_opening_holder() -> None:
    assert sentence_holder("I drive the silver Corolla.") == ("speaker", "")
    assert sentence_holder("My wife Funmi drives a red Fiesta.") == ("name", "funmi")
    assert sentence_holder("Oh and my neighbour's greyhound is called Luna.") == ("kin",
                                                                                 "neighbour")
    assert sentence_holder("Peanut eats seeds.", frozenset({"peanut"})) == ("name", "peanut")
    # A capitalised word opening a sentence is no one unless the conversation names them.
    assert sentence_holder("Football's Thursday now.") == ("", "")
    assert sentence_holder("She moved it to Friday.") == ("", "")


def _read(question: str, asker: str, *records: SourceRecord) -> tuple[str, list[str]]:
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20)
    plan = dataclasses.replace(plan_question(question, T0 + 30 * DAY), asker=asker)
    out = ExtractiveReader().read(question, plan, p)
    return out.answer, out.cited_ids


def test_the_speakers_own_car_does_not_answer_for_another() -> None:
    """Fails before holder agreement: "car" and "drive" matched the speaker's own."""
    answer, cited = _read(
        "What car does Funmi drive?", "Olu",
        rec(1, "I drive the silver Corolla, registration ends in KJP, for the car park list.",
            "Olu"),
        rec(3, "My wife Funmi drives a red Fiesta.", "Olu", T0 + DAY))
    assert cited[:1] == ["src-3"] and "Fiesta" in answer


def test_another_named_holders_food_does_not_answer() -> None:
    answer, cited = _read(
        "What does Biscuit eat?", "Olu",
        rec(1, "Biscuit the rabbit lives in the class hutch, Peanut the hamster next to him.",
            "Olu"),
        rec(2, "Biscuit eats dandelion leaves and hay.", "Olu", T0 + DAY),
        rec(30, "Peanut eats sunflower seeds, the class sent a bag.", "Olu", T0 + 5 * DAY))
    assert cited[:1] == ["src-2"] and "dandelion" in answer


def test_the_asked_holders_later_value_still_wins() -> None:
    """The other direction: the holder's own later statement stays current beside
    another holder's."""
    answer, cited = _read(
        "What does Biscuit eat?", "Olu",
        rec(1, "Biscuit the rabbit lives in the class hutch, Peanut the hamster next to him.",
            "Olu"),
        rec(2, "Biscuit eats dandelion leaves and hay.", "Olu", T0 + DAY),
        rec(20, "Peanut eats sunflower seeds, the class sent a bag.", "Olu", T0 + 3 * DAY),
        rec(30, "Dandelions gave Biscuit the runs, so he eats kale and hay now.", "Olu",
            T0 + 5 * DAY))
    assert cited[:1] == ["src-30"] and "kale" in answer


def test_our_thing_is_not_anothers() -> None:
    """"our Christmas trees" is the asker's household's: "his trees", "my neighbour's
    greyhound" are another owner's (fails before "our" was read as the asker's)."""
    from trace_ros.query.owners import other_owner, possessed
    trees = possessed("How much are we selling our Christmas trees for?")
    assert other_owner(trees, "Sam next door is flogging his trees at thirty.")
    assert not other_owner(trees, "We're sticking at thirty-five for our trees.")
    dog = possessed("What's our greyhound called?")
    assert other_owner(dog, "My neighbour's greyhound is called Luna too, ha.")
    assert not other_owner(dog, "Our greyhound answers to Mabel now.")


def test_a_plural_owners_thing_is_not_ours() -> None:
    """"the neighbours' dog" (the apostrophe after a plural's "s") is another owner's
    against "our dog", as "my neighbour's dog" is (fails before the plural possessive
    was read); our own, or a thing the question does not give the asker, is not."""
    from trace_ros.query.owners import other_owner, possessed
    dog = possessed("What's our dog called?")
    assert other_owner(dog, "The neighbours' dog is called Tschappi, don't get confused.")
    assert other_owner(dog, "The Nilssons' dog is called Tschappi.")
    assert not other_owner(dog, "Our dog is called Tschäggi, you'll hear me yelling it.")
    assert not other_owner(dog, "The vets' opening hours changed, the dog's jab is Monday.")
    # Against another owner the question names, the plural says nothing: "the
    # neighbours' cat" may well be "next door's cat".
    cat = possessed("What's next door's cat called?")
    assert not other_owner(cat, "The neighbours' cat is Smudge, noted.")


def test_a_title_names_a_person_in_any_case() -> None:
    assert sentence_holder("mrs kaur's dialysis is mon wed fri 7:30") == ("name", "kaur")
    assert holder_clash("Which days is Mr Benson's dialysis run?", "Tracey",
                        _said("Tracey", "mrs kaur's dialysis is mon wed fri 7:30"),
                        "mrs kaur's dialysis is mon wed fri 7:30")
