"""A "which X" answer is X with the label a record gives it, and of several values of
the asked kind in one record, the one in what follows a consequence holds.

"Biscuit's over in kennel nine now" answers "Which kennel is Biscuit in?" with "kennel
nine" (a number in words labels it, as a lone capital letter does: "rack A"; "his locker
is 27." gives the locker's label too). "The quiz show starts at nine, so bedtime's at ten
now" states bedtime in what follows the "so": the nine is the cause's time.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.query.spans import labelled


def test_labels_in_words_letters_and_after_is() -> None:
    assert labelled("kennel", "Biscuit's over in kennel nine now, the quiet end.") \
        == "kennel nine"
    assert labelled("room", "Sheldon, room two.") == "room two"
    assert labelled("rack", "So everything stays downstairs in rack A until further notice.") \
        == "rack A"
    assert labelled("locker", "Bartek's locker is 27. Where will you keep his key?") \
        == "locker 27"


def test_words_that_are_no_label() -> None:
    assert labelled("room", "We have room two more people.") == ""  # a count follows
    assert labelled("rack", "It's the rack I put the samples in.") == ""  # the pronoun
    assert labelled("room", "The room is 20 degrees.") == ""  # a measure, not a label


def test_which_answered_with_the_label() -> None:
    answer = read("Which kennel is Biscuit in?",
                  rec(1, "We had to shuffle the wards today. Biscuit's over in kennel nine "
                         "now, the quiet end, he kept barking at the cats."))
    assert "nine" in answer.lower()
    answer = read("Which rack are my cell lines in now?",
                  rec(1, "So everything stays downstairs in rack A until further notice."))
    assert answer.lower() == "rack a"


def test_the_value_after_a_consequence_so() -> None:
    answer = read("What time is the quarterly review?",
                  rec(1, "The finance lead is stuck on a flight until four anyway, so let's "
                         "say half past four for the quarterly review."))
    assert answer == "half past four"
    answer = read("What shirt number do I wear for the football team?",
                  rec(1, "Swapped football shirts with Marek, he wanted the 9 for some "
                         "superstition. So I'm in his 11 for the team."))
    assert answer == "11"

