"""Small text helpers shared by lexical recall, the readers and the revision judgements.

One stemmer end to end: SQLite's FTS5 ``porter`` tokenizer implements Martin
Porter's reference stemmer, and ``porter.porter_stem`` is the same algorithm (its
stems are nltk's ``PorterStemmer`` in ``MARTIN_EXTENSIONS`` mode, which it replaced:
importing nltk costs seconds), so a word the index matched ("studied" for "study")
is also a match for the reader's overlap test. Tokens
are split as FTS5's ``unicode61`` tokenizer splits them (letters and digits;
apostrophes and other punctuation separate tokens).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from .lazyre import LazyPattern, lazy_re
from .porter import porter_stem

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

# An ampersand between letters keeps a name whole ("D&D", "B&Q", "AT&T"), where FTS5's
# unicode61 would leave single letters that say nothing; every other split is FTS5's.
_WORD = lazy_re(r"[^\W_]+(?:&[^\W_]+)*", re.UNICODE)


def tokens(text: str) -> list[str]:
    """Tokens as written, split as FTS5's unicode61 tokenizer splits them (but for a
    name joined by an ampersand, ``_WORD``)."""
    return _WORD.findall(text)


def words(text: str) -> list[str]:
    """Lower-cased tokens, split as FTS5's unicode61 tokenizer splits them."""
    return list(_words(text))


@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    """``words``, kept per text: the reader, the owners' checks and the seeds split the
    same records and question again and again (a copy of a kept tuple costs a fraction
    of splitting). 4,096 texts: at 65,536, as the stems keep, a LoCoMo pass saved ~0.03 ms
    a question and the process peaked 25 MB higher."""
    return tuple(map(str.lower, _WORD.findall(text)))


# Sentence boundaries within a record: after ., ! or ?, and at line breaks.
SENTENCE = lazy_re(r"(?<=[.!?])\s+|\n+")


@lru_cache(maxsize=65536)
def sentence_pieces(text: str) -> tuple[str, ...]:
    """``SENTENCE.split(text)`` as it is (blank pieces and all), kept per text: the reader
    and the graph stage split every record they are shown, for every question."""
    return tuple(SENTENCE.split(text))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem FTS5's ``porter`` tokenizer indexes ``word`` under."""
    return porter_stem(word.lower())


def same_verb(word: str, verb: str) -> bool:
    """Whether ``word`` is ``verb`` or one of its forms ("flies" of "fly", "goes" of "go",
    "staying" of "stay"). The stems compare most; the forms are spelled out for those the
    stemmer keeps apart (the third person of a verb ending in "o": "goe" and "go")."""
    if stem(word) == stem(verb):
        return True
    base = verb[:-1] if verb.endswith("y") else verb
    return word in (base + "ies", base + "ied", verb + "s", verb + "es", verb + "ing")


def may_hold(text: str, word: str) -> bool:
    """False only where no case-insensitive pattern (``re.I``) that needs ``word``
    can match ``text``: both are ASCII and ``text`` lower-cased does not contain ``word``
    lower-cased. A pattern built from ``word`` for one text (compiled per word: a
    question's focus, a place) need then be neither compiled nor run. Outside ASCII
    ``re.I`` folds more than ``str.lower`` tells (the Kelvin sign is a "k"): True."""
    if not (text.isascii() and word.isascii()):
        return True
    return word.lower() in text.lower()


def content_terms(text: str) -> list[str]:
    """Content words of ``text`` (stopwords dropped), in order, without repeats."""
    return list(dict.fromkeys(w for w in _words(text) if w not in STOPWORDS and len(w) > 1))


@lru_cache(maxsize=65536)
def stems(text: str) -> frozenset[str]:
    """Stems of the content words of ``text`` (cached: the same records and facts
    are compared with every question)."""
    return frozenset(stem(t) for t in content_terms(text))


def estimate_tokens(text: str) -> int:
    """Rough token count (about 4 characters a token), used for budgets and reports."""
    return max(1, (len(text) + 3) // 4)


# Abbreviations whose full stop ends no sentence ("St. Mary's", "Dr. Ahmed").
_ABBREVIATION = lazy_re(r"\b(?:st|dr|mr|mrs|ms|mt|rd|ave|no|jr|sr|prof|vs|approx|dept)\.$",
                        re.I)


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split as ``SENTENCE`` splits, but not after an
    abbreviation: "I work at St. Mary's." is one sentence)."""
    return list(_sentences(text))


@lru_cache(maxsize=65536)
def _sentences(text: str) -> tuple[str, ...]:
    """``sentences``, kept per text: the revision judgements split the same records for
    every question that recalls them."""
    out: list[str] = []
    for piece in sentence_pieces(text):
        if not piece.strip():
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return tuple(out)


_POSSESSOR = lazy_re(r"\b([A-Z][\w-]*)['’]s\s+[a-z]")
# Words that follow an owner's name when the owned noun is left out, as people say it
# once the thing is known: "Theo's is at 6:20", "Theo's still on Friday".
ELIDED_AFTER = ("is", "was", "has", "had", "will", "still", "now")


def possessors(text: str) -> list[str]:
    """The names ``text`` puts before an owned noun ("Theo's slot": Theo)."""
    return [m.group(1) for m in _POSSESSOR.finditer(text)]


@lru_cache(maxsize=8192)
def built(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, kept. For patterns built per call from a question's
    or an answer's words: ``re``'s own cache holds 512 and is emptied oldest first, so over
    many questions it drops the patterns that recur (the same focus word, the months) and
    compiles them again."""
    return re.compile(pattern, flags)


def case_folded(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` (compiled with ``re.I``, its letters written lower-case) without
    ``re.I``: over the lower-cased text of an ASCII text it finds what ``pattern`` finds in
    the text, at the same offsets, several times faster (``re.I`` folds the case of every
    letter it compares). Not for other text: ``re.I`` folds some non-ASCII letters to
    ASCII ones ("K", "ſ"). A caller testing many patterns on one text lowers it once.
    A ``lazy_re`` pattern gives a ``lazy_re`` one, neither compiled yet.

    Raises ``ValueError`` when ``pattern`` is not case-insensitive throughout or names an
    upper-case letter outside an escape (lower-cased text would never match it)."""
    bare = re.sub(r"\\.", "", pattern.pattern)
    lazy = isinstance(pattern, LazyPattern)  # stays lazy: its flags as given, not compiled
    flags = pattern.declared_flags if lazy else pattern.flags
    if not flags & re.I or bare != bare.lower() or "(?-" in pattern.pattern:
        raise ValueError(f"not a case-insensitive pattern in lower case: {pattern.pattern!r}")
    return (lazy_re if lazy else re.compile)(pattern.pattern, flags & ~re.I)


def folded_search(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    """A test whether ``pattern`` (see ``case_folded``) matches somewhere in a text: its
    case-folded form over the lower-cased text when the text is ASCII, else ``pattern``
    itself. Raises ``ValueError`` as ``case_folded`` does."""
    cased = case_folded(pattern)

    def search(text: str) -> bool:
        if text.isascii():
            return cased.search(text.lower()) is not None
        return pattern.search(text) is not None
    return search
