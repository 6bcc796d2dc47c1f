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


def _words(text: str) -> list[str]:
    """The lower-cased words of ``text``, a clitic's "'s" / "'ll" left off ("the hall's
    double-booked" names the hall)."""
    return [m.group(0).lower().split("'")[0] for m in TOKEN.finditer(text)]


def phrase_heads(sentence: str, shared: frozenset[str]) -> set[str]:
    """The ``shared`` words of ``sentence`` within two words after a determiner."""
    toks = _words(sentence)
    return {_stem(w) for i, w in enumerate(toks)
            if _stem(w) in shared and DETERMINERS & set(toks[max(0, i - 2):i])}


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
    def before(text: str) -> set[str]:
        toks = _words(text)
        return {_stem(toks[i - 1]) for i, w in enumerate(toks)
                if i and _stem(w) == head and toks[i - 1] not in DETERMINERS
                and not is_value_word(toks[i - 1]) and len(toks[i - 1]) > 2}
    mine, theirs = before(old), before(new)
    return bool(mine and theirs and not mine & theirs
                and not mine & terms(new) and not theirs & terms(old))



def other_compound(old: str, new: str, head: str) -> bool:
    """Whether ``old`` and ``new`` join ``head`` to different content words after it,
    neither of which the other statement uses ("the car park" / "the car service"):
    ``head`` is then a modifier of two different things."""
    def after(text: str) -> set[str]:
        toks = _words(text)
        return {_stem(toks[i + 1]) for i, w in enumerate(toks[:-1])
                if _stem(w) == head and toks[i + 1] not in DETERMINERS
                and _stem(toks[i + 1]) in terms(text)}
    mine, theirs = after(old), after(new)
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
