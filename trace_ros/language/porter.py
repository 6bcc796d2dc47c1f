"""Porter's suffix-stripping stemmer, as Martin Porter's reference implementation runs it.

This is the algorithm of "An algorithm for suffix stripping" (Porter, 1980) with the
departures of Porter's own reference code: words of one or two characters are left
alone, step 2 maps ``bli`` to ``ble`` (not ``abli`` to ``able``) and adds ``logi`` to
``log``. SQLite's FTS5 ``porter`` tokenizer stems the same way, and so does nltk's
``PorterStemmer(PorterStemmer.MARTIN_EXTENSIONS)``, which this module replaces in the
query path: importing nltk's stemmer runs nltk's package initialiser (scipy, sklearn
and more: about 2.4 s on a busy 2-core machine), longer than a whole ``trace-ros
query`` may take. ``test/engine/test_porter.py`` checks that the stems are identical to
nltk's on a large vocabulary.

Input is one lower-case word. Letters other than ``a e i o u y`` (digits, letters with
diacritics) count as consonants, as in the reference code.

Each step holds a table of suffixes; the longest suffix the word ends with decides the
step: its replacement is made when the condition holds on what precedes the suffix,
and nothing else of that step is tried when it does not.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

_VOWELS = frozenset("aeiou")


def _consonants(word: str) -> list[bool]:
    """Per character, whether it is a consonant: not a vowel, and a ``y`` only at the
    start or after a vowel (``toy``: t and y; ``syzygy``: s, z and g)."""
    flags: list[bool] = []
    for ch in word:
        if ch in _VOWELS:
            flags.append(False)
        elif ch == "y":
            flags.append(not flags or not flags[-1])
        else:
            flags.append(True)
    return flags


def measure(word: str) -> int:
    """Porter's *m*: how many vowel-run/consonant-run pairs ``word`` holds, written
    ``[C](VC){m}[V]`` (``tree``: 0, ``trouble``: 1, ``troubles``: 2)."""
    flags = _consonants(word)
    return sum(1 for before, here in pairwise(flags) if here and not before)


def _has_vowel(word: str) -> bool:
    return not all(_consonants(word))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonants(word)[-1]


def _cvc(word: str) -> bool:
    """Ends consonant-vowel-consonant, the last not ``w``, ``x`` or ``y`` (``hop``)."""
    if len(word) < 3 or word[-1] in "wxy":
        return False
    flags = _consonants(word)
    return flags[-3] and not flags[-2] and flags[-1]


_Rule = tuple[str, Callable[[str], bool]]
_Table = dict[str, _Rule]
# id of a step table (module constants, complete before the first stem) -> its suffix
# lengths, longest first.
_SIZES: dict[int, tuple[int, ...]] = {}


def _m_above(n: int) -> Callable[[str], bool]:
    return lambda stem: measure(stem) > n


def _table(pairs: str, condition: Callable[[str], bool]) -> _Table:
    """``"ational>ate tional>tion"`` as a table, every rule under ``condition``."""
    out: _Table = {}
    for pair in pairs.split():
        suffix, _, replacement = pair.partition(">")
        out[suffix] = (replacement, condition)
    return out


def _apply(word: str, table: _Table) -> str:
    """The step ``table`` on ``word`` (see the module docstring)."""
    sizes = _SIZES.get(id(table))
    if sizes is None:
        sizes = _SIZES[id(table)] = tuple(sorted({len(s) for s in table}, reverse=True))
    for size in sizes:
        if len(word) >= size and (rule := table.get(word[-size:])) is not None:
            replacement, condition = rule
            stem = word[:-size]
            return stem + replacement if condition(stem) else word
    return word


_ALWAYS: Callable[[str], bool] = lambda stem: True  # noqa: E731

_STEP1A = _table("sses>ss ies>i ss>ss s>", _ALWAYS)
_STEP2 = _table("ational>ate tional>tion enci>ence anci>ance izer>ize bli>ble alli>al "
                "entli>ent eli>e ousli>ous ization>ize ation>ate ator>ate alism>al "
                "iveness>ive fulness>ful ousness>ous aliti>al iviti>ive biliti>ble "
                "logi>log", _m_above(0))
_STEP3 = _table("icate>ic ative> alize>al iciti>ic ical>ic ful> ness>", _m_above(0))
_STEP4 = _table("al> ance> ence> er> ic> able> ible> ant> ement> ment> ent> ou> ism> "
                "ate> iti> ous> ive> ize>", _m_above(1))
_STEP4["ion"] = ("", lambda stem: measure(stem) > 1 and stem[-1] in "st")


def _step1b(word: str) -> str:
    if word.endswith("eed"):
        return word[:-1] if measure(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(stem := word[:-len(suffix)]):
            break
    else:
        return word
    if stem.endswith(("at", "bl", "iz")):
        return stem + "e"
    if _double_consonant(stem):
        return stem if stem[-1] in "lsz" else stem[:-1]
    if measure(stem) == 1 and _cvc(stem):
        return stem + "e"
    return stem


def _step1c(word: str) -> str:
    if word.endswith("y") and _has_vowel(word[:-1]):
        return word[:-1] + "i"
    return word


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        m = measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            word = stem
    if word.endswith("ll") and measure(word[:-1]) > 1:
        word = word[:-1]
    return word


def porter_stem(word: str) -> str:
    """The Porter stem of ``word`` (lower case in, lower case out)."""
    if len(word) <= 2:
        return word
    word = _apply(word, _STEP1A)
    word = _step1c(_step1b(word))
    for table in (_STEP2, _STEP3, _STEP4):
        word = _apply(word, table)
    return _step5(word)
