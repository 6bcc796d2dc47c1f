"""A value read by its role in the clause, not its form (``query.complement``), and
still not read where the clause says it of something else.

- "Pia's rabbit at the flat is called Pudding": the naming copula names the subject's
  head (the rabbit), not the flat that tells which rabbit; "the flat is called …" names
  no rabbit.
- "twins keyworker at nursery is sandra", "a guy called ade": from a writer who uses no
  capitals, the complement of the role's copula, or the word a noun is called, is the
  name; an adjective or a verb form is not.
- "paper reams are back cupboard too": the place a copula gives the thing asked, without
  a preposition; not a time ("are Friday the 20th"), nor a single plain word ("are
  low"), nor the place of another thing.
- "half in the morning, half at night": the times of day a sentence lists say how often.
- "Kvikk's been swimming again, daft dog.": a closing epithet (no article) names the
  sentence's subject; "…, tell the driver." does not.
- "The seminar room is 4.20 …, we've got journal club there": the place a copula gave
  before the "there" said of the thing asked.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_stated_values_read import T0, turns  # noqa: E402

from trace_ros.ledger import SourceRecord  # noqa: E402
from trace_ros.query.complement import (  # noqa: E402
    copula_complement,
    person_complement,
    place_complement,
    place_there,
    subject_head,
)
from trace_ros.query.names import name_value  # noqa: E402
from trace_ros.query.pack import EvidenceItem, pack  # noqa: E402
from trace_ros.query.plan import plan_question  # noqa: E402
from trace_ros.query.readers import ExtractiveReader  # noqa: E402
from trace_ros.query.spans import Asked  # noqa: E402
from trace_ros.query.typed import _day_parts_listed  # noqa: E402


def read(question: str, *records: SourceRecord) -> str:
    p = pack([EvidenceItem(r, 1.0, {}) for r in records], 4000, 20)
    return ExtractiveReader().read(question, plan_question(question, T0 + 86400.0), p).answer


def test_the_subject_head_comes_before_the_phrase_telling_which() -> None:
    assert subject_head("Pia's rabbit at the flat") == "rabbit"
    assert subject_head("twins keyworker at nursery") == "keyworker"
    assert copula_complement("Pia's rabbit at the flat is called Pudding, in case", {"rabbit"},
                             naming=True) == ("Pudding", True)
    assert copula_complement("The flat is called Rose Court.", {"rabbit"}) == ("", False)


def test_a_name_the_naming_copula_gives_the_subject_is_read() -> None:
    said = turns("Pia's rabbit at the flat is called Pudding, in case you hear us shouting.")
    assert read("What's Pia's rabbit called?", *said) == "Pudding"
    # The name given to another thing is not the rabbit's.
    other = turns("Pia's flat by the rabbit hutch is called Rose Court, in case you ask.")
    assert read("What's Pia's rabbit called?", *other) == ""


@pytest.mark.parametrize(("text", "lower", "expected"), [
    ("twins keyworker at nursery is sandra.", True, "sandra"),
    ("so twins get a new keyworker from monday, a guy called ade", True, "ade"),
    ("twins keyworker at nursery is lovely.", True, ""),  # an adverb-like form
    ("twins keyworker at nursery is brilliant", False, ""),  # a writer with capitals
    ("twins keyworker at nursery is Sandra Bell", False, "Sandra Bell"),  # writes a name so
    ("twins keyworker at nursery is moving", True, ""),
    ("the keyworker is off sick", True, ""),
])
def test_a_role_s_name_by_its_place_in_the_clause(text: str, lower: bool, expected: str) -> None:
    assert person_complement(text, {"keywork"}, lower) == expected


def test_an_uncased_writer_s_name_for_the_role_asked_is_read() -> None:
    assert read("Who is the twins' keyworker at nursery?",
                *turns("twins keyworker at nursery is sandra. lovely woman")) == "sandra"
    assert read("Who is the twins' swimming teacher?",
                *turns("twins keyworker at nursery is sandra. lovely woman")) == ""


@pytest.mark.parametrize(("text", "expected"), [
    ("paper reams are back cupboard too, bottom shelf, dont mix em up", "back cupboard"),
    ("the reams are Friday the 20th of March", ""),   # a time
    ("the reams are low", ""),                       # one plain word
    ("the reams are running low in the cupboard", ""),  # a verb form
    ("the toner is back cupboard too", ""),          # another thing's place
])
def test_a_place_said_as_the_complement(text: str, expected: str) -> None:
    assert place_complement(text, {"paper", "ream"}) == expected


def test_a_place_without_a_preposition_is_read() -> None:
    said = turns("paper reams are back cupboard too, bottom shelf, dont mix em up")
    assert "back cupboard" in read("Where are the paper reams kept?", *said)
    assert read("Where is the printer toner kept?", *said) == ""


def test_times_of_day_listed_say_how_often() -> None:
    assert _day_parts_listed("salmon pouches, half in the morning, half at night.") \
        == "in the morning and at night"
    assert _day_parts_listed("she has salmon in the morning.") == ""
    assert "morning" in read("How often do I feed Mochi?",
                             *turns("Mochi: salmon pouches, half in the morning, half at night."))


def test_a_place_is_read_only_of_the_thing_asked_whole() -> None:
    # "Monday meetings" names a word the question does not: another of the thing.
    assert place_complement("Monday meetings are much better.", {"weekli", "meet"}) == ""
    assert place_complement("The weekly meeting is Room Four now.", {"weekli", "meet"}) \
        == "Room Four"


def test_a_closing_epithet_names_the_sentence_s_subject() -> None:
    said = ["Kvikk's been swimming after the seals again, daft dog."]
    assert name_value(Asked("name", "dog"), said, {"dog", "call"}, set(), True, set()) \
        == "Kvikk"
    assert name_value(Asked("name", "cat"), said, {"cat", "call"}, set(), True, set()) == ""
    # The object of an imperative ("tell the driver") is no epithet of the subject.
    told = ["Kestrel's on pontoon C, berth 14, tell the driver."]
    assert name_value(Asked("name", "driver"), told, {"driver", "name"}, set(), True,
                       set()) == ""


@pytest.mark.parametrize(("text", "expected"), [
    ("The seminar room is 4.20 if anyone asks, we've got journal club there on Thursdays.",
     "4.20"),
    ("The weather is awful, we've got journal club there.", ""),  # no place given
    ("The seminar room is 4.20, there's journal club on Thursdays.", ""),  # "there's"
    ("The seminar room is 4.20 if anyone asks, we've got yoga there.", ""),  # another thing
])
def test_a_place_said_as_there_is_the_one_a_copula_gave(text: str, expected: str) -> None:
    assert place_there(text, {"journal", "club"}) == expected
