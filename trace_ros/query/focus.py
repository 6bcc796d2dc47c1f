"""The checks that an answer fills the slot a question asks: a value of the kind asked
(``spans.asked``), for "which X" what tells one X from another, for "what X" where no
record says X the value given in its place, a number that labels another thing, and
an answer that only says back the question's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..language.lazyre import lazy_re
from ..language.monthday import MONTHS
from ..language.revision import is_possessive, marks_change
from ..language.text import STOPWORDS, built, may_hold, stem, stems, words
from ..language.text import sentences as split_sentences
from ..language.timeanchor import find_candidates
from .amounts import NUMBER_VALUES
from .complement import asked_holder, verb_object
from .names import TITLED, stands_for
from .pack import EvidenceItem, Pack
from .readout import ReaderOutput
from .spans import (
    Asked,
    capitalised_mid_sentence,
    clock_time,
    day_part,
    frequency,
    has_number,
    labelled,
    names_in,
    repaired,
    states_time,
    sum_stated,
    without_times,
)


def not_of_kind(kind: str, value: str) -> bool:
    """Whether ``value`` is plainly no value of the ``kind`` a question asks for
    (``spans.asked``): a day for "what time" ("today" for "What time is my operation?"),
    no figure for "how much" or "how many", only a date for "where", "who" or "which", a
    month and no day in it for "what day" ("February 2026" for "What day is the drill?")."""
    if kind == "day":
        return bool(_MONTH_ONLY.fullmatch(value.strip()))
    if kind == "clock":
        return not clock_time(value) and not day_part(value)
    if kind in ("money", "count", "quantity"):
        return not has_number(value) and not sum_stated(value)
    if kind == "frequency":
        return not frequency(value) and not day_part(value)
    return kind in ("place", "person", "name", "ident", "which", "what") and only_time(value)


# A month, and no day of it: "February 2026", "in early June".
_MONTH_ONLY = lazy_re(rf"(?:in\s+)?(?:(?:early|mid|late)[\s-]+)?(?:{'|'.join(MONTHS)})"
                      r"(?:\s+\d{4})?", re.I)


# Kinds of value a record must state to answer (``spans.asked``): a record that talks
# about the thing but states no value of the kind does not answer, and when no shown
# record does the reader abstains. Other questions are read as before.
TYPED = ("clock", "day", "date", "when", "money", "frequency", "count", "ident", "quantity",
          "name", "person", "place")
LABEL = {"clock": "time", "day": "day", "date": "date", "when": "time", "money": "sum",
          "frequency": "rate", "count": "number", "ident": "number", "quantity": "amount",
          "name": "name", "person": "person", "place": "place"}
# Words before a noun that order or rate it rather than say which kind it is ("second
# puppy", "new number"): no record need repeat them.
NOT_COMPOUNDS = frozenset((
    "first", "second", "third", "fourth", "fifth", "last", "next", "new", "old", "other",
    "current", "latest", "previous", "main", "usual", "favourite", "favorite", "best", "own",
    "little", "big", "exact", "real", "full", "whole", "only", "one-year-old"))
# Question words that say what kind of value is asked, not what it is about.
ASKING = frozenset(stem(w) for w in ("time", "hours", "day", "date", "night", "name", "called",
                                       "often", "much", "many", "exact", "kind", "type", "sort",
                                       "now", "currently", "usually"))
WHICH_WHAT = lazy_re(r"\s*(?:which|what)\b", re.I)
# Verbs that say which moment of a thing a question asks about.
ASPECT = frozenset(stem(w) for w in ("start", "begin", "finish", "end", "open", "close"))


def said_bare(focus: str, items: Sequence[EvidenceItem]) -> bool:
    """Whether a record says ``focus`` with no other word of its kind before it ("a size 13",
    not "her mobile number"), so that it may be the one a question names by a compound."""
    bare = re.compile(rf"(?:^|\b(?:a|an|the|her|his|their|my|your|our|its)\s+){re.escape(focus)}s?\b"
                      r"\s+\S*\d", re.I)
    return any(bare.search(i.record.text) for i in items)


def _measured(question: str, focus: str) -> frozenset[str]:
    """The stem of what "<focus> of …" measures in ``question`` ("dose of atorvastatin"
    → atorvastatin), or nothing."""
    if not focus:
        return frozenset()
    m = built(rf"\b{re.escape(focus)}\s+of\s+(?:(?:the|my|your|his|her|their|our)\s+)?"
              r"([a-z][\w-]*)", re.I).search(question)
    if m is None:
        # "What dose is Dad's amlodipine?": the measure of what the copula names.
        t = _X_IS_T.match(question)
        thing = [w for w in re.findall(r"\b[a-z][\w-]*", t.group(2)) if w not in STOPWORDS] \
            if t and t.group(1).lower() == focus.lower() else []
        return frozenset({stem(thing[-1])}) if thing else frozenset()
    return frozenset({stem(m.group(1).lower())})


# A name as the subject of an auxiliary opens a clause: "Femi has practice on Wednesdays".
_CLAUSE = lazy_re(r"[A-Z][a-z]+\s+(?i:has|had|is|was|does|did|will|can|could|would|"
                  r"should|may|might|must)\s")


# A bare number said as the label of a thing: "Flat 9", "locker 47", "my locker's number 12".
# The labelled word is a noun: after a determiner, capitalised as a label, or said with
# "number" ("he's inherited 214", "I typed 8821" label nothing).
_LABELLED = lazy_re(r"(?:\b(?:the|a|my|your|his|her|our|their|its|this|that)\s+|"
                    r"(?=[A-Z])|(?=[A-Za-z][\w-]*(?:['’]s)?\s+(?:is\s+)?(?:number|no\.?)\s*\d))"
                    r"\b([A-Za-z][\w-]*?)(?:['’]s)?\s+(?:(?:is\s+)?(?:number|no\.?)\s*)?"
                    r"(\d+)\b(?![.:,]?\d)(?:\s+([A-Za-z][\w'’-]*))?")


# A possessive pronoun stands for a thing, it labels none ("Mine's 412": the speaker's).
_POSSESSIVE_PRONOUNS = frozenset(("mine", "yours", "his", "hers", "ours", "theirs"))


def labels_other(value: str, text: str, asked_for: set[str], skip: set[str]) -> bool:
    """Whether the one number in ``value`` is said in ``text`` as the label of a thing
    other than the one whose value is asked (stems ``asked_for``): "Ours is Flat 9" tells
    which flat, not the floor it is on; "my locker's number 12" is no safe code. A number
    with a unit after it ("atorvastatin 40 milligrams") is an amount, not a label; names
    and times in ``skip`` are not things labelled."""
    nums = re.findall(r"\d+", value)
    if len(set(nums)) != 1:
        return False
    for m in _LABELLED.finditer(text):
        thing, number, after = m.group(1), m.group(2), m.group(3)
        low = thing.lower()
        if number != nums[0] or after and after.lower() not in STOPWORDS:
            continue
        if low in STOPWORDS or low in NUMBER_VALUES or low in ("number", "no") \
                or low in _POSSESSIVE_PRONOUNS \
                or stem(low) in skip or states_time(m.group(0)):
            continue
        return stem(low) not in asked_for
    return False


def labels_another(ask: Asked, out: ReaderOutput, pack: Pack) -> bool:
    """Whether the number answering a "what floor" / "what code" question is said in its
    cited record as the label of another thing ("Ours is Flat 9", "by dock 2"): the
    record tells which flat or dock, not the floor or code asked for. Names of people in
    the shown records are no things labelled."""
    if ask.kind not in ("ident", "quantity") or not ask.focus or ask.focus == "number":
        return False
    cited = _first_cited(out, pack)
    if cited is None:
        return False
    people = {stem(i.record.speaker.lower()) for i in pack.items if i.record.speaker}
    asked_for = {stem(w) for w in (ask.focus, ask.compound) if w}
    return labels_other(out.answer, cited.record.text, asked_for, people)


def _content(text: str) -> frozenset[str]:
    """The stems of ``text``'s words that are neither function words, numbers nor part of
    a time or date said ("six till two", "the 22nd")."""
    return frozenset(stem(w) for w in words(without_times(text))
                     if w not in STOPWORDS and len(w) > 2 and w not in NUMBER_VALUES)


def _first_cited(out: ReaderOutput, pack: Pack) -> EvidenceItem | None:
    """The shown item of the answer's first cited source."""
    return next((i for i in pack.items if i.source_id in out.cited_ids[:1]), None)


def _earlier_superseded(cited: EvidenceItem, pack: Pack) -> list[EvidenceItem]:
    """The shown records the graph stage marks superseded that ``cited``'s speaker said
    before it: what a value the cited record gives may stand in place of."""
    return [i for i in pack.items if i.routes.get("superseded")
            and i.record.seq < cited.record.seq and i.record.speaker == cited.record.speaker]


def _in_place_of_told(question: str, out: ReaderOutput, pack: Pack) -> bool:
    """Whether the answer is the value its cited record gives in place of an older one that
    the ledger holds superseded: both records name a word the question does not (the old
    value: "Sage looked grey in our light" after "sage green for the kitchen units"), said
    apart from the answer, and the answer says what the older record does not ("navy"). A
    speaker who changes a value seldom names its kind ("colour"); naming the value they
    leave tells that what they say instead fills the same slot. A time is no such value."""
    cited = _first_cited(out, pack)
    if cited is None or len(words(out.answer)) > 5 or find_candidates(out.answer):
        return False
    q = _content(question)
    said = _content(out.answer) - q
    if not said or not q & _content(cited.record.text):
        return False
    # The old value is said in another sentence of the cited record than the new one.
    apart = frozenset().union(*(_content(x) for x in split_sentences(cited.record.text)
                                if not _content(x) & said)) - q
    return any(q & (told := _content(i.record.text)) and told & apart and said - told
               for i in _earlier_superseded(cited, pack))


def _compound_of(answer: str, focus: str) -> bool:
    """Whether the answer is one word made of another word and X ("sunroom" for "which
    room"): a kind of X, which tells it from the others."""
    said = [w for w in words(answer) if w not in STOPWORDS]
    return len(said) == 1 and len(said[0]) >= len(focus) + 3 \
        and said[0].endswith(focus.lower())


def _time_in_place(ask: Asked, question: str, out: ReaderOutput, pack: Pack) -> bool:
    """Whether the answer is a clock time that the graph stage's current record gives in
    place of the time an earlier record of the same speaker gave, which the graph marks
    superseded and which shares a word with the question, where a shown record names X
    ("the quarter past seven boat" after "I'm taking the 8:05 over each morning"; "Orders
    close at noon now" after "Dairy orders by 2pm" for the cut-off). A time then tells
    one X from others. A question that gives a day or date itself asks no time ("Which
    team are we playing on Sunday?": "half eleven" is the kick-off), and where no record
    names X the time may say something else of the thing."""
    cited = _first_cited(out, pack)
    if cited is None or cited.routes.get("graph") != 1 or not clock_time(out.answer) \
            or find_candidates(out.answer) or find_candidates(question):
        return False
    if not any(built(rf"\b{re.escape(ask.focus)}", re.I).search(i.record.text) for i in pack.items):
        return False
    asked = _content(question) - {stem(ask.focus)}
    return any(clock_time(i.record.text) and asked & _content(i.record.text)
               for i in _earlier_superseded(cited, pack))


def focus_filled(ask: Asked, question: str, out: ReaderOutput, pack: Pack) -> bool:
    """Whether an answer to "what/which X …?" can stand. When no shown record says X, the
    answer must name something (a speaker need not say "the language" to say "German").
    "Which X" asks to tell one X from others: the answer is a name, or X with a word that
    tells it apart ("the Everest room"), not whatever the record says beside X."""
    focus = stem(ask.focus)
    if _compound_of(out.answer, ask.focus) or _time_in_place(ask, question, out, pack):
        return True
    known = capitalised_mid_sentence([i.record.text for i in pack.items])
    q = {stem(w) for w in words(question)}
    # A name opening a clause ("Femi has practice") tells who does something, not which X.
    named = stands_for(out.answer, question, q, known) and not _CLAUSE.match(out.answer) \
        or bool(re.search(r"[\"“”]", out.answer))
    # A number tells one X from others where the records label X with numbers ("Room 7";
    # "space is number 14" before "I'm in 9 now").
    number = re.search(r"(?<![\w.])\d[\d.]*(?!\w)", out.answer)  # "9", not "10am"
    if number and any(re.search(rf"\b{re.escape(ask.focus)}s?\s+(?:is\s+)?"
                                rf"(?:no\.?\s*|number\s+)?\d", i.record.text, re.I)
                      for i in pack.items):
        named = True
    cited = next((i.record.text for i in pack.items if i.source_id in out.cited_ids), "")
    if out.answer.lower() == labelled(ask.focus, repaired(cited), question).lower():
        return True  # X with the label the cited record gives it ("kennel nine", "rack A")
    if may_hold(out.answer, ask.focus) and built(rf"\b{re.escape(ask.focus)}", re.I).search(
            out.answer) and not built(rf"(?<!\bof\s)(?<!\bof\sthe\s)\b{re.escape(ask.focus)}",
                                      re.I).search(out.answer):
        # X said only after "of" ("a long week of trains", "a cup and a half of kibble"):
        # an amount of X, not which X.
        return False
    if not any(focus in stems(i.record.text) for i in pack.items):
        # A time tells a train or a flight from the others ("the eight oh eight"). A name
        # with a title is someone ("I saw Dr. Hale today"): no record says that they are
        # the X asked for ("Which pharmacy …?").
        return named and not TITLED.match(out.answer) \
            or ask.kind == "which" and bool(_SPOKEN_TIME.fullmatch(out.answer)) \
            or _in_place_of_told(question, out, pack)
    # A word the records put before X names a kind of X ("stays pureed" where a record
    # says "pureed diet").
    if ask.kind == "which" and any(
            may_hold(i.record.text, ask.focus) and built(
                rf"\b{re.escape(w)}\s+{re.escape(ask.focus)}", re.I).search(i.record.text)
            for w in words(out.answer) if w not in STOPWORDS and len(w) > 2
            and w not in NUMBER_VALUES  # "six physio sessions": how many, not which
            and w.lower() not in NOT_COMPOUNDS  # "the new room": which is not told
            for i in pack.items):
        return True
    if ask.kind == "what" or named:
        return True
    # X with a word beside it that tells it apart ("the Slough warehouse site"), not a
    # count of X ("approved six physio sessions") nor a word that only owns it ("my room").
    # "Which keys …?": "the front key" says one of them.
    said = re.escape(ask.focus[:-1]) + "s?" if re.search(r"[^s]s$", ask.focus) \
        else re.escape(ask.focus)
    for m in built(rf"(?:([\w'’-]+)\s+)?\b{said}\w*(?:\s+([\w'’-]+))?",
                   re.I).finditer(out.answer):
        if any(w.lower() not in STOPWORDS and w.lower() not in NUMBER_VALUES
               and w.lower() not in NOT_COMPOUNDS  # "the new room" orders, tells none apart
               and stem(w.lower()) not in q for w in m.groups() if w):
            return True
    # "chocolate and mixed berry flavors": the answer is what the record puts before X.
    return bool(built(re.escape(out.answer) + r"\s+" + re.escape(ask.focus[:4]), re.I).search(cited))


# A value said of a thing: "the blinds are charcoal", "my cake's lemon".
_VALUE_AFTER = r"\s*(?:['’]s|\s+(?:is|are|was|were))\s+(?:(?:still|now|just|only)\s+)?"
# Said of a thing as what it stays or, after a colon, as what was settled on: "the
# bathroom stays white", "on the towel rail: brushed brass".
_KEPT_AS = r"(?:\s*:\s*|\s+(?:stays?|remains?)\s+(?:(?:still|now|just|only)\s+)?)"
_X_IS_T = lazy_re(r"\s*(?:what|which)\s+([\w'’-]+)\s+(?:is|are|was|were)\s+([^?]+?)\s*\?*\s*$",
                  re.I)
# A name said as what a thing is: "it's a Bosch", "is the Cork half marathon".
_IS_A_NAME = lazy_re(r"(?:['’]s|\b(?:is|are|was|were))\s+(?:(?:still|now|just|only)\s+)?"
                     r"(?:a|an|the)\s+(?=[A-Z])")


def slot_filler(ask: Asked, question: str, out: ReaderOutput,
                 pack: Pack) -> ReaderOutput | None:
    """For "what X …?" where no shown record says X, the value the cited record (or the
    graph stage's current one) gives in X's place: a name said as what the thing is ("it's a
    Bosch" for its make), or a short value said of the thing the question names ("the
    bathroom blinds are charcoal" for their colour). A speaker seldom names the category."""
    focus = stem(ask.focus)
    if not focus or any(focus in stems(i.record.text) for i in pack.items):
        return None
    known = capitalised_mid_sentence([i.record.text for i in pack.items])
    q = {stem(w) for w in words(question)}
    # "What X is T?" asks which X T is; "What's the X of T?", "What's my X on T?" ask
    # something T has, which T itself does not tell.
    m = _X_IS_T.match(question)
    if m is None or stem(m.group(1).lower()) != focus:
        return None
    thing = [w for w in re.findall(r"\b[a-z][\w'’-]*", m.group(2)) if w not in STOPWORDS]
    if not thing:
        return None
    thing_rx = re.escape(thing[-1])
    lead = [i for i in pack.items if i.routes.get("graph") == 1
            and not i.routes.get("superseded")]
    order = lead + [i for i in pack.items if i.source_id in out.cited_ids[:1]]
    for item in order:
        for x in split_sentences(repaired(item.record.text)):
            if not built(rf"\b{thing_rx}", re.I).search(x):
                continue  # a sentence about something else ("the kettle's a Bosch")
            for m in _IS_A_NAME.finditer(x):
                name = next((n for at, n in names_in(x[m.end():], q, known) if at == 0), "")
                if name:
                    return ReaderOutput(name, [item.source_id], out.reader)
            value = _said_of(thing_rx, _VALUE_AFTER, x, q)
            if value:
                return ReaderOutput(value, [item.source_id], out.reader)
    # The graph stage's current record may say the value of a word of T with "stays" or
    # after a colon ("The bathroom stays white" for "What colour are the bathroom
    # tiles?"; "Final answer on the towel rail: brushed brass" for its finish).
    for item in lead:
        for x in split_sentences(repaired(item.record.text)):
            for w in reversed(thing):
                value = _said_of(re.escape(w), _KEPT_AS, x, q)
                if value:
                    return ReaderOutput(value, [item.source_id], out.reader)
    return None


def _said_of(thing_rx: str, link: str, sentence: str, q: set[str]) -> str:
    """The short value (up to three words, ending the clause) ``sentence`` says of the
    thing ``thing_rx`` matches through ``link``; not what it does ("the boots are
    killing me"), a time, nor words of the question (``q``: its stems). '' when none."""
    m = re.search(rf"\b{thing_rx}{link}((?:[\w'’-]+\s+){{0,2}}?[\w'’-]+)"
                  r"\s*(?:[,.;!?]|$)", sentence, re.I)
    if m is None or re.match(r"[a-z]+ing\b", m.group(1), re.I):
        return ""
    value = m.group(1)
    if stems(value) & q or not stems(value) or link == _KEPT_AS and find_candidates(value):
        return ""
    return value


def _holder_stems(item: EvidenceItem) -> set[str]:
    """The stems of the words of a record that can be whom it speaks of: a word with a
    contracted "is" or "has" ("Chloe's going up front" → chloe), not an owner ("Mia's
    friend Ruby" speaks of Ruby)."""
    text = item.record.text
    return {stem(m.group(1).lower()) for m in re.finditer(r"([\w-]+)(['’]s\b)?", text)
            if not m.group(2) or not is_possessive(text, m.end())}


def object_filler(question: str, out: ReaderOutput, pack: Pack) -> ReaderOutput | None:
    """For "what/which X …?" whose chosen span does not tell which X: the object of the
    verb the question asks with, said of the same one (``complement.verb_object``: "Sigrid
    plays saxophone now" for "What instrument does Sigrid play?"), whether or not any
    record names X: a speaker seldom names the kind of the value they give. Read from the
    cited record, the reply of another speaker right after it (the robot's acknowledgement
    says it in the question's words: "Bruno on the turkey light formula"), the graph
    stage's current record, then the other shown records, newest first; never from
    another holder's. A record the graph stage marked superseded, or said before its
    current record (or, with none, the cited one), may have been revised since: its value
    stands only where that newest record says it again and marks no change ("I play viola
    in the pit band" before "Panto band is me on viola": a restated value is no update).
    With no current record of the graph stage, a later shown record that names the one
    asked of (not as an owner) is the newest, cited or not. None when no record gives
    one."""
    cited = [i for i in pack.items if i.source_id in out.cited_ids[:1]]
    lead = [i for i in pack.items if i.routes.get("graph") == 1
            and not i.routes.get("superseded")]
    anchor = max(lead or cited, key=lambda i: i.record.seq, default=None)
    holder = asked_holder(question)
    if not lead and holder:
        # With no current record of the graph stage, the newest shown record that names
        # the one asked of ("Chloe's going up front to goal shooter" after "Chloe's been
        # playing wing defence") is the newest said of them, cited or not.
        naming = [i for i in pack.items if holder <= _holder_stems(i)]
        anchor = max([*naming, *([anchor] if anchor is not None else [])],
                     key=lambda i: i.record.seq, default=anchor)
    rest = sorted(pack.items, key=lambda i: -i.record.seq)
    order = cited + [i for i in pack.items if cited and i.record.session_id
                     == cited[0].record.session_id and i.record.seq == cited[0].record.seq + 1
                     and i.record.speaker != cited[0].record.speaker] + lead + rest
    asked = stems(question)
    # The newest record says the same value again, marking no change ("Still a tenor";
    # not "dropped to the 10k instead of the half", which names the value it leaves).
    again = stems(anchor.record.text) if anchor is not None \
        and not marks_change(anchor.record.text) else frozenset()
    for item in order:
        if item.routes.get("other"):
            continue
        revised = item.routes.get("superseded") or anchor is not None \
            and item.record.seq < anchor.record.seq
        for x in split_sentences(repaired(item.record.text)):
            value = verb_object(question, x, asked)
            ws = value.split()
            if ws and (ws[0].lower() in NUMBER_VALUES or ws[0].isdigit()) and len(ws) > 1:
                continue  # "wants twelve centrepieces": how many, not which
            if value and revised and not stems(value) & again:
                continue  # said before the newest record, which does not say it again
            if value:
                return ReaderOutput(value, [item.source_id], out.reader)
    return None


# "Phone" names every kind of phone: a number of the length one dials is one, whether or
# not its record says "phone" ("ring my son on 07911 223344").
PHONE = frozenset(stem(w) for w in ("phone", "telephone"))
DIALLED = lazy_re(r"(?<![\d.])\+?\d(?:[\s-]?\d){6,}(?!\d|\.\d)")


def a_sum(value: str, text: str) -> bool:
    """Whether ``text`` writes ``value`` as a sum of money ("£2.40", "$5")."""
    return bool(built(rf"[£$€]\s*{re.escape(value.strip())}(?!\d)").search(text))


# "What hours does Karim work?", "Which day do I …": the verb of the one asked about, last.
DOES = lazy_re(r"\s*(?:what|which)\s+\w+\s+(?:do|does|did)\s+(?:[\w'’]+\s+){1,2}?"
                r"([a-z]+)(?:\s+(?:off|up|in|out|on|over|back))?\s*\?\s*$", re.I)


def only_time(answer: str) -> bool:
    """Whether ``answer`` says nothing but a time or date ("july 12", "Friday at 2pm")."""
    times = find_candidates(answer)
    rest = answer
    for m in reversed(times):
        rest = rest[:m.start()] + " " + rest[m.end():]
    return bool(times) and not stems(rest)


def _repeats(answer: str, question: str) -> bool:
    """Whether every word and figure of ``answer`` is one of ``question``'s."""
    said = stems(answer) | set(re.findall(r"\d+", answer))
    return bool(said) and said <= stems(question) | set(re.findall(r"\d+", question))


# A clause of its own after a comma: a subject pronoun or a conjunction opens it.
_NEW_CLAUSE = lazy_re(r"\s*(?:i|we|you|he|she|it|they|but|and|so|because|though)\b", re.I)


def _complement(answer: str, text: str, question: str) -> str:
    """What ``text`` says ``answer`` is, when ``answer`` is the subject of a copula in it
    ("My guitar's strings are nylon, light tension, I swap them …": "nylon, light
    tension"): the complement with the value phrases listed after it, up to a clause of
    its own; '' when there is none or it too only repeats ``question``."""
    subject = re.sub(r"['’]s$", "", answer.strip())  # "rota's the same": "rota" is it
    if not subject:
        return ""
    for x in split_sentences(repaired(text)):
        m = built(rf"(?<![\w'’]){re.escape(subject)}{_VALUE_AFTER}", re.I).search(x)
        if m is None:
            continue
        parts: list[str] = []
        for k, part in enumerate(x[m.end():].rstrip(" .!?").split(",")):
            if not part.strip() or k and _NEW_CLAUSE.match(part):
                break
            parts.append(part.strip())
        value = ", ".join(parts)
        if value and not _repeats(value, question):
            return value
    return ""


def told_later(item: EvidenceItem, pack: Pack, question: str) -> bool:
    """Whether a shown record said after ``item`` speaks of what ``question`` asks (shares
    a word of it), not of another holder's (the graph stage's ``other``): for a state now
    it may have changed what ``item`` says ("steel strings on it for now" after "my
    guitar's strings are nylon")."""
    asked = stems(question) - STOPWORDS
    return any(i.record.seq > item.record.seq and not i.routes.get("other")
               and stems(i.record.text) & asked for i in pack.items)

# A clock time said in words: "eight oh eight", "seven fifty-five", "the 7:42".
_TIME_SAID = (r"(?:\d{1,2}[:.]\d{2}|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven"
              r"|twelve)\s+(?:oh\s+)?(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty"
              r"|thirty|forty|fifty)(?:-[a-z]+)?)")
_SPOKEN_TIME = lazy_re(rf"(?:the\s+)?{_TIME_SAID}", re.I)
THE_TIME = lazy_re(rf"\bthe\s+{_TIME_SAID}", re.I)  # "the seven fifty-five" (a train)
