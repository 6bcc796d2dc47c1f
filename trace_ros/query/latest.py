"""The last occurrence a question asks for by a superlative of time.

"How did Nate do in his latest video game tournament?", "Where did John travel most
recently?": the question names a kind of event and asks for its newest occurrence, not
for a state that a later record revises. Where the currentness chain found no revision,
the newest recalled statement naming that kind of event (by the asked person, when the
question names a speaker) leads."""
from __future__ import annotations

import re
from collections.abc import Iterable

from ..language.lazyre import lazy_re
from ..language.text import STOPWORDS, stem
from ..language.vocab import is_robot
from ..ledger import SourceRecord

# "latest video game tournament", "most recent family trip": the noun phrase after the
# superlative, up to a preposition, a clause word or the question's end.
_BEFORE_NOUN = lazy_re(
    r"\b(?:latest|most\s+recent)\s+((?:[a-z][\w-]*\s+){0,3}?[a-z][\w-]*)"
    r"\s*(?=[?.,!]|$|\b(?:of|in|at|on|for|with|to|from|that|which|who|he|she|they|you|"
    r"i|we|did|does|do|was|were|is|are|has|have|had)\b)", re.I)
# "How did his latest tournament go?": the superlative's phrase is the subject of an
# auxiliary, so the phrase's last word is the bare verb that follows the subject.
_AS_SUBJECT = lazy_re(
    r"\b(?:did|does|do|will|would|can|could|should|was|is|were|are|has|have|had)\s+"
    r"(?:(?:the|his|her|their|my|your|our|its|[a-z][\w-]*['’]s)\s+)?(?:latest|most\s+recent)\b",
    re.I)
# "Where did John travel most recently?": the verb before the adverb.
_AFTER_VERB = lazy_re(r"\b([a-z][\w-]*)\s+(?:the\s+)?most\s+recently\b", re.I)
_WORD = lazy_re(r"[^\W_]+")
_MIN_COMPOUND = 4  # "roadtrip" is a trip; "trip" inside a shorter word is not


def latest_of(question: str) -> str:
    """The stem of the event word a question asks the newest occurrence of, or ""."""
    m = _BEFORE_NOUN.search(question)
    words = m.group(1).split() if m else []
    if len(words) > 1 and _AS_SUBJECT.search(question):
        words = words[:-1]
    word = words[-1] if words else ""
    if not word:
        m = _AFTER_VERB.search(question)
        word = m.group(1) if m else ""
    word = word.lower()
    return "" if not word or word in STOPWORDS else stem(word)


def _names(text: str, head: str) -> bool:
    """Whether ``text`` says the event word, inflected or as the end of a compound."""
    for w in _WORD.findall(text.lower()):
        s = stem(w)
        if s == head or len(head) >= _MIN_COMPOUND and s.endswith(head) and len(s) > len(head):
            return True
    return False


def newest_told(question: str, records: Iterable[SourceRecord],
                robot_id: str = "") -> SourceRecord | None:
    """The newest statement among ``records`` naming the event the question asks the
    latest of, said by a speaker the question names when it names any; None when the
    question asks no such thing or no record tells it."""
    head = latest_of(question)
    if not head:
        return None
    people = [r for r in records if r is not None and not is_robot(r.speaker, robot_id)]
    asked = {w.lower() for w in _WORD.findall(question)}
    named = [r for r in people if set(_WORD.findall(r.speaker.lower())) & asked]
    said = [r for r in named or people
            if not r.text.rstrip().endswith("?") and _names(r.text, head)]
    return max(said, key=lambda r: (r.source_time, r.seq), default=None)
