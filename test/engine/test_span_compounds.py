"""A hyphenated compound word is one word of an answer: a span neither cuts it in the
middle nor drops its first part because that part alone would be a function word."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.language.text import stems
from trace_ros.query.spans import place_phrase


def test_a_place_phrase_keeps_a_compound_whose_first_part_is_a_function_word() -> None:
    said = "And weekend emergency calls now go to the out-of-hours service, not me."
    assert place_phrase(said, stems("Where do weekend emergency calls go?")) \
        == "out-of-hours service"


def test_the_words_before_the_noun_asked_keep_a_whole_compound() -> None:
    assert read("What milk do the twins drink now?",
                rec(1, "The doctor's said try them on lactose-free cow's milk.")) \
        == "lactose-free cow's milk"


def test_a_phrase_without_a_compound_is_cut_as_before() -> None:
    # The limit still counts words: a plain phrase is cut after that many, but not between
    # two content words of a noun phrase (the run goes on to its head, at most two words
    # more: span52).
    said = "The spare keys are in the old blue garden shed by the back gate."
    assert place_phrase(said, stems("Where are the spare keys?"), limit=3) \
        == "old blue garden shed"
    assert place_phrase(said, stems("Where are the spare keys?"), limit=2) == "old blue garden"
    assert place_phrase(said, stems("Where are the spare keys?")) == "old blue garden shed"
