"""Causes found in two authors' sets read for the first time (the fortieth session).

A full name opening a sentence is a name ("Maggie Doyle's stepping in"), not only its
second word, and a surname the robot echoes is the whole name said elsewhere; the focus
noun said twice is read where the question's other words are; the speaker saying they do
the thing asked is who does it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.query.pack import EvidenceItem  # noqa: E402
from trace_ros.query.spans import names_in  # noqa: E402
from trace_ros.query.typed import _fuller_name  # noqa: E402


def test_a_full_name_opening_a_sentence_keeps_its_first_word() -> None:
    assert names_in("Maggie Doyle's stepping in, she'll sing.", set()) == [(0, "Maggie Doyle")]
    assert names_in("Greenway Garden Centre have signed up.", set()) == [
        (0, "Greenway Garden Centre")]


def test_an_order_or_a_pronoun_opening_a_sentence_is_no_part_of_the_name() -> None:
    assert names_in("Put Eddie on the Boise load.", set()) == [(4, "Eddie"), (17, "Boise")]
    assert names_in("She's Kate Adeyemi now.", set()) == [(6, "Kate Adeyemi")]
    assert names_in("Maggie sings.", set()) == []  # one capitalised word: a sentence start


def test_who_is_answered_with_the_whole_name() -> None:
    said = rec(1, "For the show this Sunday, Owen can't come. Maggie Doyle's stepping in as "
                  "my guest, she'll sing unaccompanied.", speaker="Dana")
    assert read("Who's my guest on the show this Sunday?", said) == "Maggie Doyle"


def test_the_focus_said_twice_is_read_where_the_question_verb_is() -> None:
    said = rec(1, "Also, I've swapped shows with Dan: I'm producing the Tuesday evening arts "
                  "show now, he's taken the phone-in.", speaker="Imogen")
    assert "arts show" in read("Which show do I produce now?", said)


def test_the_speaker_saying_they_do_it_is_who_does_it() -> None:
    said = rec(1, "Rosa, Sam's dropped out, he's got a clash with his own show. I'll do Ritmo "
                  "from Lisbon, I've sorted the remote link.", speaker="Luis")
    assert read("Who's covering Ritmo while I'm away?", said) == "Luis"


def test_a_surname_the_robot_echoes_is_answered_with_the_whole_name() -> None:
    said = rec(2, "Owen's van has died. Maggie Doyle's stepping in, she'll sing.", speaker="Dana")
    echo = rec(3, "Maggie Doyle this Sunday, unaccompanied.", speaker="robot")
    items = [EvidenceItem(echo, 1.0, {}), EvidenceItem(said, 0.9, {})]
    assert _fuller_name("Doyle", items, set()) == "Maggie Doyle"
    assert _fuller_name("Owen", items, set()) == "Owen"
    other = rec(4, "Ann Doyle's coming too.", speaker="Dana")
    assert _fuller_name("Doyle", [*items, EvidenceItem(other, 0.8, {})], set()) == "Doyle"
