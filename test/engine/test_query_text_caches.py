"""Readings a question's stages ask again and again are kept, and read the same.

``spans.asked`` (the kind a question asks, read by the plan's stages and every candidate),
``amounts.value_tokens`` (what a shown record states, read for every candidate value)
and ``current._figures`` (the figures of a turn, read for every robot echo the chain
weighs) are cached: a second reading gives the same answer, a different question or plan
gets its own, and a forget empties them like every other reading of a text.
"""

from __future__ import annotations

import calendar
from dataclasses import replace

from trace_ros.language.caches import forget_texts
from trace_ros.query import current
from trace_ros.query.amounts import value_tokens
from trace_ros.query.plan import plan_question
from trace_ros.query.spans import Asked, asked

# Wednesday 4 June 2025, 09:00 UTC.
T0 = float(calendar.timegm((2025, 6, 4, 9, 0, 0, 0, 0, 0)))


def test_asked_is_kept_per_question_and_plan() -> None:
    question = "When is the boiler service?"
    plan = plan_question(question, T0)
    first = asked(question, plan)
    assert first == Asked("when")
    assert asked(question, plan) is first  # read once
    # The same words under a past-tense plan ask of an event, not of a time now.
    assert asked(question, replace(plan, tense="past")) == Asked()
    assert asked("Where is the spare key?", plan_question("Where is the spare key?", T0)) \
        == Asked("place")


def test_value_tokens_are_kept_and_cannot_be_changed() -> None:
    told = value_tokens("Seven tablets at 7:00, twenty-ninth")
    assert told == {"7", "29", "tablet"}  # ("00" is no number said)
    assert isinstance(told, frozenset)  # shared by every caller: never changed in place
    assert value_tokens("Seven tablets at 7:00, twenty-ninth") is told
    assert value_tokens("eight tablets") == {"8", "tablet"}  # another text, its own


def test_figures_are_kept_and_a_forget_empties_them() -> None:
    assert current._figures("he's seven now") == {7.0}
    assert current._figures("he's seven now") is current._figures("he's seven now")
    assert current._figures("one of them, zero fuss") == frozenset()  # no figure said
    forget_texts()
    assert current._figures.cache_info().currsize == 0
    assert asked.cache_info().currsize == 0
    assert value_tokens.cache_info().currsize == 0
