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
what tells one X from another (a name, "the blue cupboard"), or, where no shown record
names X that way, the object of the verb the question asks with, said of the same one
("Sigrid plays saxophone now" for "What instrument does Sigrid play?"; ``complement``),
never a fragment beside X;
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
``amounts`` (numbers and amounts), ``newstate`` (values marked new, consequences),
``focus`` (whether an answer fills the slot asked), ``declines`` (the last refusals: an
answer of the kind asked in form but not in what it says, as a never-stated question
gets) and ``typed`` (``TypedReading``: the methods that read a value of the kind asked,
which ``ExtractiveReader`` inherits). A name question is answered with a name, not a
count, a day or a place ("Five" for "What are my hens called?"); a number said as another
thing's label ("Ours is Flat 9") tells no floor or code; a count of mentions counts the
mentions that name what is counted, where other shown records name it.
"""

from __future__ import annotations

import dataclasses
import math
import re
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..config import ReaderConfig
from ..errors import ModelUnavailableError
from ..language.lazyre import lazy_re
from ..language.monthday import DAY_OF_MONTH, MONTH_NAMES
from ..language.revision import (
    about_another,
    adds,
    brought_about,
    continues,
    denies_change,
    hands_over,
    holders,
    marks_change,
    other_kind,
    other_titled,
    state_values,
)
from ..language.text import (
    STOPWORDS,
    built,
    stem,
    stems,
    words,
)
from ..language.text import sentences as split_sentences
from ..language.timeanchor import (
    find_candidates,
    years_before,
)
from ..language.vocab import is_robot
from .ages import AGE, BETWEEN_NOTE, BORN, HOW_OLD, age_answer
from .amounts import (
    FIGURE_UNIT,
    WITH_UNIT,
    _joined,
)
from .current import asks_members, before_clause, may_ask_held, without_before
from .days import (
    drops_told_day,
    upcoming_weekday,
)
from .declines import counts_another, declined
from .endpoints import other_end
from .focus import (
    ASKING,
    NOT_COMPOUNDS,
    THE_TIME,
    TYPED,
    _complement,
    _repeats,
    focus_filled,
    labels_another,
    not_of_kind,
    object_filler,
    only_time,
    slot_filler,
    told_later,
)
from .headed import asks_now, headed_value, named_value
from .names import (
    _placed,
    asks_name,
    no_name_given,
    owner_of,
    proper_names,
    role_filler,
    says_who_speaks,
    thing_named,
    tied_before,
)
from .newstate import (
    CONSEQUENCE_SO,
    ENDED,
    FORMER,
    MARKED_NOTE,
    dense_new_state,
    dense_place,
    only_former,
)
from .owners import (
    _asked_speakers,
    holder_clash,
    look_alike,
    other_kind_named,
    other_name_on,
    other_owner,
    possessed,
    speakers_mine,
    speakers_own,
    told_of_another,
)
from .pack import EvidenceItem, Pack
from .plan import Plan, without_named_time
from .readout import ReaderOutput, Scored, _asks, _content, first_statement, reply_to
from .spans import (
    HOW_LONG_IS,
    MONEY_STEMS,
    NEW_STATE,
    Asked,
    asked,
    capitalised_mid_sentence,
    clock_time,
    counted_noun,
    event_time,
    extract,
    fits,
    format_day,
    has_calendar,
    has_number,
    ident,
    idents,
    labelled,
    names_in,
    place_phrase,
    repaired,
    said_not,
    scored_run,
    spelled,
    states_duration,
    states_length,
    time_between,
    weekly_slots,
)
from .typed import TypedReading

if TYPE_CHECKING:
    from ..ledger import SourceRecord
    from ..state import Resolution

__all__ = ["ExtractiveReader", "Reader", "ReaderOutput", "UnavailableReader", "format_day",
           "make_reader"]


class Reader(Protocol):
    name: str

    def read(self, question: str, plan: Plan, pack: Pack,
             resolution: Resolution | None = None) -> ReaderOutput: ...


def _dated(value: str, anchor: float) -> str:
    """The day of the resolver's ``anchor``, with the weekday (and part of the day) its
    ``value`` says, where that is the anchor's weekday: "Monday afternoon, 17 November
    2025" for "monday afternoon", as the typed reader says a day (``TypedReading._day``)."""
    weekday = time.strftime("%A", time.gmtime(anchor))
    said = built(rf"\b{weekday}s?\b(?:\s+(morning|afternoon|evening|night)\b)?", re.I).search(value)
    if said is None:
        return format_day(anchor)
    part = f" {said.group(1).lower()}," if said.group(1) else ""
    return f"{weekday}{part} {format_day(anchor)}"


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
    if plan.answer_type == "place":
        value = _placed_whole(value, [i.record.text for i in pack.items if i.source_id in cited])
    if plan.answer_type == "date" and facts and not facts[0].anchor_fallback \
            and has_calendar(facts[0].anchor_time) and not re.search(r"\d", value):
        said = [i.record.text for i in pack.items if i.source_id in cited]
        if any(drops_told_day(text) for text in said):
            # "your chiropody is on Tuesday, not today": the fact's anchor may be the day
            # its source turns down; the day the source holds to is read from it instead.
            return None
        told = {int(m.group(1)) for text in said for m in DAY_OF_MONTH.finditer(text)}
        if told and time.gmtime(facts[0].anchor_time).tm_mday not in told:
            # "moved the stocktake to the Sunday after, the 19th": the source names the
            # day of the month, and the fact's anchor for the weekday is another day; the
            # reader reads the day from the source.
            return None
        value = next((slot for text in said for slot in weekly_slots(text)
                      if stems(slot) & stems(value)), _dated(value, facts[0].anchor_time))
    return ReaderOutput(value, list(dict.fromkeys(cited)), ExtractiveReader.name)

def _placed_whole(value: str, said: list[str]) -> str:
    """The resolver's place as its source says it whole: "shelf" is "shelf in the laundry
    room", "shop" the "shop on Bridge Street" (the place phrase of the sentence holding
    it that says more); else ``value``."""
    own = stems(value)
    for text in said:
        for sentence in split_sentences(text) or [text]:
            if not own <= stems(sentence):
                continue
            phrase = place_phrase(sentence, set())
            if own < stems(phrase):
                return phrase
    return value


# "… a national park or a theme park?": the two options a choice question offers.
_WORDS = r"((?:[\w'’.-]+\s+){0,6}?[\w'’.-]+)"
_CHOICE = lazy_re(rf"\b{_WORDS}\s+or\s+{_WORDS}\s*\?\s*$", re.I)


def _value_terms(text: str) -> set[str]:
    """The stems of ``text``'s content words with its figures ("desk 5": desk, 5)."""
    return set(stems(text)) | {w for w in words(text) if w.isdigit()}


def _said_in(value: str, said: set[str]) -> bool:
    """Whether the stem ``value`` is one of ``said`` or the head of a compound among them
    ("pot" of "flowerpot")."""
    return value in said or len(value) > 2 and any(s.endswith(value) for s in said)


def _figure_handed_over(answer: str, gone: str, said: str, old: set[str]) -> str:
    """``answer`` with the one figure it shares with ``gone`` (the part of a record that
    leaves a value) replaced by the one new figure the rest of the record, ``said``,
    gives in its place ("door 31" from "forget 31, … they'll put us at 9": "door 9");
    '' unless there is exactly one of each."""
    kept = [v for v in state_values(answer) & state_values(gone) if v.isdigit()]
    came = [v for v in state_values(said) if v.isdigit() and v not in old]
    if len(kept) != 1 or len(came) != 1:
        return ""
    swapped, n = re.subn(rf"(?<![\w.]){kept[0]}(?![\w.])", came[0], answer)
    return swapped if n == 1 else ""


def _options(question: str) -> list[str]:
    """The options of a choice question ("Does she live near a beach or the mountains?" →
    "beach", "mountains"): the words after "or", and as many before it."""
    m = _CHOICE.search(question)
    if not m:
        return []
    after = m.group(2).split()
    before = m.group(1).split()[-len(after):]
    return [" ".join(before), " ".join(after)]


def _choice(question: str, scored: list[Scored]) -> ReaderOutput | None:
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
_YEARLESS = lazy_re(rf"\b(?:{MONTH_NAMES}|spring|summer|autumn|fall|winter)\b", re.I)
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

# "How long is/will/does …?": the length of a state or a plan, which only a record that
# states a span answers (not "How long has she been …?", counted from a start).
_HOW_LONG_NOW = lazy_re(r"\s*how long (?:is|are|am|will|does|do|would|should)\b", re.I)
# The verb a question asks with, after its auxiliary and the one it is asked of ("How do I
# take my tea?", "What music does Mum like?", "What does my mother like to drink?").
_AUX_VERB = lazy_re(
    r"\b(?i:do|does|did|don't|doesn't|didn't|can|can't|could|will|would|should)\s+"
    r"(?:(?i:my|our|your|his|her|their|the|a|an)\s+[\w'’-]+|(?i:i|you|we|they|he|she|it)"
    r"|(?:[A-Z][\w'’.-]*\s*)+?)\s+([a-z]+)(?:\s+to\s+([a-z]+))?")


def _asked_verbs(question: str) -> frozenset[str]:
    """The stems of the verbs a question asks with (``_AUX_VERB``): a record sharing only
    them ("Take care of yourself" for "How do I take my tea?") says nothing of the thing."""
    return frozenset(stem(w) for m in _AUX_VERB.finditer(question) for w in m.groups() if w)


class ExtractiveReader(TypedReading):
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
               whose: frozenset[str] | set[str] = frozenset()) -> Scored:
        rec = item.record
        total = math.fsum(weights.values()) or 1.0
        best_sentence, best_hits = rec.text, -1.0
        # Split as ``sentences`` splits: "Monday cover is Dr. Osei now" is one sentence,
        # not one ending on "Dr." with the name in the next.
        parts = split_sentences(rec.text) or [rec.text]
        # The graph stage's current record: the sentence that says its state is new
        # (``NEW_STATE``) tells the new state ("I quit coffee. … it's one matcha a day
        # now"), as much as one more word of the question would.
        lift = max((weights[s] for s in q_stems - names), default=0.0) \
            if item.routes.get("graph") == 1 and not item.routes.get("superseded") \
            and len(parts) > 1 else 0.0
        chosen: tuple[float, float] = (-1.0, -1.0)
        for sentence in parts:
            said = (q_stems - names) & stems(sentence)
            hits = math.fsum(weights[s] for s in said)
            marked = lift > 0 and bool(NEW_STATE.search(sentence))
            # A sentence saying what stopped ("I don't take the blue pills any more")
            # tells the state that ended, as much as one word less of the question.
            ended = lift > 0 and not marked and bool(ENDED.search(sentence))
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
        return Scored(item, overlap, overlap + self.prior_weight / (1 + pos), best_sentence)

    def _span_score(self, s: Scored, q_stems: set[str]) -> float:
        """How well the record's best phrase answers (``scored_run``), floored."""
        rec = s.item.record
        score = scored_run(_content(rec, s.sentence), q_stems, self.span_tokens,
                           _content(rec, rec.text))[1]
        return max(score, _SPAN_FLOOR)

    def _replies(self, scored: list[Scored], q_stems: set[str], names: set[str]) -> None:
        """Move the match of a turn that asks the question onto the turn that answers it."""
        by_session: dict[tuple[str, str], list[Scored]] = {}
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
                    reply.sentence = first_statement(reply.item.record.text)

    def _in_time(self, plan: Plan, scored: list[Scored]) -> list[Scored]:
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

            def told(a: float, b: float) -> list[Scored]:
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
        if not out.answer and asks_now(plan, question):
            # "What's my boat called?": where no span was taken, the name a record says
            # the thing asked is ("The boat's called Kingfisher").
            out = named_value(asked(question, plan), question, pack, self.name) or out
        out = self._moved_on(question, plan, pack, out) or out
        if out.answer and out.cited_ids:
            # Whichever way the answer was found (an age, a yes or no, several records),
            # a robot's echo is cited after the person's own statement it repeats.
            own = self._own_statement(out.cited_ids[0], out.answer, question, pack,
                                      figures=True)
            out.cited_ids = list(dict.fromkeys(own + out.cited_ids))
        return out

    def _moved_on(self, question: str, plan: Plan, pack: Pack,
                  out: ReaderOutput) -> ReaderOutput | None:
        """The graph stage's current record read again without what it moves away from.
        A change is often told with the state it leaves ("Mrs Patel's hip is playing up.
        Owen at number seven will do the cat instead."): where the answer read from it is
        a value only the records it supersedes state, asked of the state now, the record's
        other sentences (else clauses) say the new one. None where nothing else is read."""
        if not out.answer or not out.cited_ids or not plan.current or plan.tense == "past" \
                or plan.as_of is not None or plan.answer_type == "yesno" \
                or plan.operation in ("count", "list", "history") or before_clause(question):
            return None
        first = next((i for i in pack.items if i.source_id == out.cited_ids[0]), None)
        if first is None or first.routes.get("graph") != 1 or first.routes.get("superseded"):
            return None
        left = [i.record.text for i in pack.items if i.routes.get("superseded")]
        old = set().union(*(_value_terms(t) for t in left))
        asked_stems = _value_terms(question)
        value = _value_terms(out.answer) - asked_stems - STOPWORDS
        if not value or not all(_said_in(v, old) for v in value):
            return None  # a new value, or one the superseded records never stated
        text = first.record.text
        parts = split_sentences(text)
        if len(parts) < 2:
            parts = [p for p in re.split(r"(?<=[,;])\s+", text) if p]
        rest = [p for p in parts if not _value_terms(p) & value]
        gone = [p for p in parts if p not in rest]
        if not rest or not gone or adds(text) \
                or any(continues(p) or marks_change(p) for p in gone):
            return None  # the value said again ("still 305", "black too") or said as new
        said = " ".join(rest)
        if not ((marks_change(said) or brought_about(said)) and not denies_change(said)
                or not continues(text) and hands_over(" ".join(left), text)):
            return None  # nothing in the rest of the record tells a new state
        item = dataclasses.replace(first, record=dataclasses.replace(first.record,
                                                                     text=said))
        # (what the superseded records say is what the record leaves, not an answer now)
        again = dataclasses.replace(pack, items=[item if i is first else i for i in pack.items
                                                 if not i.routes.get("superseded")])
        new = self._checked(question, plan, again, None)
        if not new.answer or not new.cited_ids or new.cited_ids[0] != first.source_id:
            new = ReaderOutput(_figure_handed_over(out.answer, " ".join(gone), said, old),
                               [first.source_id], self.name)
        if not new.answer or not new.cited_ids or new.cited_ids[0] != first.source_id \
                or all(_said_in(v, old) for v in _value_terms(new.answer) - asked_stems - STOPWORDS):
            return None
        return new

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
            if resolved is not None and not_of_kind(asked(question, plan).kind,
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
        if HOW_OLD.match(question) and out.answer and out.note != BETWEEN_NOTE \
                and find_candidates(out.answer):
            # A date answers "how old" as the day someone was born; where the record it
            # is read from states the age itself ("Yaw is 35, I forgot he was born in
            # ninety"), the age answers.
            aged = age_answer(question, pack, self.name, plan.tense == "past")
            if aged is not None and aged.cited_ids[:1] == out.cited_ids[:1]:
                return aged
        if HOW_OLD.match(question) and not (
                out.answer and any(AGE.search(t) for t in cited_texts)
                and out.note != BETWEEN_NOTE and (not find_candidates(out.answer)
                     or any(BORN.search(t) for t in cited_texts))):
            # "How old is Mrs Ferreira?": an age, or when she was born; not the day a
            # record about her was said. A record may say it bare ("he's twenty-eight").
            aged = age_answer(question, pack, self.name, plan.tense == "past")
            if aged is not None:
                return aged
            if out.answer:
                return ReaderOutput("", [], self.name, "no shown record states an age")
        ask = asked(question, plan)
        if out.answer and ask.kind == "day" and not_of_kind(ask.kind, out.answer):
            # A month tells no day (as for the resolver's value above): "February 2026"
            # for "What day is next month's fire drill?". (The other kinds' spans are
            # read as values of their kind: "forty-two" is a number.)
            return ReaderOutput("", [], self.name, "no shown record states the day asked for")
        if out.answer and ask.kind == "clock" and other_end(
                question, [i.record.text for i in pack.items if i.source_id in out.cited_ids]):
            # "What time does the café open?": "The café shuts at four" is the other end.
            return ReaderOutput("", [], self.name, "no shown record states the end asked for")
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
                                              and told_later(first, pack, question)):
                    label = _complement(out.answer, first.record.text, question)
            if not label:
                return ReaderOutput("", [], self.name,
                                    "the shown evidence only repeats the question")
            out.answer = label
        if out.answer and ask.kind == "name" and ask.focus \
                and owner_of(out.answer, ask.focus, pack):
            # "What's the vet's name?": "Mochi's vet check" names whose vet, not the vet.
            return ReaderOutput("", [], self.name, f"no shown record says what the {ask.focus} "
                                "is called")
        if out.answer and asks_name(ask) and no_name_given(ask, out, pack):
            # "What are my hens called?": "Five" counts them, "Leeds" is where she lives.
            return ReaderOutput("", [], self.name, "no shown record says what it is called")
        if out.answer and len(out.cited_ids) == 1 and labels_another(ask, out, pack):
            # "What floor is the new flat on?": "Ours is Flat 9" tells which flat.
            return ReaderOutput("", [], self.name, f"no shown record says what the {ask.focus} "
                                "is")
        why = declined(ask, question, plan, out)
        if why:
            return ReaderOutput("", [], self.name, why)
        if out.answer and ask.kind == "person" and says_who_speaks(out, pack, question):
            # "Hi, it's Liz from Freshway. …": who is speaking, not who does what is asked.
            return ReaderOutput("", [], self.name, "no shown record says who it is")
        if out.answer and ask.kind == "person" and (thing_named(out, pack)
                                                     or _placed(out, pack)):
            # "Who is chairing the board meeting?": "the Oak room" names a room, not anyone.
            return ReaderOutput("", [], self.name, "no shown record says who it is")
        if out.answer and plan.answer_type in ("thing", "manner") and not ask.kind \
                and only_time(out.answer):
            # "What did Tom get me for our anniversary?" is no time: "july 12" is not it;
            # nor is "Friday" how "my daughter's driving test" went.
            return ReaderOutput("", [], self.name, "no shown record says what it is")
        if out.answer and plan.tense != "past":
            out.answer = upcoming_weekday(out.answer, out.cited_ids, pack)
        if out.answer and len(out.cited_ids) > 1 and ask.kind in ("which", "what") \
                and ask.focus and not re.search(r"[^s]s$", ask.focus) \
                and not focus_filled(ask, question, out, pack):
            # "Which model of hearing aids …?" asks one: several records' spans
            # strung together tell it only where the check of the one X passes (or the
            # first one says it as the object of the verb asked with).
            filled = object_filler(question, out, pack)
            if filled is None:
                return ReaderOutput("", [], self.name,
                                    f"no shown record says which {ask.focus} it is")
            out = filled
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
            # (a record that keeps the label, "everything stays in rack A", says it again
            # as the one that holds, whatever an earlier record gave)
            label = labelled(ask.focus, cited, question, old) \
                or (labelled(ask.focus, cited, question) if continues(cited) else "") \
                or self._relabel(ask, question, out, pack)
            if ask.kind == "what" and not re.search(r"\d", label):
                label = ""  # "What room …?": a number labels it; "What novel …?" is read
            if label and label.lower() not in out.answer.lower() \
                    and not _label_within(label, ask.focus, out.answer):
                out.answer = label
        if ask.kind in ("what", "which") and ask.focus and out.note != MARKED_NOTE \
                and not focus_filled(ask, question, out,
                                                                             pack):
            # A time tells a train or a flight from the others ("Hannah's sticking with
            # the seven fifty-five"), where the cited record gives one with "the".
            cited = next((i.record.text for i in pack.items if i.source_id in out.cited_ids), "")
            timed = THE_TIME.search(cited) if ask.kind == "which" else None
            after = re.match(r"\s+([a-z][\w-]*)", cited[timed.end():]) if timed else None
            if after and after.group(1).lower() not in STOPWORDS \
                    and stem(after.group(1).lower()) != stem(ask.focus):
                timed = None  # "the 6:30 wake-up call": a time telling another thing apart
            # Else the value a record says in X's place, where none says X at all.
            filled = slot_filler(ask, question, out, pack) if timed is None else None
            if filled is None and timed is None:
                filled = role_filler(ask, question, out, pack, plan.asker)
            if filled is None and timed is None:
                filled = self._labelled_elsewhere(ask, question, plan, pack)
            if filled is None and timed is None:
                filled = object_filler(question, out, pack)
            if filled is None and timed is None and _in_revised_place(ask, question, out, pack):
                filled = out
            if filled is None and timed is None:
                filled = headed_value(ask, question, out, pack, asks_now(plan, question))
            if filled is not None:
                out = filled
            elif timed is None:
                return ReaderOutput("", [], self.name,
                                    f"no shown record says which {ask.focus} it is")
            else:
                out.answer = timed.group(0)
        if ask.kind in ("what", "which") and ask.focus and plan.answer_type == "thing" \
                and only_time(out.answer) and not clock_time(out.answer):
            # The X a "what/which X" asks for is no time (``spans.asked`` gives times their
            # own kinds): a day left after the labels above is not it ("Saturday the 15th"
            # for "What grade is Lena's exam?"; "berth 14", relabelled, stands). A clock
            # time may tell one X from others ("the 7:15" train, ``focus_filled``).
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
        asked_stems = stems(question) - {stem(ask.focus)} - ASKING
        owners = possessed(question)
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
            if other_owner(owners, text, plan.asker) or other_name_on(question, text) \
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
            built(rf"(?<!\w)(?<!\d\.){re.escape(n)}(?!\w|\.\d)", re.I).search(t) for t in earlier)}
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
        tied = tied_before(question)
        new = {name for at, name in names_in(rec.text, q, known)
               if not {stem(w) for w in words(name)} & (earlier | own)
               and not (tied and tied.search(rec.text[:at]))}
        if len(new) != 1:
            return ""
        name = new.pop()
        # "moved into Studio C", "sitting in row D": a letter said as the asked noun's
        # label is said with it ("Studio C" for "Which studio …?"), as a number is.
        labelled = re.search(rf"\b{re.escape(ask.focus)}\s+{re.escape(name)}(?!\w)",
                             rec.text, re.I) if ask.focus and len(name) <= 2 else None
        return labelled.group(0) if labelled else name

    def _read(self, question: str, plan: Plan, pack: Pack,
              resolution: Resolution | None = None) -> ReaderOutput:
        if resolution is not None:
            out = _resolution_answer(plan, resolution, pack)
            if out is not None:
                return out
        # The past time asked of chooses records by when they were said, not by words.
        content = without_named_time(question, plan)
        q_stems = {stem(w) for w in words(content)} & stems(content)
        # A phrasal verb a shown record says as one noun ("pick the twins up": "pickup").
        q_stems |= {j for j in _joined(question) if any(j in stems(i.record.text)
                                                         for i in pack.items)}
        names = {stem(w) for i in pack.items for w in words(i.record.speaker)} & q_stems
        weights = self._weights(q_stems, pack.items, names)
        whose = proper_names(question)
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
        # (not one that names another of the kind asked: "After-school club runs till
        # 5:45" for "What time does breakfast club start?", ``owners.other_kind_named``)
        lead = [s for s in scored if s.item.routes.get("graph") == 1
                and not s.item.routes.get("superseded")
                and not other_kind_named(question, s.item.record.text)]
        matched = [s for s in scored if s.overlap > 0]
        if plan.current and plan.tense != "past":
            # "My old site" is what it was: a record that names the thing asked only so
            # does not say what it is now, where another record speaks of it.
            asked_former = {stem(m.group(1).lower()) for m in FORMER.finditer(question)}
            former = [s for s in matched
                      if only_former(s.item.record.text, q_stems - asked_former)]
            if len(former) < len(matched):
                matched = [s for s in matched if s not in former]
                scored = [s for s in scored if s not in former]
        ask = asked(question, plan)
        if ask.kind in TYPED and plan.operation not in ("list", "history") \
                and not _plural_ask(question, plan):
            # A value of the asked kind must be stated: the graph stage's current record
            # when it states one, else the best record that does.
            # Every shown record is looked at: one that shares no word with the question
            # may carry on the turn before it ("It's the 19th instead" after "The boiler
            # people rang"); ``_typed`` asks what it is about. The graph stage's current
            # record answers though nothing shown says a word of the question, as it does
            # for the other kinds ("I've ended up at my cousin's on Histon Road" for "Where
            # am I living now?"): it was found by the thread of the thing, not by its words.
            if not matched and not lead:
                # "Where do I live now?": the asker's own newest statement of a place among
                # those nearest in meaning (``newstate.dense_place``), told of no one else.
                placed = dense_place(question, plan, ask, plan.asker, [
                    s for s in scored if not told_of_another(question, plan.asker,
                                                             s.item.record)])
                if placed is not None:
                    return ReaderOutput(placed[1], [placed[0].item.source_id], self.name)
                return ReaderOutput("", [], self.name, "no shown evidence matches the question")
            every = self._in_time(plan, [*lead[:1], *[s for s in scored if s not in lead]])
            # Another person's value of the thing ("Sara got locker 74" for "What's my
            # locker number?") is no answer where another record may give one.
            every = [s for s in every if s in lead[:1] or not told_of_another(
                question, plan.asker, s.item.record)] or every
            out = self._typed(question, plan, ask, every, pack, q_stems, names, weights)
            if not out.answer and ask.kind == "money" and not q_stems & MONEY_STEMS:
                return self._amount(question, plan, every, pack, q_stems, names,
                                    weights) or out
            return out
        shown = scored
        if lead and (plan.wants_newest or may_ask_held(question, plan)) \
                and not _plural_ask(question, plan):
            scored = lead[:1]
        else:
            scored = matched
            if lead and plan.tense != "past" and not before_clause(question):
                # A record the graph stage marked superseded said what no longer holds, as
                # does the robot's echo of it ("Six weeks' box rest.").
                scored = [s for s in scored if not s.item.routes.get("superseded")
                          and not self._echoes_superseded(s.item.record, pack.items)] or scored
            # "Jamal's fellowship closes on the 28th" for "Sana's fellowship": the same
            # thing of another owner, or under another name, is a look-alike, as for a
            # value of an asked kind (``_typed``).
            owners = possessed(question)
            asked_speakers = _asked_speakers(question, pack.items)
            shown_names = _known(pack)
            scored = [s for s in scored if not look_alike(owners, question,
                                                            s.item.record.text, plan.asker)
                      and not speakers_own(s.item.record, asked_speakers)
                      and not speakers_mine(question, plan.asker, s.item.record)
                      and not holder_clash(question, plan.asker, s.item.record, s.sentence,
                                           shown_names)
                      and not told_of_another(question, plan.asker, s.item.record)] or scored
        if not matched and not lead:
            marked = dense_new_state(question, plan, ask, self._in_time(plan, shown))
            if marked is not None:
                return ReaderOutput(marked[1], [marked[0].item.source_id], self.name,
                                    MARKED_NOTE)
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
                shown_names = _known(pack)
                live = [s for s in live if not holder_clash(question, plan.asker,
                                                             s.item.record, s.sentence,
                                                             shown_names)
                        and not told_of_another(question, plan.asker, s.item.record)
                        and not about_another(s.item.record.text, named)
                        and not other_titled(s.item.record.text, question)
                        and not (plan.tense != "past"
                                 and other_kind(s.item.record.text, question))] or live
            # A record sharing only the verb asked with is no revision of the thing, where
            # others say the question's other words.
            verbs = _asked_verbs(question)
            if verbs:
                own = {id(s): (q_stems - names) & self._terms(s.item, names) for s in live}
                thing = [s for s in live if own[id(s)] - verbs]
                if thing:
                    live = [s for s in live if not own[id(s)] or s in thing]
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
                # "How long …?": a near record that states a span of time answers it
                # (or one of space, asked of a thing: "How long is the loop?").
                def says(text: str) -> bool:
                    return states_duration(text) or bool(
                        HOW_LONG_IS.match(question) and states_length(text))

                chosen.sort(key=lambda s: not says(s.item.record.text))
                if chosen and not says(chosen[0].item.record.text) \
                        and _HOW_LONG_NOW.match(question):
                    # "How long is my commute?": a span someone states, not a date.
                    return ReaderOutput("", [], self.name, "no shown record says how long it is")
                if plan.needs_endpoints and chosen and not says(chosen[0].item.record.text):
                    out = self._between(question, chosen)
                    if out is not None:
                        return out
            return self._answer(question, plan, chosen, q_stems, pack.complete, single=True,
                                shown=pack.items)
        if len(chosen) == 1 and chosen[0] in lead and plan.answer_type not in _OWN_SPANS \
                and plan.current and plan.tense != "past" and plan.as_of is None:
            heard = self._acknowledged(question, plan, chosen[0], pack, q_stems)
            if heard is not None:
                return heard
        return self._answer(question, plan, chosen, q_stems, pack.complete, shown=pack.items)

    def _amount(self, question: str, plan: Plan, every: list[Scored], pack: Pack,
                q_stems: set[str], names: set[str], weights: dict[str, float]
                ) -> ReaderOutput | None:
        """For "how much …?" read as a sum that names none ("How much is my night-time
        statin?") where no shown record states a sum: the amount a record gives with its
        unit ("twenty milligrams"). Not a span of time ("six years"), nor a word of the
        question taken for a unit ("1200 saved"); asked of now, not an amount a later
        record about the thing may have changed (``_changed_later``)."""
        amount = self._typed(question, plan, Asked("quantity"), every, pack, q_stems, names,
                             weights)
        unit = WITH_UNIT.search(amount.answer)
        said = next((i for i in pack.items if i.source_id in amount.cited_ids[:1]), None)
        if unit is None or said is None or states_duration(amount.answer) \
                or stems(amount.answer[unit.end() - 1:]) & q_stems:
            return None
        if plan.current and plan.tense != "past" and _changed_later(said, pack, question):
            return None
        return amount

    def _echoes_superseded(self, rec: SourceRecord, items: Sequence[EvidenceItem]) -> bool:
        """Whether ``rec`` is the robot's reply to a record the graph stage marked
        superseded: the latest shown record before it in its session, within
        ``reply_gap``."""
        if not is_robot(rec.speaker, rec.robot_id):
            return False
        prev = max((i for i in items if i.record.session_id == rec.session_id
                    and rec.seq - self.reply_gap <= i.record.seq < rec.seq),
                   key=lambda i: i.record.seq, default=None)
        return prev is not None and bool(prev.routes.get("superseded"))

    def _acknowledged(self, question: str, plan: Plan, s: Scored, pack: Pack,
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
        reply = reply_to(rec, pack.items)
        if reply is None:
            return None
        own = stems(rec.text)
        span = extract(question, plan, _content(reply, reply.text), reply.source_time, q_stems,
                       self.span_tokens, reply.text)
        value = stems(span) - q_stems - STOPWORDS
        if not value or not value <= own:
            return None
        return ReaderOutput(span, [rec.source_id], self.name)


    def _between(self, question: str, chosen: list[Scored]) -> ReaderOutput | None:
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
                                    BETWEEN_NOTE)
        return None

    def _answer(self, question: str, plan: Plan, chosen: list[Scored],
                q_stems: set[str], pack_complete: bool = True,
                single: bool = False, shown: Sequence[EvidenceItem] = ()) -> ReaderOutput:
        parts: list[str] = []
        cited: list[str] = []
        used: list[Scored] = []
        ask = asked(question, plan)
        seen: set[frozenset[str]] = set()
        span_stems = _asked_of_state(question, plan, q_stems)
        for s in chosen:
            rec = s.item.record
            text = _content(rec, s.sentence)
            span = ""
            if len(chosen) == 1 and plan.current and plan.tense != "past" \
                    and s.item.routes.get("graph") == 1 and not s.item.routes.get("superseded") \
                    and CONSEQUENCE_SO.search(text) \
                    and NEW_STATE.search(CONSEQUENCE_SO.split(text)[-1]) \
                    and asked(question, plan).kind != "which":
                # The current record's "…, so we're on the chicken in jelly now": the
                # consequence that says the state is new tells it. ("Which X …?" is told
                # by the label the record gives X: ``read``.)
                span = extract(question, plan, CONSEQUENCE_SO.split(text)[-1], rec.source_time,
                               q_stems, self.span_tokens, rec.text)
            if not span and plan.operation == "history" and ask.kind in TYPED:
                # "Which days did I go to the gym before …?": each revision's value of the
                # kind asked ("Mondays and Thursdays"), not a phrase beside it.
                span = self._value(ask, question, plan, s, set(q_stems), set(),
                                   bool(ask.focus) and stem(ask.focus) in stems(rec.text))
            span = span or extract(question, plan, text, rec.source_time, span_stems,
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
                return ReaderOutput(self._count_stated(question, plan, used[0], q_stems)
                                    or parts[0], cited[:1], self.name)
            if counts_another(question, [u.item.record.text for u in used],
                              [i.record.text for i in shown]):
                return ReaderOutput("", [], self.name, "no shown record says how many")
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

    def _count_stated(self, question: str, plan: Plan, s: Scored, q_stems: set[str]) -> str:
        """The number the record ``s`` states of what a "how many" question counts, read
        as a count asked now is (``TypedReading._value``: the figure said with the
        counted noun, or as what a change comes to, or nearest the question's words; not
        a change, nor one turned down), not the record's first figure ("2 tables short,
        but 46 people came" for "How many people came?"). '' where the question names
        no counted noun or is read by kind already (``asked``), or none is stated."""
        counted = counted_noun(question)
        if not counted or asked(question, plan).kind:
            return ""
        value = self._value(Asked("count", counted), question, plan, s, set(q_stems), set(),
                            stem(counted) in stems(s.item.record.text))
        # ("a few times" states no figure: not "a")
        return value if has_number(value.replace("-", " ")) else ""


def _label_within(label: str, focus: str, answer: str) -> bool:
    """Whether the answer read says ``label``'s value as the start of a name ("22 Orchard
    Road" for "What's my address?", where the label read is "address 22"): the label's
    words but the noun asked open a capitalised name in the answer. The label would give
    the question's own word back in place of the rest of the name."""
    said = [w for w in label.split() if stem(w.lower()) != stem(focus.lower())]
    if not said:
        return False
    return re.search(rf"(?<![\w-]){re.escape(' '.join(said))}\s+[A-Z][a-z]", answer) is not None


def _asked_of_state(question: str, plan: Plan, q_stems: set[str]) -> set[str]:
    """``q_stems`` less the words only the event a question dates a past state by says
    ("What did Biscuit eat before she went off salmon?": salmon): they find the record
    that held before it, but the value that held may be one of them ("the salmon
    pouches"), so they are not cut from the answer as the question's own words are. A
    "before" of a habit asked now ("How does Ann cope before an exam?") is part of the
    thing asked: its words stay."""
    clause = before_clause(question)
    if not clause or plan.as_of is None and plan.tense != "past":
        return q_stems
    return q_stems - (stems(clause) - stems(without_before(question)))


def _changed_later(item: EvidenceItem, pack: Pack, question: str) -> bool:
    """Whether a shown record said after ``item`` about what ``question`` asks (sharing a
    word of it, not another holder's) may have changed it: it does not say the state
    holds on ("Night one stays as it was" keeps the night dose; "he's on the light turkey
    formula now" leaves the amount of the old food unsaid)."""
    asked = stems(question) - STOPWORDS
    return any(i.record.seq > item.record.seq and not i.routes.get("other")
               and stems(i.record.text) & asked and not continues(i.record.text)
               for i in pack.items)


def _in_revised_place(ask: Asked, question: str, out: ReaderOutput, pack: Pack) -> bool:
    """Whether the answer read from the graph stage's current record stands in the place
    of the value a record it supersedes gave X: a figure in the same unit ("35p now" after
    "pays mileage at 45p a mile"), or a new word where the earlier record put one before X
    that the current record names as the one it leaves ("My knees hated spin. … gone over
    to Friday morning yoga" after "signed up for the Wednesday spin class").
    The superseded record says what kind of value X takes; the current one says it anew."""
    first = next((i for i in pack.items if i.source_id in out.cited_ids[:1]), None)
    if first is None or first.routes.get("graph") != 1 or first.routes.get("superseded") \
            or len(out.answer.split()) > 3:
        return False
    left = [repaired(i.record.text) for i in pack.items
            if i.routes.get("superseded") and not i.routes.get("other")]
    if not left:
        return False
    q = stems(question)
    value = stems(out.answer) - STOPWORDS
    measured = FIGURE_UNIT.fullmatch(out.answer.strip())
    if measured:
        unit = measured.group(2).lower()
        return any(m.group(2).lower() == unit and m.group(1) != measured.group(1)
                   for t in left for m in FIGURE_UNIT.finditer(t))
    if not value or value & q or re.search(r"\d", out.answer):
        return False
    # The current record names the earlier value it leaves ("My knees hated spin").
    now = stems(first.record.text)
    before = built(rf"\b([a-z][\w-]*)\s+{re.escape(ask.focus)}\b", re.I)
    return any(m.group(1).lower() not in STOPWORDS and m.group(1).lower() not in NOT_COMPOUNDS
               and stem(m.group(1).lower()) not in q and stem(m.group(1).lower()) in now
               and not value & stems(t) for t in left for m in before.finditer(t))


def _known(pack: Pack) -> frozenset[str]:
    """The names the shown conversation uses: words it capitalises mid-sentence, and its
    speakers' names (lower-cased)."""
    return _shown_names(tuple(i.record.text for i in pack.items),
                        tuple(i.record.speaker for i in pack.items))


@lru_cache(maxsize=64)
def _shown_names(texts: tuple[str, ...], speakers: tuple[str, ...]) -> frozenset[str]:
    # Kept for the pack's next check: the holder checks ask once per candidate sentence.
    return frozenset(capitalised_mid_sentence(list(texts))) \
        | frozenset(w for s in speakers for w in words(s.lower()))


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
