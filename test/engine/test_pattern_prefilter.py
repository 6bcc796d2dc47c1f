"""Patterns built from a question's word are neither compiled nor run on a text that
cannot hold the word (issue 16 point 3, ``language.text.may_hold``): the answers stay
those of the pattern itself, also where ``re.I`` folds beyond ``str.lower`` (the
Kelvin sign is a "k", the long s an "s")."""

from __future__ import annotations

import re

import pytest

from trace_ros.language.caches import forget_texts
from trace_ros.language.text import may_hold
from trace_ros.query import spans

KELVIN = "\u212a"  # matches "k" under re.I, lower-cases to a plain "k"
LONG_S = "\u017f"  # matches "s" under re.I; str.lower leaves it alone


@pytest.mark.parametrize(("text", "word", "held"), [
    ("Locker 7 is mine", "locker", True),
    ("They moved me to room 9", "locker", False),
    ("", "locker", False),
    ("anything", "", True),
    (f"{KELVIN}ennel nine", "kennel", True),
    (f"Ro{LONG_S}e garden", "rose", True),
    ("Rose garden", f"ro{LONG_S}e", True),
])
def test_may_hold_is_false_only_where_no_re_i_pattern_of_the_word_matches(text, word, held):
    assert may_hold(text, word) is held
    if not held:
        assert re.search(re.escape(word), text, re.I) is None


def test_no_label_pattern_is_built_for_a_text_without_the_noun():
    forget_texts()
    assert spans.labelled("locker", "They moved me to room 9 on Monday.") == ""
    assert spans._label_patterns.cache_info().misses == 0  # fails without the check
    assert spans.labelled("locker", "My locker is 27.") == "locker 27"
    assert spans._label_patterns.cache_info().misses == 1


def test_labels_said_in_folded_letters_are_still_found():
    # Non-ASCII text: the patterns decide, as before.
    assert spans.labelled("kennel", f"Rex is in {KELVIN}ennel 4 now.") == f"{KELVIN}ennel 4"


def test_no_copula_pattern_is_built_for_a_sentence_without_the_focus():
    forget_texts()
    sentence = "Mossbank is lovely in spring"
    assert spans._focus_phrase(sentence, spans.tokens(sentence), "town", 6, set()) == ""
    assert spans._copula_ending.cache_info().misses == 0
