""""How old is my dad?": an age said in words with when it holds ("he's eighty-two as of
Tuesday", "Ollie's eight this year") is stated of the one the question names by a common
noun or a name (ages._whom, ages._age_ends); another's age, or a number something else
follows, is not."""

from __future__ import annotations

import calendar

from trace_ros.ledger import SourceRecord
from trace_ros.query.ages import _stated_age, _whom, age_answer
from trace_ros.query.pack import EvidenceItem, Pack

DAY = 86400.0
T0 = float(calendar.timegm((2025, 3, 3, 9, 0, 0, 0, 0, 0)))


def _pack(*texts: str) -> Pack:
    return Pack([EvidenceItem(SourceRecord(i, f"s-{i}", "ann", "", "s1", "dialogue", "Rosa",
                                           text, "", None, None, {}, T0 + i * DAY, False,
                                           T0 + i * DAY, "h"), 1.0, {"dense": i})
                 for i, text in enumerate(texts, 1)])


def test_an_age_with_when_it_holds_is_stated() -> None:
    assert _stated_age("Dad had his birthday, so he's eighty-two as of Tuesday. Cake!",
                       {"dad"}) == "eighty-two"
    assert _stated_age("My sister says Ollie's eight this year, not seven.", {"olli"}) == "eight"
    # A number something else follows is no age ("six this week on nights").
    assert _stated_age("He's six this week on nights.", {"dad"}) == ""


def test_the_question_names_whom_by_a_noun_or_a_whole_name() -> None:
    assert _whom("How old is my dad?") == {"dad"}
    assert _whom("How old is my nephew Ollie turning?") == {"nephew", "olli"}
    assert _whom("How old will Sam be on the trip?") == {"sam"}
    assert _whom("How old is Ivy-Rose?") == {"ivy-ros"}
    assert _whom("How old am I?") == set()


def test_the_age_of_the_one_asked_is_read_and_not_another_s() -> None:
    p = _pack("Mum's seventy-nine, she stays home with the cat.",
              "Dad had his birthday yesterday, so he's eighty-two as of Tuesday.")
    out = age_answer("How old is my dad?", p, "x")
    assert out is not None and out.answer == "eighty-two" and out.cited_ids == ["s-2"]
    out = age_answer("How old is my mum?", p, "x")
    assert out is not None and out.answer == "seventy-nine" and out.cited_ids == ["s-1"]
    assert age_answer("How old is my sister?", p, "x") is None


def test_a_name_spoken_to_leaves_the_age_to_the_one_the_turn_before_names() -> None:
    p = _pack("Mango the parrot's in Thursday. He's eighteen.",
              "No, Jac, he's twenty-eight. The owner told me.")
    out = age_answer("How old is Mango?", p, "x")
    assert out is not None and out.answer == "twenty-eight" and out.cited_ids == ["s-2"]


def test_a_teen_age_is_read_whole_not_as_its_unit() -> None:
    """"Leif turned fourteen": fourteen, not "four" (the teens are tried before the units,
    and an age is a whole word); "she's sixteen." is stated at all. A unit said alone is
    still one ("turned four"), and "seventeenth" is no age."""
    assert _stated_age("Leif turned fourteen on Sunday and already thinks he's the skipper.",
                       {"leif"}) == "fourteen"
    assert _stated_age("Honestly, she's sixteen.", {"she"}) == "sixteen"
    assert _stated_age("Ollie turned four on Sunday, cake everywhere.", {"olli"}) == "four"
    assert _stated_age("She's seventeenth in the queue for the flat.", {"she"}) == ""
