""""What's my role …?" where no record says "role": after the cited record and the graph
stage's current one, the role filler reads the other shown records, newest first, that say
no word of the question but the name of the one asked about ("they made me chairman" after
"I'm band secretary now"); one said of "me" must be the asker's own, and a record that says
the question's words ("as a volunteer reader in Reception") is not read that way
(names.role_filler)."""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.names import role_filler
from trace_ros.query.pack import EvidenceItem, Pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readout import ReaderOutput
from trace_ros.query.spans import asked

DAY = 86400.0
T0 = float(calendar.timegm((2025, 3, 3, 9, 0, 0, 0, 0, 0)))


def _pack(*texts: tuple[str, str]) -> Pack:
    """Records given as (speaker, text), in the order they were said."""
    return Pack([EvidenceItem(SourceRecord(i, f"s-{i}", "m", "", "s1", "dialogue", speaker,
                                           text, "", None, None, {}, T0 + i * DAY, False,
                                           T0 + i * DAY, "h"), 1.0, {"dense": i})
                 for i, (speaker, text) in enumerate(texts, 1)])


def _role(question: str, p: Pack, asker: str = "Marcus") -> str:
    ask = asked(question, plan_question(question, T0 + 30 * DAY))
    out = role_filler(ask, question, ReaderOutput("band secretary", ["s-1"], "x"), p, asker)
    return out.answer if out is not None else ""


OLD = ("Marcus", "I'm band secretary, took over from Jean.")


def test_a_role_given_later_without_the_questions_words_is_read() -> None:
    p = _pack(OLD, ("Marcus", "Change of plan, at the AGM they made me chairman."))
    assert _role("What's my role in the band?", p) == "chairman"
    p = _pack(OLD, ("Marcus", "Jean's staying on as treasurer."))
    assert _role("What is Jean's role in the band?", p) == "treasurer"


def test_another_speakers_me_or_a_record_about_the_question_is_not_read() -> None:
    p = _pack(OLD, ("Sheila", "Change of plan, at the AGM they made me chairman."))
    assert _role("What's my role in the band?", p) == ""
    p = _pack(OLD, ("Marcus", "I'm helping the band on Tuesdays as a volunteer reader."))
    assert _role("What's my role in the band?", p) == ""


def test_a_name_after_a_preposition_is_no_holder() -> None:
    p = _pack(OLD, ("Marcus", "I'm helping in Reception on Tuesdays as a volunteer reader."))
    assert _role("What book am I reading with Reception?", p) == ""
