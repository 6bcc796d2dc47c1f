"""The value a record gives the noun a question asks for, read from where that noun (X,
the wh-phrase's head: ``spans.asked``) stands in the record's clause rather than from
the span the reader chose. Read only where the reader would otherwise abstain:

- "what/which X …?" (``headed_value``): X heads the subject of a copula, a short
  relative clause allowed between ("The vet is Greenway on Station Road", "the only
  room to skip is my study"); a name is set beside X in apposition ("Beechwood House,
  the care home up the hill"); X heads a noun phrase whose words before it tell one X
  from another ("she does the Sunday lunchtime shift");
- "what's X called?", "who is X?" (``named_value``): a capitalised name is the
  complement of a copula (or "called") whose subject X heads ("the boat's called
  Kingfisher", "our yard manager is Dwayne").

A record that never states the value gives none, so a question about a value never told
is still refused: the value must stand in one of these places, of an X no one else
owns, in a record that is not another holder's nor the robot's echo.
"""
from __future__ import annotations

import re

from ..language.lazyre import lazy_re
from ..language.text import STOPWORDS, built, possessors, stem, stems, words
from ..language.text import sentences as split_sentences
from ..language.timeanchor import find_candidates
from ..language.vocab import is_robot
from .amounts import NUMBER_VALUES
from .focus import NOT_COMPOUNDS
from .pack import EvidenceItem, Pack
from .plan import Plan
from .readout import ReaderOutput
from .spans import Asked, repaired

# The copula after the subject X: "is", "are", "was", "were", a contracted "'s".
_COPULA = r"(?:['’]s|\s+(?:is|are|was|were))\s+(?:(?:still|now|just|only|always)\s+)?"
# A short relative or infinitive clause between X and its copula: "the locker we use is
# 14", "the only room to skip is my study".
_RELATIVE = r"(?:\s+(?:to|(?:that\s+)?(?:i|we|you|they|he|she))\s+[a-z]+)?"
# Where a value said after a copula ends: a clause mark or a clause word.
_VALUE_END = lazy_re(r"\s*(?:[,.;:!?()]|\s(?:and|but|so|because|if|since|though|which|"
                     r"who|when|while|until|unless|as|or)\b|$)", re.I)
# Words before X that order or rate it rather than tell which one ("the new room", "my
# usual one"): ``focus.NOT_COMPOUNDS``, with the determiners of any one of a kind.
_NO_KIND = NOT_COMPOUNDS | frozenset(("whatever", "any", "every", "some", "each", "same"))
_DETERMINERS = r"(?:the|a|an|my|our|your|his|her|their|its|this|that)"


# X put as any one of its kind ("Learning another language is tough", "a room is a room"):
# what is said of it tells no one X from another.
_ANY_ONE = lazy_re(r"\b(?:a|an|another|any|every|each)\s+(?:[\w-]+\s+){0,2}$", re.I)


def _content(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 2}


def _copula_value(focus_rx: str, sentence: str, q: set[str], question: str) -> str:
    """What ``sentence`` says X is: the complement of a copula whose subject X heads,
    up to the clause's end, at most five words; '' where it is an -ing verb ("the van
    is being fixed"), a time, only the question's words, a single bare lowercase word
    (no determiner, capital or figure: "the language is tough" describes X, while "my
    study", "Greenway", "14" name one), or where X is any one of its kind ("another
    language")."""
    for m in built(rf"\b{focus_rx}{_RELATIVE}{_COPULA}", re.I).finditer(sentence):
        if _owned_apart(sentence[:m.start()], question) or _ANY_ONE.search(sentence[:m.start()]):
            continue
        rest = sentence[m.end():]
        end = _VALUE_END.search(rest)
        value = rest[:end.start() if end else len(rest)].strip()
        ws = value.split()
        if len(ws) == 1 and ws[0].isalpha() and ws[0].islower():
            continue  # "the language is tough": a bare word describes X, it names no X
        if not ws or len(ws) > 5 or re.match(r"[a-z]+ing\b|not\b|off\b|going\b|too\b",
                                             value, re.I):
            continue
        if find_candidates(value) or not _content(value) - q and not re.search(r"\d", value):
            continue  # a time, or only the question's words ("14" labels a locker)
        return value
    return ""


def _head_value(focus_rx: str, sentence: str, q: set[str]) -> str:
    """The noun phrase X heads with the words before it that tell it apart ("the Sunday
    lunchtime shift"): after a determiner, one to four words, none an owner ("Mum's"),
    at least one neither a function word, a count, an order word nor the question's."""
    for m in built(rf"\b{_DETERMINERS}\s+((?:[\w-]+\s+){{1,4}}?)({focus_rx})\b",
                   re.I).finditer(sentence):
        mods = m.group(1).split()
        if mods[-1].lower() in STOPWORDS:
            continue  # "a long week of trains": how much of X, not which X
        told = [w for w in mods if w.lower() not in STOPWORDS
                and w.lower() not in NUMBER_VALUES and w.lower() not in _NO_KIND
                and not w.isdigit() and stem(w.lower()) not in q]
        if told:
            return f"{m.group(1)}{m.group(2)}"
    return ""


# A name or short phrase set beside X with a comma: "Beechwood House, the care home up
# the hill" (the value before "the X"), "our slot, Tuesday, is …" (after "the X").
def _apposed_value(focus_rx: str, sentence: str, q: set[str]) -> str:
    """The phrase ``sentence`` sets beside X in apposition: a capitalised name of up to
    three words right before ", the (…) X", or up to three words between "the X," and
    the next comma; '' where none, or where it is only the question's words."""
    before = built(rf"(?<=\S\s)((?:[A-Z][\w'’-]*\s+){{0,2}}[A-Z][\w'’-]*),\s+{_DETERMINERS}\s+"
                   rf"(?:[\w-]+\s+){{0,2}}{focus_rx}\b").search(sentence)
    if before and _content(before.group(1)) - q and not find_candidates(before.group(1)):
        return before.group(1)
    after = built(rf"\b{_DETERMINERS}\s+(?:[\w-]+\s+){{0,2}}{focus_rx},\s+"
                  r"((?:[\w'’-]+\s+){0,2}[\w'’-]+)\s*,", re.I).search(sentence)
    if after and _content(after.group(1)) - q and not find_candidates(after.group(1)):
        return after.group(1)
    return ""


# What a thing or a person is called, said of X: "the boat's called Kingfisher", "our
# yard manager is Dwayne", "the photographer's a guy called Dev". The name is one to
# three capitalised words (a title first allowed).
_NAMED = (r"(?:['’]s|\s+(?:is|are|was|were))\s+(?:(?:still|now|just|only|actually)\s+)?"
          r"(?:(?:going\s+to\s+be|(?:a|an)\s+[a-z]+\s+(?:called|named)|called|named)\s+)?"
          r"((?-i:(?:(?:Dr|Mr|Mrs|Ms|Miss)\.?\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2}))")


def _another_owner(sentence: str, question: str) -> bool:
    """Whether ``sentence`` names an owner the question does not ("Tom's yoga class is in
    the Lotus room" for "Priya's yoga class"): it speaks of another holder's thing."""
    asked = stems(question)
    return any(stem(o.lower()) not in asked for o in possessors(sentence))


def _owned_apart(before: str, question: str) -> bool:
    """Whether the words right before X own it and the question names no such owner
    ("my sister's locker is 31" for "Which locker do I use?")."""
    owner = re.search(r"([\w-]+)['’]s\s+(?:[\w-]+\s+){0,2}$", before)
    return owner is not None and stem(owner.group(1).lower()) not in stems(question)


# A question put in the past, or of how a thing first was: "What was it called?", "Which
# bus did I take?", "What did we call it originally?" (a plan's tense reads "called" as
# past, so the question's own auxiliary decides).
_ASKED_BEFORE = lazy_re(r"\b(?:was|were|did|had|used\s+to|originally|first|before|earlier)\b",
                        re.I)


def asks_now(plan: Plan, question: str) -> bool:
    """Whether the question asks of the state now: no time named, nothing of before (the
    newest record that states a value may be read)."""
    return plan.as_of is None and plan.window is None and not _ASKED_BEFORE.search(question)


def named_value(ask: Asked, question: str, pack: Pack, reader: str) -> ReaderOutput | None:
    """For "what's X called?", "who is X?": the name a record says X is, from the graph
    stage's current record, then the other shown records newest first, those the graph
    stage holds superseded last (its marks often fall on the record of the name itself
    when a later one speaks of X again: "No, Kingfisher, always has been"); never another
    holder's, nor the robot's echo, nor an X another owns. None where none says it."""
    if not ask.focus or ask.kind not in ("name", "person"):
        return None
    focus = ask.focus.lower()
    if focus in STOPWORDS or len(focus) < 3:
        return None
    lead = [i for i in pack.items if i.routes.get("graph") == 1
            and not i.routes.get("superseded") and not i.routes.get("other")]
    newest = sorted((i for i in pack.items if not i.routes.get("other")),
                    key=lambda i: (bool(i.routes.get("superseded")), -i.record.seq))
    q = _content(question)
    rx = built(rf"\b{re.escape(focus)}{_NAMED}", re.I)
    seen: set[str] = set()
    for item in lead + newest:
        if item.source_id in seen or item.record.speaker and is_robot(item.record.speaker):
            continue
        seen.add(item.source_id)
        for x in split_sentences(repaired(item.record.text)):
            if _another_owner(x, question):
                continue
            for m in rx.finditer(x):
                name = m.group(1)
                if not name[0].isupper() or _owned_apart(x[:m.start()], question) \
                        or find_candidates(name) or stems(name) & q \
                        or name.split()[0].lower() in STOPWORDS:
                    continue
                return ReaderOutput(name, [item.source_id], reader)
    return None


def headed_value(ask: Asked, question: str, out: ReaderOutput, pack: Pack,
                 newest: bool = True) -> ReaderOutput | None:
    """For "what/which X …?" whose chosen span does not tell which X: the value the graph
    stage's current record, the cited record, then (asked of now: ``newest``) the other
    shown records newest first give X by where X stands in a sentence about what is asked
    (one sharing a word of the question besides X; see the module). None when none."""
    if not ask.focus or ask.kind not in ("what", "which"):
        return None
    lead = [i for i in pack.items if i.routes.get("graph") == 1
            and not i.routes.get("superseded") and not i.routes.get("other")]
    cited = [i for i in pack.items if i.source_id in out.cited_ids[:1]
             and not i.routes.get("superseded") and not i.routes.get("other")]
    # Then the other shown records, newest first; never one the graph stage holds
    # superseded (its value was revised) nor another holder's.
    rest = sorted((i for i in pack.items if not i.routes.get("other")
                   and not i.routes.get("superseded")), key=lambda i: -i.record.seq) \
        if newest else []
    seen: set[str] = set()
    order: list[EvidenceItem] = [i for i in lead + cited + rest
                                 if not (i.source_id in seen or seen.add(i.source_id))]
    focus = ask.focus.lower()
    base = focus[:-1] if re.search(r"[^s]s$", focus) else focus
    focus_rx = rf"{re.escape(base)}s?"
    q = _content(question)
    about = q - {stem(focus), stem(base)}
    for item in order:
        if item.record.speaker and is_robot(item.record.speaker):
            continue
        for x in split_sentences(repaired(item.record.text)):
            if about and not _content(x) & about or _another_owner(x, question):
                continue  # a sentence about some other X, or another holder's
            value = _copula_value(focus_rx, x, q, question) or _apposed_value(focus_rx, x, q) \
                or _head_value(focus_rx, x, q)
            if value:
                return ReaderOutput(value, [item.source_id], out.reader)
    return None
