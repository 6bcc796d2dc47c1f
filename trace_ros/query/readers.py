"""Readers turn packed evidence into an answer that cites source IDs.

``ExtractiveReader`` needs no model: it finds the evidence sentences that best
match the question (Porter stems, the same stemmer FTS5 indexes with, weighted
by how rare a word is in the shown evidence) and answers with the supporting
*span* (see ``spans.py``), citing the records used. General rules of dialogue
and time shape the choice: a turn that *asks* what the question asks hands its
match to the reply that follows it (a reply that also repeats the question's
words gains both matches); a participant's name counts through the speaker
field, not as a greeting in the text; a record holding the kind of thing
asked for (a time for "when", a name for "who") is preferred; records said in
the window the question names are preferred, and none after its "before …".
A record's match mixes what it says anywhere with what its best sentence says
(words scattered over a long record count less). The plan decides how many
records answer: the newest revision for a state in the current view, every
distinct member for a list or count or a question with a plural copula ("What
are the names of …?"; de-duplicated; a count below ten in words), the ordered
revisions for a history question, otherwise one record — the near one whose
best phrase says most beside the question's words ("Did it mess up your
progress?" answers nothing), for "how long" one stating a span of time (else the
time between the two near records' dated events). A choice
question ("… the beach or the mountains?") is answered with the option the
evidence says. When the caller passes the resolver's ``Resolution`` for the
state the question asks about, the current value (or, for a question about the
past, the superseded one) is the answer.

A question whose wh-phrase asks for a kind of value (``spans.asked``: a clock time
for "what time", a stated day for "what day", a sum for "how much … cost", a rate for
"how often", digits for "what's the number", a name tied to the thing for "what's X
called", a person, a place) is answered with a value of that kind from the record that
states one about what is asked, or not at all: a record that talks about the topic but
never states the thing does not answer ("the name of her swimming teacher" from a record
about her swimming lessons), and the reader abstains when no shown record does. For a
state question the graph stage's current record answers when it states such a value;
otherwise the newest record that does. A robot's turn repeating what a person just said
is not the source: the person's own statement is cited first. "Which X" is answered with
what tells one X from another (a name, "the blue cupboard"), never a fragment beside X;
an answer that only says back the question's own words ("Mr Ansah's items" for "Which
item … for Mr Ansah?") is none. An amount is what a change comes to ("down to 27"), not
the change ("four more"); a figure the speaker takes back ("62. Sorry, 61") is not said.
The current record told at length, when it does not name the thing asked, is read from
the robot's acknowledgement right after it, in the person's own words.

Every reader returns a ``ReaderOutput``; the checks in ``answer.py`` decide
whether its citations stand.

The reader's helpers live beside it by concern and never import this module:
``readout`` (``ReaderOutput`` and the scored sentence), ``owners`` (who owns or says
a value), ``names`` (names and roles), ``ages``, ``days`` (days and weekdays),
``amounts`` (numbers and amounts), ``newstate`` (values marked new, consequences) and
``focus`` (whether an answer fills the slot asked).
"""

from __future__ import annotations

import calendar
import math
import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..config import ReaderConfig
from ..errors import ModelUnavailableError
from ..language.revision import (
    KIN,
    about_another,
    given_instead,
    holders,
    introduced_as,
    is_value_word,
    marks_change,
    other_kind,
    other_titled,
    shifts,
    spoken_to,
    state_values,
)
from ..language.text import (
    ELIDED_AFTER,
    STOPWORDS,
    possessors,
    stem,
    stems,
    words,
)
from ..language.text import sentences as split_sentences
from ..language.timeanchor import (
    destination_hour,
    find_candidates,
    ordinal_value,
    shifted,
    years_before,
)
from ..language.vocab import is_robot
from ..ledger import SourceRecord
from .ages import _AGE, _BETWEEN_NOTE, _BORN, _HOW_OLD, _age_answer, _said_as_age
from .amounts import (
    _RESULT,
    _WITH_UNIT,
    _bare_sentence,
    _change_amount,
    _joined,
    _value_tokens,
    _with_unit,
    revisions_of,
)
from .current import asks_members, before_clause, may_ask_held
from .days import (
    _ASKS_OWN,
    _PLURAL_DAYS,
    _bare_weekday,
    _dated_weekday,
    _days_labelling,
    _drops_told_day,
    _so_held,
    _turns_down_only,
    _upcoming_weekday,
    _with_hour,
)
from .focus import (
    _ASKING,
    _ASPECT,
    _DIALLED,
    _DOES,
    _LABEL,
    _NOT_COMPOUNDS,
    _PHONE,
    _THE_TIME,
    _TYPED,
    _WHICH_WHAT,
    _a_sum,
    _complement,
    _focus_filled,
    _labels_other,
    _measured,
    _not_of_kind,
    _only_time,
    _repeats,
    _said_bare,
    _slot_filler,
    _told_later,
)
from .names import (
    _DOER,
    _GIVEN,
    _NAME_GIVEN,
    _POSSESSOR_OF,
    _RESPECTIVE,
    _SELF_DOING,
    _SELF_NAMED,
    _SUBJECT_IS,
    _TITLED,
    _YOU_DOING,
    _name_value,
    _name_words,
    _owner_of,
    _placed,
    _proper_names,
    _role_filler,
    _says_who_speaks,
    _thing_named,
    _tied_before,
)
from .newstate import (
    _CONSEQUENCE_SO,
    _ENDED,
    _FORMER,
    _MARKED_NOTE,
    _NEW_STATE,
    _OPENS_SO,
    _consequence_first,
    _dense_new_state,
    _only_former,
)
from .owners import (
    _ADDS,
    _FIRST_PERSON,
    _OF_SELF,
    _THIRD_PERSON,
    _asked_speakers,
    _carries_on,
    _look_alike,
    _named_near,
    _other_name_on,
    _other_owner,
    _owned_by,
    _owners_other,
    _possessed,
    _someone_else,
    _speakers_own,
)
from .pack import EvidenceItem, Pack
from .plan import Plan
from .readout import ReaderOutput, _asks, _content, _first_statement, _Scored
from .spans import (
    MEASURES,
    MEASURING,
    TITLES,
    Asked,
    answer_date,
    asked,
    asked_day,
    bare_figure,
    capitalised_mid_sentence,
    clock_time,
    day_part,
    days_listed,
    declines,
    event_time,
    extract,
    figure_in_words,
    fits,
    format_day,
    frequency,
    has_calendar,
    has_number,
    held_days,
    ident,
    idents,
    labelled,
    money,
    names_day,
    names_in,
    number_head,
    place_phrase,
    quantities,
    question_grain,
    repaired,
    said_not,
    scored_run,
    spelled,
    states_duration,
    states_time,
    sum_stated,
    time_between,
    turned_down,
    weekdays_written_out,
    weekly_slots,
)

if TYPE_CHECKING:
    from ..state import Resolution

__all__ = ["ExtractiveReader", "Reader", "ReaderOutput", "UnavailableReader", "format_day",
           "make_reader"]


class Reader(Protocol):
    name: str

    def read(self, question: str, plan: Plan, pack: Pack,
             resolution: Resolution | None = None) -> ReaderOutput: ...


def _resolution_answer(plan: Plan, resolution: Resolution, pack: Pack) -> ReaderOutput | None:
    """The resolver's value (current, or the newest superseded one for a question about
    the past), citing its shown sources; None when it cannot answer from what was shown.
    A day asked for is the fact's date, unless its source states it as a weekly slot
    ("office hours are Thursday mornings from now on"): then that slot."""
    shown = set(pack.source_ids)
    if resolution.status != "answer":
        return None
    facts = resolution.facts
    if not plan.current and resolution.superseded:
        facts = resolution.superseded[:1]
    value = facts[0].value if facts else resolution.value
    cited = [s for f in facts for s in f.source_ids if s in shown]
    if not value or not cited:
        return None
    if plan.answer_type == "date" and facts and not facts[0].anchor_fallback \
            and has_calendar(facts[0].anchor_time) and not re.search(r"\d", value):
        said = [i.record.text for i in pack.items if i.source_id in cited]
        if any(_drops_told_day(text) for text in said):
            # "your chiropody is on Tuesday, not today": the fact's anchor may be the day
            # its source turns down; the day the source holds to is read from it instead.
            return None
        value = next((slot for text in said for slot in weekly_slots(text)
                      if stems(slot) & stems(value)), format_day(facts[0].anchor_time))
    return ReaderOutput(value, list(dict.fromkeys(cited)), ExtractiveReader.name)


# A request put as a question: a modal of asking opens it, maybe after a phrase ("From
# next week, could you collect on Thursdays?", "Can dinner follow us to Sunday?").
_REQUEST = re.compile(r"^\W*(?:[^,?]{1,40},\s*)?(?:(?:so|and|also|oh|please|then)\W+)*"
                      r"(?:could|can|would)\b", re.I)

# "… a national park or a theme park?": the two options a choice question offers.
_WORDS = r"((?:[\w'’.-]+\s+){0,6}?[\w'’.-]+)"
_CHOICE = re.compile(rf"\b{_WORDS}\s+or\s+{_WORDS}\s*\?\s*$", re.I)


def _options(question: str) -> list[str]:
    """The options of a choice question ("Does she live near a beach or the mountains?" →
    "beach", "mountains"): the words after "or", and as many before it."""
    m = _CHOICE.search(question)
    if not m:
        return []
    after = m.group(2).split()
    before = m.group(1).split()[-len(after):]
    return [" ".join(before), " ".join(after)]


def _choice(question: str, scored: list[_Scored]) -> ReaderOutput | None:
    """A choice question is answered with the option the evidence supports best (its
    words said most, weighted by how well the record matches), citing where it is said."""
    options = _options(question)
    if len(options) != 2:
        return None
    best: tuple[float, str, list[str]] | None = None
    for option in options:
        wanted = stems(option)
        if not wanted or wanted == stems(options[0]) & stems(options[1]):
            return None
        own = wanted - stems(options[1] if option == options[0] else options[0])
        support = [s for s in scored if own & stems(s.item.record.text)]
        score = sum(s.relevance for s in support)
        if support and (best is None or score > best[0]):
            best = (score, option, [s.item.source_id for s in support])
        elif best is not None and score == best[0]:
            return None  # the evidence does not tell them apart
    if best is None:
        return None
    answer = re.sub(r"^(?:a|an|the|some)\s+", "", best[1], flags=re.I)
    return ReaderOutput(answer, best[2][:3], ExtractiveReader.name)


# A month or season the question names, which holds in every year.
_YEARLESS = re.compile(r"\b(?:january|february|march|april|may|june|july|august|september"
                       r"|october|november|december|spring|summer|autumn|fall|winter)\b", re.I)
_YEARS_BACK = 50


def _plural_ask(question: str, plan: Plan) -> bool:
    """A fact asked with a plural copula: a set of members ("What are the names of her
    dogs?"), not one state's revision (``current.asks_members``)."""
    return plan.operation == "fact" and asks_members(question)


def _several(question: str, plan: Plan) -> bool:
    """Whether the answer is a set of members rather than one value: the plan says so
    (a list, a count, several hops), or the question asks with a plural copula."""
    return plan.needs_complete_set or plan.shape == "multi_hop" or _plural_ask(question, plan)


# Answer types whose spans are not phrases of the record (dates, counts, yes/no).
_OWN_SPANS = ("date", "duration", "number", "yesno")
_SPAN_FLOOR = -5.0
_YES_NO = re.compile(r"(?i:yes|no)\W*")


# A question about where someone or something goes, not where it is.
_MOTION = re.compile(r"\b(?:go|goes|going|went|move|moves|moving|moved|head|heading|travel\w*"
                     r"|fly|flying|drive|driving|send|sending|take|taking)\b", re.I)

# A consequence clause, and the speaker holding the thing in it.
_FROM_BEFORE = re.compile(r"\bfrom\s+(?:the\s+)?$", re.I)
_MEASURE_STEMS = frozenset(stem(w) for w in MEASURES)
_PRONOUN_ONE = re.compile(r"\b(?:the|this|that|which|each|every|another|any)\s+"
                          r"(?:[\w'’-]+\s+){0,3}$", re.I)
_WITH_ME = re.compile(r"\b(?:with|to|by)\s+me\b|\b(?:is|it's)\s+me\b")

# "How long is/will/does …?": the length of a state or a plan, which only a record that
# states a span answers (not "How long has she been …?", counted from a start).
_HOW_LONG_NOW = re.compile(r"\s*how long (?:is|are|am|will|does|do|would|should)\b", re.I)


class ExtractiveReader:
    """Answers with the supporting span of the best-matching evidence; abstains when
    nothing matches."""

    name = "extractive"

    def __init__(self, prior_weight: float = 0.1, near_best: float = 0.8,
                 max_list: int = 5, span_tokens: int = 6, question_share: float = 0.5,
                 reply_gap: int = 3, window_bonus: float = 0.25,
                 report_lag_s: float = 7 * 86400.0, type_bonus: float = 0.3,
                 sentence_weight: float = 0.7, span_weight: float = 0.05,
                 span_pool: float = 0.6, date_bonus: float = 0.8,
                 reply_own: float = 0.5, revision_share: float = 0.4,
                 revision_overlap: float = 0.3) -> None:
        self.prior_weight = prior_weight
        self.near_best = near_best
        self.max_list = max_list
        self.span_tokens = span_tokens
        # A turn that asks what the question asks keeps this share of its match; the
        # reply that follows it (next turn of another speaker, within reply_gap records
        # of the same session) is where the answer is, so it inherits the match.
        self.question_share = question_share
        self.reply_gap = reply_gap
        # A reply that also says the question's words itself answers it twice over: it
        # keeps the larger of the two matches plus reply_own × the smaller.
        self.reply_own = reply_own
        self.window_bonus = window_bonus
        self.report_lag_s = report_lag_s
        self.type_bonus = type_bonus
        # "When …?": a record that states a time answers it far more often than one
        # that does not (whose own day is then the answer).
        self.date_bonus = date_bonus
        # A record's match mixes what it says anywhere with what its best sentence says.
        self.sentence_weight = sentence_weight
        # A single answer is read from the record (relevance at least span_pool of the
        # best) whose relevance plus span_weight × its best phrase's score is highest.
        self.span_weight = span_weight
        self.span_pool = span_pool
        # A state question whose answer must be a value of one kind (a time, a day, a
        # name): the records stating one that say at least this share of what the
        # best of them says about the question are its revisions; the newest holds.
        self.revision_share = revision_share
        # ... and that match the question at least this share of the best match (a turn
        # that only carries on the one before it shares no word and is not held to it).
        self.revision_overlap = revision_overlap

    def _weights(self, q_stems: set[str], items: Sequence[EvidenceItem],
                 names: set[str]) -> dict[str, float]:
        """Inverse document frequency of each question stem within the shown evidence."""
        n = len(items)
        df = dict.fromkeys(q_stems, 0)
        for item in items:
            for s in self._terms(item, names) & q_stems:
                df[s] += 1
        return {s: math.log(1.0 + (n + 1) / (1 + d)) for s, d in df.items()}

    @staticmethod
    def _terms(item: EvidenceItem, names: set[str]) -> set[str]:
        """What a record says: its text's stems (a participant's name in the text is a
        greeting, so it counts only through the speaker field), speaker and label."""
        rec = item.record
        return (stems(rec.text) - names) | stems(f"{rec.speaker} {rec.label}")

    def _score(self, q_stems: set[str], weights: dict[str, float], pos: int,
               item: EvidenceItem, names: set[str], kind: str = "",
               whose: frozenset[str] | set[str] = frozenset()) -> _Scored:
        rec = item.record
        total = math.fsum(weights.values()) or 1.0
        best_sentence, best_hits = rec.text, -1.0
        # Split as ``sentences`` splits: "Monday cover is Dr. Osei now" is one sentence,
        # not one ending on "Dr." with the name in the next.
        parts = split_sentences(rec.text) or [rec.text]
        # The graph stage's current record: the sentence that says its state is new
        # (``_NEW_STATE``) tells the new state ("I quit coffee. … it's one matcha a day
        # now"), as much as one more word of the question would.
        lift = max((weights[s] for s in q_stems - names), default=0.0) \
            if item.routes.get("graph") == 1 and not item.routes.get("superseded") \
            and len(parts) > 1 else 0.0
        chosen: tuple[float, float] = (-1.0, -1.0)
        for sentence in parts:
            said = (q_stems - names) & stems(sentence)
            hits = math.fsum(weights[s] for s in said)
            marked = lift > 0 and bool(_NEW_STATE.search(sentence))
            # A sentence saying what stopped ("I don't take the blue pills any more")
            # tells the state that ended, as much as one word less of the question.
            ended = lift > 0 and not marked and bool(_ENDED.search(sentence))
            # What the question asks about before whose it is: "Just checking about the
            # bedding: …" before "Hi, it's Irene, Mr Castellano's assistant."
            key = (math.fsum(weights[s] for s in said - whose) + lift * (marked - ended), hits)
            if key > chosen or marked and key == chosen:
                best_sentence, best_hits, chosen = sentence, hits, key
        overlap = math.fsum(weights[s] for s in q_stems & self._terms(item, names)) / total
        if overlap > 0 and self.sentence_weight:
            # What one sentence says counts more than words scattered over a long record.
            said = max(best_hits, 0.0) + math.fsum(weights[s] for s in q_stems & stems(
                f"{rec.speaker} {rec.label}"))
            overlap += self.sentence_weight * (said / total - overlap)
        if overlap > 0 and fits(kind, rec.text):  # holds the kind of thing asked for
            overlap += self.date_bonus if kind == "date" else self.type_bonus
        return _Scored(item, overlap, overlap + self.prior_weight / (1 + pos), best_sentence)

    def _span_score(self, s: _Scored, q_stems: set[str]) -> float:
        """How well the record's best phrase answers (``scored_run``), floored."""
        rec = s.item.record
        score = scored_run(_content(rec, s.sentence), q_stems, self.span_tokens,
                           _content(rec, rec.text))[1]
        return max(score, _SPAN_FLOOR)

    def _replies(self, scored: list[_Scored], q_stems: set[str], names: set[str]) -> None:
        """Move the match of a turn that asks the question onto the turn that answers it."""
        by_session: dict[tuple[str, str], list[_Scored]] = {}
        for s in scored:
            r = s.item.record
            by_session.setdefault((r.subject_id, r.session_id), []).append(s)
        for group in by_session.values():
            group.sort(key=lambda s: s.item.record.seq)
            for i, s in enumerate(group):
                if s.overlap <= 0 or not _asks(s):
                    continue
                asked = s.overlap
                s.overlap *= self.question_share
                s.relevance -= asked - s.overlap
                r = s.item.record
                reply = next((t for t in group[i + 1:]
                              if t.item.record.seq - r.seq <= self.reply_gap
                              and t.item.record.speaker != r.speaker), None)
                if reply is None:
                    continue
                own = reply.overlap
                gain = max(asked, own) + self.reply_own * min(asked, max(own, 0.0)) - own
                if gain <= 0:
                    continue
                reply.overlap += gain
                reply.relevance += gain
                if not (q_stems - names) & stems(reply.sentence):
                    reply.sentence = _first_statement(reply.item.record.text)

    def _in_time(self, plan: Plan, scored: list[_Scored]) -> list[_Scored]:
        """The time the question names: records after its "before …" are not read (when
        others remain); records said in its window, or within ``report_lag_s`` after it
        (events are told after they happen; a state marked as new is not: it begins when
        told), gain ``window_bonus``; a month or season
        named without a year is the latest one the shown records reach."""
        if plan.as_of is not None:
            before = [s for s in scored if s.item.record.source_time < plan.as_of]
            scored = before or scored
        if plan.window is not None:
            start, end = plan.window

            def told(a: float, b: float) -> list[_Scored]:
                # (a state marked as new, "I'm going over in the afternoons now", is told
                # when it begins: said after the window, it did not hold in it)
                return [s for s in scored if a <= s.item.record.source_time < b
                        or b <= s.item.record.source_time < b + self.report_lag_s
                        and not marks_change(s.item.record.text)]

            inside = told(start, end)
            if not inside and _YEARLESS.search(plan.time_text) \
                    and not re.search(r"\b\d{4}\b", plan.time_text):
                # "in July" names no year: the latest July the shown evidence reaches.
                for back in range(1, _YEARS_BACK + 1):
                    inside = told(years_before(start, back), years_before(end, back))
                    if inside:
                        break
            for s in inside:
                s.overlap += self.window_bonus
                s.relevance += self.window_bonus
        return scored

    def read(self, question: str, plan: Plan, pack: Pack,
             resolution: Resolution | None = None) -> ReaderOutput:
        out = self._checked(question, plan, pack, resolution)
        if out.answer and out.cited_ids:
            # Whichever way the answer was found (an age, a yes or no, several records),
            # a robot's echo is cited after the person's own statement it repeats.
            own = self._own_statement(out.cited_ids[0], out.answer, question, pack,
                                      figures=True)
            out.cited_ids = list(dict.fromkeys(own + out.cited_ids))
        return out

    def _checked(self, question: str, plan: Plan, pack: Pack,
                 resolution: Resolution | None) -> ReaderOutput:
        """The answer read from the evidence, with the checks on what it may be."""
        if resolution is not None:
            # The resolver keyed the state the question asks about (its category
            # included): its value stands whatever words the records use for it.
            resolved = _resolution_answer(plan, resolution, pack)
            if resolved is not None and plan.answer_type != "yesno" \
                    and _repeats(resolved.answer, question):
                resolved = None  # "engaged to" for "Who is Bisi engaged to?": the records say
            if resolved is not None and _not_of_kind(asked(question, plan).kind,
                                                     resolved.answer):
                resolved = None  # the resolver's value is of another kind: the records say
            if resolved is not None:
                if resolved.cited_ids:  # a robot's echo of the value: the person's words
                    # it repeats first, when the graph stage put them beside it (answer.py)
                    own = self._own_statement(resolved.cited_ids[0], resolved.answer, question,
                                              pack)
                    lead = {i.source_id for i in pack.items if "graph" in i.routes
                            and not i.routes.get("superseded")}
                    if own[0] in lead:
                        resolved.cited_ids = list(dict.fromkeys(own + resolved.cited_ids))
                return resolved
        out = self._read(question, plan, pack, None)
        cited_texts = [i.record.text for i in pack.items if i.source_id in out.cited_ids]
        if _HOW_OLD.match(question) and not (
                out.answer and any(_AGE.search(t) for t in cited_texts)
                and out.note != _BETWEEN_NOTE and (not find_candidates(out.answer)
                     or any(_BORN.search(t) for t in cited_texts))):
            # "How old is Mrs Ferreira?": an age, or when she was born; not the day a
            # record about her was said. A record may say it bare ("he's twenty-eight").
            aged = _age_answer(question, pack, self.name, plan.tense == "past")
            if aged is not None:
                return aged
            if out.answer:
                return ReaderOutput("", [], self.name, "no shown record states an age")
        ask = asked(question, plan)
        if out.answer and plan.answer_type != "yesno" and not _options(question) \
                and _repeats(out.answer, question.replace(before_clause(question), "")):
            # The answer says back only what the question says: it tells nothing. Asked
            # "Which locker is Bartek's?", the cited record's label for it does ("he has
            # locker 27" read as "Bartek's locker").
            label = self._cited_label(ask, question, out, pack)
            if not label:
                # "My guitar's strings are nylon, light tension": the span is the subject,
                # which the question names; what the record says it is answers.
                first = next((i for i in pack.items if i.source_id == out.cited_ids[0]),
                             None) if out.cited_ids else None
                if first is not None and not (plan.current and plan.tense != "past"
                                              and _told_later(first, pack, question)):
                    label = _complement(out.answer, first.record.text, question)
            if not label:
                return ReaderOutput("", [], self.name,
                                    "the shown evidence only repeats the question")
            out.answer = label
        if out.answer and ask.kind == "name" and ask.focus \
                and _owner_of(out.answer, ask.focus, pack):
            # "What's the vet's name?": "Mochi's vet check" names whose vet, not the vet.
            return ReaderOutput("", [], self.name, f"no shown record says what the {ask.focus} "
                                "is called")
        if out.answer and ask.kind == "person" and _says_who_speaks(out, pack):
            # "Hi, it's Liz from Freshway. …": who is speaking, not who does what is asked.
            return ReaderOutput("", [], self.name, "no shown record says who it is")
        if out.answer and ask.kind == "person" and (_thing_named(out, pack)
                                                     or _placed(out, pack)):
            # "Who is chairing the board meeting?": "the Oak room" names a room, not anyone.
            return ReaderOutput("", [], self.name, "no shown record says who it is")
        if out.answer and plan.answer_type == "thing" and not ask.kind \
                and _only_time(out.answer):
            # "What did Tom get me for our anniversary?" is no time: "july 12" is not it.
            return ReaderOutput("", [], self.name, "no shown record says what it is")
        if out.answer and plan.tense != "past":
            out.answer = _upcoming_weekday(out.answer, out.cited_ids, pack)
        if not out.answer or len(out.cited_ids) != 1:
            return out
        if ask.kind in ("which", "what") and ask.focus:
            # "Which room …?", "What room …?": the room with the label that tells it apart
            # ("Room 7", "the Everest room"), where the cited record gives one.
            first = next((i for i in pack.items if i.source_id == out.cited_ids[0]), None)
            cited = repaired(first.record.text) if first is not None else ""
            # For the graph stage's current record, a label the earlier records about the
            # question gave is the one it changes from.
            q = stems(question)
            old = " ".join(i.record.text for i in pack.items if first is not None
                           and first.routes.get("graph") == 1
                           and i.record.seq < first.record.seq and stems(i.record.text) & q)
            label = labelled(ask.focus, cited, question, old) \
                or self._relabel(ask, question, out, pack)
            if ask.kind == "what" and not re.search(r"\d", label):
                label = ""  # "What room …?": a number labels it; "What novel …?" is read
            if label and label.lower() not in out.answer.lower():
                out.answer = label
        if ask.kind in ("what", "which") and ask.focus and out.note != _MARKED_NOTE \
                and not _focus_filled(ask, question, out,
                                                                             pack):
            # A time tells a train or a flight from the others ("Hannah's sticking with
            # the seven fifty-five"), where the cited record gives one with "the".
            cited = next((i.record.text for i in pack.items if i.source_id in out.cited_ids), "")
            timed = _THE_TIME.search(cited) if ask.kind == "which" else None
            after = re.match(r"\s+([a-z][\w-]*)", cited[timed.end():]) if timed else None
            if after and after.group(1).lower() not in STOPWORDS \
                    and stem(after.group(1).lower()) != stem(ask.focus):
                timed = None  # "the 6:30 wake-up call": a time telling another thing apart
            # Else the value a record says in X's place, where none says X at all.
            filled = _slot_filler(ask, question, out, pack) if timed is None else None
            if filled is None and timed is None:
                filled = _role_filler(ask, question, out, pack)
            if filled is None and timed is None:
                filled = self._labelled_elsewhere(ask, question, plan, pack)
            if filled is not None:
                out = filled
            elif timed is None:
                return ReaderOutput("", [], self.name,
                                    f"no shown record says which {ask.focus} it is")
            else:
                out.answer = timed.group(0)
        if ask.kind in ("what", "which") and ask.focus and plan.answer_type == "thing" \
                and _only_time(out.answer) and not clock_time(out.answer):
            # The X a "what/which X" asks for is no time (``spans.asked`` gives times their
            # own kinds): a day left after the labels above is not it ("Saturday the 15th"
            # for "What grade is Lena's exam?"; "berth 14", relabelled, stands). A clock
            # time may tell one X from others ("the 7:15" train, ``_focus_filled``).
            return ReaderOutput("", [], self.name, f"no shown record says which {ask.focus} "
                                "it is")
        out.cited_ids = self._own_statement(out.cited_ids[0], out.answer, question, pack)
        return out

    def _labelled_elsewhere(self, ask: Asked, question: str, plan: Plan,
                            pack: Pack) -> ReaderOutput | None:
        """For "which/what X …?" whose chosen span does not tell which X: the label another
        shown record gives X ("they are in the Butterfly room since today"), from a record
        about what is asked and about whom it asks. A state asked now takes the graph
        stage's current record first, then the newest record; any other
        question the records in the order shown. The graph stage's superseded marks do
        not count here: its current record does not label X, so what it revises is
        another thing of the records ("they deliver Fridays now" beside the mill the
        flour comes from). None when no record labels X."""
        asked_stems = stems(question) - {stem(ask.focus)} - _ASKING
        owners = _possessed(question)
        named = holders(question)
        items = list(pack.items)
        if plan.current and plan.tense != "past" and plan.as_of is None:
            items = [i for i in items if not i.routes.get("other")]
            items.sort(key=lambda i: (i.routes.get("graph") != 1, -i.record.source_time,
                                      -i.record.seq))
        for item in items:
            text = repaired(item.record.text)
            if not (item.routes.get("graph") == 1 or asked_stems & stems(text)):
                continue  # says nothing of what is asked beside X
            if _other_owner(owners, text) or _other_name_on(question, text) \
                    or other_titled(text, question) or about_another(text, named):
                continue  # another holder's X ("Lily's room" for "Alfie's room")
            label = labelled(ask.focus, text, question)
            if ask.kind == "what" and not re.search(r"\d", label):
                label = ""  # "What room …?": a number labels it (as in ``_cited_label``)
            if label and not _repeats(label, question):
                return ReaderOutput(label, [item.source_id], self.name)
        return None

    @staticmethod
    def _cited_label(ask: Asked, question: str, out: ReaderOutput, pack: Pack) -> str:
        """The label the first cited record gives the thing a "which/what X" question
        asks for ("kennel nine", "rack A"); for "what X" only a number labels it."""
        if ask.kind not in ("which", "what") or not ask.focus or not out.cited_ids:
            return ""
        first = next((i for i in pack.items if i.source_id == out.cited_ids[0]), None)
        label = labelled(ask.focus, repaired(first.record.text), question) \
            if first is not None else ""
        if ask.kind == "what" and not re.search(r"\d", label) or _repeats(label, question):
            return ""  # "Mr Ansah's items" for "Which item … for Mr Ansah?" says back
        return label

    @staticmethod
    def _relabel(ask: Asked, question: str, out: ReaderOutput, pack: Pack) -> str:
        """The label the graph stage's current record gives in place of the one the
        records it revises gave: a new number where they number the thing ("I'm in 508
        now" after "I'm in room 312": "room 508"), else the one name it says that no
        earlier record about the question says ("so I'm going from Liverpool now" after
        "Flying from Manchester")."""
        cited = next((i for i in pack.items if i.source_id == out.cited_ids[0]), None)
        if cited is None or cited.routes.get("graph") != 1 or cited.routes.get("superseded"):
            return ""
        rec = cited.record
        q = stems(question)
        earlier = [i.record.text for i in pack.items
                   if i.record.seq < rec.seq and stems(i.record.text) & q]
        # Of the numbers it says, the first no earlier record about the question gave
        # ("Engineer fixed 5, but now 7 is leaking" after "Machine 5 is out of order").
        said = [n.split(" ")[-1] for n in idents(rec.text)]
        said = [n for n in said if not said_not(n, rec.text)] or said
        given = {n for n in said if any(
            re.search(rf"(?<!\w)(?<!\d\.){re.escape(n)}(?!\w|\.\d)", t, re.I) for t in earlier)}
        number = next((n for n in said if n not in given), ident(rec.text).split(" ")[-1])
        if number and any(re.search(rf"\b{re.escape(ask.focus)}s?\s+(?:is\s+)?"
                                    rf"(?:(?:number|no\.?)\s*)?[A-Za-z]{{0,3}}\d",
                                    i.record.text, re.I) for i in pack.items if i is not cited):
            return f"{ask.focus} {number}"
        earlier = set().union(*(stems(t) for t in earlier))
        known = capitalised_mid_sentence([i.record.text for i in pack.items])
        own = {stem(w) for w in words(rec.speaker)}  # "Hi, I'm Anjali, …": the speaker
        # A name a preposition ties to the thing is whom it is with or for ("moved Maya
        # onto imaging with Dana"), not which one it is.
        tied = _tied_before(question)
        new = {name for at, name in names_in(rec.text, q, known)
               if not {stem(w) for w in words(name)} & (earlier | own)
               and not (tied and tied.search(rec.text[:at]))}
        return new.pop() if len(new) == 1 else ""

    def _read(self, question: str, plan: Plan, pack: Pack,
              resolution: Resolution | None = None) -> ReaderOutput:
        if resolution is not None:
            out = _resolution_answer(plan, resolution, pack)
            if out is not None:
                return out
        q_stems = {stem(w) for w in words(question)} & stems(question)
        # A phrasal verb a shown record says as one noun ("pick the twins up": "pickup").
        q_stems |= {j for j in _joined(question) if any(j in stems(i.record.text)
                                                         for i in pack.items)}
        names = {stem(w) for i in pack.items for w in words(i.record.speaker)} & q_stems
        weights = self._weights(q_stems, pack.items, names)
        whose = _proper_names(question)
        scored = [self._score(q_stems, weights, pos, item, names, plan.answer_type, whose)
                  for pos, item in enumerate(pack.items)]
        self._replies(scored, q_stems, names)
        if plan.answer_type == "yesno":
            out = _choice(question, [s for s in scored if s.overlap > 0])
            if out is not None:
                return out
        # The graph stage decided what is current (the resolver, or the chain of later
        # statements of one thing, query/current.py): for a state question its record
        # answers, whatever words it shares with the question.
        lead = [s for s in scored if s.item.routes.get("graph") == 1
                and not s.item.routes.get("superseded")]
        matched = [s for s in scored if s.overlap > 0]
        if plan.current and plan.tense != "past":
            # "My old site" is what it was: a record that names the thing asked only so
            # does not say what it is now, where another record speaks of it.
            asked_former = {stem(m.group(1).lower()) for m in _FORMER.finditer(question)}
            former = [s for s in matched
                      if _only_former(s.item.record.text, q_stems - asked_former)]
            if len(former) < len(matched):
                matched = [s for s in matched if s not in former]
                scored = [s for s in scored if s not in former]
        ask = asked(question, plan)
        if ask.kind in _TYPED and plan.operation not in ("list", "history") \
                and not _plural_ask(question, plan):
            # A value of the asked kind must be stated: the graph stage's current record
            # when it states one, else the best record that does.
            # Every shown record is looked at: one that shares no word with the question
            # may carry on the turn before it ("It's the 19th instead" after "The boiler
            # people rang"); ``_typed`` asks what it is about.
            if not matched:
                return ReaderOutput("", [], self.name, "no shown evidence matches the question")
            every = self._in_time(plan, [*lead[:1], *[s for s in scored if s not in lead]])
            return self._typed(question, plan, ask, every, pack, q_stems, names, weights)
        shown = scored
        if lead and (plan.wants_newest or may_ask_held(question, plan)) \
                and not _plural_ask(question, plan):
            scored = lead[:1]
        else:
            scored = matched
            if lead and plan.tense != "past" and not before_clause(question):
                # A record the graph stage marked superseded said what no longer holds.
                scored = [s for s in scored if not s.item.routes.get("superseded")] or scored
            # "Jamal's fellowship closes on the 28th" for "Sana's fellowship": the same
            # thing of another owner, or under another name, is a look-alike, as for a
            # value of an asked kind (``_typed``).
            owners = _possessed(question)
            asked_speakers = _asked_speakers(question, pack.items)
            scored = [s for s in scored if not _look_alike(owners, question,
                                                            s.item.record.text)
                      and not _speakers_own(s.item.record, asked_speakers)] or scored
        if not matched and not lead:
            marked = _dense_new_state(question, plan, ask, self._in_time(plan, shown))
            if marked is not None:
                return ReaderOutput(marked[1], [marked[0].item.source_id], self.name,
                                    _MARKED_NOTE)
        scored = self._in_time(plan, scored)
        if not scored:
            return ReaderOutput("", [], self.name, "no shown evidence matches the question")
        best = max(s.relevance for s in scored)
        near = [s for s in scored if s.relevance >= self.near_best * best]
        if (plan.wants_newest or may_ask_held(question, plan)) and not _plural_ask(
                question, plan) and lead:
            chosen = scored[:1]  # the graph stage's record for the time asked (above)
        elif plan.wants_newest and not _plural_ask(question, plan):
            # Revisions of one state match the question about equally well in content;
            # recall order must not decide which is current, so compare overlap only.
            live = [s for s in scored if not s.item.routes.get("superseded")
                    and not s.item.routes.get("other")] or scored
            if plan.answer_type != "person":
                # Not a revision of the asker's state: someone else's ("my brother just
                # started on the late shift" for "What shift am I on?").
                named = holders(question)
                live = [s for s in live if not about_another(s.item.record.text, named)
                        and not other_titled(s.item.record.text, question)
                        and not (plan.tense != "past"
                                 and other_kind(s.item.record.text, question))] or live
            top = max(s.overlap for s in live)
            revisions = [s for s in live if s.overlap >= self.near_best * top]
            chosen = [max(revisions, key=lambda s: (s.item.record.source_time, s.item.record.seq))]
        elif plan.operation == "history":
            chosen = sorted(near, key=lambda s: (s.item.record.source_time, s.item.record.seq))
        elif _several(question, plan):
            # Every member of the set, whatever its recall rank: compare content only.
            top = max(s.overlap for s in scored)
            members = [s for s in scored if s.overlap >= self.near_best * top]
            chosen = sorted(members, key=lambda s: -s.relevance)[: self.max_list]
        else:
            # The best record; when it says nothing beyond the question, the next near one.
            chosen = sorted(near, key=lambda s: -s.relevance)[: self.max_list]
            if self.span_weight and plan.answer_type not in _OWN_SPANS:
                # A record that states something beside the question's words beats one
                # that only repeats them ("Did it mess up your progress?").
                pool = [s for s in scored if s.relevance >= self.span_pool * best]
                chosen = sorted(pool, key=lambda s: -(s.relevance + self.span_weight
                                                      * self._span_score(s, q_stems)))
                chosen = chosen[: self.max_list]
            if plan.answer_type == "yesno" and plan.current and plan.window is None \
                    and plan.as_of is None:
                # "Has she been to the workshop?": the plan and its outcome match about
                # equally well; the latest telling is the state now (as for revisions).
                chosen.sort(key=lambda s: (s.item.record.source_time, s.item.record.seq),
                            reverse=True)
            if plan.answer_type == "duration":
                # "How long …?": a near record that states a span of time answers it.
                chosen.sort(key=lambda s: not states_duration(s.item.record.text))
                if chosen and not states_duration(chosen[0].item.record.text) \
                        and _HOW_LONG_NOW.match(question):
                    # "How long is my commute?": a span someone states, not a date.
                    return ReaderOutput("", [], self.name, "no shown record says how long it is")
                if plan.needs_endpoints and chosen \
                        and not states_duration(chosen[0].item.record.text):
                    out = self._between(question, chosen)
                    if out is not None:
                        return out
            return self._answer(question, plan, chosen, q_stems, pack.complete, single=True)
        if len(chosen) == 1 and chosen[0] in lead and plan.answer_type not in _OWN_SPANS \
                and plan.current and plan.tense != "past" and plan.as_of is None:
            heard = self._acknowledged(question, plan, chosen[0], pack, q_stems)
            if heard is not None:
                return heard
        return self._answer(question, plan, chosen, q_stems, pack.complete)

    def _acknowledged(self, question: str, plan: Plan, s: _Scored, pack: Pack,
                      q_stems: set[str]) -> ReaderOutput | None:
        """The graph stage's current record, told at length ("Update from the Jack front:
        he's bored of cheese … so he's getting sunflower seed butter …"), as the robot's
        reply right after it acknowledged it in a few words ("Sunflower seed butter
        sandwiches for Jack."): the value read from the acknowledgement, where every word
        of it beside the question's is the person's own, who is cited."""
        rec = s.item.record
        focus = asked(question, plan).focus
        if is_robot(rec.speaker, rec.robot_id) or focus and stem(focus) in stems(rec.text):
            return None  # a record naming the thing asked ("Flavour stays lemon") tells it
        replies = sorted((i.record for i in pack.items
                          if i.record.session_id == rec.session_id
                          and i.record.subject_id == rec.subject_id
                          and rec.seq < i.record.seq <= rec.seq + self.reply_gap),
                         key=lambda r: r.seq)
        reply = replies[0] if replies and replies[0].seq == rec.seq + 1 else None
        if reply is None or not is_robot(reply.speaker, reply.robot_id):
            return None
        own = stems(rec.text)
        span = extract(question, plan, _content(reply, reply.text), reply.source_time, q_stems,
                       self.span_tokens, reply.text)
        value = stems(span) - q_stems - STOPWORDS
        if not value or not value <= own:
            return None
        return ReaderOutput(span, [rec.source_id], self.name)

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
    def _continued(rec: SourceRecord, items: Sequence[EvidenceItem], asked_names: set[str],
                   known: set[str]) -> frozenset[str]:
        """What the turns right next to a record say, when it carries on their topic
        ("Still the 27th though" after "the party's now at her place"); nothing when it
        brings in someone new ("Ruth is coming tomorrow …" after the physiotherapy)."""
        around = [i.record for i in items if i.record.session_id == rec.session_id
                  and i.record.subject_id == rec.subject_id and abs(i.record.seq - rec.seq) == 1]
        earlier = frozenset().union(*(stems(r.text) for r in around if r.seq < rec.seq))
        new = {stem(n.lower()) for _, n in names_in(rec.text, asked_names, known)
               for n in n.split()} - earlier
        return frozenset() if new else frozenset().union(*(stems(r.text) for r in around))

    def _typed(self, question: str, plan: Plan, ask: Asked, scored: list[_Scored], pack: Pack,
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
        label = _LABEL[ask.kind]
        compound = stem(ask.compound) if ask.compound else ""
        if compound and compound in q_stems and compound not in said \
                and ask.compound not in _NOT_COMPOUNDS \
                and ask.kind in ("ident", "quantity", "money", "name", "person") \
                and not _said_bare(ask.focus, items) \
                and not (compound in _PHONE and any(_DIALLED.search(i.record.text)
                                                     for i in items)):
            # "What's her landline number?" when only a mobile was ever mentioned ("What
            # shoe size is Lottie?" where a record says "she's a size 13" is answered).
            return ReaderOutput("", [], self.name, f"no shown record mentions a {ask.compound} "
                                f"{ask.focus}")
        focus = stem(ask.focus) if ask.focus else ""
        if ask.kind == "person" and focus and focus not in said and not any(
                _TITLED.search(i.record.text) for i in items
                if i.routes.get("graph") == 1 and not i.routes.get("superseded")):
            # "Who is the site manager?" when no shown record mentions a manager. (The
            # graph stage's current record may name whom by a title, the role left
            # unsaid: "So Ruby's with Ms Obi now" for "Who's Ruby's teacher?".)
            return ReaderOutput("", [], self.name, f"no shown record mentions a {ask.focus}")
        proper = _proper_names(question)
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
        asked_words = q_stems - names - proper - _ASKING
        topic = asked_words & said
        # "What hours does Karim work?": what the one asked about does, which a record may
        # say in other words ("Karim's just started nights, ten till six").
        done = _DOES.match(question)
        doing = {stem(done.group(1).lower())} if done else set()
        thing_words = asked_words - {focus, compound} - _ASPECT - doing
        if focus and _WHICH_WHAT.match(question) and thing_words and not thing_words & said:
            return ReaderOutput("", [], self.name, "no shown record mentions what the "
                                f"{ask.focus} asked is of")
        if focus and _WHICH_WHAT.match(question) and topic - {focus}:
            # "Which floor is the staff canteen on?": the kind asked for is no part of the
            # thing ("The fifth floor is an oven" says nothing of the canteen); in "How
            # much warfarin …?" it is the thing.
            topic = topic - {focus}
        last = words(question)[-1:]
        if last and stem(last[0]) in _ASPECT and topic - _ASPECT:
            # "What time does chess club start?": the verb ending it says which time of the
            # thing is asked; the thing is what a record must speak of ("starting this
            # week" is not about a chess club).
            topic = topic - _ASPECT
        known = capitalised_mid_sentence([i.record.text for i in items])
        owners = _possessed(question)
        # The people talking: their names in a turn greet, they bring in no one new.
        speakers = {stem(w) for i in items for w in words(i.record.speaker)}
        asking = {s.item.source_id: s.overlap for s in scored if _asks(s)}
        mine = bool(re.search(r"\b(?:i|my|me|mine|i'm|i've|i'd)\b", question.lower()))
        # A state asked now: of several kinds of the thing, the one asked for.
        state = plan.current and plan.tense != "past"
        # The values the superseded records state: the current record may name one as
        # what it changes from ("can't get the Wednesday off, so I've changed it. Friday.").
        replaced = frozenset().union(*(state_values(i.record.text) for i in items
                                       if i.routes.get("superseded")))
        sums = any(money(i.record.text) for i in items if i.routes.get("superseded"))
        # The graph stage tied the current record to the turn it carries on: that turn
        # says what it is of ("three litres now" after "two litres of water a day").
        tied = any(i.routes.get("carried") for i in items)
        # What the records the graph stage's current record supersedes say.
        revised = frozenset().union(*(_name_words(i.record.text, known) for i in items
                                      if i.routes.get("superseded")))
        # The owner the question names ("Theo's slot"), said with the owned noun left out.
        owners_asked = [re.escape(p) for p in possessors(question)]
        elided = re.compile(rf"\b(?:{'|'.join(owners_asked)})['’]s\s+"
                            rf"(?:{'|'.join(ELIDED_AFTER)})\b", re.I) if owners_asked else None
        found: list[tuple[_Scored, str, float]] = []
        for s in scored:
            rec = s.item.record
            before, after = self._around(rec, items)
            current = s.item.routes.get("graph") == 1 and not s.item.routes.get("superseded")
            if s.overlap <= 0 and (not topic or not (current or _carries_on(rec.text))):
                continue  # shares no word with the question and does not carry one on
            # What the record says, with the turns right next to it: the question it
            # answers, the turn that echoes or answers it, and (when it carries on their
            # topic) the turns before and after it.
            beside = stems(rec.text).union(*(stems(r.text) for r in (before, after) if r))
            if proper & {stem(w) for w in words(rec.speaker)} and _OF_SELF.search(rec.text):
                # The one the question names speaking of their own ("Mine's 216", "I'm off
                # from the 19th"): it joins what the turns just before it talk about.
                beside = beside.union(*(stems(r.text) for r in self._just_before(rec, items)))
            near = beside | self._continued(rec, items, proper | q_stems | speakers, known)
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
                    and not _owners_other(owners, rec.text, question)) and (
                    not current or _owners_other(
                    owners, rec.text, question) or not (
                    focus and focus in stems(rec.text)
                    or self._names_the_same(rec, items, topic, proper | q_stems, known)
                    or _name_words(rec.text, known) & revised
                    or ask.kind in ("day", "date", "when") and shifts(rec.text)
                    or bool(proper & stems(rec.text)))):
                # Shares only a name with the question. (The graph stage's current record
                # also stands when it names the thing asked, "new password's tangerine77"
                # for the wifi password, or what an earlier record about the question
                # named: "I finally left St. Mary's" after "I work at St. Mary's", or a
                # word of a record it supersedes: "the Peak District instead" after "the
                # Lake District"; or, asked when, moves their time: "bumped another week";
                # or names whom the question asks of: "Dave texted, ferry strike, he won't
                # make it back till Sunday now" for "When is Dave getting home?"; as of a
                # time, "Maureen comes in at six" before her shifts changed, for "what time
                # did Maureen visit?".)
                continue
            if _other_owner(owners, rec.text) or _other_name_on(question, rec.text) \
                    or other_titled(rec.text, question) \
                    or state and other_kind(rec.text, question):
                continue  # "Lily's party" does not answer for "Alfie's party", nor "Mr
                # Grady's sessions" for "Mrs Grady's", nor "the blue kettles" for "the red
                # kettles"
            if focus and focus not in proper and (
                    ask.kind in ("name", "quantity", "count")
                    or ask.kind == "ident" and focus != "number") \
                    and focus not in beside and not of_what & beside \
                    and not (current and (ask.kind in ("count", "name", "ident")
                                          or ask.kind == "quantity"
                                          and (tied or focus in _MEASURE_STEMS))):
                continue  # talks about the topic, never about the thing asked (the graph
                # stage's current record revises one that does: "so I've got eight now";
                # or names the measure, which a record need not say: "runs at 32")
            if (mine or proper and ask.kind != "person") \
                    and _someone_else(rec.text, proper | q_stems, known):
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
                                         replaced if current else frozenset(), current and sums,
                                         revised if current else frozenset())
            if not value and current and ask.kind in ("day", "date", "when"):
                value = self._moved(rec, items, topic)
            if value and _repeats(value, question.replace(before_clause(question), "")):
                value = ""  # "up for the dinner" for "When does he come up for his dinner?"
            if value and ask.kind in ("clock", "when") and _a_sum(value, rec.text):
                value = ""  # "Bramleys £2.40 a kilo" states no time the shop opens
            if value and ask.kind == "clock" and _said_as_age(value, rec.text):
                value = ""  # "he'll be six" is how old he will be, not when lunch is
            if value and ask.kind in ("ident", "quantity") and focus and focus != "number" \
                    and _labels_other(value, rec.text, {focus, compound} | of_what,
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
            return ReaderOutput("", [], self.name, f"no shown record states the {label} asked for")
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
            # Revisions of one state say it in different words: every record that states
            # a value about enough of what is asked is one; the newest holds.
            revisions = revisions_of(live, self.revision_share, self.revision_overlap)
            # "I've got stats too, but Wednesdays", "the art co-op is also on Tuesdays": a
            # record that adds another of the thing beside the one told revises none of
            # them; it holds only where it says most about what is asked.
            most = max(revisions, key=lambda f: (f[2], f[0].overlap))
            revisions = [f for f in revisions
                         if f is most or not _ADDS.search(f[0].item.record.text)]
            if proper and not lead:
                # Asked about someone by name ("Where are Sam's parents going that
                # week?"), a revision names them, or a turn just before it in its session
                # does ("Will Ellie carry on?" - "Yeah, she's handing her over …"), where
                # any one does: a later turn sharing only a word ("a storm over the Lakes
                # that entire week") says nothing of Sam's parents.
                named = [f for f in revisions
                         if proper & _named_near(f[0].item.record, items, self.reply_gap)]
                if not named:
                    # None of the revisions about most of what is asked names them ("Flat
                    # 2, the Nowaks, rent … due on the 1st"): a record that states a value
                    # of the kind and names them does ("… Ollie, £720, due on the 15th").
                    named = [f for f in live if proper & _named_near(
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
        else:
            # A past state: the graph stage's record for the time named, when it gave one
            # (the revision that held then, ``current.held_time``), else the best match.
            held = [f for f in found if f[0].item.routes.get("graph") == 1
                    and not f[0].item.routes.get("superseded")]
            pick = held[0] if held else max(found, key=lambda f: f[0].relevance)
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
            heard = _value_tokens(pick[1]) - q_stems
            said = [f for f in said if heard & _value_tokens(f[0].item.record.text)] \
                or [f for f in said if f[0].overlap > 0]
            if said:
                own = max(said, key=lambda f: f[0].item.record.seq)
                # The value the robot heard, where the person said it too ("Tola and
                # Marcus are done. She's … seeing … Femi." - "Tola is seeing Femi now.").
                value = pick[1] if pick[1].lower() in own[0].item.record.text.lower() \
                    else own[1]
                if ask.kind == "when":
                    value = _with_hour(value, found)
                return ReaderOutput(value, [own[0].item.source_id, pick[0].item.source_id],
                                    self.name)
        value = _with_hour(pick[1], found) if ask.kind == "when" else \
            _with_unit(pick[1], found) if ask.kind == "quantity" else pick[1]
        return ReaderOutput(value, [pick[0].item.source_id], self.name)

    def _value(self, ask: Asked, question: str, plan: Plan, s: _Scored, skip: set[str],
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
        if kind in ("day", "date", "when"):
            # "parents evening moved to thurs": a clipped weekday names the day.
            ordered = [weekdays_written_out(x) for x in ordered]
            # "General waste is Thursdays now, so the black bins go out Wednesday night":
            # of a cause and what follows from it, the one about what is asked says when.
            ordered = [_so_held(x, skip) for x in ordered]
            # A named day ("Wednesdays", "Friday the 19th") says when the thing is; "today"
            # in a story about it says when it was talked about. "When does he take it?"
            # asks for a habit: a clock time or a time of day before a day that was told.
            named = [x for x in ordered if states_time(x) and names_day(x)]
            # A day said without a tense ("Friday.") is ahead when the state is asked now.
            ahead = plan.current and plan.tense != "past"
            if ahead:
                # A sentence that only turns a day down ("Forget Friday, the CEO can't make
                # it.") says when the thing is not, when another says when it is.
                named = [x for x in named if not turned_down(x)] or (
                    [] if _turns_down_only(named) else named)
            if replaced:  # a sentence naming a new day before one naming only the old
                named.sort(key=lambda x: not state_values(x) - replaced)
            if kind == "day" and _ASKS_OWN.search(question):
                # "Which day am I covering?": "the boss is covering Saturdays" says what is
                # asked of someone else; "I'm still on Sundays" comes before it.
                named.sort(key=lambda x: bool(stems(x) & skip)
                           and not _FIRST_PERSON.search(x))
            if kind == "day" and _PLURAL_DAYS.search(question):
                # "Which days …?": the days a sentence lists or spans, as it says them (a
                # list may keep days the revisions it supersedes named).
                # Not days that label a thing the sentence talks about ("The Monday and
                # Thursday slots are going to new patients"): what the slots were.
                listed = next((v for v in (days_listed(held_days(x)) for x in named
                                           if not _days_labelling(held_days(x)))
                               if v), "")
                if listed:
                    return listed
            told = [x for x in ordered if states_time(x) and not names_day(x)]
            habit = kind == "when" and bool(re.match(r"\s*when\s+(?:do|does)\b", question, re.I))
            for x in named + ([] if kind == "when" else told):
                day = self._day(x, rec.source_time, kind, question, ahead, replaced)
                if day and _bare_weekday(x):
                    return _dated_weekday(day, [self._day(y, rec.source_time, kind, question,
                                                          ahead, replaced)
                                                for y in named if y != x])
                if day:
                    return day
            if kind == "when":
                for x in ordered:
                    value = clock_time(x) or day_part(x)
                    if value:
                        return value
                for x in ([] if habit else told):
                    day = self._day(x, rec.source_time, kind, question, ahead, replaced)
                    if day:
                        return day
            return ""
        readers: dict[str, Callable[[str], str]] = {
            "clock": clock_time, "money": sum_stated, "ident": lambda x: ident(x, skip),
            "frequency": lambda x: frequency(x) or (day_part(x) if " and " in day_part(x)
                                                   else ""),
        }
        if kind in readers:
            value = next((v for v in map(readers[kind], _consequence_first(ordered)) if v), "")
            if not value and kind == "clock" and replaced:
                # The current record moves a time it does not repeat as one ("has moved
                # to 9" after "at 8"): the hour it moves to.
                value = next((v for v in map(destination_hour, ordered) if v), "")
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
                ordered = sorted(ordered, key=lambda x: not _OPENS_SO.match(x))
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
                             and f[1].split()[0] not in said]
                elif said:  # "What temperature is incubator 1 at?": 1 labels the thing
                    found = [f for f in found if f[1].split()[0] not in said] or found
                if measured:  # "How much does he weigh?": a figure with its unit, not
                    # "shuffled Biscuit into 7", nor a dose said per time ("100mg twice
                    # daily")
                    found = [f for f in found if _WITH_UNIT.match(f[1])
                             and not frequency(x[f[0]:f[0] + len(f[1]) + 20])]
                # "Four more signed up", "another two": a number said as a change is not
                # the amount, where the sentence states another.
                return [f for f in found if not _change_amount(x, f)] or found

            # "two boys moved to the academy. down to 27", "Four more signed up, that
            # makes thirty-five": a number said as what a change comes to is the amount,
            # in whichever of the record's sentences it is said.
            result = next((f[1] for x in ordered for f in amounts(x)
                           if _RESULT.search(x[:f[0]]) and not _change_amount(x, f)), "")
            # "… they're each bringing a plus-one. Fourteen.": a sentence that is only a
            # figure is the amount the rest of the record works out to.
            result = result or next((f[1] for x in ordered for f in amounts(x)
                                     if _bare_sentence(x) == f[1].lower()), "")
            if result:
                return result

            def now(x: str) -> list[tuple[int, str]]:
                # "two people bailed, so it's a table for 6 now": the number said with
                # "now", or after the "so" that gives the consequence ("Seven have dropped
                # out, so we're landing on 128"), is the state, the other the change.
                return [f for f in amounts(x) if re.search(r"\bnow\b", x[f[0]:f[0] + 40])
                        or _CONSEQUENCE_SO.search(x[:f[0]])]

            result = next((now(x)[-1][1] for x in ordered if now(x)), "")
            # "Two of the tables got merged, so knock one off. Fourteen centrepieces": the
            # number said with the thing the question counts, over those of other things.
            counted = stem(ask.focus) if kind == "count" and ask.focus else ""
            result = result or next((f[1] for x in ordered for f in amounts(x) if counted
                                     and counted in stems(f[1])
                                     and not _change_amount(x, f)), "")
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
            # Sentence by sentence, best first: a place phrase ("on the wall by the back
            # door"), or a place a copula names ("Tomorrow's St Luke's").
            origin = bool(re.search(r"\bfrom\b", question, re.I))
            # "The queue at the Tower was round the block, so we ended up at the British
            # Museum": the consequence after "so" tells where it came to be, first.
            results = {_CONSEQUENCE_SO.split(x)[-1] for x in ordered
                       if _CONSEQUENCE_SO.search(x)}
            ordered = [y for x in ordered
                       for y in ([_CONSEQUENCE_SO.split(x)[-1]] if _CONSEQUENCE_SO.search(x)
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
                        return _owned_by(rec, x, value)
            for x in ordered:
                value = place_phrase(x, skip, self.span_tokens, origin) or next(
                    (n for at, n in names_in(x, skip, known) if _GIVEN.search(x[:at])), "")
                if value:
                    return _owned_by(rec, x, value)
            return ""
        if kind == "name":
            return _name_value(ask, ordered, skip, known, focus_here, _proper_names(question),
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
                    given = [f for f in found if _NAME_GIVEN.search(x[:f[0]])]
                    so = _CONSEQUENCE_SO.search(x)
                    result = [f for f in found if so and f[0] >= so.end()
                              and not re.match(r"that\b", x[so.end():], re.I)]
                    return (given or result or found)[0][1]
                return min(found, key=lambda f: min(abs(f[0] - h) for h in hits))[1]

            changed_from = ""
            for x in ordered:
                # "Leila's started her leave, so Acme is with me from today": the state the
                # consequence tells, of the thing asked, is the speaker's.
                after = _CONSEQUENCE_SO.split(x)
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
                pair = _RESPECTIVE.search(x)
                if pair:
                    # "My maid of honour and Raj's best man, Hannah and Ollie": each name
                    # in the order of the things it is, said outright.
                    first, second = (bool(stems(pair.group(k)) & skip) for k in (1, 2))
                    if first != second:
                        return pair.group(3 if first else 4)
                kept = [f for f in found if not declines(x, f[0] + len(f[1]))]
                if _SELF_DOING.search(x) and not _YOU_DOING.search(x):
                    # "I'm still doing the deliveries myself, Sami, like I said": the
                    # speaker does it; the one spoken to does not.
                    kept = [f for f in kept if f[1].lower() not in spoken_to(x)]
                # "Hana's brother Kai": the possessor says whose; the name after is who.
                kept = [f for f in kept if not any(
                    g[0] > f[0] and _POSSESSOR_OF.fullmatch(x[f[0] + len(f[1]):g[0]])
                    for g in kept)] or kept
                if not kept:
                    # "Teifi couldn't keep up, so the cheese is coming from Hafod now":
                    # where no one else is named, nor spoken of, to do it, the one it comes
                    # from (a place preposition otherwise leads to a place).
                    kept = [f for f in names_in(x, skip, known) if _FROM_BEFORE.search(x[:f[0]])
                            and not stems(f[1]) & skip - TITLES
                            and not declines(x, f[0] + len(f[1]))
                            and not set(words(f[1])) <= gone
                            and not _THIRD_PERSON.search(x[:f[0]])]  # "He's taken over
                    # from Mark": someone else does it, in place of the one it is from
                if found and not kept:
                    continue
                if kept and all(set(words(f[1])) <= gone for f in kept):
                    # Only the one the revisions it supersedes named: who it changes from
                    # ("Joy's been moved … Marek's doing my mornings"), unless no other
                    # sentence names anyone.
                    changed_from = changed_from or nearest(x, kept)
                    continue
                if kept:
                    return nearest(x, kept)
            for x in ordered:
                # A sentence that opens with someone doing it ("Connor's covering my
                # Monday spin") or being what is asked ("Mei's my best friend now"): a
                # name no other record writes mid-sentence. Where a sentence names only
                # who it changes from, the other one named so is who it changes to.
                m = _DOER.match(x)
                if m is None:
                    m = _SUBJECT_IS.match(x)
                    m = m if m is not None and stems(m.group(2)) & skip else None
                doer = m.group(1).lower() if m else ""
                if doer and doer not in KIN and doer not in STOPWORDS \
                        and not doer.endswith(("one", "body", "thing")) \
                        and stem(doer) not in skip and not is_value_word(doer) \
                        and doer not in gone:
                    return m.group(1)
            if changed_from:
                return changed_from
            # "fire marshal on nights is me now", "I'm the first-aider", "I'll still do
            # Mrs Kaur's reviews": the speaker.
            if any(_SELF_NAMED.search(x) or _SELF_DOING.search(x) for x in ordered[:1]) \
                    and not is_robot(rec.speaker, rec.robot_id):
                return rec.speaker
            # "Leon, … You're doing the orders from next week.": the one spoken to.
            told = spoken_to(rec.text)
            if len(told) == 1 and any(_YOU_DOING.search(x) for x in ordered) \
                    and not is_robot(rec.speaker, rec.robot_id):
                name = next(iter(told))
                return next((w for w in re.findall(r"[A-Z][\w'-]*", rec.text)
                             if w.lower() == name), name)
            return ""
        return ""

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
    def _day(sentence: str, record_time: float, kind: str, question: str,
             lean: bool = False, replaced: frozenset[str] = frozenset()) -> str:
        """The day a sentence names; for "what day" as a date ("Tuesday 16 September
        2025", not "the Tuesday after 12 September 2025": the day asked for, not where it
        was said) or a recurring day as "every Tuesday"; for "when", with the clock time
        it states."""
        held = held_days(sentence, replaced)
        day = answer_date(asked_day(held, stems(question)),
                          record_time, "", question_grain(question), lean)
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
        value = _value_tokens(answer) - asked_stems
        if _YES_NO.fullmatch(answer.strip()):
            # "Am I vegetarian?" - "Yes" from "Vegetarian, noted.": what the echo says
            # of what is asked is the value.
            value = _value_tokens(rec.text) & asked_stems
        if not value:
            return [cited]
        before = sorted((i.record for i in pack.items
                         if i.record.session_id == rec.session_id
                         and i.record.subject_id == rec.subject_id
                         and rec.seq - self.reply_gap <= i.record.seq < rec.seq
                         and i.record.modality == "dialogue"  # a camera's frame says nothing
                         and not is_robot(i.record.speaker, i.record.robot_id)),
                        key=lambda r: -r.seq)
        told = {t for t in value & _value_tokens(rec.text) if t.isdigit()} if figures else set()
        for r in before:
            stated = _value_tokens(r.text)
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
        return [lead[0], cited] if lead else [cited]

    def _between(self, question: str, chosen: list[_Scored]) -> ReaderOutput | None:
        """"How long did it take …?" with no span of time stated: the time between the
        best record's event and the next near record's (a day or more apart), citing both."""
        first = chosen[0].item.record
        start = event_time(first.text, first.source_time) // 86400.0  # calendar days
        for s in chosen[1:]:
            rec = s.item.record
            end = event_time(rec.text, rec.source_time) // 86400.0
            if end != start:
                return ReaderOutput(time_between((end - start) * 86400.0, question),
                                    [first.source_id, rec.source_id], self.name,
                                    _BETWEEN_NOTE)
        return None

    def _answer(self, question: str, plan: Plan, chosen: list[_Scored],
                q_stems: set[str], pack_complete: bool = True,
                single: bool = False) -> ReaderOutput:
        parts: list[str] = []
        cited: list[str] = []
        used: list[_Scored] = []
        seen: set[frozenset[str]] = set()
        for s in chosen:
            rec = s.item.record
            text = _content(rec, s.sentence)
            span = ""
            if len(chosen) == 1 and plan.current and plan.tense != "past" \
                    and s.item.routes.get("graph") == 1 and not s.item.routes.get("superseded") \
                    and _CONSEQUENCE_SO.search(text) \
                    and _NEW_STATE.search(_CONSEQUENCE_SO.split(text)[-1]) \
                    and asked(question, plan).kind != "which":
                # The current record's "…, so we're on the chicken in jelly now": the
                # consequence that says the state is new tells it. ("Which X …?" is told
                # by the label the record gives X: ``read``.)
                span = extract(question, plan, _CONSEQUENCE_SO.split(text)[-1], rec.source_time,
                               q_stems, self.span_tokens, rec.text)
            span = span or extract(question, plan, text, rec.source_time, q_stems,
                                   self.span_tokens, rec.text)
            key = frozenset(stems(span)) or frozenset([span.lower()])
            if not span or key in seen:
                continue  # the de-duplicated set: one mention per distinct value
            seen.add(key)
            parts.append(span)
            cited.append(s.item.source_id)
            used.append(s)
            if single:
                break
        if not parts:
            return ReaderOutput("", [], self.name, "no span of the shown evidence answers it")
        if plan.operation == "count":
            if has_number(parts[0]):  # the evidence states the number itself
                return ReaderOutput(parts[0], cited[:1], self.name)
            note = f"counted {len(parts)} distinct mentions"
            if not pack_complete:
                note += "; some candidates did not fit the budget, the count may be low"
            return ReaderOutput(spelled(len(parts)), cited, self.name, note)
        if plan.operation == "history" and plan.answer_type != "date":
            parts = [f"{format_day(s.item.record.source_time)}: {p}"
                     if has_calendar(s.item.record.source_time) else p
                     for s, p in zip(used, parts, strict=True)]
        listing = _several(question, plan)
        sep = ", " if listing or plan.operation == "history" else "; "
        return ReaderOutput(sep.join(parts), cited, self.name)


class UnavailableReader(ExtractiveReader):
    """Stands in for a configured model reader that could not load: answers
    extractively, and every answer's note says why the configured one is not answering."""

    def __init__(self, wanted: str, reason: str) -> None:
        super().__init__()
        self.wanted = wanted
        self.reason = reason

    def read(self, question: str, plan: Plan, pack: Pack,
             resolution: Resolution | None = None) -> ReaderOutput:
        out = super().read(question, plan, pack, resolution)
        why = f"reader.kind {self.wanted} unavailable ({self.reason}); answered extractively"
        out.note = f"{why}; {out.note}" if out.note else why
        return out


def make_reader(config: ReaderConfig, lease_path: Path | None = None, *,
                strict: bool = False) -> Reader:
    """The reader named by ``config.kind``.

    ``qwen`` whose local weights cannot be loaded, or that the GPU does not admit,
    raises ``ModelUnavailableError`` when ``strict``; otherwise it becomes an
    ``UnavailableReader`` whose every answer says so. ``auto`` falls back to the
    extractive reader silently. ``lease_path`` is the GPU lease table shared by the nodes.
    """
    if config.kind == "extractive":
        return ExtractiveReader()
    try:
        from ..admission import Admission
        from .qwen_reader import QwenReader

        admission = (Admission(lease_path, config.gpu_reserve_mb << 20)
                     if lease_path is not None else None)
        return QwenReader(config, admission)
    except (ImportError, ModelUnavailableError) as exc:
        if config.kind == "qwen" and strict:
            if isinstance(exc, ModelUnavailableError):
                raise
            raise ModelUnavailableError(f"qwen reader unavailable: {exc}") from exc
        if config.kind == "qwen":
            return UnavailableReader("qwen", str(exc))
        return ExtractiveReader()
