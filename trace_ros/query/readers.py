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

Every reader returns a ``ReaderOutput``; the checks in ``answer.py`` decide
whether its citations stand.
"""

from __future__ import annotations

import calendar
import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..config import ReaderConfig
from ..errors import ModelUnavailableError
from ..ledger import SourceRecord
from .pack import EvidenceItem, Pack
from .plan import Plan
from .spans import (
    event_time,
    extract,
    fits,
    format_day,
    has_calendar,
    has_number,
    scored_run,
    spelled,
    states_duration,
    time_between,
)
from .text import SENTENCE, stem, stems, words

if TYPE_CHECKING:
    from ..state import Resolution

__all__ = ["ExtractiveReader", "Reader", "ReaderOutput", "UnavailableReader", "format_day",
           "make_reader"]


@dataclass
class ReaderOutput:
    answer: str
    cited_ids: list[str] = field(default_factory=list)
    reader: str = ""
    note: str = ""


class Reader(Protocol):
    name: str

    def read(self, question: str, plan: Plan, pack: Pack,
             resolution: Resolution | None = None) -> ReaderOutput: ...




@dataclass
class _Scored:
    item: EvidenceItem
    overlap: float  # weighted share of the question's words the record repeats
    relevance: float  # overlap plus the recall-order prior
    sentence: str


def _asks(s: _Scored) -> bool:
    """Whether a turn asks what the question asks (its matching sentence ends in '?')."""
    return s.sentence.rstrip().endswith("?")


def _content(rec: SourceRecord, sentence: str) -> str:
    """What a sentence says: a perception record's text after its "<who> <saw>:" lead-in."""
    sentence = sentence.strip()
    if rec.modality == "perception" and ": " in sentence[:80]:
        sentence = sentence.split(": ", 1)[1]
        sentence = re.sub(r"^(?:an?\s+)?(?:photo|photograph|photography|picture|image)\s+of\s+",
                          "", sentence, flags=re.I)
    return sentence


def _first_statement(text: str) -> str:
    """The first sentence of a reply that says something (not a short thanks or greeting)."""
    sentences = [x for x in SENTENCE.split(text) if x.strip()]
    for sentence in sentences:
        if len(words(sentence)) > 3 and not sentence.rstrip().endswith("?"):
            return sentence
    return sentences[0] if sentences else text


def _resolution_answer(plan: Plan, resolution: Resolution, shown: set[str]) -> ReaderOutput | None:
    """The resolver's value (current, or the newest superseded one for a question about
    the past), citing its shown sources; None when it cannot answer from what was shown."""
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
        value = format_day(facts[0].anchor_time)
    return ReaderOutput(value, list(dict.fromkeys(cited)), ExtractiveReader.name)


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


def _years_before(epoch: float, years: int) -> float:
    """The same calendar moment ``years`` earlier (29 February becomes the 28th)."""
    t = time.gmtime(epoch)
    day = min(t.tm_mday, calendar.monthrange(t.tm_year - years, t.tm_mon)[1])
    return float(calendar.timegm((t.tm_year - years, t.tm_mon, day, t.tm_hour, t.tm_min,
                                  t.tm_sec, 0, 0, 0)))


# "What are the names of her dogs?": a plural copula asks for every member.
_PLURAL_ASK = re.compile(r"^\s*(?:what|which|who)\s+(?:are|were)\b", re.I)


def _plural_ask(question: str, plan: Plan) -> bool:
    """A fact asked with a plural copula: a set of members, not one state's revision."""
    return plan.operation == "fact" and bool(_PLURAL_ASK.match(question))


def _several(question: str, plan: Plan) -> bool:
    """Whether the answer is a set of members rather than one value: the plan says so
    (a list, a count, several hops), or the question asks with a plural copula."""
    return plan.needs_complete_set or plan.shape == "multi_hop" or _plural_ask(question, plan)


# Answer types whose spans are not phrases of the record (dates, counts, yes/no).
_OWN_SPANS = ("date", "duration", "number", "yesno")
_SPAN_FLOOR = -5.0


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
                 reply_own: float = 0.5) -> None:
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
               item: EvidenceItem, names: set[str], kind: str = "") -> _Scored:
        rec = item.record
        total = sum(weights.values()) or 1.0
        best_sentence, best_hits = rec.text, -1.0
        for sentence in SENTENCE.split(rec.text) or [rec.text]:
            hits = sum(weights[s] for s in (q_stems - names) & stems(sentence))
            if hits > best_hits:
                best_sentence, best_hits = sentence, hits
        overlap = sum(weights[s] for s in q_stems & self._terms(item, names)) / total
        if overlap > 0 and self.sentence_weight:
            # What one sentence says counts more than words scattered over a long record.
            said = max(best_hits, 0.0) + sum(weights[s] for s in q_stems & stems(
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
        (events are told after they happen), gain ``window_bonus``; a month or season
        named without a year is the latest one the shown records reach."""
        if plan.as_of is not None:
            before = [s for s in scored if s.item.record.source_time < plan.as_of]
            scored = before or scored
        if plan.window is not None:
            start, end = plan.window

            def told(a: float, b: float) -> list[_Scored]:
                return [s for s in scored if a <= s.item.record.source_time < b + self.report_lag_s]

            inside = told(start, end)
            if not inside and _YEARLESS.search(plan.time_text) \
                    and not re.search(r"\b\d{4}\b", plan.time_text):
                # "in July" names no year: the latest July the shown evidence reaches.
                for back in range(1, _YEARS_BACK + 1):
                    inside = told(_years_before(start, back), _years_before(end, back))
                    if inside:
                        break
            for s in inside:
                s.overlap += self.window_bonus
                s.relevance += self.window_bonus
        return scored

    def read(self, question: str, plan: Plan, pack: Pack,
             resolution: Resolution | None = None) -> ReaderOutput:
        shown = set(pack.source_ids)
        if resolution is not None:
            out = _resolution_answer(plan, resolution, shown)
            if out is not None:
                return out
        q_stems = {stem(w) for w in words(question)} & stems(question)
        names = {stem(w) for i in pack.items for w in words(i.record.speaker)} & q_stems
        weights = self._weights(q_stems, pack.items, names)
        scored = [self._score(q_stems, weights, pos, item, names, plan.answer_type)
                  for pos, item in enumerate(pack.items)]
        self._replies(scored, q_stems, names)
        if plan.answer_type == "yesno":
            out = _choice(question, [s for s in scored if s.overlap > 0])
            if out is not None:
                return out
        scored = [s for s in scored if s.overlap > 0]
        scored = self._in_time(plan, scored)
        if not scored:
            return ReaderOutput("", [], self.name, "no shown evidence matches the question")
        best = max(s.relevance for s in scored)
        near = [s for s in scored if s.relevance >= self.near_best * best]
        if plan.wants_newest and not _plural_ask(question, plan):
            # Revisions of one state match the question about equally well in content;
            # recall order must not decide which is current, so compare overlap only.
            top = max(s.overlap for s in scored)
            revisions = [s for s in scored if s.overlap >= self.near_best * top]
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
            if plan.answer_type == "duration":
                # "How long …?": a near record that states a span of time answers it.
                chosen.sort(key=lambda s: not states_duration(s.item.record.text))
                if plan.needs_endpoints and chosen \
                        and not states_duration(chosen[0].item.record.text):
                    out = self._between(question, chosen)
                    if out is not None:
                        return out
            return self._answer(question, plan, chosen, q_stems, pack.complete, single=True)
        return self._answer(question, plan, chosen, q_stems, pack.complete)

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
                                    "the time between two events the evidence dates")
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
            span = extract(question, plan, _content(rec, s.sentence), rec.source_time, q_stems,
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
