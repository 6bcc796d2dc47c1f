"""The shared function words (``language/vocab.py``) and the one figure-with-unit pattern
(``amounts.FIGURE_UNIT``) the modules read them from."""

from __future__ import annotations

import re

from trace_ros.language.vocab import AUXILIARIES, BE_FORMS, DO_AUXILIARIES, HAVE_FORMS, MODALS
from trace_ros.query.amounts import FIGURE_UNIT, with_unit


def test_the_auxiliaries_are_be_have_do_and_the_modals() -> None:
    kinds = (BE_FORMS, HAVE_FORMS, DO_AUXILIARIES, MODALS)
    assert AUXILIARIES == frozenset().union(*kinds)
    assert sum(map(len, kinds)) == len(AUXILIARIES) == 20  # no word in two kinds
    assert BE_FORMS == {"am", "is", "are", "was", "were"}
    assert {"must", "shall", "might"} <= MODALS and not {"be", "been", "get"} & AUXILIARIES


def test_an_alternation_of_the_auxiliaries_reads_whole_words() -> None:
    from trace_ros.query.spans import _AUX_RX

    rx = re.compile(rf"\b(?:{_AUX_RX})\b")
    assert rx.fullmatch("does") and rx.fullmatch("might")
    assert not rx.search("dog days") and not rx.search("mayor")


def test_a_figure_with_its_unit() -> None:
    m = FIGURE_UNIT.fullmatch("1,200 calories")
    assert m and m.groups() == ("1,200", "calories")
    assert [m.groups() for m in FIGURE_UNIT.finditer("was 45p a mile, then 2.5 kg")] \
        == [("45", "p"), ("2.5", "kg")]
    assert not FIGURE_UNIT.search("v1.5kg")  # a figure inside a word is no figure


def test_a_bare_amount_takes_only_a_plain_figures_unit() -> None:
    told = [(None, "40mg", 1.0), (None, "1,200 calories", 1.0)]
    # "1,200 calories" is a figure with a unit, but not one written plain: the one unit the
    # plain figures use is "mg".
    assert with_unit("25", told) == "25 mg"
