"""A place said only as "in there" stands for the thing the record put somewhere just
before it ("I've had a key safe fitted by the back door. The spare keys live in there."):
the answer is what holds the thing, with where that is, not only where that is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from trace_ros.language.text import stems
from trace_ros.query.complement import place_in_there

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402


@pytest.mark.parametrize(
    ("text", "question", "place"),
    [
        ("I've had a key safe fitted by the back door. The spare room keys live in there "
         "from now on.", "Where are the spare room keys kept?", "key safe by the back door"),
        ("Got one of those key safes fitted by the back door, so the spare key's in there "
         "now.", "Where is the spare key?", "key safe by the back door"),
        # "it" in the clause is the thing the clause before names.
        ("The key safe's fitted by the front door now, so Mrs Cole handed the spare back "
         "and it's in there.", "Where's the spare key now?", "key safe by the front door"),
    ],
)
def test_in_there_is_the_thing_put_before_it(text: str, question: str, place: str) -> None:
    assert place_in_there(text, stems(question)) == place


@pytest.mark.parametrize(
    ("text", "question"),
    [
        # "in there"/"in it" said of another thing than the one asked.
        ("A shelf was fitted in the hall and the charger is in there.", "Where is the remote?"),
        ("I put the cake in the oven, the timer's in it.", "Where is the cake?"),
        # Nothing put anywhere before it: no place to stand for.
        ("We bought a new cabinet. The files are in there.", "Where are the files?"),
    ],
)
def test_no_thing_put_for_it_or_another_things_in_there(text: str, question: str) -> None:
    assert place_in_there(text, stems(question)) == ""


def test_the_reader_answers_with_the_container() -> None:
    answer = read("Where is the spare house key?",
                  rec(1, "Spare house key's with Pat next door."),
                  rec(2, "Got one of those key safes fitted by the back door, so the spare "
                         "key's in there now, no need to bother Pat."))
    assert "key safe" in answer
