"""Values read from their shape, whatever the thing: a count.

``revision.replaces`` knows the specific values (a weekday, a month, a figure, a name);
people give many new values in words it leaves as vague ("Twelve hives now" after
"fourteen hives"). A *count* says what kind of value a word is without knowing what it
is about: a cardinal (a figure or number words, "forty-two") right before the shared word
it counts ("Forty-two families", "3 tablets"); a word it makes with a hyphen
("two-hourly") is a word of its own. Closed-class words only: the number words.
"""

from __future__ import annotations

import re

from ..language.text import stem as _stem
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
    toks: list[str] = []
    for m in _HYPHENED.finditer(sentence.lower()):
        parts = m.group(0).split("-")
        # "forty-two" is one number; "two-hourly" no count of anything
        numeral = all(p in _UNITS or p in _TENS for p in parts)
        toks.extend(parts if numeral else [m.group(0)])
    out: dict[str, int] = {}
    for i, w in enumerate(toks[1:], 1):
        n = _cardinal(toks, i - 1) if _stem(w) in shared else None
        if n is not None:
            out[_stem(w)] = n
    return out


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
