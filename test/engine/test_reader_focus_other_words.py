"""The typed reader skips a record that never says the thing a name, number or code is
asked of ("What's the storeroom extension?" read from a turn giving a number with no
"extension" beside it). A record that gives again a code or label a record of the thing
gave with its word ("Yes, 512 again" after "The storeroom extension is 512") speaks of
the thing in other words, unless it names another holder ("the canteen's 512"); a count
said again ("four") is no such label. A record saying the thing with a value revises a
record that gave its value with the focus word ("Surgery's moved to the annexe, so it's 452
now" after "The surgery extension is 318"); a focus said with no value, or never, lends
nothing. A focus that is a function word ("be" of "going to be called") is never said
beside a value, so it refuses nothing. The graph stage's current record gives an amount
of the focus when a record it supersedes named it ("down to a quarter tablet" after "half
a tablet of carprofen").
"""

from __future__ import annotations

from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader
from trace_ros.query.typed import _numbers

from .readerkit import DAY, T0, rec

Q = "What's the storeroom extension?"
FIRST = rec(1, "The storeroom extension is 512, ring me there.")
MOVED = rec(2, "IT moved the phones about, so I'm on 634 now.", when=T0 + DAY)
BACK = rec(3, "The new numbers didn't stick, the storeroom went back to its old extension.",
           speaker="Ola", when=T0 + 2 * DAY)
ASKED = rec(4, "So the storeroom is back on 512?", speaker="robot", when=T0 + 2 * DAY)


def read(question: str, *items: EvidenceItem) -> tuple[str, list[str]]:
    out = ExtractiveReader().read(question, plan_question(question, T0 + 30 * DAY),
                                  pack(list(items), 4000, 20))
    return out.answer, out.cited_ids


def shown(reply: str) -> list[EvidenceItem]:
    """The storeroom's chain: its lead names the extension but gives no number; the reply
    is the turn that does."""
    return [EvidenceItem(BACK, 1.0, {"graph": 1}),
            EvidenceItem(rec(5, reply, when=T0 + 2 * DAY), 1.0, {}),
            EvidenceItem(ASKED, 1.0, {}),
            EvidenceItem(FIRST, 1.0, {"superseded": 1}),
            EvidenceItem(MOVED, 1.0, {"superseded": 1})]


def test_a_code_given_again_answers_for_the_thing_said_before() -> None:
    answer, cited = read(Q, *shown("Yes, 512 again, as if nothing happened."))
    assert (answer, cited) == ("512", ["src-5"]), (answer, cited)


def test_the_same_number_of_another_holder_does_not() -> None:
    answer, cited = read(Q, *shown("Yes, and the canteen's 512 now, funnily enough."))
    assert "src-5" not in cited, (answer, cited)


def test_only_labels_count_not_amounts_times_or_counts() -> None:
    assert _numbers("Back on 512, and the gate's 0417.") == {"512", "417"}
    assert _numbers("Four chairs at 7:30, 1,200 leaflets, 2.5 litres, 42 ewes.") == set()


def test_a_name_asked_with_a_verb_for_focus_is_read() -> None:
    old = rec(1, "We've settled on a name for the puppy. Biscuit.")
    new = rec(2, "Changed our minds again. He's going to be Pickle.", when=T0 + DAY)
    answer, cited = read("What's the puppy going to be called?",
                         EvidenceItem(old, 1.0, {"superseded": 1}), EvidenceItem(new, 1.0, {}))
    assert (answer, cited) == ("Pickle", ["src-2"]), (answer, cited)


def test_a_code_never_said_still_abstains() -> None:
    fitted = rec(1, "We had the key safe fitted by the back door.")
    flat = rec(2, "The flat is number 214 on the second floor.")
    answer, cited = read("What's the code for the key safe?",
                         EvidenceItem(fitted, 1.0, {}), EvidenceItem(flat, 1.0, {}))
    assert (answer, cited) == ("", []), (answer, cited)


def test_a_thing_said_with_the_focus_and_a_value_before_is_revised_without_it() -> None:
    first = rec(1, "The surgery extension is 318, for the appointments line.")
    moved = rec(2, "Surgery's moved across to the annexe, so it's 452 now.", when=T0 + DAY)
    answer, cited = read("What's the surgery extension?",
                         EvidenceItem(first, 1.0, {"superseded": 1}), EvidenceItem(moved, 1.0, {}))
    assert (answer, cited) == ("452", ["src-2"]), (answer, cited)


def test_the_focus_said_with_no_value_lends_the_thing_nothing() -> None:
    fitted = rec(1, "The gate box is fitted by the door now. Code's the usual.")
    spare = rec(2, "The spare for the gate is with Mr Dunn at number 12.", when=T0 + DAY)
    answer, cited = read("What's the code for the gate box?",
                         EvidenceItem(fitted, 1.0, {}), EvidenceItem(spare, 1.0, {}))
    assert (answer, cited) == ("", []), (answer, cited)


def test_a_focus_never_said_is_still_not_read_from_the_thing() -> None:
    house = rec(1, "The new house is number 27 on Elm Row.")
    answer, cited = read("What's the postcode of the new house?", EvidenceItem(house, 1.0, {}))
    assert (answer, cited) == ("", []), (answer, cited)


def test_the_current_amount_revises_a_record_that_named_the_focus() -> None:
    old = rec(1, "The vet has Biscuit on half a tablet of carprofen with breakfast.")
    new = rec(2, "Biscuit's walking better, so from today it's down to a quarter tablet.",
              when=T0 + DAY)
    answer, cited = read("How much carprofen is Biscuit on?",
                         EvidenceItem(old, 1.0, {"superseded": 1}),
                         EvidenceItem(new, 1.0, {"graph": 1}))
    assert (answer, cited) == ("a quarter tablet", ["src-2"]), (answer, cited)


def test_a_current_amount_revising_no_record_of_the_focus_is_not_read_for_it() -> None:
    old = rec(1, "The vet has Biscuit on half a tablet with breakfast.")
    new = rec(2, "Biscuit's walking better, so from today it's down to a quarter tablet.",
              when=T0 + DAY)
    answer, cited = read("How much carprofen is Biscuit on?",
                         EvidenceItem(old, 1.0, {"superseded": 1}),
                         EvidenceItem(new, 1.0, {"graph": 1}))
    assert (answer, cited) == ("", []), (answer, cited)
