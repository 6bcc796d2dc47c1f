"""Which end of a stretch of time a question asks for, and whether a record's clock time
is that end.

"What time does the café open on Sundays?" asks when something begins; "The café shuts
at four now" gives when it ends, and is no answer. The two ends are told by a small,
closed set of aspectual verbs (begin, start, open / end, finish, close, shut). A record
that names neither end is left to the reader (a bare reply, "One o'clock on a Wednesday,
always.", answers the question the turn before it asks); a range ("six till seven")
gives both ends.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..language.lazyre import lazy_re
from ..language.text import stems

_BEGINS = frozenset({"begin", "began", "start", "open"})
_ENDS = frozenset({"end", "finish", "close", "shut"})
# "What time did the visit end up being?": how it came out, no end of anything.
_END_UP = lazy_re(r"\bend(?:s|ed)?\s+up\b", re.I)
# A verb and the preposition a time is said with, a word or two after it ("shuts at
# four", "starts at six this week", "closing early at two").
_TIMED_VERB = lazy_re(r"\b([a-z]+)(?=\s+(?:[a-z]+\s+){0,2}?(?:at|by|from|around|about)\b)",
                      re.I)
# A range of times: "six till seven", "9 to 5", "7pm-7am".
_RANGE = lazy_re(r"\b(?:till|until|til|to|through)\b|\d\s*[-\u2013]\s*\d", re.I)


def asked_end(question: str) -> str:
    """'begin' or 'end' for a question that names one end of a stretch of time ("What time
    does my shift finish?"), '' for one that names neither or both."""
    said = stems(_END_UP.sub(" ", question))
    begins, ends = bool(said & _BEGINS), bool(said & _ENDS)
    return "begin" if begins and not ends else "end" if ends and not begins else ""


def other_end(question: str, texts: Sequence[str]) -> bool:
    """Whether the records ``texts`` an answer to the clock ``question`` was read from give
    the other end of the stretch than the one asked, and not that one: "The café shuts
    at four" for "What time does the café open?", "My shift starts at six" for "…
    finish?". A record naming the end asked, or a range, answers."""
    end = asked_end(question)
    if not end or not texts:
        return False
    said = frozenset().union(*(stems(_END_UP.sub(" ", t)) for t in texts))
    own, other = (_BEGINS, _ENDS) if end == "begin" else (_ENDS, _BEGINS)
    if said & own or any(_RANGE.search(t) for t in texts):
        return False
    # The other end's verb must be the one the time is said with ("shuts at four"), not
    # a word elsewhere in the record.
    return any(stems(m.group(1)) & other for t in texts for m in _TIMED_VERB.finditer(t))
