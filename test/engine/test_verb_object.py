""""What/which X …?" whose span does not tell which X: the object of the verb the question
asks with, said of the same one, answers (``complement.verb_object``,
``focus.object_filler``): "Tomas plays the cello" for "What instrument does Tomas play?".
Another holder's object, a count, a time, a word of another clause, a copula question
with no verb, or a record older than the graph stage's current one is none."""

from __future__ import annotations

import sys
from pathlib import Path

from trace_ros.language.text import stems
from trace_ros.ledger import SourceRecord
from trace_ros.query.complement import verb_object
from trace_ros.query.focus import object_filler
from trace_ros.query.pack import EvidenceItem, Pack
from trace_ros.query.readout import ReaderOutput

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import T0, read, rec  # noqa: E402


def _vo(question: str, sentence: str) -> str:
    return verb_object(question, sentence, stems(question))


def test_the_object_of_the_verb_asked_with_answers() -> None:
    assert read("What instrument does Tomas play?",
                rec(1, "Tomas plays the cello in the youth orchestra.")) == "cello"
    assert read("Which part do I sing in the choir?",
                rec(1, "I sing alto, back row, next to the piano.")) == "alto"


def test_a_closing_preposition_is_the_verb_and_a_pronoun_stands_for_the_one_before() -> None:
    said = "My sister Bea works at the depot, she's on lates."
    assert _vo("What shift is my sister on?", said) == "lates"
    assert _vo("Which drug am I allergic to?", "Tell them I am allergic to codeine.") == "codeine"


def test_the_one_asked_of_may_carry_a_clitic_verb() -> None:
    # "Kayleigh's on": the name with its "'s" is the one asked of.
    assert _vo("What shift is Kayleigh on?", "Kayleigh's on the ten-till-six, lucky her.") \
        == "ten-till-six"
    assert _vo("What shift is Kayleigh on?", "Maya's on the ten-till-six, lucky her.") == ""


def test_after_do_the_word_after_a_named_one_is_the_verb() -> None:
    # "does Lucia go to": after "do" the word after the name is the verb, whose third
    # person the stemmer keeps apart ("goes" is "goe").
    assert _vo("Which school does Lucia go to?",
               "After half term, Lucia goes to Oakfield Primary.") == "Oakfield Primary"
    assert _vo("Which gym does Raj go to?", "Raj goes to Pulse now, the old one shut.") \
        == "Pulse"
    # Another one's going, or a copula question with a closing preposition, is none.
    assert _vo("Which school does Lucia go to?",
               "Her cousin Mia goes to Oakfield Primary.") == ""
    assert _vo("What shift is my husband on?", "My husband Dave goes on holiday.") == ""


def test_another_holders_object_is_not_taken() -> None:
    assert _vo("What shift is my sister on?", "My neighbour Ola is on earlies.") == ""
    # A closing preposition tells what it is of only next to the one asked of.
    assert _vo("Which shelf are the spare bulbs on?",
               "The spare bulbs are probably on the landing.") == ""
    assert read("What instrument does Tomas play?",
                rec(1, "His friend Rory plays the trumpet.")) == ""


def test_a_count_a_time_or_a_word_of_another_clause_is_no_value() -> None:
    counted = _pack(("The Okafors want thirty balloons for the party.", {"graph": 1}))
    assert object_filler("What colour ribbons do the Okafors want?",
                          ReaderOutput("party", ["s-1"], "x"), counted) is None
    assert _vo("Which room is Mr Bell in?", "Mr Bell in at 3pm on Fridays.") == ""
    assert _vo("Which college is the course at?",
               "Switched to the baking course, I'm better at bread anyway.") == ""


def test_a_copula_question_has_no_verb_to_read() -> None:
    # "Mia's trainers" is the thing asked of, not a verb with an object.
    assert _vo("What brand are Mia's trainers?", "Mia's trainers need replacing soon.") == ""


def _pack(*texts: tuple[str, dict[str, int]]) -> Pack:
    return Pack([EvidenceItem(SourceRecord(i, f"s-{i}", "ann", "", "s1", "dialogue", "Ann",
                                           text, "", None, None, {}, T0 + i * 86400.0, False,
                                           T0 + i * 86400.0, "h"), 1.0, routes)
                 for i, (text, routes) in enumerate(texts, 1)])


def test_a_record_older_than_the_graph_stages_current_one_is_not_read() -> None:
    q = "What instrument does Tomas play?"
    p = _pack(("Tomas plays the cello now.", {"dense": 1}),
              ("Tomas gave up strings, it's all drums with him these days.", {"graph": 1}))
    assert object_filler(q, ReaderOutput("cello now", ["s-1"], "x"), p) is None
    p = _pack(("Tomas plays the cello now.", {"dense": 1, "graph": 1}))
    filled = object_filler(q, ReaderOutput("now", ["s-1"], "x"), p)
    assert filled is not None and filled.answer == "cello"


def test_an_older_record_stands_where_the_current_one_says_its_value_again() -> None:
    q = "Which part do I sing?"
    p = _pack(("I sing alto in the choir, back row.", {"dense": 1}),
              ("Still alto, still at the back.", {"graph": 1}))
    filled = object_filler(q, ReaderOutput("back", ["s-2"], "x"), p)
    assert filled is not None and filled.answer == "alto" and filled.cited_ids == ["s-1"]


def test_a_superseded_record_stands_only_where_the_current_one_restates_its_value() -> None:
    q = "Which race is Ana doing?"
    said = ("Ana is doing the Leeds half this spring.", {"dense": 1, "superseded": 1})
    again = _pack(said, ("Ana's still set on the half, training's going well.", {"graph": 1}))
    filled = object_filler(q, ReaderOutput("training", ["s-2"], "x"), again)
    assert filled is not None and filled.answer == "Leeds half"
    # The current record names the old value only as the one it leaves: a change.
    left = _pack(said, ("Ana dropped to the 10k instead of the half.", {"graph": 1}))
    assert object_filler(q, ReaderOutput("10k", ["s-2"], "x"), left) is None



def test_with_no_current_record_a_later_one_naming_the_one_asked_revises_the_cited() -> None:
    # No graph lead: the reader cited the older record, but a later shown one speaks of
    # Chloe again with another value, so the older one's value may be revised.
    q = "What position does Chloe play now?"
    old = ("Chloe's been playing wing defence for the under-14s.", {"dense": 1})
    later = _pack(old, ("Chloe's going up front to goal shooter, she's the tallest.",
                        {"dense": 1}))
    assert object_filler(q, ReaderOutput("under-14s", ["s-1"], "x"), later) is None
    # A later record of someone else revises nothing of hers.
    other = _pack(old, ("Amber is staying in goal, at the other end.", {"dense": 1}))
    filled = object_filler(q, ReaderOutput("under-14s", ["s-1"], "x"), other)
    assert filled is not None and filled.answer == "wing defence"
    # An owner is not whom a record speaks of: "Mia's friend Ruby" is about Ruby.
    q = "What position does Mia play in netball?"
    mia = _pack(("His sister Mia plays goal attack for the netball under-12s.", {"dense": 1}),
                ("At netball Mia's friend Ruby has been put at goal defence.", {"dense": 1}))
    filled = object_filler(q, ReaderOutput("under-12s", ["s-1"], "x"), mia)
    assert filled is not None and filled.answer == "goal attack"
