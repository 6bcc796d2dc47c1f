"""The span readers' patterns built from a question's words (issue 16 point 3): each is
compiled once per word and kept, so a pass over many questions stops compiling them
again once ``re``'s own cache overflows, and what they find is what the pattern built
afresh finds; a forget empties them with the other text caches."""

from __future__ import annotations

import re

from trace_ros.language.caches import forget_texts
from trace_ros.language.text import stem
from trace_ros.query import spans

BUILDERS = (spans._copula_ending, spans._name_locating, spans._not_before, spans._label_patterns)


def test_a_word_s_patterns_are_compiled_once_and_kept():
    forget_texts()
    for word in ("locker", "the Old Mill", "7C"):
        for build in BUILDERS:
            first = build(word)
            re.purge()  # what a full re cache does to patterns made on the fly
            assert build(word) is first
    assert all(b.cache_info().hits == 3 and b.cache_info().misses == 3 for b in BUILDERS)
    forget_texts()
    assert all(b.cache_info().currsize == 0 for b in BUILDERS)


def test_kept_patterns_find_what_the_span_readers_found():
    text = "They moved my locker from locker 12 to Locker 7C, not locker 12, near the Bay Gym."
    for _ in range(2):  # built, then kept
        assert spans.labelled("locker", text, "Which locker is mine now?", "locker 12") \
            == "Locker 7C"
        assert spans.said_not("locker 12", text) and not spans.said_not("7C", text)
        assert spans.place_phrase("Pia works at Hartley Bakery on the Quay.", set()) \
            == "Hartley Bakery on the Quay"
        asked = {stem("sleepy"), stem("coastal")}  # "Which sleepy coastal town …?"
        assert spans._focus_phrase("Mossbank is a sleepy coastal town", spans.tokens(
            "Mossbank is a sleepy coastal town"), "town", 6, asked) == "Mossbank"


def test_many_words_stay_within_the_bound():
    forget_texts()
    for i in range(spans._BUILT + 50):
        spans._not_before(f"value{i}")
    assert spans._not_before.cache_info().currsize == spans._BUILT
