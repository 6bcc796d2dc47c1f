"""Which of the records that state a value the reader treats as revisions of one state."""

from __future__ import annotations

from types import SimpleNamespace

from trace_ros.query.amounts import revisions_of


def _found(cover: float, overlap: float, value: str = "Thursday") -> tuple:
    return (SimpleNamespace(overlap=overlap), value, cover)


def test_revisions_cover_enough_and_match_enough_of_the_question() -> None:
    a, b, c = _found(1.0, 1.0), _found(0.5, 0.6), _found(0.2, 1.0)
    assert revisions_of([a, b, c], 0.4, 0.3) == [a, b]


def test_never_none_when_the_widest_matches_few_words_and_the_best_match_covers_little() -> None:
    # One record covers most of what is asked with few of the question's words, the other
    # matches the words and covers little: neither passes both, and before this the
    # reader raised on an empty list instead of answering.
    wide, matching = _found(1.0, 0.33), _found(0.33, 1.13)
    assert revisions_of([wide, matching], 0.4, 0.3) == [wide]


def test_a_record_matching_no_word_is_not_held_back_by_the_match() -> None:
    plain, best = _found(0.9, 0.0), _found(1.0, 2.0)
    assert revisions_of([plain, best], 0.4, 0.3) == [plain, best]
