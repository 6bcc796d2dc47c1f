"""Whose time a clock time in a record is: said before a noun ("the 7:40 train", "the six
o'clock handover") it is that noun's time, the time of no other thing."""
from __future__ import annotations

import re

from ..language.lazyre import lazy_re
from ..language.text import STOPWORDS, stem, stems
from ..language.text import sentences as split_sentences

# A determiner before the time makes the time a modifier of the noun after it.
_DETERMINED = lazy_re(r"\b(?:the|a|an|my|our|your|his|her|their|that|this)\s+$", re.I)
_NEXT_WORD = lazy_re(r"\s+([a-z][a-z'-]*)")


def times_another(value: str, text: str, asked: set[str] | frozenset[str],
                  whom: set[str] | frozenset[str] = frozenset()) -> bool:
    """Whether every place ``text`` says the clock time ``value`` it says it as the time of
    a thing the question does not name (its stems ``asked``), in a sentence that names none
    of those it asks about (``whom``): "we're taking the 7:40 train" gives no time of a
    first heat. "The 7:40 train" says when the train is; "at 7:40" or "the 9:40 one" say the
    time of whatever is talked about; "Arjun's in the 8:30 group" when Arjun's group is."""
    if not value.strip():
        return False
    found = False
    for sentence in split_sentences(text):
        for m in re.finditer(rf"(?<![\w:]){re.escape(value)}(?![\w:])", sentence, re.I):
            found = True
            after = _NEXT_WORD.match(sentence[m.end():])
            noun = after.group(1).lower() if after else ""
            if not (_DETERMINED.search(sentence[:m.start()]) and noun) \
                    or noun in STOPWORDS or noun in ("one", "ones") or stem(noun) in asked \
                    or whom & stems(sentence):
                return False
    return found
