"""Names written with a title and its full stop ("Dr. Osei", "Mr. Byrne").

The full stop of a title ends no sentence: the name after it is written mid-sentence, so
a "who" question is answered with it rather than abstained on. "Byrne's the landlord" is
"Byrne is the landlord", not Byrne's own landlord. A titled name is someone: where no
shown record says the thing a "which X" question asks for, it is no X ("I saw Dr. Hale
today" for "Which pharmacy …?").
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.query.spans import capitalised_mid_sentence, names_in  # noqa: E402


def test_a_title_with_its_full_stop_starts_the_name() -> None:
    assert names_in("Monday and Tuesday cover is Dr. Osei now.", set()) == [(28, "Dr. Osei")]
    assert names_in("Our landlord's called Mr. Byrne.", {"landlord"}) == [(22, "Mr. Byrne")]
    assert capitalised_mid_sentence(["The cover is Dr. Osei now."]) == {"osei"}


def test_a_full_stop_that_ends_a_sentence_still_starts_the_next() -> None:
    assert names_in("I saw the doctor. Osei was kind.", set()) == []
    assert capitalised_mid_sentence(["I saw the doctor. Osei was kind."]) == set()


def test_who_is_answered_with_a_titled_name() -> None:
    q = "Who is covering Mondays and Tuesdays as locum?"
    said = rec(1, "Lindqvist only lasted a week. Monday and Tuesday cover is Dr. Osei now.")
    assert "Osei" in read(q, said)


def test_the_name_a_copula_gives_the_thing_answers() -> None:
    q = "What's our landlord called?"
    named = rec(1, "The gutter's leaking again, I'll text Byrne about it.")
    again = rec(2, "Byrne's the landlord still, he came round about the gutter.")
    assert "Byrne" in read(q, named, again)


def test_a_name_that_owns_the_thing_does_not_answer() -> None:
    q = "What's the vet's name?"
    assert read(q, rec(1, "Mochi's vet check is on Friday, remind me.")) == ""


def test_a_titled_name_is_not_an_unsaid_thing() -> None:
    q = "Which pharmacy do I get my amlodipine from?"
    said = rec(1, "I saw Dr. Hale today about the dizzy spells. She wants the amlodipine "
                  "moved to the evening instead, with dinner.")
    assert read(q, said) == ""
