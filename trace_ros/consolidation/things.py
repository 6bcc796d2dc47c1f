"""What two statements name as one thing: the words of ``supersede.py``'s rules and of the
fitted judgement (``judge.py``) that read a shared word as the head of a noun phrase.

A shared word is a *thing* when it heads a noun phrase ("the festival", "our big shop",
"that transport lot"): within two words after a determiner. Two statements naming it
with different words before it, neither used by the other ("the choir rehearsal" / "the
orchestra rehearsal"), name two things of one kind. Closed-class words only.

A shared stem of ``SHORT_STEM`` letters or fewer is as often a generic verb's or
adjective's ("go", "put", "new", "bit") as a thing's ("tea", "van", "gym", "bus"), and
no length tells which: such a stem counts (``thing_terms``) only where both statements
name it as a thing, and neither joins it to a different noun after it ("the car park" /
"the car service").
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..language.revision import QUESTION_SCAFFOLD, is_value_word, keys, terms
from ..language.text import sentences
from ..language.text import stem as _stem

# Closed-class words before the head of a noun phrase ("the festival", "a conference",
# "that performance").
DETERMINERS = frozenset("a an the this that these those my our your his her their its some "
                        "another".split())
TOKEN = re.compile(r"[^\W_]+(?:'[a-z]+)?")
# Stems this short are read as a thing's only where both statements name them as one.
SHORT_STEM = 3
# The stems of the words a question is built of ("day", "time", "kind"): they name no thing.
_GENERIC = frozenset(_stem(w) for w in QUESTION_SCAFFOLD)


def naming(text: str, shared: frozenset[str]) -> list[str]:
    """The sentences of ``text`` that name a ``shared`` word and are no question."""
    return [s for s in sentences(text) or [text]
            if keys(s) & shared and not s.rstrip().endswith("?")]


# Texts whose words (and the words before / after each stem) are kept: the judgement
# weighs one statement against every earlier one of its speaker, each pair reading both
# texts again for every shared word.
_KEPT = 8192


@lru_cache(maxsize=_KEPT)
def _words(text: str) -> tuple[str, ...]:
    """The lower-cased words of ``text``, a clitic's "'s" / "'ll" left off ("the hall's
    double-booked" names the hall)."""
    return tuple(m.group(0).lower().split("'")[0] for m in TOKEN.finditer(text))


@lru_cache(maxsize=_KEPT)
def _before_by_head(text: str) -> dict[str, frozenset[str]]:
    """For each stem of ``text``, the stems of the words right before it that may tell
    its kind (``other_kind``): no determiner, no value word, longer than two letters.
    Callers must not change what it returns (it is kept)."""
    toks = _words(text)
    out: dict[str, set[str]] = {}
    for i in range(1, len(toks)):
        prev = toks[i - 1]
        if prev not in DETERMINERS and not is_value_word(prev) and len(prev) > 2:
            out.setdefault(_stem(toks[i]), set()).add(_stem(prev))
    return {h: frozenset(b) for h, b in out.items()}


@lru_cache(maxsize=_KEPT)
def _after_by_head(text: str) -> dict[str, frozenset[str]]:
    """For each stem of ``text``, the stems of the content words right after it
    (``other_compound``). Callers must not change what it returns (it is kept)."""
    toks = _words(text)
    content = terms(text)
    out: dict[str, set[str]] = {}
    for i in range(len(toks) - 1):
        nxt = toks[i + 1]
        if nxt not in DETERMINERS and _stem(nxt) in content:
            out.setdefault(_stem(toks[i]), set()).add(_stem(nxt))
    return {h: frozenset(a) for h, a in out.items()}


def phrase_heads(sentence: str, shared: frozenset[str]) -> set[str]:
    """The ``shared`` words of ``sentence`` within two words after a determiner."""
    return set(_heads(sentence) & shared)


@lru_cache(maxsize=_KEPT)
def _heads(sentence: str) -> frozenset[str]:
    """The stems of ``sentence``'s words within two words after a determiner."""
    toks = _words(sentence)
    return frozenset(_stem(w) for i, w in enumerate(toks)
                     if DETERMINERS & set(toks[max(0, i - 2):i]))


def named_thing(old: str, new: str, shared: frozenset[str]) -> frozenset[str]:
    """The ``shared`` words each of ``old`` and ``new`` names as a thing: the head of a
    noun phrase ("the helpdesk", "our big shop") in a sentence that is no question."""
    def heads(text: str) -> set[str]:
        return {t for s in naming(text, shared) for t in phrase_heads(s, shared)}
    return frozenset(heads(old) & heads(new))


def other_kind(old: str, new: str, head: str) -> bool:
    """Whether ``old`` and ``new`` name ``head`` with different words before it, neither
    of which the other statement uses ("the choir rehearsal" / "the orchestra
    rehearsal", "the swimming lesson" / "the piano lesson"): two things of one kind."""
    mine = _before_by_head(old).get(head, frozenset())
    theirs = _before_by_head(new).get(head, frozenset())
    return bool(mine and theirs and not mine & theirs
                and not mine & terms(new) and not theirs & terms(old))



def other_compound(old: str, new: str, head: str) -> bool:
    """Whether ``old`` and ``new`` join ``head`` to different content words after it,
    neither of which the other statement uses ("the car park" / "the car service"):
    ``head`` is then a modifier of two different things."""
    mine = _after_by_head(old).get(head, frozenset())
    theirs = _after_by_head(new).get(head, frozenset())
    return bool(mine and theirs and not mine & theirs
                and not mine & terms(new) and not theirs & terms(old))


def thing_terms(old: str, new: str, shared: frozenset[str]) -> frozenset[str]:
    """The ``shared`` stems that may name one thing ``old`` and ``new`` both tell of: a
    stem longer than ``SHORT_STEM``, or a short one each names as the head of a noun
    phrase ("my tea", "the van", "our gym") and neither joins to a different noun, after
    it or before it ("the kimchi fries" / "the loaded fries")."""
    short = frozenset(t for t in shared if len(t) <= SHORT_STEM)
    shared = shared - (short & _GENERIC)  # "a day", "this week": a unit, not a thing
    short = short - _GENERIC
    if not short:
        return shared
    named = frozenset(t for t in named_thing(old, new, short)
                      if not other_compound(old, new, t) and not other_kind(old, new, t))
    return shared - short | named
