"""How a value of the kind asked is read and said: a part said before its noun is an
amount, the speaker's "I'll" is no name, and a resolved day keeps the weekday said."""

from __future__ import annotations

import calendar
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.query.readers import _dated
from trace_ros.query.spans import names_in, quantities


def test_a_part_said_before_its_noun_is_an_amount() -> None:
    assert quantities("Pepper's down to a quarter tablet now.") == [(17, "a quarter tablet")]
    assert read("How much metacam does Pepper get?",
                rec(1, "Pepper gets a quarter tablet of metacam now.")) == "a quarter tablet"
    # With "of" it is read whole, as before.
    assert quantities("a third of a scoop") == [(0, "a third of a scoop")]


def test_the_speakers_contracted_i_is_no_name() -> None:
    assert names_in("Ishbel's away, so I'll be doing your hens myself.", set(), set()) == []
    assert names_in("Ishbel's away, so Calum will do the hens.", set(), set()) \
        == [(18, "Calum")]


def test_a_resolved_day_keeps_the_weekday_and_part_of_day_said() -> None:
    monday = float(calendar.timegm((2025, 11, 17, 0, 0, 0, 0, 0, 0)))
    assert _dated("monday afternoon", monday) == "Monday afternoon, 17 November 2025"
    assert _dated("mondays", monday) == "Monday 17 November 2025"
    # A weekday that is not the anchor's is not put beside it.
    assert _dated("friday", monday) == "17 November 2025"
