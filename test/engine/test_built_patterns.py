"""Patterns built per call from a question's words are compiled once (``text.built``):
the same pattern object comes back however many other patterns were built in between
(``re``'s own 512-entry cache drops the oldest), and it finds what ``re`` finds."""

from __future__ import annotations

import re

from trace_ros.language.text import built
from trace_ros.query.focus import a_sum
from trace_ros.query.names import tied_before


def test_built_is_kept_past_res_own_cache() -> None:
    built.cache_clear()
    first = built(r"\bkennel\b", re.I)
    for n in range(600):  # more than re's cache holds
        built(rf"\bword{n}\b", re.I)
        re.compile(rf"\bother{n}\b")
    assert built(r"\bkennel\b", re.I) is first
    assert built.cache_info().currsize == 601


def test_built_tells_flags_and_patterns_apart() -> None:
    cased, folded = built(r"\bKennel\b"), built(r"\bKennel\b", re.I)
    assert cased is not folded
    assert cased.search("the kennel") is None and folded.search("the kennel")
    assert built(r"\bkennels\b").search("the kennel") is None


def test_built_finds_what_re_finds() -> None:
    texts = ["It costs £2.40 now", "it was $5", "2.40 pounds", "£2.405", "$ 5 each"]
    for value in ("2.40", "5"):
        got = [a_sum(value, t) for t in texts]
        want = [bool(re.search(rf"[£$€]\s*{re.escape(value)}(?!\d)", t)) for t in texts]
        assert got == want
    assert a_sum("2.40", "£2.40") and not a_sum("2.40", "£2.405")


def test_tied_before_same_pattern_each_time() -> None:
    a = tied_before("Who is Theo with now?")
    b = tied_before("Who is Theo with now?")
    assert a is b and a is not None
    assert a.search("going out with ") is None  # the question asks through "with"
    assert a.search("waiting for ")  # not through "for"
