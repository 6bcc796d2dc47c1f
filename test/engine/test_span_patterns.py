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


def _whole(focus: str) -> re.Pattern[str]:
    """The noun and the label after it as the one pattern ``_labels`` once built per word."""
    return re.compile(rf"\b({re.escape(focus)}s?)\s+" + spans._LABEL_AFTER.pattern, re.I)


def test_the_label_after_a_noun_is_what_the_one_pattern_found():
    """The noun's pattern per word and the label's compiled once find, in order, what the
    two as one pattern per word found: labels, repeats, a noun with no label before one
    with, an overlapping noun, "is" before a figure, words, lone letters, no "I"."""
    texts = ["They moved my locker from locker 12 to Locker 7C, not locker 12.",
             "Lockers  9 and lockerlocker 4; locker is 27.", "locker I think, locker A.",
             "kennel nine now, kennel two more, kennels Number 5", "room room 3 roomroom 2",
             "the rooms are fine", "desk 2.09 then desk no. 4 and desk No 5", "Suite Sapphire's"]
    for focus in ("locker", "kennel", "room", "desk", "suite", "rooms"):
        noun = spans._label_patterns(focus)[0]
        for text in texts:
            want = [(m.group(1), m.group(2), m.group("words"))
                    for m in _whole(focus).finditer(text)]
            assert list(spans._after(noun, text)) == want
    assert [x[:2] for x in spans._after(spans._label_patterns("locker")[0], texts[1])] \
        == [("Lockers", "9"), ("locker", "27")]
