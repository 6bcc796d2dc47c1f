"""Values read from their shape, whatever the thing: a count.

``revision.replaces`` knows the specific values (a weekday, a month, a figure, a name);
people give many new values in words it leaves as vague ("Twelve hives now" after
"fourteen hives"). A *count* says what kind of value a word is without knowing what it
is about: a cardinal (a figure or number words, "forty-two") right before the shared word
it counts ("Forty-two families", "3 tablets"); a word it makes with a hyphen
("two-hourly") is a word of its own. An *ordinal* after "my" / "our" numbers the speaker's
own ("my fourth tournament"): a higher one later means one more was had (``counted_on``).
Closed-class words only: the number words, the ordinals and the two possessives.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..language.monthday import SUFFIX
from ..language.revision import is_value_word
from ..language.text import STOPWORDS, sentences, tokens
from ..language.text import stem as _stem
from ..language.timeanchor import ordinal_value, tense
from ..language.vocab import TENS as _TENS
from ..language.vocab import UNITS as _UNITS
from .things import naming

_HYPHENED = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")


def _cardinal(toks: list[str], i: int) -> int | None:
    """The number the cardinal ending at ``toks[i]`` names (a figure, "twelve", "forty
    two"), or None."""
    w = toks[i]
    if w.isdigit():
        return int(w)
    if w in _UNITS:
        return _UNITS[w] + (_TENS[toks[i - 1]] if i and toks[i - 1] in _TENS else 0)
    return _TENS.get(w)


def counts(sentence: str, shared: frozenset[str]) -> dict[str, int]:
    """The number ``sentence`` counts each ``shared`` word by: a cardinal right before it
    ("Forty-two families on the list", "twelve hives", "3 tablets")."""
    out: dict[str, int] = {}
    for st, n in _counted_words(sentence):
        if st in shared:
            out[st] = n
    return out


@lru_cache(maxsize=8192)  # a statement's sentences are read for every pair it is in
def _counted_words(sentence: str) -> tuple[tuple[str, int], ...]:
    """Each word of ``sentence`` a cardinal right before it counts, as (its stem, the
    number), in order."""
    toks: list[str] = []
    for m in _HYPHENED.finditer(sentence.lower()):
        parts = m.group(0).split("-")
        # "forty-two" is one number; "two-hourly" no count of anything
        numeral = all(p in _UNITS or p in _TENS for p in parts)
        toks.extend(parts if numeral else [m.group(0)])
    out: list[tuple[str, int]] = []
    for i, w in enumerate(toks[1:], 1):
        n = _cardinal(toks, i - 1)
        if n is not None:
            out.append((_stem(w), n))
    return tuple(out)


def recounted(old: str, new: str, shared: frozenset[str]) -> frozenset[str]:
    """The ``shared`` words a sentence of ``new`` counts by another number than a sentence
    of ``old`` does ("Six sopranos." … "Eight sopranos."): one count gave way to another."""
    def counted(text: str) -> dict[str, set[int]]:
        out: dict[str, set[int]] = {}
        for s in naming(text, shared):
            for t, n in counts(s, shared).items():
                out.setdefault(t, set()).add(n)
        return out
    before, after = counted(old), counted(new)
    return frozenset(t for t in before.keys() & after.keys() if after[t] - before[t])


def shaped(old: str, new: str, shared: frozenset[str]) -> tuple[str, str]:
    """The counts a change gave up and gave, as an edge's evidence ("14 hive", "12
    hive"), of the words ``recounted`` finds; empty strings when none."""
    recount = recounted(old, new, shared)

    def said(text: str) -> str:
        return ", ".join(sorted({f"{n} {t}" for s in naming(text, shared)
                                 for t, n in counts(s, recount).items()}))
    return said(old), said(new)


# The speaker's own: an ordinal after one of these numbers a thing of theirs ("my fourth
# tournament"), not a rank of another's ("the first to arrive", "the 4th quarter").
_OWN = frozenset({"my", "our"})
# How many words after the ordinal may name the thing ("my fourth video game tournament").
_ORDINAL_REACH = 3
# What may be "my/our <ordinal>": every ordinal, figure or word, ends in st, nd, rd or th.
_MAY_NUMBER = re.compile(rf"\b(?:my|our)[\W_]+[^\W_]*{SUFFIX}\b", re.I)


def ordinals(sentence: str) -> dict[str, int]:
    """The things ``sentence`` numbers as the speaker's own by an ordinal, by stem: the
    content words right after "my/our <ordinal>" ("I won my fourth video game tournament"
    gives video, game and tournament 4), up to the first function or value word."""
    toks = [w.lower() for w in tokens(sentence)]
    out: dict[str, int] = {}
    for i, w in enumerate(toks[:-2]):
        n = ordinal_value(toks[i + 1]) if w in _OWN else 0
        for t in toks[i + 2:i + 2 + _ORDINAL_REACH] if n else ():
            if t in STOPWORDS or is_value_word(t) or len(t) < 3:
                break
            out[_stem(t)] = max(n, out.get(_stem(t), 0))
    return out


def numbered(text: str, ahead: bool = False) -> dict[str, int]:
    """The highest ordinal each thing of the speaker's own gets in a sentence of ``text``
    (``ordinals``) that is no question, nor a plan unless ``ahead`` ("it's gonna be my
    4th one" numbers what is yet to come)."""
    out: dict[str, int] = {}
    if not _MAY_NUMBER.search(text) or not ordinals(text):
        return out  # (most turns number nothing: tense is read only where one does)
    for s in sentences(text) or [text]:
        got = ordinals(s)
        if not got or s.rstrip().endswith("?") or not ahead and tense(s) == "future":
            continue
        for t, n in got.items():
            out[t] = max(n, out.get(t, 0))
    return out


def counted_on(old: str, new: str) -> dict[str, tuple[int, int]]:
    """The things ``new`` numbers by a higher ordinal than ``old`` does, with the two
    ordinals ("my second tournament" … "my fourth video game tournament": tournament
    (2, 4)): one more of the speaker's own was had since. ``new``'s statements only, not
    its questions or plans: what it tells has happened or holds."""
    before, after = numbered(old, ahead=True), numbered(new)
    return {t: (before[t], after[t]) for t in before.keys() & after.keys()
            if after[t] > before[t]}
