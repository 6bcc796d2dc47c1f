"""The typed readers: for a question whose wh-phrase asks for a kind of value (``spans.asked``:
a clock time, a day, a sum, a rate, a name, a person, a place), the value of that kind the
records state about what is asked, read from the record that states it (``_value``) and
chosen among the records that state one (``_typed``): the newest revision for a state,
the turn a robot's repeat echoes, the day a later turn moves. ``ExtractiveReader`` takes
these methods from ``TypedReading`` and gives them its settings.
"""

from __future__ import annotations

import calendar
import math
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..language.doers import another_does, asked_verb, named_verb
from ..language.kinship import relative_holds
from ..language.lazyre import lazy_re
from ..language.revision import (
    KIN,
    another_holds,
    asked_of,
    continues,
    given_instead,
    introduced_as,
    is_value_word,
    keys,
    marks_change,
    other_kind,
    shifts,
    spoken_to,
    state_values,
)
from ..language.text import ELIDED_AFTER, STOPWORDS, possessors, stem, stems, words
from ..language.text import sentences as split_sentences
from ..language.timeanchor import (
    clock_moved,
    clock_shift,
    dated_by_phrase,
    destination_hour,
    find_candidates,
    ordinal_value,
    shifted,
)
from ..language.vocab import is_robot
from ..ledger import SourceRecord
from .ages import said_as_age
from .amounts import (
    RESULT,
    WITH_UNIT,
    bare_sentence,
    change_amount,
    not_counted,
    revisions_of,
    settled,
    value_tokens,
    with_unit,
)
from .complement import (
    person_complement,
    place_complement,
    place_in_there,
    place_said_of_it,
    place_there,
    uncased,
    verb_subject,
)
from .current import asks_original, before_clause, may_ask_held
from .days import (
    ASKS_OWN,
    PLURAL_DAYS,
    bare_weekday,
    dated_weekday,
    days_labelling,
    so_held,
    turns_down_only,
    with_hour,
    with_meridiem,
)
from .focus import (
    ASKING,
    ASPECT,
    DIALLED,
    DOES,
    LABEL,
    NOT_COMPOUNDS,
    PHONE,
    WHICH_WHAT,
    _measured,
    _repeats,
    a_sum,
    labels_other,
    said_bare,
)
from .names import (
    DOER,
    GIVEN,
    NAME_GIVEN,
    POSSESSOR_OF,
    RESPECTIVE,
    SELF_DOING,
    SELF_NAMED,
    SUBJECT_IS,
    TITLED,
    YOU_DOING,
    name_value,
    name_words,
    proper_names,
)
from .newstate import CONSEQUENCE_SO, OPENS_SO, consequence_first, state_first
from .owners import (
    ADDS,
    FIRST_PERSON,
    OF_SELF,
    THIRD_PERSON,
    carries_on,
    holder_clash,
    kin_owned,
    look_alike,
    named_near,
    owned_by,
    owners_other,
    possessed,
    someone_else,
    speakers_mine,
    told_of_another,
)
from .pack import EvidenceItem, Pack
from .plan import Plan
from .readout import (
    ReaderOutput,
    Scored,
    _asks,
    _content,
    _echoed,
    heard_part,
    reply_to,
)
from .spans import (
    MEASURES,
    MEASURING,
    NEW_STATE,
    TITLES,
    TURNED_DOWN_BEFORE,
    Asked,
    anchored_weekday,
    answer_date,
    asked_day,
    bare_figure,
    capitalised_mid_sentence,
    clock_time,
    day_part,
    days_listed,
    declines,
    event_time,
    figure_in_words,
    format_day,
    frequency,
    has_calendar,
    held_days,
    hour_alone,
    ident_near,
    money,
    names_day,
    names_in,
    number_head,
    place_phrase,
    quantities,
    question_grain,
    repaired,
    states_time,
    sum_stated,
    told_new,
    turned_down,
    weekdays_written_out,
)
from .timeof import times_another

# A request put as a question: a modal of asking opens it, maybe after a phrase ("From
# next week, could you collect on Thursdays?", "Can dinner follow us to Sunday?").
_REQUEST = lazy_re(r"^\W*(?:[^,?]{1,40},\s*)?(?:(?:so|and|also|oh|please|then)\W+)*"
                   r"(?:could|can|would)\b", re.I)
_YES_NO = lazy_re(r"(?i:yes|no)\W*")


# A question about where someone or something goes, not where it is.
_MOTION = lazy_re(r"\b(?:go|goes|going|went|move|moves|moving|moved|head|heading|travel\w*"
                  r"|fly|flying|drive|driving|send|sending|take|taking)\b", re.I)

# A consequence clause, and the speaker holding the thing in it.
_FROM_BEFORE = lazy_re(r"\bfrom\s+(?:the\s+)?$", re.I)
_MEASURE_STEMS = frozenset(stem(w) for w in MEASURES)
_PRONOUN_ONE = lazy_re(r"\b(?:the|this|that|which|each|every|another|any)\s+"
                       r"(?:[\w'’-]+\s+){0,3}$", re.I)
_WITH_ME = lazy_re(r"\b(?:with|to|by)\s+me\b|\b(?:is|it's)\s+me\b")


def _after_cause(sentence: str, found: list[tuple[int, str]],
                 gone: frozenset[str]) -> list[tuple[int, str]]:
    """Of the names ``found`` in ``sentence``, those said after the "so" of a consequence,
    where every one before it is among ``gone`` (named by the revisions the record
    supersedes): "Tilly's gone off the Gruffalo too, so her little brother Sam's wearing
    it" changes from Tilly to Sam. A name said again ("Brightwave are still the client")
    stays, and one the cause says still does it ("Priya's still walking him, so Tomas
    can rest"); so does every name where the cause names someone new."""
    so = CONSEQUENCE_SO.search(sentence)
    if so is None:
        return found
    before = [f for f in found if f[0] < so.start()]
    after = [f for f in found if f[0] >= so.end() and not set(words(f[1])) - TITLES <= gone]
    if before and after and all(set(words(f[1])) - TITLES <= gone for f in before) \
            and not re.search(r"\bstill\b", sentence[:so.start()], re.I):
        return after
    return found


def _said_ahead(sentence: str) -> bool:
    """Whether the days ``sentence`` names are all said relative to its turn and none
    lies behind it ("tomorrow", "tonight", "today"; not "yesterday", "last night")."""
    found = find_candidates(sentence)
    return bool(found) and all(
        re.fullmatch(r"(?:today|tonight|tomorrow)(?:\s+\w+)?", m.group(0).strip(), re.I)
        for m in found)


def _taken_out(text: str, value: str, said: frozenset[str]) -> str:
    """``text`` without ``value``: where it is written as read, that phrase; else each
    word stating one of ``said`` (a day read as "every Friday" from "Fridays")."""
    out = re.sub(rf"(?<![\w'’-]){re.escape(value)}(?![\w'’-])", "", text, flags=re.I)
    if out == text:
        out = re.sub(r"[^\W_]+(?:['’-][^\W_]+)*",
                     lambda m: "" if (value_tokens(m.group(0)) and value_tokens(m.group(0))
                                      <= said) else m.group(0), text)
    return re.sub(r"\s{2,}", " ", out)


# Who opens a clause: a name ("Owen at number seven has said …"), or a definite noun that a
# verb follows ("The pharmacy's going to …").
_OPENER = lazy_re(r"\s*(?:(?P<np>the\s+[a-z]+)(?=(?:['’]s|\s+is|\s+are)\s+[a-z]+ing\b"
                  r"|\s+(?:has|have|will|can)\b|['’]ll\b)"
                  r"|(?P<name>[A-Z][a-z][\w'’-]*)(?=['’]s\b|\s))", re.I)


def _new_doer(text: str, old: frozenset[str]) -> str:
    """Who opens a clause of ``text`` that tells the state as the new one (``told_new``:
    "Owen at number seven has said he'll do the cat instead", "The pharmacy's going to
    bring my tablets round instead"), where the one it changes from was taken out of
    ``text``: the one who does it now. Not a function word, a weekday or month, nor one
    of the ``old`` values; '' when no such clause opens on anyone."""
    for a, b in told_new(text):
        m = _OPENER.match(text[a:b])
        if m is None:
            continue
        said = m.group("np") or m.group("name")
        low = said.split()[-1].lower()
        if m.group("name") and not said[0].isupper():
            continue
        if low in STOPWORDS or names_day(said) or stem(low) in old or low in old:
            continue
        return said
    return ""


# A future said with a modal ("I'll find it", "we will", "going to", "gonna").
_WILL = lazy_re(r"['’]ll\b|\b(?:will|shall|gonna|going\s+to)\b", re.I)
# What says a state goes on as it was ("still").
_STILL = lazy_re(r"\bstill\b", re.I)


# Where a sentence's clauses part: a comma before "and", "but" or a preposition that opens
# a phrase of its own ("…, in the side locker"); not a semicolon, which lists ("Subs now
# £18; under-8s unchanged at £10").
_CLAUSE_CUT = lazy_re(r",\s+(?=(?:and|but|in|on|at)\b)", re.I)


def _left_for(text: str, value: str, said: frozenset[str], fresh: frozenset[str]) -> bool:
    """Whether ``text`` leaves ``value`` (whose words state ``said``) for a value stating
    ``fresh``: it turns the old one down ("…, not under the frog", "forget 31", "it's 8,
    not 3"), or says it in a cause whose consequence says the new one ("Daniels is
    teaching on Fridays now, so we've shifted to Wednesdays")."""
    for m in re.finditer(r"[^\W_]+(?:['’-][^\W_]+)*", text):
        if value_tokens(m.group(0)) & said and TURNED_DOWN_BEFORE.search(text[:m.start()]):
            return True
    at = text.lower().find(value.lower())
    if at > 0 and TURNED_DOWN_BEFORE.search(text[:at]):
        return True
    sentences = split_sentences(text)
    # (and clause by clause: "Dr. Blake has retired, and Ginger's been handed over to a
    # Dr. Fisher"; "I've put it back in the truck, in the side locker this time")
    clauses = [c for x in sentences for c in _CLAUSE_CUT.split(x) if c.strip()]
    # (by the words that tell them apart: "Dr. Blake" and "a Dr. Fisher" share a title)
    own_old, own_new = said - fresh or said, fresh - said or fresh
    for told in (sentences, clauses):
        olds = [k for k, x in enumerate(told) if value_tokens(x) & own_old]
        news = [k for k, x in enumerate(told) if value_tokens(x) & own_new]
        if olds and news and max(olds) < min(news) \
                and not any(_STILL.search(told[k]) for k in olds) \
                and not any(_WILL.search(told[k]) and not NEW_STATE.search(told[k])
                            for k in news):
            # "Handed my notice in at the farm. The distillery's taken me on": the record
            # tells the old value first and the new one after it, in a sentence (or
            # clause) of its own that says what holds (not what will be done: "I'll find
            # it in the garden"; but an arrangement it marks as the new one is what holds:
            # "Owen has said he'll do the cat instead").
            return True
    parts = CONSEQUENCE_SO.split(text)
    if len(parts) < 2:
        return False
    cause, result = " ".join(parts[:-1]), parts[-1]
    if _STILL.search(cause):
        return False  # "Priya's still taking the dog, so Tomas can have a lie-in": held
    return bool(value_tokens(cause) & said) and not value_tokens(result) & said \
        and bool(value_tokens(result) & fresh)


def _denied_amount(text: str, at: int) -> bool:
    """Whether the figure at ``at`` is one ``text`` turns down ("not 50", "instead of
    six"); "from" before a figure is where a range or a threshold starts, not a denial."""
    m = TURNED_DOWN_BEFORE.search(text[:at])
    return m is not None and not m.group(0).lower().startswith("from")


def _day_parts_listed(sentence: str) -> str:
    """The times of day a sentence lists, one to a clause, when it lists more than one
    ("half in the morning, half at night"): how often, said as when; '' otherwise."""
    parts = [day_part(x) for x in re.split(r",|;|\band\b", sentence)]
    said = list(dict.fromkeys(p for p in parts if p))
    return " and ".join(said) if len(said) > 1 else ""


def _dates_said(text: str, skip: set[str]) -> str:
    """The days and dates ``text`` says, as said (``skip`` is for the readers' shape)."""
    return " ".join(m.group(0).lower() for m in find_candidates(text))


# The readers of the kinds whose values a record may tell several of, one per clause.
_SEVERAL_TOLD: dict[str, Callable[[str, set[str]], str]] = {
    "day": _dates_said, "date": _dates_said, "when": _dates_said,
    "clock": lambda x, skip: clock_time(x), "money": lambda x, skip: sum_stated(x),
    "ident": ident_near, "place": lambda x, skip: place_phrase(x, skip),
}


# The kinds of value a reply says back in the same words: names, people and places.
_HEARD_KINDS = frozenset({"name", "person", "place"})


class TypedReading:
    """The typed-value methods of ``ExtractiveReader`` (see the module docstring); the
    settings they read are its own."""

    name: str
    span_tokens: int
    reply_gap: int
    revision_share: float
    revision_overlap: float

    def _around(self, rec: SourceRecord, items: Sequence[EvidenceItem]
                ) -> tuple[SourceRecord | None, SourceRecord | None]:
        """The shown turn a record answers (the nearest earlier turn of another speaker,
        within ``reply_gap``, that asks something) and the shown turn that answers or
        echoes it (the next turn of another speaker)."""
        before = after = None
        for i in items:
            r = i.record
            if r.session_id != rec.session_id or r.subject_id != rec.subject_id \
                    or r.speaker == rec.speaker:
                continue
            if rec.seq - self.reply_gap <= r.seq < rec.seq and r.text.rstrip().endswith("?") \
                    and (before is None or r.seq > before.seq):
                before = r
            if rec.seq < r.seq <= rec.seq + self.reply_gap and (after is None
                                                                 or r.seq < after.seq):
                after = r
        return before, after

    def _just_before(self, rec: SourceRecord, items: Sequence[EvidenceItem]) -> list[SourceRecord]:
        """The shown turns of a record's session at most ``reply_gap`` records before it."""
        return [i.record for i in items if i.record.session_id == rec.session_id
                and i.record.subject_id == rec.subject_id
                and rec.seq - self.reply_gap <= i.record.seq < rec.seq]

    @staticmethod
    def _names_the_same(rec: SourceRecord, items: Sequence[EvidenceItem], topic: set[str],
                        asked_names: set[str], known: set[str]) -> bool:
        """Whether a record names something (a name, not a day) that an earlier shown
        record sharing the question's topic names too."""
        mine = {n.lower() for _, n in names_in(rec.text, asked_names, known)}
        return bool(mine) and any(
            mine & {n.lower() for _, n in names_in(i.record.text, asked_names, known)}
            for i in items if i.record.seq < rec.seq and topic & stems(i.record.text))

    @staticmethod
    def _said_before(rec: SourceRecord, items: Sequence[EvidenceItem]) -> frozenset[str]:
        """The values the same speaker's earlier shown records state: where a record the
        graph stage did not tie to them names one of those and another of its kind ("They
        double-booked the 22nd, and the first thing they had is the 3rd" after "the 22nd
        now"), the one said before is what it changes from. Not where the record marks a
        value as holding on ("My test stays on the 25th, and the theory one is the 22nd"):
        the value said before is said again."""
        if continues(rec.text):
            return frozenset()
        return frozenset().union(*(
            state_values(i.record.text) for i in items
            if i.record.subject_id == rec.subject_id and i.record.speaker == rec.speaker
            and (i.record.source_time, i.record.seq) < (rec.source_time, rec.seq)))

    @staticmethod
    def _continued(rec: SourceRecord, items: Sequence[EvidenceItem], asked_names: set[str],
                   known: set[str], later: bool = True) -> frozenset[str]:
        """What the turns right next to a record say, when it carries on their topic
        ("Still the 27th though" after "the party's now at her place"); nothing when it
        brings in someone new ("Ruth is coming tomorrow …" after the physiotherapy)."""
        around = [i.record for i in items if i.record.session_id == rec.session_id
                  and i.record.subject_id == rec.subject_id
                  and (i.record.seq - rec.seq == -1 or later and i.record.seq - rec.seq == 1)]
        earlier = frozenset().union(*(stems(r.text) for r in around if r.seq < rec.seq))
        new = {stem(n.lower()) for _, n in names_in(rec.text, asked_names, known)
               for n in n.split()} - earlier
        return frozenset() if new else frozenset().union(*(stems(r.text) for r in around))

    @staticmethod
    def _timed_by_doer(kind: str, others: set[str], items: Sequence[EvidenceItem]) -> bool:
        """Whether a time is asked of an event that a shown record tells by who does it or
        what is done, with a time, the event's noun unsaid ("Chef's got me starting at
        six" for "What time do I start my shift?", "Ruth comes to see me on Wednesdays"
        for "Which day does Ruth visit me?"). ``others``: the question's words besides
        the thing's, the kind's and titles ("Mr" names no one). A record naming them with
        no time ("Mr Ferreira is in side room 2" for "What time is Mr Ferreira's
        discharge?") tells nothing of it; codes and numbers are of their thing alone."""
        read = _SEVERAL_TOLD.get(kind) if kind in ("clock", "day", "date") else None
        return bool(read and others) and any(
            others & stems(i.record.text) and read(i.record.text, set()) for i in items)

    def _typed(self, question: str, plan: Plan, ask: Asked, scored: list[Scored], pack: Pack,
               q_stems: set[str], names: set[str], weights: dict[str, float],
               by_name: bool = False) -> ReaderOutput:
        """A value of the asked kind (``spans.asked``) from the record that states one
        about what the question asks: a state question takes the record the graph stage
        marks current, else the newest of the near revisions; any other the best match.
        Abstains when no shown record states one. ``by_name``: a record that names whom
        the question asks about counts as about the thing asked though it says the thing
        in other words ("Her pickup's quarter to ten" for "What time is Dora getting
        picked up?"; asked again so only where no record saying the thing names them)."""
        items = pack.items
        said = frozenset().union(*(stems(i.record.text) for i in items))
        label = LABEL[ask.kind]
        focus = stem(ask.focus) if ask.focus else ""
        compound = stem(ask.compound) if ask.compound else ""
        if compound and compound in q_stems and compound not in said \
                and ask.compound not in NOT_COMPOUNDS \
                and ask.kind in ("ident", "quantity", "money", "name", "person") \
                and not said_bare(ask.focus, items) \
                and not (compound in PHONE and (any(DIALLED.search(i.record.text)
                                                      for i in items)
                                                  or focus != "number" and focus in said)):
            # "What's her landline number?" when only a mobile was ever mentioned ("What
            # shoe size is Lottie?" where a record says "she's a size 13" is answered). A
            # phone is any phone: "her phone extension" is the extension a record names.
            return ReaderOutput("", [], self.name, f"no shown record mentions a {ask.compound} "
                                f"{ask.focus}")
        if ask.kind == "person" and focus and focus not in said and not any(
                TITLED.search(i.record.text) for i in items
                if i.routes.get("graph") == 1 and not i.routes.get("superseded")):
            # "Who is the site manager?" when no shown record mentions a manager. (The
            # graph stage's current record may name whom by a title, the role left
            # unsaid: "So Ruby's with Ms Obi now" for "Who's Ruby's teacher?".)
            return ReaderOutput("", [], self.name, f"no shown record mentions a {ask.focus}")
        proper = proper_names(question)
        # "my daughter": whom the shown records call so ("My daughter Judith is coming").
        kin = frozenset(w for w in words(question) if w in KIN)
        proper |= {stem(n) for n in introduced_as([i.record.text for i in items], kin)}
        # Whoever the event a question dates its state by names may be the one asked:
        # "Before Jade's leave started, who taught the Monday spin?" - Jade.
        dating = stems(before_clause(question)) if ask.kind == "person" else frozenset()
        # "What dose of atorvastatin …": a record about atorvastatin that gives an amount
        # says its dose without the word.
        of_what = _measured(question, ask.focus)
        if ask.kind == "quantity" and compound:
            of_what |= {compound}  # "What warfarin dose …": of warfarin
        # What the question is about, among the words the shown records use at all.
        asked_words = q_stems - names - proper - ASKING
        topic = asked_words & said
        # "What hours does Karim work?": what the one asked about does, which a record may
        # say in other words ("Karim's just started nights, ten till six").
        done = DOES.match(question)
        doing = {stem(done.group(1).lower())} if done else set()
        thing_words = asked_words - {focus, compound} - ASPECT - doing
        if focus and WHICH_WHAT.match(question) and thing_words and not thing_words & said \
                and not self._timed_by_doer(ask.kind, q_stems - ASKING - thing_words
                                            - {focus, compound} - TITLES, items):
            return ReaderOutput("", [], self.name, "no shown record mentions what the "
                                f"{ask.focus} asked is of")
        if focus and WHICH_WHAT.match(question) and topic - {focus}:
            # "Which floor is the staff canteen on?": the kind asked for is no part of the
            # thing ("The fifth floor is an oven" says nothing of the canteen); in "How
            # much warfarin …?" it is the thing.
            topic = topic - {focus}
        last = words(question)[-1:]
        if last and stem(last[0]) in ASPECT and topic - ASPECT:
            # "What time does chess club start?": the verb ending it says which time of the
            # thing is asked; the thing is what a record must speak of ("starting this
            # week" is not about a chess club).
            topic = topic - ASPECT
        known = capitalised_mid_sentence([i.record.text for i in items])
        owners = possessed(question)
        # The people talking: their names in a turn greet, they bring in no one new.
        speakers = {stem(w) for i in items for w in words(i.record.speaker)}
        asking = {s.item.source_id: s.overlap for s in scored if _asks(s)}
        mine = bool(re.search(r"\b(?:i|my|me|mine|i'm|i've|i'd)\b", question.lower()))
        # A state asked now: of several kinds of the thing, the one asked for.
        state = plan.current and plan.tense != "past"
        # A state asked as it was before an event ("Before the salon rang, which day …"):
        # the graph stage's record is the one that held then, found by the thing's thread
        # and the event's time, not by the question's words (the event need not be named
        # in it, nor the thing in the words asked: "Booked myself in at Shear Bliss,
        # Thursday at 10").
        held = not state and bool(before_clause(question)) and may_ask_held(question, plan)
        # The values the superseded records state: the current record may name one as
        # what it changes from ("can't get the Wednesday off, so I've changed it. Friday.").
        replaced = frozenset().union(*(state_values(i.record.text) for i in items
                                       if i.routes.get("superseded")))
        sums = any(money(i.record.text) for i in items if i.routes.get("superseded"))
        old_values = frozenset().union(*(value_tokens(i.record.text) for i in items
                                         if i.routes.get("superseded")))
        # The graph stage tied the current record to the turn it carries on: that turn
        # says what it is of ("three litres now" after "two litres of water a day").
        tied = any(i.routes.get("carried") for i in items)
        # What the records the graph stage's current record supersedes say.
        revised = frozenset().union(*(name_words(i.record.text, known) for i in items
                                      if i.routes.get("superseded")))
        # The owner the question names ("Theo's slot"), said with the owned noun left out.
        owners_asked = [re.escape(p) for p in possessors(question)]
        elided = re.compile(rf"\b(?:{'|'.join(owners_asked)})['’]s\s+"
                            rf"(?:{'|'.join(ELIDED_AFTER)})\b", re.I) if owners_asked else None
        # The numbers the shown records give with the focus word said ("The office
        # extension is 214"): a record giving one of them again speaks of the thing in
        # other words ("Yes, 214 again, as if nothing happened").
        focus_numbers = frozenset().union(*(_numbers(i.record.text) for i in items
                                            if focus and focus in stems(i.record.text)))
        # The words of the thing asked that a shown record says with the focus word and
        # a value ("The pharmacy extension is 214"): a record saying the thing with a
        # value ("Pharmacy's moved to the back desk, so it's 231 now") revises it. (A
        # focus no record says, "What's the postcode of the new house?", or says with no
        # value, "Code's the usual", stays unsaid.)
        with_focus = frozenset().union(*(stems(i.record.text) for i in items
                                         if focus and focus in stems(i.record.text)
                                         and any(t.isdigit() for t in value_tokens(i.record.text))))
        focus_things = (thing_words | {compound}) & with_focus - {""}
        # What the records the graph stage's current record supersedes say: one that
        # says the focus ("half a tablet of carprofen") is what the current one revises
        # ("back down to a quarter tablet").
        superseded_said = frozenset().union(*(stems(i.record.text) for i in items
                                              if i.routes.get("superseded")))
        # Asked of the asker's own thing, where the graph stage found a revision: the
        # values the superseded records give in a sentence that says the thing. The asker's
        # own current record that names one of them and another value ("The door on 7 is
        # hanging off, so I've moved my stuff into 12" after "my locker's number 7"), or
        # opens on "I" in a sentence that marks its state as new ("I'll be over at one
        # now"; not "Tuesday's when I do reception cover now"), tells what became of their
        # thing in words of its own.
        # ("we", "our": the household's thing, which its speaker tells as "we'll …")
        ours = bool(re.search(r"\b(?:we|our|us|we're|we've)\b", question.lower()))
        own_revised = (mine or ours) and bool(plan.asker) and bool(superseded_said)
        old_of_thing = frozenset().union(*(
            state_values(part) for i in items if i.routes.get("superseded")
            for part in split_sentences(i.record.text) if stems(part) & topic)) \
            if own_revised else frozenset()
        found: list[tuple[Scored, str, float]] = []
        for s in scored:
            rec = s.item.record
            before, after = self._around(rec, items)
            current = s.item.routes.get("graph") == 1 and not s.item.routes.get("superseded")
            if s.overlap <= 0 and not (current and not q_stems & said) \
                    and (not topic or not (current or carries_on(rec.text))) \
                    and not (by_name and proper & stems(rec.text)):
                # Shares no word with the question and does not carry one on. (The graph
                # stage's current record is read where no shown record says a word of the
                # question: the thread of the thing found it, so nothing else can.)
                continue
            # What the record says, with the turns right next to it: the question it
            # answers, the turn that echoes or answers it, and (when it carries on their
            # topic) the turns before and after it.
            carried_only = s.overlap <= 0 and not current
            if carried_only:
                # Read only as carrying on the turn before it (``carries_on``): what a
                # later turn says ("Payroll's extension is 350" after "44 cents.") is
                # not what it speaks of.
                after = None
            beside = stems(rec.text).union(*(stems(r.text) for r in (before, after) if r))
            if proper & {stem(w) for w in words(rec.speaker)} and OF_SELF.search(rec.text):
                # The one the question names speaking of their own ("Mine's 216", "I'm off
                # from the 19th"): it joins what the turns just before it talk about.
                beside = beside.union(*(stems(r.text) for r in self._just_before(rec, items)))
            near = beside | self._continued(rec, items, proper | q_stems | speakers, known,
                                            later=not carried_only)
            if before is not None and asking.get(before.source_id, 0.0) > 0:
                near = near | topic  # the reply to a turn that asks what the question asks
            if elided and elided.search(rec.text):
                near = near | topic  # "Theo's is at 6:20": Theo's slot, its noun left out
            if current and tied:
                # The graph stage shows the turns it carries on beside it ("Training's
                # indoors now." - "Okay." - "And it's half nine now"), and the revisions
                # that tie them to the thing: one chain, one thing.
                near = near.union(*(stems(i.record.text) for i in items
                                    if i.routes.get("graph")))
            if topic - doing and not topic & near and not (
                    by_name and proper & stems(rec.text)
                    and not owners_other(owners, rec.text, question)) and (
                    not current or owners_other(
                    owners, rec.text, question) or not (
                    held or focus and focus in stems(rec.text)
                    or self._names_the_same(rec, items, topic, proper | q_stems, known)
                    or name_words(rec.text, known) & revised
                    or ask.kind in ("day", "date", "when") and shifts(rec.text)
                    or bool(proper & stems(rec.text))
                    or own_revised and rec.speaker == plan.asker
                    and (_changes_from(rec.text, old_of_thing) or _own_change(rec.text)))):
                # Shares only a name with the question. (The graph stage's current record
                # also stands when it names the thing asked, "new password's tangerine77"
                # for the wifi password, or what an earlier record about the question
                # named: "I finally left St. Mary's" after "I work at St. Mary's", or a
                # word of a record it supersedes: "the Peak District instead" after "the
                # Lake District"; or, asked when, moves their time: "bumped another week";
                # or names whom the question asks of: "Dave texted, ferry strike, he won't
                # make it back till Sunday now" for "When is Dave getting home?"; as of a
                # time, "Maureen comes in at six" before her shifts changed, for "what time
                # did Maureen visit?"; or, said by the one asking of their own thing, names
                # its old value and a new one or marks its state as new, above.)
                continue
            if look_alike(owners, question, rec.text, plan.asker) \
                    or ask.kind != "person" and relative_holds(rec.text, question) \
                    or speakers_mine(question, plan.asker, rec) \
                    or state and other_kind(rec.text, question) \
                    or state and not current and ask.kind not in ("place", "person") \
                    and another_holds(rec.text, asked_of(question), keys(question) | q_stems) \
                    or not current and ask.kind != "person" \
                    and _another_doer(question, rec.text):
                continue  # "Lily's party" does not answer for "Alfie's party", nor "Mr
                # Grady's sessions" for "Mrs Grady's", nor "the blue kettles" for "the red
                # kettles", nor "Sharps are going to the last Friday" for when general
                # waste goes out (the question's words joined, "pickup", are its own),
                # nor "Kasia needs a 7" for what score the asker needs
            if focus and focus not in proper and focus not in STOPWORDS and (
                    ask.kind in ("name", "quantity", "count")
                    or ask.kind == "ident" and focus != "number") \
                    and focus not in beside and not of_what & beside \
                    and not focus_things & beside \
                    and not (ask.kind == "ident" and compound and thing_words
                             and thing_words | {compound} <= stems(rec.text)) \
                    and not (_numbers(rec.text) & focus_numbers
                             and not {stem(p.lower()) for p in possessors(rec.text)}
                             - proper - q_stems) \
                    and not (current and (ask.kind in ("count", "name", "ident")
                                          or ask.kind == "quantity"
                                          and (tied or focus in _MEASURE_STEMS
                                               or focus in superseded_said))):
                continue  # talks about the topic, never about the thing asked (a code
                # or label whose thing the record names whole needs no focus word: "The
                # shower block keypad is 3390" for the shower block keypad code; the graph
                # stage's current record revises one that does: "so I've got eight now";
                # or names the measure, which a record need not say: "runs at 32"; a
                # record giving again a code or label a record of the thing gave, "Rhys
                # ended up with 320" after "Updated: extension 320", speaks of it unless
                # it names another holder, "Reception's still 214" for Kev's extension; a
                # focus that is a function word, "be" of "going to be called", is no noun)
            if (mine or proper and ask.kind != "person") \
                    and someone_else(rec.text, proper | q_stems, known):
                continue  # "Rhys is on call this week" does not say when I am (or Luca is)
            focus_turns = [r.text for r in (before, after) if r and focus in stems(r.text)]
            # "Parents' evening's pushed back a week" beside "a walkout on the 20th": the
            # sentence about the thing moves its time and names no day, so the day the
            # revisions it supersedes named, moved, answers before a day said of another.
            moved = self._moved(rec, items, topic) if current and ask.kind in (
                "day", "date", "when") and shifts(s.sentence) and not states_time(s.sentence) \
                else ""
            value = moved or self._value(ask, question, plan, s, (q_stems | proper) - dating,
                                         known, focus in stems(rec.text), focus_turns,
                                         replaced if current else (
                                             self._said_before(rec, items) if ask.kind in (
                                                 "day", "date", "when") else frozenset()),
                                         current and sums,
                                         revised if current else frozenset())
            if value and current and not moved:
                # "Daniels is teaching on Fridays now, so we've shifted to Wednesdays": a
                # value the superseded records state is what the record changes from,
                # where it states another of the kind.
                value = self._new_side(value, old_values, q_stems, ask, question, plan, s,
                                       (q_stems | proper) - dating, known, focus, focus_turns,
                                       replaced, sums, revised)
            if value and ask.kind in _HEARD_KINDS:
                value = self._heard_value(value, ask, question, plan, s, items,
                                          (q_stems | proper) - dating, proper, known, focus,
                                          focus_turns, replaced if current else frozenset(),
                                          current and sums,
                                          revised if current else frozenset())
            if not value and current and ask.kind in ("day", "date", "when"):
                value = self._moved(rec, items, topic)
            if not value and current and ask.kind == "clock":
                value = self._clock_moved(rec, items, topic)
            if not value and current and state and ask.kind == "place":
                # "…, so it's the back room of the Red Lion now": the graph stage tied the
                # record to the thing, so the place it says of "it" is the thing's.
                value = next((v for v in map(place_said_of_it, split_sentences(rec.text))
                              if v), "")
            if value and _repeats(value, question.replace(before_clause(question), "")):
                value = ""  # "up for the dinner" for "When does he come up for his dinner?"
            if value and ask.kind in ("clock", "when") and a_sum(value, rec.text):
                value = ""  # "Bramleys £2.40 a kilo" states no time the shop opens
            if value and ask.kind == "clock" and said_as_age(value, rec.text):
                value = ""  # "he'll be six" is how old he will be, not when lunch is
            if value and ask.kind == "clock" and times_another(value, rec.text,
                                                               q_stems | proper, proper):
                value = ""  # "we're taking the 7:40 train" is no time of the first heat
            if value and ask.kind in ("ident", "quantity") and focus and focus != "number" \
                    and labels_other(value, rec.text, {focus, compound} | of_what,
                                     proper | speakers):
                value = ""  # "Ours is Flat 9" says which flat, not what floor it is on
            if value and state and self._echoes_other_kind(rec, value, question, pack):
                value = ""  # "Internet 45 a month." echoes the internet bill, not the water
            if value:
                # How much of what the question is about the record (and the turns next
                # to it) says, weighted by how rare each word is in the evidence.
                cover = (math.fsum(weights.get(t, 0.0) for t in topic & near)
                         / (math.fsum(weights.get(t, 0.0) for t in topic) or 1.0)) if topic \
                    else s.overlap
                found.append((s, value, cover))
        if not found:
            if not by_name and any(len(p) > 1 for p in proper) and ask.kind not in _TIMES:
                # No record saying the thing gives a value ("Where does Conor work now?"):
                # one that names whom the question asks of may say it in other words
                # ("Conor's started at the fire station"). Not a time: someone named has
                # many ("Josh's dentist is Wednesday at four" is no time of his check-up).
                return self._typed(question, plan, ask, scored, pack, q_stems, names,
                                   weights, by_name=True)
            return ReaderOutput("", [], self.name, f"no shown record states the {label} asked for")
        found = _own_holder(found, question, plan, frozenset(known).union(
            *(words(i.record.speaker.lower()) for i in items)))
        if plan.current and plan.tense != "past" and plan.as_of is None and plan.window is None:
            # The graph stage's verdict holds when its current record is about what is
            # asked and states a value of the kind; its superseded marks with it.
            lead = [f for f in found if f[0].item.routes.get("graph") == 1
                    and not f[0].item.routes.get("superseded")]
            # A later record the chain found to be another holder's, instance or thing
            # ("my brother's on lates now") revises nothing, however new.
            own = [f for f in found if not f[0].item.routes.get("other")] or found
            live = ([f for f in own if not f[0].item.routes.get("superseded")] or own) \
                if lead else own
            led = None if lead else _graph_led(scored)
            if led is not None:
                # The graph stage's current record, where no value was read from it ("And
                # now it's seven"): a value told with it or after it, not one it superseded
                # ("I start at eight"), is the one that holds, where one is.
                live = [f for f in live if not f[0].item.routes.get("superseded")
                        and f[0].item.record.seq >= led.item.record.seq] or live
            # Revisions of one state say it in different words: every record that states
            # a value about enough of what is asked is one; the newest holds.
            revisions = revisions_of(live, self.revision_share, self.revision_overlap)
            # "I've got stats too, but Wednesdays", "the art co-op is also on Tuesdays": a
            # record that adds another of the thing beside the one told revises none of
            # them; it holds only where it says most about what is asked.
            most = max(revisions, key=lambda f: (f[2], f[0].overlap))
            revisions = [f for f in revisions
                         if f is most or not ADDS.search(f[0].item.record.text)]
            revisions = _carried_apart(revisions, self.reply_gap)
            if proper and not lead:
                # Asked about someone by name ("Where are Sam's parents going that
                # week?"), a revision names them, or a turn just before it in its session
                # does ("Will Ellie carry on?" - "Yeah, she's handing her over …"), where
                # any one does: a later turn sharing only a word ("a storm over the Lakes
                # that entire week") says nothing of Sam's parents.
                named = [f for f in revisions
                         if proper & named_near(f[0].item.record, items, self.reply_gap)]
                if not named:
                    # None of the revisions about most of what is asked names them ("Flat
                    # 2, the Nowaks, rent … due on the 1st"): a record that states a value
                    # of the kind and names them does ("… Ollie, £720, due on the 15th").
                    named = [f for f in live if proper & named_near(
                        f[0].item.record, items, self.reply_gap)]
                    named = revisions_of(named, self.revision_share,
                                         self.revision_overlap) if named else []
                if not named and any(len(p) > 1 for p in proper):
                    # No revision says it of them ("How many sugars does Bernie take?" when
                    # only the speaker's own tea is told): it is not told, unless a record
                    # naming them says it in other words.
                    if not by_name:
                        return self._typed(question, plan, ask, scored, pack, q_stems, names,
                                           weights, by_name=True)
                    return ReaderOutput("", [], self.name,
                                        "no shown record says it of whom the question names")
                revisions = named or revisions
            pick = lead[0] if lead else max(revisions, key=lambda f: (
                f[0].item.record.source_time, f[0].item.record.seq))
            if not lead:
                pick = self._left_behind(pick, question, plan, ask, items, q_stems,
                                         (q_stems | proper) - dating, known, focus)
        else:
            # A past state: the graph stage's record for the time named, when it gave one
            # (the revision that held then, ``current.held_time``), else the best match.
            held = [f for f in found if f[0].item.routes.get("graph") == 1
                    and not f[0].item.routes.get("superseded")]
            pick = held[0] if held else max(found, key=lambda f: f[0].relevance)
            if not held and _last_word_asked(question, plan):
                # "What time did the Vilnius flight leave?", "What's the puppy called?"
                # (read here when the plan takes it for no present state): no time or
                # event named, so of the records that say most of what is asked, the
                # last told holds ("Vilnius got away at 20:20" after "on time, 20:15"),
                # not the one that matches the question's words best. A record the chain
                # found to be another's is none of them.
                own = [f for f in found if not f[0].item.routes.get("other")] or found
                most = max(f[2] for f in own)
                pick = max((f for f in own if f[2] >= most),
                           key=lambda f: (f[0].item.record.source_time, f[0].item.record.seq))
        rec = pick[0].item.record
        if is_robot(rec.speaker, rec.robot_id):
            # The robot repeating what someone just told it ("Vitamin D in the morning,
            # got it" after "His vitamin D stays with breakfast"): their own words answer.
            said = [f for f in found if not is_robot(f[0].item.record.speaker,
                                                     f[0].item.record.robot_id)
                    and f[0].item.record.session_id == rec.session_id
                    and f[0].item.record.subject_id == rec.subject_id
                    and rec.seq - self.reply_gap <= f[0].item.record.seq < rec.seq]
            # The turn it repeats states the value it says back ("Thursdays. Suits me" -
            # "Siobhan on Thursdays"), else speaks of what is asked: not a turn between
            # them that tells something else ("the bin men still come Tuesday").
            heard = value_tokens(pick[1]) - q_stems
            said = [f for f in said if heard & value_tokens(f[0].item.record.text)] \
                or [f for f in said if f[0].overlap > 0]
            if said:
                own = max(said, key=lambda f: f[0].item.record.seq)
                # The value the robot heard, where the person said it too ("Tola and
                # Marcus are done. She's … seeing … Femi." - "Tola is seeing Femi now.").
                value = pick[1] if pick[1].lower() in own[0].item.record.text.lower() \
                    and not value_tokens(pick[1]) < value_tokens(own[1]) else own[1]
                # (the person's value, where it says more of the same: "in the cage behind
                # the bins" for the robot's "Cage behind the bins.", read "behind the bins")
                if ask.kind == "when":
                    value = with_hour(value, found)
                elif ask.kind == "clock":
                    value = with_meridiem(value, found)
                return ReaderOutput(value, [own[0].item.source_id, pick[0].item.source_id],
                                    self.name)
        value = with_hour(pick[1], found) if ask.kind == "when" else \
            with_unit(pick[1], found) if ask.kind == "quantity" else \
            with_meridiem(pick[1], found) if ask.kind == "clock" else \
            _fuller_name(pick[1], items, known) if ask.kind == "person" else pick[1]
        return ReaderOutput(value, [pick[0].item.source_id], self.name)

    def _value(self, ask: Asked, question: str, plan: Plan, s: Scored, skip: set[str],
               known: set[str], focus_here: bool, focus_turns: Sequence[str] = (),
               replaced: frozenset[str] = frozenset(), after_sum: bool = False,
               gone: frozenset[str] = frozenset()) -> str:
        """The value of the asked kind a record states ('' when it states none), read from
        its best-matching sentence first, then from the rest of it. ``replaced``: values
        of the revisions it supersedes; a day among them is what it changes from.
        ``after_sum``: those revisions state a sum of money. ``gone``: the words of the
        names those revisions give (a person named there is who it changes from)."""
        rec = s.item.record
        # A figure the speaker took back ("62. Sorry, 61") is not stated.
        text = repaired(_content(rec, rec.text))
        first = repaired(_content(rec, s.sentence))
        parts = split_sentences(text)
        # The best-matching sentence first (whole, when an abbreviation split it; joined
        # to the next, when a figure taken back ended it).
        first = next((x for x in parts if first.strip() and first.strip() in x), None) \
            or (max(parts, key=lambda x: len(os.path.commonprefix([x, first.strip()])))
                if parts and text != _content(rec, rec.text) else first)
        ordered = [first] + [x for x in parts if x != first]
        kind = ask.kind
        # A question ("I told you Thursdays, didn't I?", "Still Mondays at 7:30?") asks;
        # it states nothing. The assertions beside it do. A request does state what is
        # wanted ("Could you collect on Thursday mornings?").
        ordered = [x for x in ordered if not x.rstrip().endswith("?") or _REQUEST.match(x)]
        # The record's sentences in the order told (``ordered`` puts the best first).
        ordered_text = [x for x in parts if x in ordered] or ordered
        if kind in _SEVERAL_TOLD:
            # "The airline has cancelled the Monday flight. They've shoved me onto the
            # Wednesday.": of the values of the kind a record tells, one it holds to.
            reads = _SEVERAL_TOLD[kind]
            ordered = state_first(ordered, lambda x: reads(x, skip))
        if kind in ("day", "date", "when"):
            # "parents evening moved to thurs": a clipped weekday names the day.
            ordered = [weekdays_written_out(x) for x in ordered]
            if has_calendar(rec.source_time):
                # "… on the 17th. Manual handling slides to the following Wednesday": a
                # sentence of the thing asked that places its weekday by a day told
                # before it in the record says the date.
                placed = next(((x, at) for x in ordered
                               if (at := anchored_weekday(x, text, rec.source_time)) is not None
                               and (x == ordered[0] or stems(x) & skip)), None)
                if placed is not None:
                    x, at = placed
                    day = f"{time.strftime('%A', time.gmtime(at))} {format_day(at)}"
                    clock = clock_time(x) if kind == "when" else ""
                    clock = re.sub(r"^(?:at|from|by|around|about)\s+", "", clock)
                    return f"{day} at {clock}" if clock else day
            # "General waste is Thursdays now, so the black bins go out Wednesday night":
            # of a cause and what follows from it, the one about what is asked says when.
            ordered = [so_held(x, skip) for x in ordered]
            # A named day ("Wednesdays", "Friday the 19th") says when the thing is; "today"
            # in a story about it says when it was talked about. "When does he take it?"
            # asks for a habit: a clock time or a time of day before a day that was told.
            named = [x for x in ordered if states_time(x) and names_day(x)]
            if kind == "when" and named and not names_day(ordered[0]) \
                    and (clock_time(ordered[0]) or day_part(ordered[0])):
                # "The doctor saw me Friday. I am to take the little pill at night now": the
                # sentence about what is asked says when (a time of day); a day another
                # sentence names, sharing no word with the question, dates something else.
                named = [x for x in named if stems(x) & skip]
            # A day said without a tense ("Friday.") is ahead when the state is asked now.
            ahead = plan.current and plan.tense != "past"
            if ahead:
                # A sentence that only turns a day down ("Forget Friday, the CEO can't make
                # it.") says when the thing is not, when another says when it is.
                named = [x for x in named if not turned_down(x)] or (
                    [] if turns_down_only(named) else named)
            if replaced:  # a sentence naming a new day before one naming only the old
                named.sort(key=lambda x: not state_values(x) - replaced)
            if kind == "day" and ASKS_OWN.search(question):
                # "Which day am I covering?": "the boss is covering Saturdays" says what is
                # asked of someone else; "I'm still on Sundays" comes before it.
                named.sort(key=lambda x: bool(stems(x) & skip)
                           and not FIRST_PERSON.search(x))
            if kind == "day" and PLURAL_DAYS.search(question):
                # "Which days …?": the days a sentence lists or spans, as it says them (a
                # list may keep days the revisions it supersedes named).
                # Not days that label a thing the sentence talks about ("The Monday and
                # Thursday slots are going to new patients"): what the slots were.
                listed = next((v for v in (days_listed(held_days(x)) for x in named
                                           if not days_labelling(held_days(x)))
                               if v), "")
                if listed:
                    return listed
            told = [x for x in ordered if states_time(x) and not names_day(x)]
            habit = kind == "when" and bool(re.match(r"\s*when\s+(?:do|does)\b", question, re.I))
            for x in named + ([] if kind == "when" else told):
                day = self._day(x, rec.source_time, kind, question, ahead, replaced, text)
                if day and bare_weekday(x):
                    return dated_weekday(day, [self._day(y, rec.source_time, kind, question,
                                                          ahead, replaced, text)
                                                for y in named if y != x])
                if day:
                    return day
            if kind == "when":
                for x in ordered:
                    value = clock_time(x) or day_part(x)
                    if value and not habit and clock_time(x) and _said_ahead(x):
                        # "Tomorrow's the dentist, quarter past eleven": asked when it is
                        # (not a habit), the day said relative to the turn is part of it.
                        value = self._day(x, rec.source_time, kind, question, ahead,
                                          replaced) or value
                    if value:
                        return value
                for x in ([] if habit else told):
                    day = self._day(x, rec.source_time, kind, question, ahead, replaced)
                    if day:
                        return day
            return ""
        readers: dict[str, Callable[[str], str]] = {
            "clock": clock_time, "money": sum_stated, "ident": lambda x: ident_near(x, skip),
            "frequency": lambda x: frequency(x) or (day_part(x) if " and " in day_part(x)
                                                   else "") or _day_parts_listed(x),
        }
        if kind in readers:
            value = next((v for v in map(readers[kind], consequence_first(ordered)) if v), "")
            if kind == "money" and len(ordered) > 1:
                # "… so we knocked thirty quid off. Call it £530.": a sentence that only
                # settles on a sum is what the rest of the record works out to.
                last = next((x for x in reversed(ordered_text) if sum_stated(x)), "")
                figure = sum_stated(last) if last else ""
                value = figure if figure and settled(last, figure) else value
            if not value and kind == "clock" and replaced:
                # The current record moves a time it does not repeat as one ("has moved
                # to 9" after "at 8"): the hour it moves to.
                value = next((v for v in map(destination_hour, ordered) if v), "") \
                    or next((v for v in map(hour_alone, ordered) if v), "")
                # ("They've moved my shift. Seven now.": the hour a sentence gives alone)
            if not value and kind == "clock":
                # "So seven from now on, not six.": the hour given in place of one denied.
                value = next((v for v in map(given_instead, ordered) if v), "")
            if not value and kind == "money" and after_sum:
                # "council put the permit up to 85" after "60 quid a year": in its unit.
                value = next((v for v in map(bare_figure, ordered) if v), "") or next(
                    (v for v in map(figure_in_words, ordered) if v), "")
            return value
        if kind in ("count", "quantity"):
            if kind == "count":
                # "Picked up two rescue hens. So that's five": a sentence opening with the
                # "so" of a consequence gives the count that results, the one before it
                # the change.
                ordered = sorted(ordered, key=lambda x: not OPENS_SO.match(x))
            said = set(re.findall(r"\d+", question))
            measured = kind == "quantity" and bool(MEASURING.search(question.lower()))

            def amounts(x: str) -> list[tuple[int, str]]:
                found = quantities(x)
                # "the blood pressure one taken at bedtime": "one" after a determiner
                # and its modifiers is the pronoun, standing for a noun, not a number
                # ("that one is one hundred twenty people": a hundred says a number).
                found = [f for f in found if not (f[1].split()[0].lower() == "one"
                                                  and number_head(f[1]).lower() == "one"
                                                  and _PRONOUN_ONE.search(x[:f[0]]))]
                if kind == "count":  # "how many …": a cardinal, not "the 27th", nor a
                    # number the question says ("How many Year 9 students …": not 9)
                    found = [f for f in found if not ordinal_value(f[1].split()[0])
                             and f[1].split()[0] not in said
                             and not not_counted(x, f, ask.focus)]
                elif said:  # "What temperature is incubator 1 at?": 1 labels the thing
                    found = [f for f in found if f[1].split()[0] not in said] or found
                if measured:  # "How much does he weigh?": a figure with its unit, not
                    # "shuffled Biscuit into 7", nor a dose said per time ("100mg twice
                    # daily")
                    found = [f for f in found if WITH_UNIT.match(f[1])
                             and not frequency(x[f[0]:f[0] + len(f[1]) + 20])]
                # "Not 50, we need 60": a number turned down is what it is not, where the
                # sentence states another ("from 500 units now" says where it starts).
                found = [f for f in found if not _denied_amount(x, f[0])] or found
                # "Four more signed up", "another two": a number said as a change is not
                # the amount, where the sentence states another.
                return [f for f in found if not change_amount(x, f)] or found

            # "two boys moved to the academy. down to 27", "Four more signed up, that
            # makes thirty-five": a number said as what a change comes to is the amount,
            # in whichever of the record's sentences it is said.
            result = next((f[1] for x in ordered for f in amounts(x)
                           if RESULT.search(x[:f[0]]) and not change_amount(x, f)), "")
            # "… they're each bringing a plus-one. Fourteen.": a sentence that is only a
            # figure is the amount the rest of the record works out to.
            # (Words that settle on it, "Four, then.", only in the last sentence giving a
            # figure: "Right, thirty. Juniors still nineteen." sums nothing up.)
            last = next((x for x in reversed(ordered_text) if amounts(x)), "")
            result = result or next((f[1] for x in ordered for f in amounts(x)
                                     if bare_sentence(x) == f[1].lower()
                                     or x == last and settled(x, f[1])), "")
            if result:
                return result

            def now(x: str) -> list[tuple[int, str]]:
                # "two people bailed, so it's a table for 6 now": the number said with
                # "now", or after the "so" that gives the consequence ("Seven have dropped
                # out, so we're landing on 128"), is the state, the other the change.
                return [f for f in amounts(x) if re.search(r"\bnow\b", x[f[0]:f[0] + 40])
                        or CONSEQUENCE_SO.search(x[:f[0]])]

            result = next((now(x)[-1][1] for x in ordered if now(x)), "")
            # "Two of the tables got merged, so knock one off. Fourteen centrepieces": the
            # number said with the thing the question counts, over those of other things.
            counted = stem(ask.focus) if kind == "count" and ask.focus else ""
            result = result or next((f[1] for x in ordered for f in amounts(x) if counted
                                     and counted in stems(f[1])
                                     and not change_amount(x, f)), "")
            if result:
                return result
            for x in ordered:
                found = amounts(x)
                if not found:
                    continue
                hits = [m.start() for m in re.finditer(r"[\w'’-]+", x)
                        if stems(m.group(0)) & (skip - {stem(ask.focus)} if ask.focus else skip)]
                if not hits:
                    return found[0][1]
                return min(found, key=lambda f: min(abs(f[0] - h) for h in hits))[1]
            return ""
        if kind == "place":
            # "I've had a key safe fitted by the back door. The spare keys live in there":
            # what the thing is in, which the record put somewhere before pointing at it.
            inside = place_in_there(rec.text, skip)
            if inside:
                return inside
            # Sentence by sentence, best first: a place phrase ("on the wall by the back
            # door"), or a place a copula names ("Tomorrow's St Luke's").
            origin = bool(re.search(r"\bfrom\b", question, re.I))
            # "The queue at the Tower was round the block, so we ended up at the British
            # Museum": the consequence after "so" tells where it came to be, first.
            results = {CONSEQUENCE_SO.split(x)[-1] for x in ordered
                       if CONSEQUENCE_SO.search(x)}
            ordered = [y for x in ordered
                       for y in ([CONSEQUENCE_SO.split(x)[-1]] if CONSEQUENCE_SO.search(x)
                                 else []) + [x]]
            # Where something is, not where it goes: "at the music shop" before "to an old
            # student of hers", unless the question asks where to. What follows from a
            # cause may say where it went ("…, so he's been turfed out to the old
            # stable"): where it is now.
            if not _MOTION.search(question):
                for x in ordered:
                    value = place_phrase(x, skip, self.span_tokens, origin,
                                         moving=x in results)
                    if value:
                        return owned_by(rec, x, value)
            for x in ordered:
                value = place_phrase(x, skip, self.span_tokens, origin) or next(
                    (n for at, n in names_in(x, skip, known) if GIVEN.search(x[:at])), "")
                if value:
                    return owned_by(rec, x, value)
            # "paper reams are back cupboard too": the place a copula gives the thing
            # asked, with no preposition to mark it.
            # "The seminar room is 4.20 …, we've got journal club there": the place a
            # copula gave before the "there" said of the thing asked.
            return next((v for v in (place_complement(x, skip) or place_there(x, skip)
                                     for x in ordered) if v), "")
        if kind == "name":
            return name_value(ask, ordered, skip, known, focus_here, proper_names(question),
                               focus_turns)
        if kind == "person":
            def nearest(x: str, found: list[tuple[int, str]]) -> str:
                # The name nearest to what the question says ("Helen's away, so Brian
                # will run me to the hospital": Brian takes her).
                hits = [m.start() for m in re.finditer(r"[\w'’-]+", x)
                        if stems(m.group(0)) & skip]
                if not hits:
                    # A name the sentence gives someone ("paired me with Jas", "a guy
                    # called Ollie") before one it talks about ("Gemma's out"); of a cause
                    # and what follows from it ("Beth is moving away, so it's all signed
                    # over to Tom"), one in what follows.
                    given = [f for f in found if NAME_GIVEN.search(x[:f[0]])]
                    so = CONSEQUENCE_SO.search(x)
                    result = [f for f in found if so and f[0] >= so.end()
                              and not re.match(r"that\b", x[so.end():], re.I)]
                    return _joined_names(x, (given or result or found)[0], found)
                return _joined_names(x, min(found, key=lambda f: min(abs(f[0] - h) for h in hits)),
                                     found)

            changed_from = ""
            if _does_it_self(rec, ordered, skip):
                return rec.speaker
            for x in ordered:
                # "Leila's started her leave, so Acme is with me from today": the state the
                # consequence tells, of the thing asked, is the speaker's.
                after = CONSEQUENCE_SO.split(x)
                if len(after) > 1 and stems(after[-1]) & skip and _WITH_ME.search(after[-1]) \
                        and not names_in(after[-1], skip, known) \
                        and not is_robot(rec.speaker, rec.robot_id):
                    return rec.speaker
                # A name where a place preposition leads to it is a place ("on Pine").
                found = [f for f in names_in(x, skip, known)
                         if not re.search(r"\b(?:on|at|in|to|from|into|near)\s+(?:the\s+)?$",
                                          x[:f[0]], re.I)
                         and not stems(f[1]) & skip - TITLES]  # not "Mr Fenwick" for
                # "Who is Mr Fenwick's key worker?"
                # Someone who can't or won't ("Shona can't do Wednesdays any more. Her friend
                # Kat's covering them."): another name answers.
                pair = RESPECTIVE.search(x)
                if pair:
                    # "My maid of honour and Raj's best man, Hannah and Ollie": each name
                    # in the order of the things it is, said outright.
                    first, second = (bool(stems(pair.group(k)) & skip) for k in (1, 2))
                    if first != second:
                        return pair.group(3 if first else 4)
                kept = [f for f in found if not declines(x, f[0] + len(f[1]))]
                if SELF_DOING.search(x) and not YOU_DOING.search(x):
                    # "I'm still doing the deliveries myself, Sami, like I said": the
                    # speaker does it; the one spoken to does not.
                    kept = [f for f in kept if f[1].lower() not in spoken_to(x)]
                # "Hana's brother Kai": the possessor says whose; the name after is who.
                kept = [f for f in kept if not any(
                    g[0] > f[0] and POSSESSOR_OF.fullmatch(x[f[0] + len(f[1]):g[0]])
                    for g in kept)] or kept
                if not kept:
                    # "Teifi couldn't keep up, so the cheese is coming from Hafod now":
                    # where no one else is named, nor spoken of, to do it, the one it comes
                    # from (a place preposition otherwise leads to a place).
                    kept = [f for f in names_in(x, skip, known) if _FROM_BEFORE.search(x[:f[0]])
                            and not stems(f[1]) & skip - TITLES
                            and not declines(x, f[0] + len(f[1]))
                            and not set(words(f[1])) - TITLES <= gone
                            and not THIRD_PERSON.search(x[:f[0]])]  # "He's taken over
                    # from Mark": someone else does it, in place of the one it is from
                if found and not kept:
                    continue
                if kept and all(set(words(f[1])) - TITLES <= gone for f in kept):
                    # Only the one the revisions it supersedes named: who it changes from
                    # ("Joy's been moved … Marek's doing my mornings"), unless no other
                    # sentence names anyone.
                    changed_from = changed_from or nearest(x, kept)
                    continue
                if kept:
                    return nearest(x, _after_cause(x, kept, gone))
            for x in ordered:
                # A sentence that opens with someone doing it ("Connor's covering my
                # Monday spin") or being what is asked ("Mei's my best friend now"): a
                # name no other record writes mid-sentence. Where a sentence names only
                # who it changes from, the other one named so is who it changes to.
                m = DOER.match(x)
                if m is None:
                    m = SUBJECT_IS.match(x)
                    m = m if m is not None and stems(m.group(2)) & skip else None
                doer = m.group(1).lower() if m else ""
                if doer and doer not in KIN and doer not in STOPWORDS \
                        and not doer.endswith(("one", "body", "thing")) \
                        and stem(doer) not in skip and not is_value_word(doer) \
                        and doer not in gone:
                    return m.group(1)
            if changed_from:
                return changed_from
            # "twins keyworker at nursery is sandra", "a guy called ade": the name given
            # the role asked by its place in the clause, however it is written.
            lower = uncased(rec.text)
            role = {stem(ask.focus)} if ask.focus else set()
            given = next((v for v in (person_complement(x, role, lower) for x in ordered)
                          if v and v.lower() not in gone), "") if role else ""
            if given:
                return given
            # "fire marshal on nights is me now", "I'm the first-aider", "I'll still do
            # Mrs Kaur's reviews": the speaker.
            if any(SELF_NAMED.search(x) or SELF_DOING.search(x) for x in ordered[:1]) \
                    and not is_robot(rec.speaker, rec.robot_id):
                return rec.speaker
            # "Leon, … You're doing the orders from next week.": the one spoken to.
            told = spoken_to(rec.text)
            if len(told) == 1 and any(YOU_DOING.search(x) for x in ordered) \
                    and not is_robot(rec.speaker, rec.robot_id):
                name = next(iter(told))
                return next((w for w in re.findall(r"[A-Z][\w'-]*", rec.text)
                             if w.lower() == name), name)
            # "Rory will feed the fish while we're away", "nan's taking him": the doer of
            # the verb the question asks with, said beside what it asks of.
            for x in ordered:
                doer = verb_subject(question, x, KIN)
                if doer and not set(words(doer)) <= gone:
                    return doer
            return ""
        return ""

    def _heard_value(self, value: str, ask: Asked, question: str, plan: Plan, s: Scored,
                     items: Sequence[EvidenceItem], skip: set[str], proper: set[str],
                     known: set[str], focus: str, focus_turns: Sequence[str],
                     replaced: frozenset[str], after_sum: bool, gone: frozenset[str]) -> str:
        """``value`` read from a person's record, or the value the robot's reply right after
        it says back, where the reply repeats words of the record and none of ``value``
        ("Jamie's jacked in the garden centre. He's labouring for his uncle's building
        firm." - "The building firm now."): read from the record's clauses it repeats
        (``readout.heard_part``), else from the reply itself in the person's own words
        ("Boots on the high street can do me Friday" - "Flu jab … at Boots."). A reply
        that repeats nothing, or whose value the person did not say, leaves ``value``.
        Only for values said in words (``_HEARD_KINDS``): a time or a figure is said back
        in another form ("half seven" - "7:30am"), sharing no word with it."""
        rec = s.item.record
        heard = _echoed(rec, items, skip, proper)
        if not heard or stems(value) & heard - TITLES:
            return value  # ("Dr Hale" is not said back by "Dr Mistry")
        reply = reply_to(rec, items)
        for text in (heard_part(rec.text, heard), reply.text if reply else ""):
            if not text:
                continue
            again = replace(s, item=replace(s.item, record=replace(rec, text=text)),
                            sentence=text)
            other = self._value(ask, question, plan, again, skip, known,
                                focus in stems(text), focus_turns, replaced, after_sum, gone)
            if other and stems(other) & heard - TITLES \
                    and stems(other) <= stems(rec.text) | skip:
                return other
        return value

    def _new_side(self, value: str, old_values: frozenset[str], q_stems: set[str], ask: Asked,
                  question: str, plan: Plan, s: Scored, skip: set[str], known: set[str],
                  focus: str, focus_turns: Sequence[str], replaced: frozenset[str],
                  sums: bool, revised: frozenset[str]) -> str:
        """``value`` read from the graph stage's current record, unless every word it
        states beside the question's is one the records it supersedes state
        (``old_values``) and the record, that value taken out, states another of the kind
        that is not, and it leaves the old one for it (``_left_for``): then that one. A
        record restating the old value beside another of the kind keeps it."""
        said = value_tokens(value) - q_stems - STOPWORDS
        if not said or not said <= old_values:
            return value
        rec = s.item.record
        gone = _taken_out(rec.text, value, said)
        if gone == rec.text:
            return value
        other = replace(s, item=replace(s.item, record=replace(rec, text=gone)),
                        sentence=_taken_out(s.sentence, value, said))
        new = self._value(ask, question, plan, other, skip, known,
                          focus in stems(gone), focus_turns, replaced, sums, revised)
        if not new and ask.kind == "person":
            new = _new_doer(gone, old_values | said)
        fresh = value_tokens(new) - q_stems - STOPWORDS
        if not fresh or fresh <= old_values or not _left_for(rec.text, value, said, fresh):
            return value
        return new

    def _left_behind(self, pick: tuple[Scored, str, float], question: str, plan: Plan,
                     ask: Asked, items: Sequence[EvidenceItem], q_stems: set[str],
                     skip: set[str], known: set[str], focus: str) -> tuple[Scored, str, float]:
        """The newest revision's value where no graph stage's record leads, unless it is
        one an earlier record states and the record leaves it for another of the kind
        ("Handed my notice in at the farm today. The distillery's taken me on"): then
        that one (``_new_side``, with what the earlier shown records sharing a word of the
        question say as the old values)."""
        s, value, cover = pick
        rec = s.item.record
        old_values = frozenset().union(*(value_tokens(i.record.text) for i in items
                                         if (i.record.source_time, i.record.seq)
                                         < (rec.source_time, rec.seq)
                                         and stems(i.record.text) & q_stems))
        if not old_values:
            return pick
        before, after = self._around(rec, items)
        focus_turns = [r.text for r in (before, after) if r and focus in stems(r.text)]
        new = self._new_side(value, old_values, q_stems, ask, question, plan, s, skip, known,
                             focus, focus_turns, frozenset(), False, frozenset())
        return (s, new, cover) if new != value else pick

    @staticmethod
    def _moved(rec: SourceRecord, items: Sequence[EvidenceItem],
               topic: set[str] | frozenset[str] = frozenset()) -> str:
        """For the graph stage's current record that moves the time of the records it
        supersedes ("pushed back a week"): the day the latest of them named, moved (of
        those that say ``topic``'s words, where any does); '' when it states no shift or
        none of them names a day."""
        if not shifts(rec.text):
            return ""
        before = sorted((i.record for i in items if i.routes.get("superseded")
                         and i.record.seq < rec.seq and find_candidates(i.record.text)),
                        key=lambda r: r.seq)
        before = [r for r in before if topic & stems(r.text)] or before
        if not before:
            return ""
        # A time that is moved has not passed yet: "due 21 October" is the one ahead.
        when = shifted(event_time(before[-1].text, before[-1].source_time, True), rec.text)
        if when is None:
            return ""
        return f"{time.strftime('%A', time.gmtime(when))} {format_day(when)}"

    @staticmethod
    def _clock_moved(rec: SourceRecord, items: Sequence[EvidenceItem],
                     topic: set[str] | frozenset[str] = frozenset()) -> str:
        """For the graph stage's current record that moves the clock time of the records
        it supersedes by a span and says no new time ("beginners go out an hour later from
        now on", "Eli's bus is ten minutes earlier from today"): the time the one of them
        it revises said, moved; '' when it states no such span or none of them says a
        clock time. (Asked "when", the day
        belongs to the answer too: ``_moved``.)"""
        minutes = clock_shift(rec.text)
        if not minutes:
            return ""
        before = sorted((i for i in items if i.routes.get("superseded")
                         and not i.routes.get("other") and i.record.seq < rec.seq
                         and clock_time(i.record.text)), key=lambda i: i.record.seq)
        # The chain's step it revises first ("can you get me at half six instead?"), else
        # the records that say most of what is asked ("Fire drill's next Wednesday, eleven
        # a.m." before "The fire alarm test is every Monday at nine"), the latest of them.
        before = [i for i in before if i.routes.get("graph")] or before
        if not before:
            return ""
        said = max(before, key=lambda i: (len(topic & stems(i.record.text)), i.record.seq))
        return clock_moved(clock_time(said.record.text), minutes)

    @staticmethod
    def _day(sentence: str, record_time: float, kind: str, question: str,
             lean: bool = False, replaced: frozenset[str] = frozenset(),
             record: str = "") -> str:
        """The day a sentence names; for "what day" as a date ("Tuesday 16 September
        2025", not "the Tuesday after 12 September 2025": the day asked for, not where it
        was said) or a recurring day as "every Tuesday"; for "when", with the clock time
        it states. ``record``: the whole record, whose month a day of the month said
        alone is of ("… till January. The 12th.")."""
        held = held_days(sentence, replaced)
        day = answer_date(asked_day(held, stems(question)),
                          record_time, "", question_grain(question), lean, record)
        if kind == "when":
            pass  # "When …?" is answered as before ("Wednesdays", "the Thursday after …")
        elif re.fullmatch(r"[A-Za-z]+days", day):
            day = f"every {day[:-1]}"  # "What day?" - "Thursdays": every Thursday
        elif re.match(r"the \w+day (?:after|before) ", day) and has_calendar(record_time):
            when = event_time(held, record_time)  # not a day it turns down
            day = f"{time.strftime('%A', time.gmtime(when))} {format_day(when)}"
        elif kind == "day" and re.fullmatch(r"\d{1,2} [A-Z][a-z]+ \d{4}", day):
            # "What day …?" - "it's on today": the weekday that date is, with it.
            when = calendar.timegm(time.strptime(day, "%d %B %Y"))
            day = f"{time.strftime('%A', time.gmtime(when))} {day}"
        part = re.match(r"([A-Z][a-z]+day) (\d{1,2} [A-Z][a-z]+ \d{4})$", day) \
            if kind == "when" else None
        said = re.search(rf"\b{part.group(1)}\s+(morning|afternoon|evening|night)\b", sentence,
                         re.I) if part else None
        if part and said is None and not clock_time(sentence):
            # "Yoga's a Thursday too, the morning one": the one part of the day the
            # sentence says, apart from the day, is of it too.
            told = {m.group(1).lower() for m in re.finditer(
                r"\b(morning|afternoon|evening)s?\b", sentence, re.I)}
            said = re.search(rf"\b({next(iter(told))})", sentence, re.I) \
                if len(told) == 1 else None
        if part and said:
            # "I'm Thursday afternoon now": the part of the day said stays with it.
            day = f"{part.group(1)} {said.group(1).lower()}, {part.group(2)}"
        if kind == "date" and not re.search(r"\b\d{1,2}\b", re.sub(r"\b\d{4}\b", "", day)):
            return ""  # a month is not the date asked for
        clock = clock_time(sentence) if kind == "when" else ""
        if clock and day and clock.lower() not in day.lower():
            clock = re.sub(r"^(?:at|from|by|around|about)\s+", "", clock)
            day = f"{day} at {clock}"
        return day

    def _echoes_other_kind(self, rec: SourceRecord, value: str, question: str,
                           pack: Pack) -> bool:
        """Whether ``rec`` is a robot's echo of a person's statement about another kind
        of the thing asked ("Internet 45 a month." after "Our internet bill is 45 a
        month", for "How much is the water bill?"): the echo need not repeat the kind, and
        answers no more than the statement it repeats, unless the echo itself names the
        kind asked ("heart check" echoed as "cardiology check-up")."""
        if not is_robot(rec.speaker, rec.robot_id):
            return False
        own = self._own_statement(rec.source_id, value, question, pack)
        said = next((i.record.text for i in pack.items if i.source_id == own[0]), "")
        return len(own) > 1 and other_kind(f"{said} {rec.text}", question, inflected=True)

    def _own_statement(self, cited: str, answer: str, question: str, pack: Pack,
                       figures: bool = False) -> list[str]:
        """A robot's turn that repeats what a person just said is not the source: the
        person's own statement (an earlier turn of the same session, within
        ``reply_gap``, that states the answer's value, else the graph stage's current
        record among those turns) is cited first. With ``figures`` (the answer was found
        without that turn in view) the figures the robot says must be the person's too: a
        robot relaying news ("your eye exam is now on January 28") repeats no turn that
        shares only its month ("physio … 27 January")."""
        items = {i.source_id: i for i in pack.items}
        item = items.get(cited)
        if item is None or not is_robot(item.record.speaker, item.record.robot_id):
            return [cited]
        rec = item.record
        asked_stems = {stem(w) for w in words(question)}
        value = value_tokens(answer) - asked_stems
        if _YES_NO.fullmatch(answer.strip()):
            # "Am I vegetarian?" - "Yes" from "Vegetarian, noted.": what the echo says
            # of what is asked is the value.
            value = value_tokens(rec.text) & asked_stems
        if not value:
            return [cited]
        before = sorted((i.record for i in pack.items
                         if i.record.session_id == rec.session_id
                         and i.record.subject_id == rec.subject_id
                         and rec.seq - self.reply_gap <= i.record.seq < rec.seq
                         and i.record.modality == "dialogue"  # a camera's frame says nothing
                         and not is_robot(i.record.speaker, i.record.robot_id)),
                        key=lambda r: -r.seq)
        told = {t for t in value & value_tokens(rec.text) if t.isdigit()} if figures else set()
        for r in before:
            stated = value_tokens(r.text)
            if value & stated and told <= stated:
                return [r.source_id, cited]
        # The graph stage's current record just before it, told without the value's words
        # ("But I'm sticking with Michael's" - "Still Michael's in Hull for Christmas."):
        # the robot acknowledges that statement and says nothing of its own. It names
        # something of it: a robot's report of its own ("I put your toolbox on the
        # shelf") after a turn about something else acknowledges nothing.
        said = stems(rec.text)
        lead = [i.source_id for i in pack.items if i.routes.get("graph") == 1
                and not i.routes.get("superseded") and i.record in before
                and said & stems(i.record.text)]
        if lead:
            return [lead[0], cited]
        # Else the robot says a value someone told it earlier ("In the blue tin above the
        # till." answering where the key is): that person's statement is the source.
        told_by = _told_before(rec, value, question, pack)
        return [told_by, cited] if told_by is not None else [cited]


def _told_before(rec: SourceRecord, value: frozenset[str], question: str,
                 pack: Pack) -> str | None:
    """The latest person's statement shown, said before the robot's turn ``rec`` (in any
    session), that states every word of the answer's ``value`` the robot says, names a
    word of the question and is not marked superseded or another's by the graph stage:
    who told the robot what it repeats ("the spare key for the walk-in freezer lives in
    the blue tin above the till" for "In the blue tin above the till."). None where the
    robot's words carry none of the value, only one plain word of it, or no such
    statement is shown."""
    heard = value & value_tokens(rec.text)
    # One plain word ("Okay, Christmas at your place.") is too little to say whose words
    # the robot repeats; a figure, a time or more words are.
    if len(heard) < 2 and not any(is_value_word(w) for w in words(rec.text.lower())
                                  if heard & value_tokens(w)):
        return None
    asked = stems(question)
    earlier = sorted((i for i in pack.items
                      if i.record.subject_id == rec.subject_id and i.record.seq < rec.seq
                      and i.record.modality == "dialogue"
                      and not i.routes.get("superseded") and not i.routes.get("other")
                      and not is_robot(i.record.speaker, i.record.robot_id)),
                     key=lambda i: -i.record.seq)
    return next((i.source_id for i in earlier
                 if heard <= value_tokens(i.record.text) and asked & stems(i.record.text)),
                None)


def _own_holder(found: list[tuple[Scored, str, float]], question: str, plan: Plan,
                known: frozenset[str]) -> list[tuple[Scored, str, float]]:
    """``found`` without the records that tell another holder's value of the thing
    (``owners.holder_clash``: "Peanut eats sunflower seeds" for "What does Biscuit
    eat?"; ``owners.told_of_another``: "Sara got locker 74" for "What's my locker
    number?"; ``owners.kin_owned``: "My mum's boiler is getting done on Monday" for "When
    is the boiler being serviced?"), where one that does not remains. The graph stage's
    current record stays."""
    kept = [f for f in found if _graph_lead(f[0]) or not holder_clash(
        question, plan.asker, f[0].item.record, f[0].sentence, known)
        and not told_of_another(question, plan.asker, f[0].item.record)
        and not kin_owned(question, plan.asker, f[0].item.record)]
    return kept or found


def _joined_names(text: str, name: tuple[int, str], found: list[tuple[int, str]]) -> str:
    """``name`` with the names "and" or "&" joins to it ("Kemp and Sons", "Ann and
    Raj"): one who answers, told as a firm or a pair, is all of them."""
    start, end = name[0], name[0] + len(name[1])
    for at, other in sorted(found):
        if at > end and re.fullmatch(r"\s+(?:and|&)\s+", text[end:at]):
            end = at + len(other)
    for at, other in sorted(found, reverse=True):
        if at < start and re.fullmatch(r"\s+(?:and|&)\s+", text[at + len(other):start]):
            start = at
    return text[start:end]


def _graph_led(scored: Sequence[Scored]) -> Scored | None:
    """The graph stage's current record among ``scored`` (not superseded, nor found to
    be another's), or None."""
    return next((s for s in scored if _graph_lead(s) and not s.item.routes.get("other")), None)


def _graph_lead(s: Scored) -> bool:
    return s.item.routes.get("graph") == 1 and not s.item.routes.get("superseded")


def _numbers(text: str) -> frozenset[str]:
    """The numbers of three digits or more a text states ("214", "4418"): labels and
    codes, which one thing has; not counts ("seven", "4"), which many things share."""
    return frozenset(d.lstrip("0") or d for d in _LABEL_NUMBER.findall(text))


def _carried_apart(revisions: list[tuple[Scored, str, float]], gap: int
                   ) -> list[tuple[Scored, str, float]]:
    """A turn found only by carrying on the one just before it (it says no word of the
    question) that gives another value than that turn adds something else to it ("He has
    twelve units at breakfast." after "Mr Reid's insulin is in the treatment room
    fridge."), where that turn is a revision too; it revises it only where it marks a
    change ("It's the 19th instead"). (One giving the value again, "Thursdays. Suits
    me.", says the same; the robot saying back what it heard says no more.)"""
    def carried(f: tuple[Scored, str, float]) -> bool:
        r = f[0].item.record
        return f[0].overlap <= 0 and not marks_change(r.text) \
            and not is_robot(r.speaker, r.robot_id) and any(
            g[0].overlap > 0 and g[0].item.record.session_id == r.session_id
            and g[0].item.record.subject_id == r.subject_id
            and 0 < r.seq - g[0].item.record.seq <= gap
            and g[1].lower() != f[1].lower() for g in revisions)
    return [f for f in revisions if not carried(f)] or revisions


# Three digits or more, not part of a time, a decimal or a grouped number ("7:30", "1,200").
_LABEL_NUMBER = lazy_re(r"(?<![\d:.,])\d{3,}(?![\d:.,]\d)")


# The kinds of value that say when: a person has many, one for each thing they do.
_TIMES = frozenset(("clock", "day", "date", "when", "frequency"))


def _last_word_asked(question: str, plan: Plan) -> bool:
    """Whether a question read as of no present state still asks for the last word told
    of its thing: it names no time (no window, no time it held, no "before …" or "after
    the …", nor "originally"/"at first")."""
    return plan.as_of is None and plan.window is None and not before_clause(question) \
        and not asks_original(question) and not dated_by_phrase(question)


def _does_it_self(rec: SourceRecord, ordered: Sequence[str], skip: set[str]) -> bool:
    """Whether the speaker says they do the thing asked, naming it in the same clause
    ("I'll do Ritmo from Lisbon" for "Who's covering Ritmo?"): who does it is the speaker,
    not a name the record gives elsewhere ("Sam's dropped out")."""
    if is_robot(rec.speaker, rec.robot_id):
        return False
    for x in ordered:
        for m in SELF_DOING.finditer(x):
            clause = re.split(r"[,.;:!?]\s|\s(?:so|and|but)\s", x[m.end():], maxsplit=1)[0]
            if stems(clause) & skip and not YOU_DOING.search(x):
                return True
    return False


def _fuller_name(value: str, items: Sequence[EvidenceItem], known: set[str]) -> str:
    """A one-word name said whole in a shown record ("Doyle" from the robot's "Maggie Doyle
    this Sunday", where the person said "Maggie Doyle's stepping in"): the whole name,
    where exactly one such is said."""
    if len(value.split()) != 1 or not value[:1].isupper():
        return value
    whole = {n for i in items for _, n in names_in(i.record.text, set(), known)
             if len(n.split()) > 1 and n.split()[-1] == value and n.split()[0] not in TITLES}
    return whole.pop() if len(whole) == 1 else value


def _changes_from(text: str, old: frozenset[str]) -> bool:
    """Whether ``text`` names one of the ``old`` values and a value of its own beside it."""
    said = state_values(text)
    return bool(said & old) and bool(said - old)


# A sentence whose subject is its speaker (or the speaker's household, "we"), after a word
# that opens a turn ("Oh, I'm …").
_SPEAKER_OPENS = lazy_re(r"\s*(?:(?:and|so|oh|well|but|right|ok|okay)\b,?\s+)*"
                         r"(?:i|we)(?:['’](?:m|ll|ve|d|re))?\b", re.I)


def _own_change(text: str) -> bool:
    """Whether a sentence of ``text`` opens on its speaker and marks a state as new ("I'll
    be over at one now", "I'm moving at the weekend"), not another thing's ("Tuesday's
    when I do reception cover now")."""
    return any(_SPEAKER_OPENS.match(s) and marks_change(s) for s in split_sentences(text))


def _another_doer(question: str, text: str) -> bool:
    """Whether ``text`` has someone else for the subject of the verb ``question`` asks of
    the asker or of the one it names (``language.doers``): "Kasia needs a 7" does not
    say what score the asker needs, "Dan flies out on the 5th" not when Sam flies."""
    verb = asked_verb(question)
    if verb:
        return another_does(text, verb)
    name, verb = named_verb(question)
    return another_does(text, verb, name)
