"""Which record the reader cites first (issue 14): not one about someone else by the
title the question gives ("Mr Grady" for "Mrs Grady"), however new; where the robot
acknowledged the graph stage's current record without the value's words, that record;
for a past window, not a state said just after it as new ("… now").

The reader on a Pack, as in ``test_reader_gates.py``.
"""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.pack import EvidenceItem, pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ExtractiveReader

DAY = 86400.0
MAY_8_2023 = float(calendar.timegm((2023, 5, 8, 13, 0, 0, 0, 0, 0)))


def _read(question: str, turns: list[tuple[str, str, str]], lead: str = "") -> tuple[str, list[str]]:
    """``turns``: (session, speaker, text), one a day; ``lead`` the graph stage's current
    record's ID, if any."""
    records = [SourceRecord(i, f"src-{i}", "ann", "r1", session, "dialogue", speaker, text, "",
                            None, None, {}, MAY_8_2023 + i * DAY, False, MAY_8_2023 + i * DAY, "h")
               for i, (session, speaker, text) in enumerate(turns, 1)]
    items = [EvidenceItem(r, 1.0, {"graph": 1} if r.source_id == lead else {}) for r in records]
    out = ExtractiveReader().read(question, plan_question(question, MAY_8_2023 + 30 * DAY),
                                  pack(items, 2000, 20))
    return out.answer, out.cited_ids


GRADY = [
    ("s1", "Ruth", "Mr Grady's insurer has approved eight physio sessions for his back."),
    ("s1", "Ruth", "His wife's starting with us too. Mrs Grady has six physio sessions for her hip."),
    ("s2", "Ruth", "Insurer rang back: Mr Grady has seven physio sessions now."),
]


def test_a_newer_count_of_another_titled_holder_does_not_answer() -> None:
    answer, cited = _read("How many physio sessions is Mrs Grady getting?", GRADY)
    assert cited[:1] == ["src-2"] and "six" in answer, (answer, cited)


def test_the_holder_the_title_names_still_gets_their_newest() -> None:
    answer, cited = _read("How many physio sessions is Mr Grady getting?", GRADY)
    assert cited[:1] == ["src-3"] and "seven" in answer, (answer, cited)


CHRISTMAS = [
    ("s1", "Doreen", "Christmas is sorted. I'm going to Sandra's in Leeds for Christmas."),
    ("s1", "robot", "Sandra's in Leeds for Christmas."),
    ("s2", "Doreen", "Sandra's boiler has packed in, so it's Michael's for Christmas now. Hull."),
    ("s2", "robot", "Michael's in Hull for Christmas, then."),
    ("s3", "Doreen", "You'll never guess, Sandra's boiler's mended. But I'm sticking with "
                     "Michael's, I've bought presents for his lot now."),
    ("s3", "robot", "Still Michael's in Hull for Christmas."),
]


def test_the_robots_acknowledgement_cites_the_current_statement_first() -> None:
    answer, cited = _read("Where am I spending Christmas?", CHRISTMAS, lead="src-5")
    assert cited[:2] == ["src-5", "src-6"] and "Hull" in answer, (answer, cited)


def test_an_acknowledgement_of_no_current_record_cites_the_robot_alone() -> None:
    # No graph stage verdict: the turn before says no value of the answer, and is not cited.
    answer, cited = _read("Where am I spending Christmas?", CHRISTMAS)
    assert "src-5" not in cited, (answer, cited)


TOOLBOX = [
    ("s1", "Maya", "I keep the toolbox in the garage, on the top shelf."),
    ("s2", "Maya", "I drove past the school today, the car park was full."),
    ("s2", "robot", "I tidied up and put your toolbox on the hallway shelf."),
]


def test_a_robots_report_of_its_own_is_no_acknowledgement_of_the_turn_before() -> None:
    # The graph stage's lead is the turn before, which names nothing the robot says: the
    # robot's own report is the source.
    answer, cited = _read("Where is my toolbox?", TOOLBOX, lead="src-2")
    assert cited[:1] == ["src-3"] and "hallway" in answer, (answer, cited)


LUNCH = [
    ("s1", "Pat", "Mrs Lee has the fish pie for lunch."),
    ("s2", "Pat", "Mr Lee has the tomato soup for lunch now."),
]


def test_a_newer_state_of_another_titled_holder_is_not_the_current_one() -> None:
    answer, cited = _read("What does Mrs Lee have for lunch?", LUNCH)
    assert cited[:1] == ["src-1"] and "fish pie" in answer, (answer, cited)
    answer, cited = _read("What does Mr Lee have for lunch?", LUNCH)
    assert cited[:1] == ["src-2"] and "soup" in answer, (answer, cited)


def _at(month: int, day: int) -> float:
    return float(calendar.timegm((2025, month, day, 10, 0, 0, 0, 0, 0)))


def _read_dated(question: str, turns: list[tuple[float, str]], now: float) -> tuple[str, list[str]]:
    records = [SourceRecord(i, f"src-{i}", "ann", "r1", f"s{i}", "dialogue", "Norm", text, "",
                            None, None, {}, when, False, when, "h")
               for i, (when, text) in enumerate(turns, 1)]
    out = ExtractiveReader().read(question, plan_question(question, now),
                                  pack([EvidenceItem(r, 1.0, {}) for r in records], 2000, 20))
    return out.answer, out.cited_ids


VISITS = [
    (_at(9, 24), "My brother Cyril is in the care home across town. I visit him every morning "
                 "at ten."),
    (_at(10, 1), "The staff say Cyril is calmer after lunch, so I visit Cyril in the afternoons "
                 "now, about two."),
]


def test_a_state_marked_new_just_after_the_window_asked_did_not_hold_in_it() -> None:
    # Said a day after September, "now" begins the afternoons: September's visits were at
    # ten (an event told days after it happened would still count for the window).
    answer, cited = _read_dated("What time did I use to visit Cyril in September?", VISITS,
                                _at(11, 20))
    assert cited[:1] == ["src-1"] and "ten" in answer, (answer, cited)
    answer, cited = _read_dated("What time do I visit Cyril?", VISITS, _at(11, 20))
    assert cited[:1] == ["src-2"] and "two" in answer, (answer, cited)
