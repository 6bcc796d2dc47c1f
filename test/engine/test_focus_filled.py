""""Which/what X …?" answers the reader's focus check lets stand (focus.focus_filled): one
word made of a word and X ("greenhouse" for which house), X said in the singular for a
plural asked ("the side gate key" for which keys), and a clock time the graph stage's
current record gives in place of the time a superseded record of the same speaker gave,
where a record names X. Their look-alikes still decline."""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.focus import _compound_of, _time_in_place, focus_filled
from trace_ros.query.pack import EvidenceItem, Pack
from trace_ros.query.readout import ReaderOutput
from trace_ros.query.spans import Asked

DAY = 86400.0
T0 = float(calendar.timegm((2025, 5, 5, 9, 0, 0, 0, 0, 0)))


def _pack(*texts: tuple[str, str, dict[str, int]]) -> Pack:
    """Records given as (text, speaker, routes), in the order they were said."""
    return Pack([EvidenceItem(SourceRecord(i, f"s-{i}", "ann", "", "s1", "dialogue", speaker,
                                           text, "", None, None, {}, T0 + i * DAY, False,
                                           T0 + i * DAY, "h"), 1.0, routes)
                 for i, (text, speaker, routes) in enumerate(texts, 1)])


def _out(answer: str, cited: str = "s-2") -> ReaderOutput:
    return ReaderOutput(answer, [cited], "x")


def test_one_word_made_of_a_word_and_x_is_a_kind_of_x() -> None:
    assert _compound_of("the greenhouse", "house")
    assert not _compound_of("my house", "house")  # owns it, tells none apart
    assert not _compound_of("a mouse", "house") and not _compound_of("house", "house")
    assert not _compound_of("the big greenhouse", "house")  # not one word
    p = _pack(("The seedlings live at the allotment shed.", "Ann", {"dense": 1}),
              ("Seedlings in the greenhouse.", "Ann", {"dense": 2}))
    q = "Which house are the seedlings in?"
    assert focus_filled(Asked("which", "house"), q, _out("greenhouse"), p)


def test_x_said_in_the_singular_tells_which_of_the_plural_asked() -> None:
    p = _pack(("Leon has the garage key.", "Ann", {"dense": 1}),
              ("Leon, take the side gate key too while Mia is away.", "Ann", {"dense": 2}))
    q = "Which keys does Leon hold?"
    assert focus_filled(Asked("which", "keys"), q, _out("side gate key"), p)
    # No word beside the key tells it apart.
    assert not focus_filled(Asked("which", "keys"), q, _out("the key"), p)


OLD = ("I ride the 6:40 into town for my early shift.", "Ann", {"dense": 1, "superseded": 1})
NEW = ("The shift starts later now, so it's the ten past eight bus for me.", "Ann",
       {"dense": 2, "graph": 1})
Q = "Which bus do I ride into town?"


def test_a_time_given_in_place_of_a_superseded_time_tells_which_x() -> None:
    ask = Asked("which", "bus")
    assert _time_in_place(ask, Q, _out("ten past eight"), _pack(OLD, NEW))
    assert focus_filled(ask, Q, _out("ten past eight"), _pack(OLD, NEW))


def test_a_time_without_a_change_of_the_same_speaker_or_with_a_day_asked_declines() -> None:
    ask = Asked("which", "bus")
    # Not the graph stage's current record.
    listed = (NEW[0], "Ann", {"dense": 2})
    assert not _time_in_place(ask, Q, _out("ten past eight"), _pack(OLD, listed))
    # The earlier time is another speaker's.
    theirs = (OLD[0], "Bob", OLD[2])
    assert not _time_in_place(ask, Q, _out("ten past eight"), _pack(theirs, NEW))
    # The earlier time is not superseded: nothing was changed.
    kept = (OLD[0], "Ann", {"dense": 1})
    assert not _time_in_place(ask, Q, _out("ten past eight"), _pack(kept, NEW))
    # A question that gives its own day asks no time.
    assert not _time_in_place(ask, "Which bus do I ride into town on Friday?",
                              _out("ten past eight"), _pack(OLD, NEW))
    # No record names the X asked: the time may be anything else of the thing.
    team = Asked("which", "team")
    assert not _time_in_place(team, "Which team do I ride into town with?",
                              _out("ten past eight"), _pack(OLD, NEW))
    assert not focus_filled(team, "Which team do I ride into town with?",
                             _out("ten past eight"), _pack(OLD, NEW))
