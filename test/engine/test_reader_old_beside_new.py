"""The current record names the old value beside the new one: the reader answers the new.

"They double-booked the 22nd, and the first slot they had is Tuesday the 25th" after
"my test is on the 22nd": the day the same speaker said before is what it changes from
(not a day someone else said, nor one the record says holds on). "Gemma's fitted a key
safe by the door, so the spare's in there, not under the frog": "in there" is the key
safe, and "not under the frog" is where it no longer is. "Kemp and Sons will be doing
our acrylic": the firm is the whole name "and" joins.
"""

from __future__ import annotations

import sys
from pathlib import Path

from trace_ros.language.text import stems
from trace_ros.query.complement import place_in_there

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

_MOVED = ("Driving school rang about my test. They double-booked the 22nd, and the first "
          "slot they had is Tuesday the 25th of March.")


def test_the_day_said_before_is_what_it_changes_from() -> None:
    answer = read("When's my driving test?", rec(0, "My driving test is on the 22nd of March."),
                  rec(1, _MOVED))
    assert answer.startswith("Tuesday 25 March")


def test_a_day_someone_else_said_before_is_not_dropped() -> None:
    answer = read("When's my driving test?",
                  rec(0, "Mine's on the 22nd of March.", speaker="Kirsten"), rec(1, _MOVED))
    assert answer.startswith("22 ")


def test_a_day_said_to_hold_on_is_kept() -> None:
    answer = read("When's my driving test?", rec(0, "My driving test is on the 25th of March."),
                  rec(1, "My test stays on the 25th, and the theory one is the 22nd."))
    assert answer.startswith("Tuesday 25 March")


def test_in_there_after_a_thing_fitted_actively() -> None:
    said = "Our Gemma's fitted a key safe by the door, so the spare's in there, not under the frog."
    assert place_in_there(said, stems("Where's the spare front door key?")) \
        == "key safe by the door"
    # "in there" of another thing than the one asked is not its place.
    said = "Dad's fitted a shelf in the hall and the charger is in there."
    assert place_in_there(said, stems("Where is the remote?")) == ""


def test_a_place_turned_down_is_not_where_it_is() -> None:
    said = "Spare key's been moved, not under the frog, it's in the drawer now."
    assert read("Where's the spare key?", rec(0, said)) == "drawer"
    # With nothing else said, a place turned down is no answer.
    assert read("Where's the spare key?", rec(0, "The spare's in there, not under the frog.")) == ""
    assert read("Where's the spare key?", rec(0, "The spare's under the frog.")) == "under the frog"


def test_names_joined_by_and_are_one_answer() -> None:
    said = "I've had enough, Kemp and Sons will be doing our acrylic from now on."
    assert read("Who supplies our acrylic sheets?", rec(0, said)) == "Kemp and Sons"
    # Two names "and" does not join are not one.
    said = "I've had enough, Kemp will be doing our acrylic from now on, and Sons Ltd the vinyl."
    assert read("Who supplies our acrylic sheets?", rec(0, said)) == "Kemp"
