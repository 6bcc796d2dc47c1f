"""Last refusals of the extractive reader: an answer of the kind asked in form but not in
what it says, where no shown record states the thing asked (a never-stated question).

Each check reads the answer's own shape against the question's: a measure asked with
no figure in the answer ("How big is …?": "morning"), a count answered with an
identifier ("the 658 number" for how many flyers), a thing answered with spans strung
together, one only a day ("Tuesday 9 December, Young Charlie's"), and a "who" answered
with the asker ("Who told me …?": the one told). And a count read off the mentions of
records none of which names what is counted (``counts_another``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..language.lazyre import lazy_re
from ..language.text import stem, stems
from ..language.vocab import OCCASION_NOUNS
from .focus import only_time
from .plan import Plan
from .readout import ReaderOutput
from .spans import Asked, counted_noun, has_number

# "How big …?", "How heavy …?": "how" and an adjective of the thing asked, a measure;
# not "how" with an auxiliary (manner) nor the words with their own kinds.
_HOW_ADJECTIVE = lazy_re(r"\s*how\s+([a-z]+)\s+(?:is|are|was|were|'s)\b", re.I)
_OWN_KINDS = frozenset(("much", "many", "often", "old", "long", "soon", "late", "early"))


def declined(ask: Asked, question: str, plan: Plan, out: ReaderOutput) -> str:
    """Why the reader's answer does not answer ``question`` ('' when it may)."""
    if not out.answer:
        return ""
    if _measure_without_figure(question, out.answer):
        return "no shown record gives the measure asked for"
    if plan.operation == "count" and re.search(r"\d\s+number\b", out.answer, re.I):
        return "no shown record says how many"  # "the 658 number" is a phone number
    if _strung_with_time(ask, plan, out.answer):
        return "no shown record says what it is"
    if ask.kind == "person" and _the_asker(question, plan, out.answer):
        return "no shown record says who it is"
    return ""


def _strung_with_time(ask: Asked, plan: Plan, answer: str) -> bool:
    """Whether a thing asked of one record ("What are we getting Charlie for his
    birthday?") is answered with several spans strung together, one of them only a day or
    time ("Tuesday 9 December, Young Charlie's"): the spans of records that date something,
    not the thing. Lists and histories string their members on purpose."""
    if plan.answer_type != "thing" or ask.kind not in ("", "what", "which") \
            or plan.operation in ("list", "history", "count"):
        return False
    parts = [p for p in answer.split(", ") if p.strip()]
    return len(parts) > 1 and any(only_time(p) for p in parts)


def _measure_without_figure(question: str, answer: str) -> bool:
    """Whether "How big / heavy / far …?" is answered with no figure at all."""
    m = _HOW_ADJECTIVE.match(question)
    return bool(m) and m.group(1).lower() not in _OWN_KINDS and not has_number(answer)


def _the_asker(question: str, plan: Plan, answer: str) -> bool:
    """Whether "Who told me …?" is answered with the asker: "me" is someone other than
    whom the question asks for."""
    if not plan.asker or not re.search(r"\b(?:me|my)\b", question, re.I):
        return False
    return answer.strip().lower() == plan.asker.strip().lower()


def counts_another(question: str, texts: Sequence[str], shown: Sequence[str]) -> bool:
    """Whether a count read off mentions (no shown record states the number) counts
    mentions of something else: the shown records ``shown`` name the noun the question
    counts, and none of the counted ones ``texts`` does ("How many rooms …?" counted over
    records that say no room, while others speak of rooms). Where no record names it the
    mentions may be its members ("How many pets …?": a cat, a dog). Occasions and spans of
    time ("How many times …?") are counted over records that need not say them."""
    noun = counted_noun(question)
    if not noun or noun in OCCASION_NOUNS:
        return False
    counted = stem(noun)
    return not any(counted in stems(t) for t in texts) \
        and any(counted in stems(t) for t in shown)
