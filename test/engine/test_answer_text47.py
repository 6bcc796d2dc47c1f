"""The right record, the right words of it: a lone verb after the question's own subject
is no answer ("Ravi says …"), a count in words is read whole ("twenty-one days"), a letter
said as the asked noun's label keeps it ("Studio C"), a record leaves an old value for a
new one clause by clause ("Dr. Blake has retired, and … a Dr. Fisher"), and the thing asked
about is not its own place ("in the county cup final"). Each with the look-alike it must
not touch."""

from __future__ import annotations

from trace_ros.language.text import stems
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.spans import _predicate, place_phrase, scored_run, states_duration, tokens
from trace_ros.query.typed import _left_for

from .readerkit import DAY, T0, read, rec


def _run(sentence: str, question: str) -> str:
    return scored_run(sentence, stems(question) - {"what", "which"})[0]


def _follows_subject(sentence: str, question: str, phrase: str) -> bool:
    toks = tokens(sentence)
    q = stems(question) - {"what", "which"}
    hits = [i for i, t in enumerate(toks) if t.word and stems(t.low) & q]
    a = next(i for i, t in enumerate(toks) if t.text == phrase.split()[0])
    return _predicate(toks, a, a + len(phrase.split()), hits)


def test_a_lone_verb_after_the_subject_asked_is_no_answer() -> None:
    got = _run("Ravi says he's sticking with his cappuccino, full fat.",
               "What coffee does Ravi have?")
    assert got != "says" and "cappuccino" in got
    assert _follows_subject("The kitchen tap came.", "What finish is the kitchen tap?", "came")
    assert _follows_subject("Ravi says he's fine.", "What coffee does Ravi have?", "says")


def test_an_object_label_count_or_longer_phrase_after_the_words_is_no_verb() -> None:
    assert not _follows_subject("I play viola in the band.", "Which instrument do I play?",
                                "viola")
    assert not _follows_subject("Bay 4 is the returns.", "Which bay is for returns?", "4")
    assert not _follows_subject("Riga's cancelled, full stop.", "What about Riga?",
                                "cancelled")
    assert not _follows_subject("Crumbs bakery want 500 menus.", "How many menus for Crumbs?",
                                "bakery want 500")
    assert not _follows_subject("Lena, the other coach, charges twenty-eight.",
                                "What does Lena charge?", "twenty")
    assert not _follows_subject("Bacon rolls two pounds fifty.", "What do bacon rolls cost?",
                                "two")


def test_the_object_after_a_verb_and_a_copula_complement_still_answer() -> None:
    # "salmon" is asked too, and "the" after "eats" shows the words before it are no
    # subject: "pouches" is the object's own noun, not a verb
    assert _run("Biscuit only eats the salmon pouches.",
                "What salmon does Biscuit eat?") == "pouches"
    assert "flat white" in _run("My coffee is a flat white.", "What coffee do I have?")


def test_a_count_in_words_is_read_whole() -> None:
    assert read("How long is the returns window?",
                rec(1, "The returns window is twenty-one days now.")) == "twenty-one days"
    assert states_duration("for fourteen days") and states_duration("two weeks ago")
    assert not states_duration("someone days")


def _current(question: str, new: str, old: str) -> str:
    items = [EvidenceItem(rec(2, new, when=T0 + 7 * DAY), 1.0, {"graph": 1}),
             EvidenceItem(rec(1, old), 1.0, {"superseded": 1})]
    return ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                   pack(items, 4000, 20)).answer


def test_a_letter_said_as_the_asked_label_keeps_it() -> None:
    got = _current("Which studio is adult tap in?",
                   "Eight o'clock it is now, and we've moved into Studio C for the new floor.",
                   "Adult tap is Thursdays at half seven in Studio A.")
    assert got == "Studio C"


def test_a_name_said_as_the_new_one_stays_bare() -> None:
    got = _current("Which airport am I flying from?",
                   "The Manchester flight got cancelled, so I'm going from Liverpool now.",
                   "Flying from Manchester on Friday.")
    assert "Liverpool" in got and "airport" not in got.lower()


def test_an_old_value_left_for_a_new_one_in_a_later_clause() -> None:
    assert _left_for("Dr. Blake has retired, and Ginger's been handed over to a Dr. Fisher.",
                     "Dr. Blake", frozenset({"dr", "blake"}), frozenset({"dr", "fisher"}))
    assert not _left_for("Subs now £18 a month; under-8s unchanged at £10.", "£18",
                         frozenset({"18"}), frozenset({"10"}))  # a list, not a change
    assert _left_for("The big pack's charged, I've put it back in the truck, in the side "
                     "locker this time.", "truck", frozenset({"truck"}),
                     frozenset({"side", "locker"}))


def test_an_old_value_kept_or_a_new_one_only_planned_is_not_left() -> None:
    assert not _left_for("Dr. Blake is still her vet, and a Dr. Fisher covers Mondays.",
                         "Dr. Blake", frozenset({"dr", "blake"}), frozenset({"dr", "fisher"}))
    assert not _left_for("It's in the truck; I'll find the side locker later.", "truck",
                         frozenset({"truck"}), frozenset({"side", "locker"}))


def test_the_thing_asked_is_not_its_own_place() -> None:
    q = stems("Where was the cup final supposed to be?")
    assert "final" not in place_phrase("We're in the county cup final with the under-13s!", q)
    assert place_phrase("It's at Ashfield Park on the 22nd, two o'clock kick-off.", q) \
        == "Ashfield Park"
    # a place that ends on one word of the question, or leads to a place of its own,
    # stays ("by the back door" for the front door key, "firm in Manchester")
    assert place_phrase("It's in the car park.", stems("Where is the car?")) == "car park"
    assert "back door" in place_phrase("It's on the wall by the back door.",
                                       stems("Where's my spare front door key?"))
    assert "Manchester" in place_phrase(
        "My internship is at an architecture firm in Manchester.",
        stems("Where was my internship before the Manchester firm pulled it?"))
