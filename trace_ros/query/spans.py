"""Answer spans: the part of an evidence sentence that answers a question.

General English rules only: a date for "when" (the record's time plus the
relative anchor the sentence states, resolved with the record time as base; for
something that "has been going on for four months" the month it began), a
duration for "how long" (stated, or the time between two dated events), a
prepositional place phrase for "where", a capitalised name for "who", the clause
after "because" for "why", yes/no for auxiliary questions, and otherwise the noun
phrase of the word the question asks for ("what workshop" → "… counseling
workshop") or the best-scored phrase of the record (``scored_run``): the sentence
is cut into phrases at punctuation, clause words, subject pronouns and the
question's own words (the question's words are never the answer), and a phrase
scores for the new words it says, for following a word the sentence repeats from
the question (the object after the verb), for being near one, short, quoted or a
name; phrases of the record's other sentences compete at a cost.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from ..language.timeanchor import find_candidates, is_future, resolve_expression
from .plan import Plan
from .text import STOPWORDS, stem

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*[+#]*|[^\w\s]", re.UNICODE)
_BOUNDARY_WORDS = {"and", "but", "because", "so", "which", "who", "that", "when", "while", "if",
                   "since", "though", "although", "as", "or", "where", "whereas", "then"}
# Punctuation that joins the parts of one phrase ("open-world", "R&B", "C++", "kids'").
_JOINERS = "'’-+&/"
_NEGATION = re.compile(r"\b(not|never|no|n't|nothing|none|neither|nor)\b|n't\b", re.I)
_PLACE_PREP = {"in", "at", "to", "from", "near", "into", "around", "on"}
NUMBER_WORDS = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "twenty", "thirty", "hundred", "dozen", "several", "few",
                "couple", "once", "twice"}
_DURATION = re.compile(
    r"\b(?:(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few"
    r"|several|a couple of|many)\s+(?:years?|months?|weeks?|days?|hours?|decades?)(?:\s+ago)?"
    r"|since\s+(?:(?:19|20)\d{2}|(?:january|february|march|april|may|june|july|august|september"
    r"|october|november|december)(?:\s+(?:19|20)\d{2})?))", re.I)
_REASON = re.compile(r"(?:\bbecause(?: of)?|\bsince|\bso that|\bdue to|'cause|\bcause)\s+(.+)",
                     re.I)
# "<reason>, so <consequence>": the reason is the clause before "so".
_SO = re.compile(r"^(.+?),?\s+so\s+(?!that\b)", re.I)
# A name given to something: "his name is Kyle", "a dog called Max".
_NAMED = re.compile(r"\b(?:name(?:s|d)?(?:\s+(?:is|was|are|were))?|called|named)\s*:?\s+"
                    r"[\"“']?([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")
# Discourse words that open a reply but are never part of an answer.
_DISCOURSE = {"hey", "hi", "hello", "thanks", "thank", "yeah", "yes", "yep", "yup", "wow", "oh",
              "well", "actually", "really", "especially", "totally", "definitely", "sure", "ok",
              "okay", "btw", "anyway", "honestly", "basically", "awesome", "great", "cool",
              "nice", "haha", "lol", "aww", "omg", "finally", "recently", "always", "even",
              "sorry", "guess", "maybe", "probably", "absolutely", "wanna", "gonna"}
# Nouns that measure or hold a set rather than name its members.
_PARTITIVE = {"list", "lists", "set", "sets", "lot", "lots", "bunch", "bunches", "number",
              "numbers", "couple", "kind", "kinds", "type", "types", "sort", "sorts", "variety",
              "group", "groups", "pile", "piles", "stack", "stacks", "range", "selection",
              "assortment", "series", "array", "handful", "ton", "tons", "plenty", "bit", "bits",
              "piece", "pieces", "amount", "load", "loads", "few", "several", "many", "some",
              "all", "box", "boxes", "bag", "bags", "pair", "pairs", "item", "items",
              "thing", "things", "stuff"}
_PRONOUNS = {"i", "me", "my", "you", "your", "he", "she", "it", "we", "they", "him", "her", "his",
             "its", "our", "their", "them", "this", "that", "these", "those", "i'm", "it's",
             "i've", "we're", "that's", "there"}


@dataclass(frozen=True)
class Tok:
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.lower()

    @property
    def word(self) -> bool:
        return self.text[0].isalnum()


def tokens(text: str) -> list[Tok]:
    return [Tok(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]


_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_RECURRING = re.compile(rf"\b(?:every|each)\s+(?:other\s+)?{_DAYS}\b|\b{_DAYS}s\b", re.I)
_WEEKDAY_ABBR = re.compile(rf"\b(?:{_DAYS[3:-1]}|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b",
                           re.I)
# A record time before 1 January 1990 comes from a clock that was never set (ROS sim
# time and uptime counters start near zero): no calendar date is built on it.
CALENDAR_FROM = 631_152_000.0
_ABSOLUTE_CHECK_S = 3 * 366 * 86400.0


def has_calendar(epoch: float) -> bool:
    """Whether ``epoch`` is a wall-clock time a calendar date can be given for."""
    return epoch >= CALENDAR_FROM


def format_day(epoch: float) -> str:
    t = time.gmtime(epoch)
    return f"{t.tm_mday} {time.strftime('%B %Y', t)}"


def format_when(expr: str, when: float, record_time: float) -> str:
    """An absolute date for a resolved expression, as precise as the expression: a day
    ("yesterday" said on 8 May 2023 → "7 May 2023"), a month or a year; a week, a
    weekend or a weekday named relative to it is stated against the record's day ("the
    week before 8 May 2023", "the Friday before 8 May 2023"), as the speaker said it."""
    e = expr.lower()
    t = time.gmtime(when)
    if re.search(r"\b(last|past|previous) week\b", e):
        return f"the week before {format_day(record_time)}"
    m = re.search(r"\b(\w+) weeks? ago\b", e)
    if m:
        return f"{m.group(1)} weeks before {format_day(record_time)}"
    if re.search(r"\b(next|coming) week\b", e):
        return f"the week after {format_day(record_time)}"
    if re.search(r"\b(last|past|previous) weekend\b", e) or e == "weekend":
        return f"the weekend before {format_day(record_time)}"
    m = re.search(r"\b(\w+) weekends? ago\b", e)
    if m:
        return f"{m.group(1)} weekends before {format_day(record_time)}"
    if re.search(r"\bthis weekend\b", e):
        return f"the weekend of {format_day(record_time)}"
    if re.search(r"\b(next|coming) weekend\b", e):
        return f"the weekend after {format_day(record_time)}"
    m = re.search(r"\b((?:a )?few|several|(?:a )?couple(?: of)?) (days|months|years) ago\b", e)
    if m:  # a vague amount: no exact day can be given, so as the speaker said it
        return f"{m.group(1)} {m.group(2)} before {format_day(record_time)}"
    m = re.search(r"\b(spring|summer|autumn|fall|winter)\b", e)
    if m:  # a season is not one of its months
        return f"{m.group(1)} {t.tm_year}"
    if _WEEKDAY_ABBR.search(e):  # "last Fri": a day, named with its weekday
        if re.search(r"\b(last|past|previous|next|coming|this)\b", e) \
                and format_day(when) != format_day(record_time):
            side = "before" if when < record_time else "after"
            return f"the {time.strftime('%A', t)} {side} {format_day(record_time)}"
        return f"{time.strftime('%A', t)} {format_day(when)}"
    if re.search(r"\byears?\b", e) or re.fullmatch(r"(in |during |since )?(19|20)\d{2}", e):
        return str(t.tm_year)
    has_day = re.search(r"\d{1,2}(st|nd|rd|th)?\b(?!\d)", re.sub(r"(19|20)\d{2}", "", e)) or \
        re.search(r"day|yesterday|today|tomorrow|tonight|morning|evening|night|ago", e)
    if re.search(r"\bmonths?\b", e) or not has_day:
        return time.strftime("%B %Y", t)
    return format_day(when)


def answer_date(sentence: str, record_time: float, context: str = "", grain: str = "") -> str:
    """The date a sentence talks about: its resolved time expression, else one in the rest
    of its record (``context``), else the record's own day. Without a calendar record
    time (``has_calendar``) a relative expression is answered as said ("Wednesday"), and
    a record stating none gives no date (''). ``grain`` ("year", "month") is the unit the
    question asks in ("Which year …?"): a calendar date is then given in it."""
    calendar = has_calendar(record_time)
    for text in (sentence, context):
        recurring = _RECURRING.search(text)
        if recurring:  # "every Monday", "on Wednesdays": a schedule, not a date
            return recurring.group(0)
        future = None
        found = find_candidates(text)
        for k, m in enumerate(found):
            if k + 1 < len(found) and re.search(r"\bfrom\s+(the\s+)?$", text[: m.start()], re.I):
                continue  # "moved from Monday to Tuesday": the new time is the one that holds
            if future is None:
                future = is_future(text)
            expr = m.group(0).strip()
            when = resolve_expression(expr, record_time, future)
            if when is None:
                continue
            answer = format_when(expr, when, record_time)
            if calendar and grain:
                return _in_grain(when, grain)
            if not calendar:
                # Relative to a meaningless time ("Wednesday"): only the words hold; an
                # absolute one ("in May 2023") reads the same from any base.
                later = record_time + _ABSOLUTE_CHECK_S
                other = resolve_expression(expr, later, future)
                if other is None or format_when(expr, other, later) != answer:
                    return expr
            return answer
    if not calendar:
        return ""
    for text in (sentence, context):
        began = _began(text, record_time)
        if began is not None:
            return _in_grain(began[0], grain or began[1])
    return _in_grain(record_time, grain) if grain else format_day(record_time)


# "I've been playing for four months now": something going on for a span up to the
# record's day began that span before it.
_HELD_FOR = re.compile(
    r"\bbeen\b[^.!?]{0,60}?\bfor\s+(?:about\s+|around\s+|almost\s+|nearly\s+|over\s+"
    r"|just\s+(?:under|over)\s+|roughly\s+)?(\d+|an?|one|two|three|four|five|six|seven|eight"
    r"|nine|ten|eleven|twelve)\s+(years?|months?|weeks?)\b", re.I)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_SPAN_UNITS = (("year", 365.25), ("month", 30.44), ("week", 7.0), ("day", 1.0))
_UNIT_DAYS = dict(_SPAN_UNITS)


def _began(text: str, record_time: float) -> tuple[float, str] | None:
    """When what ``text`` says has been going on "for <n> <units>" began, with the unit
    it can be told in ("year" for years, else "month"); None when it says no such span."""
    m = _HELD_FOR.search(text)
    if not m:
        return None
    n = int(m.group(1)) if m.group(1).isdigit() else _COUNTS[m.group(1).lower()]
    unit = m.group(2).lower().rstrip("s")
    return record_time - n * _UNIT_DAYS[unit] * 86400.0, "year" if unit == "year" else "month"


def event_time(text: str, record_time: float) -> float:
    """The time ``text`` talks about: its first resolvable time expression (against the
    record's time), else the record's own time."""
    future = None
    for m in find_candidates(text):
        if future is None:
            future = is_future(text)
        when = resolve_expression(m.group(0).strip(), record_time, future)
        if when is not None:
            return when
    return record_time


_SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_ASKED_UNIT = re.compile(r"\bhow many (year|month|week|day)s?\b", re.I)


def spelled(n: int) -> str:
    """A count as prose writes it: words below ten, digits from ten on."""
    return _SMALL[n] if 0 <= n < len(_SMALL) else str(n)


def time_between(seconds: float, question: str) -> str:
    """A span of time as an answer: in the unit the question asks ("How many weeks …?"),
    else the largest unit it holds at least once ("three months")."""
    days = abs(seconds) / 86400.0
    m = _ASKED_UNIT.search(question)
    unit, length = next(((u, d) for u, d in _SPAN_UNITS if m and m.group(1).lower() == u),
                        next(((u, d) for u, d in _SPAN_UNITS if days >= d), _SPAN_UNITS[-1]))
    n = max(1, round(days / length))
    return f"{spelled(n)} {unit}{'' if n == 1 else 's'}"


_GRAIN = re.compile(r"\b(?:what|which)\s+(year|month)\b|\bin\s+(?:what|which)\s+(year|month)", re.I)


def question_grain(question: str) -> str:
    """The calendar unit a question asks a date in ("Which year …?" → "year"), else ''."""
    m = _GRAIN.search(question)
    return (m.group(1) or m.group(2)).lower() if m else ""


def _in_grain(when: float, grain: str) -> str:
    t = time.gmtime(when)
    return str(t.tm_year) if grain == "year" else time.strftime("%B %Y", t)


def _clean(sentence: str, toks: list[Tok]) -> str:
    """The sentence text covered by ``toks``, without leading/trailing function words."""
    while toks and (not toks[0].word or toks[0].low in STOPWORDS or toks[0].low in _PRONOUNS
                    or toks[0].low in _DISCOURSE
                    or (toks[0].text[:1].isupper() and len(toks) > 1 and toks[1].text == ",")):
        toks = toks[1:]
    while toks and (not toks[-1].word or toks[-1].low in STOPWORDS):
        toks = toks[:-1]
    if not toks:
        return ""
    return sentence[toks[0].start:toks[-1].end].strip()


def _run(toks: list[Tok], start: int, step: int, limit: int) -> list[Tok]:
    """Tokens from ``start`` in direction ``step`` up to a clause boundary, at most ``limit``
    content-bearing tokens."""
    out: list[Tok] = []
    i = start
    while 0 <= i < len(toks) and len(out) < limit:
        tok = toks[i]
        if not tok.word and tok.text not in _JOINERS:
            break
        if tok.low in _BOUNDARY_WORDS and out:
            break
        out.append(tok)
        i += step
    return out if step > 0 else out[::-1]


def _matches(toks: list[Tok], q_stems: set[str]) -> list[int]:
    return [i for i, t in enumerate(toks)
            if t.word and t.low not in STOPWORDS and stem(t.low) in q_stems]


def _focus_phrase(sentence: str, toks: list[Tok], focus: str, limit: int,
                  q_stems: set[str]) -> str:
    """The phrase naming the ``focus`` noun, when it says more than the question did."""
    phrase = _focus_span(sentence, toks, focus, limit)
    if phrase and _new_words(phrase, q_stems | {stem(focus)}):
        return phrase
    # "Zelda is an awesome open-world game": the subject of a copula ending in the focus.
    m = re.search(r"^(.{1,60}?)\s+(?:is|was|are|were|'s)\s+(?:(?:a|an|the|my|our|his|her|their)\s+)?"
                  r"(?:[\w'-]+\s+){0,3}" + re.escape(focus), sentence, re.I)
    if m:
        subject = _clean(m.group(1), tokens(m.group(1)))
        if subject and _new_words(subject, q_stems):
            return subject
    return ""


def _focus_span(sentence: str, toks: list[Tok], focus: str, limit: int) -> str:
    target = stem(focus)
    for i, t in enumerate(toks):
        if t.word and stem(t.low) == target:
            # An apposition names it: "my home country, Sweden".
            if i + 2 < len(toks) and toks[i + 1].text in ",:-–—" and toks[i + 2].text[:1].isupper():
                name = [x for x in _run(toks, i + 2, 1, 3) if x.text[:1].isupper()]
                if name:
                    return sentence[name[0].start:name[-1].end]
            before = _run(toks, i - 1, -1, 3)
            before = [b for b in before if b.word]
            while before and (before[0].low in STOPWORDS or before[0].low in _PRONOUNS):
                before = before[1:]
            if before:
                return sentence[before[0].start:t.end]
            after = _run(toks, i + 1, 1, limit)
            if after and after[0].low in {"of", "on", "about", "called", "named", "for", "with"}:
                return _clean(sentence, after[1:]) or t.text
            return ""
    return ""


def _place(sentence: str, toks: list[Tok], q_stems: set[str], limit: int) -> str:
    best = ""
    for i, t in enumerate(toks):
        if t.low not in _PLACE_PREP:
            continue
        run = _run(toks, i + 1, 1, limit)
        phrase = _clean(sentence, run)
        if not phrase or all(stem(w.lower()) in q_stems for w in phrase.split()):
            continue
        if find_candidates(phrase) and not any(c.isupper() for c in phrase[1:]):
            continue  # "in May" / "at 5" is a time, not a place
        if any(w[:1].isupper() for w in phrase.split()):
            return phrase
        best = best or phrase
    return best


def _person(sentence: str, toks: list[Tok], q_stems: set[str]) -> str:
    names: list[str] = []
    for i, t in enumerate(toks):
        if (t.word and t.text[:1].isupper() and i > 0 and t.low not in _PRONOUNS
                and stem(t.low) not in q_stems and t.low not in STOPWORDS):
            names.append(t.text)
    return " ".join(dict.fromkeys(names))


# Words that carry a number on into a rate ("twice a week", "three times a month").
_RATE = {"times", "time", "a", "an", "per", "every", "each", "day", "days", "week", "weeks",
         "month", "months", "year", "years", "hour", "hours", "night", "nights", "morning",
         "evening", "weekend", "weekends"}


def _number(sentence: str, toks: list[Tok]) -> str:
    for i, t in enumerate(toks):
        if t.word and (t.text.isdigit() or t.low in NUMBER_WORDS):
            rate = []
            for nxt in toks[i + 1:i + 4]:
                if not nxt.word or nxt.low not in _RATE:
                    break
                rate.append(nxt)
            if rate and rate[-1].low not in ("a", "an", "per", "every", "each"):
                return sentence[t.start:rate[-1].end]
            nxt_text = toks[i + 1].text if i + 1 < len(toks) and toks[i + 1].word else ""
            return f"{t.text} {nxt_text}".strip()
    return ""


def states_duration(text: str) -> bool:
    """Whether ``text`` states a span of time ("for seven years", "since 2016")."""
    return bool(_DURATION.search(text))


def has_number(text: str) -> bool:
    """Whether ``text`` states a number (digits or a number word)."""
    return any(ch.isdigit() for ch in text) or any(w in NUMBER_WORDS for w in text.lower().split())


def fits(kind: str, text: str) -> bool:
    """Whether ``text`` holds the kind of thing the answer is (a time for a date, a
    number for a count, a name for a person or place)."""
    if kind in ("date", "duration"):
        return bool(find_candidates(text) or _DURATION.search(text) or _RECURRING.search(text))
    if kind == "number":
        return has_number(text)
    if kind in ("person", "place"):
        toks = tokens(text)
        return any(t.text[:1].isupper() and i > 0 and toks[i - 1].text not in ".!?"
                   and t.low not in _PRONOUNS for i, t in enumerate(toks))
    if kind == "reason":
        return bool(_REASON.search(text) or _SO.search(text))
    return False


def yes_no(question: str, sentence: str) -> str:
    answer = "No" if _NEGATION.search(sentence) else "Yes"
    if re.match(r"^\s*(would|could|might|may)\b", question, re.I):
        return f"Likely {answer.lower()}"
    return answer


def extract(question: str, plan: Plan, sentence: str, record_time: float, q_stems: set[str],
            limit: int = 6, context: str = "") -> str:
    """The answering span of ``sentence`` for ``question`` (empty when none is found);
    ``context`` is the whole record, where dates and durations are also looked for."""
    kind = plan.answer_type
    if kind == "date":
        return answer_date(sentence, record_time, context, question_grain(question))
    said_times: list[str] = []
    if kind != "duration":
        # A time expression is not part of a non-temporal answer ("I bought yesterday")
        # unless it is all the sentence says beyond the question ("… is on Monday").
        for m in reversed(find_candidates(sentence)):
            said_times.insert(0, m.group(0).strip())
            sentence = sentence[: m.start()] + "," + sentence[m.end():]
    toks = tokens(sentence)
    if kind == "duration":
        m = _DURATION.search(sentence) or _DURATION.search(context)
        return m.group(0) if m else answer_date(sentence, record_time, context)
    if kind == "yesno":
        return yes_no(question, sentence)
    if kind == "number":
        n = _number(sentence, toks)
        if n:
            return n
    if kind == "reason":
        m = _REASON.search(sentence)
        if m:
            return _clean(m.group(1), tokens(m.group(1))[: limit * 2])
        m = _SO.search(sentence)
        if m:
            return _clean(m.group(1), tokens(m.group(1))[-limit * 2:])
    if kind == "place":
        p = _place(sentence, toks, q_stems, limit)
        if p:
            return p
    if kind == "person":
        p = _person(sentence, toks, q_stems)
        if p:
            return p
    if re.search(r"\bnamed?\b|\bcalled\b", question, re.I):
        m = _NAMED.search(sentence)
        if m and _new_words(m.group(1), q_stems):
            return m.group(1)
    if plan.focus:
        p = _focus_phrase(sentence, toks, plan.focus, limit, q_stems)
        if p:
            return p
    # The phrase of the record that says what the question did not, next to what it did.
    run = scored_run(sentence, q_stems, limit, context,
                     _CLAUSE_WEIGHTS if kind in ("manner", "reason") else None)[0]
    if run:
        return run
    # Never the question's own words back; a time said is more than nothing.
    return next((t for t in said_times if _new_words(t, q_stems)), "")


def _new_words(phrase: str, q_stems: set[str]) -> int:
    """Words of ``phrase`` that tell what the question did not: not its own words, not
    function words, pronouns or discourse words, and not a noun that only measures or
    holds the thing asked about ("a list of items" says nothing about the items)."""
    count = 0
    for w in phrase.split():
        low = w.lower().strip(".,!?'\"")
        if low and low not in STOPWORDS and low not in _PRONOUNS and low not in _DISCOURSE \
                and low not in _PARTITIVE and stem(low) not in q_stems:
            count += 1
    return count


# Words that open a new clause inside a sentence: its subject ("… a Ford Mustang I found").
_SUBJECTS = {"i", "you", "he", "she", "we", "they", "it", "i'm", "i've", "i'd", "i'll", "we're",
             "we've", "they're", "it's", "you're", "he's", "she's", "that's", "there's", "there",
             "what's", "let's"}
_QUOTES = "\"“”'‘’"
_SENTENCES = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class RunWeights:
    """How the candidate phrases of a record are compared (see ``scored_run``).

    Chosen on one half of a dialogue benchmark's conversations and confirmed on the other.
    """

    after: float = 2.0  # the phrase right after a repeated question word (its object)
    new: float = 0.5  # per word the question did not say, up to ``new_cap`` of them
    new_cap: int = 3
    long: float = 0.1  # per word beyond the span limit
    distance: float = 0.05  # per token between the phrase and the nearest question word
    far: float = 5.0  # the distance counted in a sentence without any question word
    other: float = 2.0  # a phrase of another sentence than the best-matching one
    quoted: float = 2.0  # a phrase in quotes (a title, a name given to something)
    name: float = 0.5  # a phrase holding a capitalised name


# "How …?" and "Why …?" are answered with a clause, not a name: more new words count.
_CLAUSE_WEIGHTS = RunWeights(new_cap=5)


def _phrases(toks: list[Tok], q_stems: set[str]) -> list[tuple[int, int]]:
    """[start, end) token ranges of the phrases of a sentence: cut at punctuation, clause
    words, subject pronouns and the question's own words (never part of an answer)."""
    out: list[tuple[int, int]] = []
    start = 0
    for i, t in enumerate([*toks, Tok(".", 0, 0)]):
        cut = (not t.word and t.text not in _JOINERS) or \
            (t.low in _BOUNDARY_WORDS and t.low not in ("and", "or")) or t.low in _SUBJECTS or \
            (t.word and t.low not in STOPWORDS and stem(t.low) in q_stems)
        if cut:
            if i > start:
                out.append((start, i))
            start = i + 1
    return out


def _has_name(toks: list[Tok], a: int, b: int, q_stems: set[str]) -> bool:
    """Whether tokens [a, b) hold a capitalised word that is not the sentence's first word,
    a pronoun or one of the question's words."""
    return any(t.text[:1].isupper() and t.low not in _SUBJECTS and i > 0
               and toks[i - 1].text not in ".!?" and stem(t.low) not in q_stems
               for i, t in enumerate(toks[a:b], start=a))


def scored_run(sentence: str, q_stems: set[str], limit: int = 6, context: str = "",
               weights: RunWeights | None = None) -> tuple[str, float]:
    """The phrase of ``sentence`` most likely to answer a question with stems ``q_stems``,
    with its score: it says something the question did not, is short, and follows a word
    the sentence repeats from the question (the object after the verb), or is near one.
    The other sentences of ``context`` (the whole record) compete at a cost. ('', -inf)
    when no phrase says anything new."""
    w = weights or RunWeights()
    best, best_score = "", float("-inf")
    others = [x for x in _SENTENCES.split(context) if x.strip() and x.strip() != sentence.strip()]
    for k, text in enumerate([sentence, *others]):
        toks = tokens(text)
        hits = _matches(toks, q_stems)
        for a, b in _phrases(toks, q_stems):
            phrase = _clean(text, toks[a:b])
            new = _new_words(phrase, q_stems)
            if not new:
                continue
            score = w.new * min(new, w.new_cap) - w.long * max(0, len(phrase.split()) - limit)
            if 0 < a and b < len(toks) and toks[a - 1].text in _QUOTES and toks[b].text in _QUOTES:
                score += w.quoted
            if _has_name(toks, a, b, q_stems):
                score += w.name
            if k:
                score -= w.other
            if hits:
                score -= w.distance * min(min(abs(h - a), abs(h - (b - 1))) for h in hits)
                if any(0 < a - h <= 2 for h in hits):
                    score += w.after
            else:
                score -= w.distance * w.far
            if score > best_score:
                best, best_score = phrase, score
    return best, best_score
