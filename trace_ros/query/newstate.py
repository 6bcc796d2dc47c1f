"""New states and what follows from a cause: a value a clause marks as new ("pescatarian
from now on"), the thing as it was ("my old site"), and the consequence a "so"
states before its cause.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..language.lazyre import lazy_re
from ..language.monthday import WEEKDAY_WORD
from ..language.text import STOPWORDS, stem, stems
from ..language.text import sentences as split_sentences
from .names import proper_names
from .plan import Plan
from .readout import Scored
from .spans import NEW_MARKERS, NEW_STATE, Asked, place_phrase

# The "so" that opens what follows from a cause ("the oat milk doesn't agree with me, so
# I'm back to black coffee").
CONSEQUENCE_SO = lazy_re(r",?\s+so\s+", re.I)

OPENS_SO = lazy_re(r"\s*so\b(?!\s+(?:far|much|many|long)\b)", re.I)


# What says that a sentence tells the state that holds now, not what ended ("no longer")
# or what someone else did ("Ollie's moved up a division").
FORMER = lazy_re(r"\b(?:old|former|previous|ex)[\s-]+([a-z]+)\b", re.I)


def only_former(text: str, q_stems: set[str]) -> bool:
    """Whether every word of the question that ``text`` says is the thing as it was ("my
    old site", "my ex-boss"), never as it is."""
    former = {stem(m.group(1).lower()) for m in FORMER.finditer(text)} & q_stems
    if not former:
        return False
    rest = FORMER.sub(" ", text)
    return not stems(rest) & former
ENDED = lazy_re(r"\b(?:any\s?more|no\s+longer)\b", re.I)


# A clause ending on a change marker or the day a state starts says the new state just before
# it ("pescatarian from now on", "I'm the secretary now", "vegetarian from today"); the
# subject and copula before the value are dropped.
_MARKED_END = lazy_re(rf"([^,.;:!?]+?)\s+(?:(?:right\s+)?now|{NEW_MARKERS}|"
                      rf"(?:from|starting)\s+(?:today|tonight|tomorrow|{WEEKDAY_WORD}))\s*(?:[,.;:!?]|$)",
                      re.I)
_STATE_LEAD = lazy_re(r"^(?:(?:and|but|so|ok|okay|well|right)\s+)*(?:(?:i|we|he|she|they|it)"
                      r"(?:['’](?:m|re|s|ve))?|i\s+am|we\s+are|it\s+is)?\s*"
                      r"(?:(?:am|is|are|was|been|going|gone|fully|just|on|onto|into|doing|"
                      r"switched\s+to|moved\s+to)\s+)*", re.I)
# How far down the dense ranking a record may stand to be taken as about the question.
_DENSE_NEAR = 5
# Marks an answer read from a marked new state where no record shares the question's words.
MARKED_NOTE = "the latest record near the question in meaning states a new value"


def _marked_value(text: str) -> str:
    """The value a record says is new at the end of a clause ("pescatarian from now on"
    gives "pescatarian"; "I'm the secretary now" gives "the secretary"); "" when none."""
    for m in _MARKED_END.finditer(text):
        value = _STATE_LEAD.sub("", m.group(1).strip()).strip()
        if value and len(value.split()) <= 4 and value.lower() not in STOPWORDS:
            return value
    return ""


def dense_new_state(question: str, plan: Plan, ask: Asked,
                     scored: Sequence[Scored]) -> tuple[Scored, str] | None:
    """For "what X am I …?" about the asker's state now, when no shown record shares a word
    with the question ("What sort of diet am I following?" against "pescatarian from now
    on"): the latest record among the nearest in meaning whose clause states a new value.
    A speaker seldom names the category, but says when the value is new."""
    if ask.kind != "what" or not ask.focus or not plan.current or plan.tense == "past" \
            or proper_names(question):
        return None
    near = [s for s in scored if 0 < s.item.routes.get("dense", 0) <= _DENSE_NEAR]
    found = [(s, v) for s in near if (v := _marked_value(s.item.record.text))]
    if not found:
        return None
    best = max(found, key=lambda f: (f[0].item.record.source_time, f[0].item.record.seq))
    told = (best[0].item.record.source_time, best[0].item.record.seq)
    value = stems(best[1])
    if any((s.item.record.source_time, s.item.record.seq) > told
           and any(ENDED.search(p) and value & stems(p) for p in split_sentences(s.item.record.text))
           for s in near):
        return None  # a later near record says that value stopped ("not vegan any more")
    return best


# The asker's own statements of a place read for "where …?" when none shares its words: as
# far down the dense ranking as this, where one of them stands within ``_DENSE_TOP``.
_DENSE_FAR = 8
_DENSE_TOP = 3
# A question the asker asks of their own state: "I", "we", "my", "our".
_OWN = lazy_re(r"\b(?:i|we|my|our)\b", re.I)


def _said_place(text: str) -> str:
    """The place a record names, as where something is (not where it came from): the last
    one that gives a name ("Eden Street" then "Marek's sister on Gwydir Street"), else the
    last one; '' when none."""
    places = [p for x in split_sentences(text) or [text]
              if (p := place_phrase(x, set(), origin=False))]
    named = [p for p in places if re.search(r"\b[A-Z]", p)]
    return (named or places or [""])[-1]


def dense_place(question: str, plan: Plan, ask: Asked, asker: str,
                 scored: Sequence[Scored]) -> tuple[Scored, str] | None:
    """For "where …?" about the asker's own state now, when no shown record shares a word
    with the question ("Where do I live now?" against "I signed for the cottage on Quay
    Lane!"): the newest of the asker's own statements among the nearest in meaning that
    names a place, where one of them is among the nearest few (the thread of the thing is
    near, not a place said of something else further down). A speaker seldom says the verb
    asked ("live") of where they have moved, but says where."""
    if ask.kind != "place" or not asker or not plan.current or plan.tense == "past" \
            or not _OWN.search(question) or proper_names(question) - {"i"}:
        return None  # (the question's "I" is the asker, no one named)
    found = [(s, place) for s in scored if s.item.record.speaker == asker
             and 0 < s.item.routes.get("dense", 0) <= _DENSE_FAR
             and (place := _said_place(s.item.record.text))]
    if not any(s.item.routes["dense"] <= _DENSE_TOP for s, _ in found):
        return None
    return max(found, key=lambda f: (f[0].item.record.source_time, f[0].item.record.seq))


def consequence_first(sentences: Sequence[str]) -> list[str]:
    """``sentences`` (best first) in the order their values tell the state: a record that
    gives a cause and what follows from it ("the quiz show starts at nine, so bedtime's
    at ten"; "he wanted the 9. So I'm in his 11.") states the thing in what follows, and
    the time or number of the cause is another thing's. The clauses after a consequence
    "so" come first, then the sentences opening with one, the other sentences without
    their causes, and the causes last."""
    after: list[str] = []
    opening: list[str] = []
    rest: list[str] = []
    causes: list[str] = []
    for x in sentences:
        if OPENS_SO.match(x):
            opening.append(x)
            continue
        parts = CONSEQUENCE_SO.split(x, maxsplit=1)
        if len(parts) == 2 and not re.match(r"that\b", parts[1], re.I):
            after.append(parts[1])
            causes.append(parts[0])
        else:
            rest.append(x)
    return [*after, *opening, *rest, *causes]


# Where a sentence's clauses part: a conjunction after a comma ("Tuesdays and Fridays" is
# one list), "but" or "so", a semicolon, a dash.
_CLAUSE_PARTS = lazy_re(r",\s+(?:and|though|whereas)\s+|,?\s+(?:but|so)\s+|\s*[;—–]\s*"
                        r"|\s+-\s+", re.I)
# A clause that sets its value aside: denies it, cancels it, names what it replaces.
_SETS_ASIDE = lazy_re(r"\b(?:not|never|no\s+longer|any\s?more|instead\s+of|rather\s+than"
                      r"|cancel+ed|forget|ignore)\b|n['’]t\b", re.I)


def _set_aside(clause: str, value: str, reads: Callable[[str], str]) -> bool:
    """Whether ``clause`` sets ``value`` aside: a word that does comes before it ("has
    cancelled the Monday flight"), or after it with no other value told after that
    ("Friday's cancelled"; not "code is 9023 not 9032", which sets 9032 aside)."""
    at = clause.lower().find(value.lower())
    if at < 0:
        return bool(_SETS_ASIDE.search(clause))
    after = clause[at + len(value):]
    return bool(_SETS_ASIDE.search(clause[:at])) \
        or bool(_SETS_ASIDE.search(after)) and not reads(after)


def state_first(ordered: list[str], reads: Callable[[str], str]) -> list[str]:
    """``ordered`` (a record's sentences, best first) led by the clause that tells the
    state, where the record tells two or more values of the kind asked: where the first
    value told is set aside ("The airline has cancelled the Monday flight. They've
    shoved me onto the Wednesday."), the first clause whose value is not (what is
    denied, cancelled or replaced is not the state); where the first is held to but
    not marked as the new state, a later clause that marks its value so ("now",
    "instead", "from now on") and does not set it aside. Else unchanged."""
    clauses = [c for x in ordered for c in _CLAUSE_PARTS.split(x) if c and c.strip()]
    told = [(c, v) for c in clauses if (v := reads(c))]
    if len({v.lower() for _, v in told}) < 2:
        return ordered
    if not _set_aside(*told[0], reads):
        if NEW_STATE.search(told[0][0]):
            return ordered
        # "Batteries kept going walkabout in that drawer. They're in the bathroom
        # cabinet now": a later clause that marks its value as the new state leads.
        marked = next((c for c, v in told if NEW_STATE.search(c)
                       and not _set_aside(c, v, reads)), None)
        return ordered if marked is None else [marked, *ordered]
    held = next((c for c, v in told if not _set_aside(c, v, reads)), None)
    return ordered if held is None else [held, *ordered]
