"""The value a record gives the X of "what/which X …?" by where X stands in its clause
(query.headed): X heading a copula's subject (with a short relative clause between), a
name set beside X in apposition, and X heading a noun phrase with words that tell it
apart; from the graph stage's current record, the cited one, then the other shown
records newest first, never a superseded or another holder's record, and only from a
sentence about what is asked. Look-alikes that state no value still give none, and
the reader still abstains where no record states one."""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.headed import headed_value, named_value
from trace_ros.query.pack import EvidenceItem, Pack
from trace_ros.query.readout import ReaderOutput
from trace_ros.query.spans import Asked

from .readerkit import read, rec

DAY = 86400.0
T0 = float(calendar.timegm((2025, 5, 5, 9, 0, 0, 0, 0, 0)))


def _pack(*texts: tuple[str, str, dict[str, int]]) -> Pack:
    """Records given as (text, speaker, routes), in the order they were said."""
    return Pack([EvidenceItem(SourceRecord(i, f"s-{i}", "ann", "", "s1", "dialogue", speaker,
                                           text, "", None, None, {}, T0 + i * DAY, False,
                                           T0 + i * DAY, "h"), 1.0, routes)
                 for i, (text, speaker, routes) in enumerate(texts, 1)])


def _value(kind: str, focus: str, question: str, pack: Pack, cited: str = "s-1") -> str:
    out = headed_value(Asked(kind, focus), question, ReaderOutput("x", [cited], "x"), pack)
    return "" if out is None else f"{out.answer}@{out.cited_ids[0]}"


def test_x_heading_a_copulas_subject_gives_its_complement() -> None:
    p = _pack(("Shoot day plans are in the folder.", "Ann", {"dense": 1}),
              ("For portraits the fill lamp is the tall softbox, camera right.", "Ann",
               {"dense": 2}))
    assert _value("which", "lamp", "Which lamp is the fill lamp for portraits?", p) \
        == "the tall softbox@s-2"


def test_a_short_relative_clause_may_stand_between_x_and_the_copula() -> None:
    p = _pack(("The kids tidy their own bedrooms now, so the only room to skip is the "
               "office.", "Ann", {"dense": 1}))
    assert _value("which", "room", "Which room should the cleaner skip?", p) \
        == "the office@s-1"
    q = _pack(("The locker we use is 31, by the showers.", "Ann", {"dense": 1}))
    assert _value("which", "locker", "Which locker do we use?", q) == "31@s-1"


def test_a_name_set_beside_x_in_apposition_is_its_value() -> None:
    p = _pack(("My gran has moved into Larchfield Court, the care home by the park.", "Ann",
               {"dense": 1}),)
    assert _value("which", "home", "Which care home is my gran in?", p) \
        == "Larchfield Court@s-1"


def test_x_with_words_before_it_that_tell_it_apart() -> None:
    p = _pack(("My brother Omar does the Friday breakfast shift.", "Ann", {"dense": 1}),)
    assert _value("which", "shift", "Which shift does Omar work?", p) \
        == "Friday breakfast shift@s-1"


def test_the_current_record_comes_before_an_older_one_and_a_superseded_is_never_read() -> None:
    p = _pack(("Omar does the Friday breakfast shift.", "Ann", {"dense": 1}),
              ("Omar swapped, he does the Sunday supper shift now.", "Ann", {"graph": 1}))
    assert _value("which", "shift", "Which shift does Omar work?", p) \
        == "Sunday supper shift@s-2"
    gone = _pack(("Omar does the Friday breakfast shift.", "Ann", {"superseded": 1}),
                 ("Omar swapped with Jo.", "Ann", {"graph": 1}))
    assert _value("which", "shift", "Which shift does Omar work?", gone) == ""
    theirs = _pack(("Omar does the Friday breakfast shift.", "Ann", {"other": 1}),)
    assert _value("which", "shift", "Which shift does Omar work?", theirs) == ""


def test_look_alikes_that_state_no_value_give_none() -> None:
    q = "Which shift does Omar work?"
    # A word that orders or owns X tells none apart; a count neither.
    assert _value("which", "shift", q, _pack(("Omar has a new shift.", "Ann", {}),)) == ""
    assert _value("which", "shift", q, _pack(("Omar does three shifts.", "Ann", {}),)) == ""
    # A sentence about someone else's X.
    assert _value("which", "shift", q,
                  _pack(("My sister does the Sunday lunch shift.", "Ann", {}),)) == ""
    # What X does, or a time, is no value of it.
    van = "Which van is doing the Hale job?"
    assert _value("which", "van", van,
                  _pack(("The Hale van is being fixed.", "Ann", {}),)) == ""
    assert _value("which", "room", "Which room is the Hale meeting in?",
                  _pack(("The Hale meeting room is on Friday.", "Ann", {}),)) == ""
    # A name said to someone first in the sentence is whom it is said to.
    assert _value("which", "company", "Which coach company takes us to the zoo?",
                  _pack(("Gwen, the coach company rang about the zoo.", "Ann", {}),)) == ""
    # The robot's own echo is never read.
    assert _value("which", "shift", q,
                  _pack(("Omar: Friday breakfast shift.", "robot", {}),)) == ""


def test_a_bare_word_that_describes_x_or_x_as_any_one_of_its_kind_gives_none() -> None:
    q = "Which instrument is Omar learning?"
    # A single bare lowercase word after the copula describes X; it names none.
    assert _value("which", "instrument", q,
                  _pack(("Omar says the instrument is hard, but fun.", "Ann", {}),)) == ""
    assert _value("which", "instrument", q,
                  _pack(("Omar's learning, the instrument is lovely.", "Ann", {}),)) == ""
    # X put as any one of its kind: what is said of it tells none apart.
    assert _value("which", "instrument", q,
                  _pack(("For Omar learning another instrument is a big step.", "Ann",
                         {}),)) == ""


def test_a_complement_with_a_determiner_capital_or_figure_still_names_x() -> None:
    q = "Which instrument is Omar learning?"
    assert _value("which", "instrument", q,
                  _pack(("Omar says the instrument is the cello.", "Ann", {}),)) \
        == "the cello@s-1"
    assert _value("which", "instrument", q,
                  _pack(("Omar's learning, the instrument is Bodhrán.", "Ann", {}),)) \
        == "Bodhrán@s-1"
    locker = _pack(("Omar: the locker we use is 31, by the showers.", "Ann", {}),)
    assert _value("which", "locker", "Which locker do we use?", locker) == "31@s-1"


def test_only_what_and_which_questions_with_a_focus_are_read() -> None:
    p = _pack(("My brother Omar does the Friday breakfast shift.", "Ann", {"dense": 1}),)
    assert _value("person", "shift", "Who does the shift with Omar?", p) == ""
    assert _value("which", "", "Which does Omar work?", p) == ""


def _named(kind: str, focus: str, question: str, pack: Pack) -> str:
    out = named_value(Asked(kind, focus), question, pack, "x")
    return "" if out is None else f"{out.answer}@{out.cited_ids[0]}"


def test_the_name_a_record_says_x_is_answers_what_it_is_called_or_who_it_is() -> None:
    p = _pack(("The canoe's called Heron, green with a white stripe.", "Ann", {}),)
    assert _named("name", "canoe", "What's my canoe called?", p) == "Heron@s-1"
    q = _pack(("Our site foreman is Tobias.", "Ann", {}),)
    assert _named("person", "foreman", "Who is our site foreman?", q) == "Tobias@s-1"
    r = _pack(("The plumber's a woman called Ines Marsh, she did next door.", "Ann", {}),)
    assert _named("person", "plumber", "Who is our plumber?", r) == "Ines Marsh@s-1"
    # The newest record first; one the graph stage holds superseded only after every
    # other (its marks may fall on the record of the name now), another holder's never.
    s = _pack(("Our site foreman is Tobias.", "Ann", {}),
              ("Tobias left, our site foreman is Hamid now.", "Ann", {}))
    assert _named("person", "foreman", "Who is our site foreman?", s) == "Hamid@s-2"
    t = _pack(("Our site foreman is Tobias.", "Ann", {}),
              ("Our site foreman is Hamid.", "Ann", {"superseded": 1}))
    assert _named("person", "foreman", "Who is our site foreman?", t) == "Tobias@s-1"
    u = _pack(("Our site foreman is Hamid.", "Ann", {"superseded": 1}),)
    assert _named("person", "foreman", "Who is our site foreman?", u) == "Hamid@s-1"
    v = _pack(("Our site foreman is Hamid.", "Ann", {"other": 1}),)
    assert _named("person", "foreman", "Who is our site foreman?", v) == ""


def test_no_name_said_of_x_gives_none() -> None:
    q = "What's my canoe called?"
    # Another owner's canoe; a day; the question's own word; no capital; the robot's echo.
    assert _named("name", "canoe", q, _pack(("My sister's canoe is called Heron.", "Ann", {}),)) \
        == ""
    assert _named("name", "canoe", q, _pack(("The canoe is Friday, at the lake.", "Ann", {}),)) \
        == ""
    assert _named("name", "canoe", q, _pack(("The canoe is my favourite.", "Ann", {}),)) == ""
    assert _named("name", "canoe", q, _pack(("Canoe is called Heron.", "robot", {}),)) == ""
    # Only name and person questions.
    assert _named("which", "canoe", q, _pack(("The canoe's called Heron.", "Ann", {}),)) == ""


def test_the_reader_answers_from_the_copula_where_it_abstained_and_still_abstains_without() -> None:
    q = "Which room should the cleaner skip?"
    said = rec(2, "The boys will tidy their own rooms, so now the only room to skip is my study.")
    assert read(q, rec(1, "The cleaner comes on Tuesdays."), said) == "my study"
    # No record says which room: still refused.
    assert read(q, rec(1, "The cleaner comes on Tuesdays."),
                rec(2, "The boys will tidy their own rooms from now on.")) == ""


def test_another_owners_x_and_an_amount_of_x_give_none() -> None:
    q = "Which room is Priya's yoga class in?"
    theirs = _pack(("Tom's yoga class is in the Lotus room upstairs.", "Ann", {}),)
    assert _value("which", "room", q, theirs) == ""
    hers = _pack(("Priya's yoga class is in the Lotus room upstairs.", "Ann", {}),)
    assert _value("which", "room", q, hers) == "Lotus room@s-1"
    assert _value("which", "trains", "Which train does Sam take?",
                  _pack(("Sam has had a long week of trains.", "Ann", {}),)) == ""
    assert _named("name", "dog", "What's my dog called?",
                  _pack(("Tom's dog is called Rolo.", "Ann", {}),)) == ""
