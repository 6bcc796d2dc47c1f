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

``asked`` reads the kind of value a question asks for more closely than the plan's
answer type, and the value readers below (``clock_time``, ``money``, ``frequency``,
``ident``, ``quantities``, ``names_in``, ``place_phrase``, ``held_days``) take a value
of that kind from a sentence, or nothing (see ``readers.ExtractiveReader``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import takewhile

from ..language.lazyre import lazy_re
from ..language.monthday import (
    BARE_DAY,
    DAY_NUMBER,
    MONTH_NAMES,
    MONTHS,
    SUFFIX,
    WEEKDAY_NAMES,
    WEEKDAYS,
)
from ..language.revision import spoken_to, state_values
from ..language.text import STOPWORDS, may_hold, stem, stems
from ..language.timeanchor import (
    HOUR_WORDS,
    find_candidates,
    forward_at,
    is_future,
    is_holiday,
    ordinal_figures,
    resolve_expression,
)
from ..language.vocab import AUXILIARIES, TENS, UNITS
from .plan import Plan

# A number with a decimal point ("desk 2.09", "4.9 kilos") is one token, not "2" "." "09".
# ("2,340", "12,500": a figure written with thousands separators is one token; so is a
# clock time written with a colon, "the 8:10", which names a sailing or a train)
_TOKEN = lazy_re(r"\d{1,3}(?:,\d{3})+(?![\d,]*\d)|\d+(?:\.\d+)+(?![^\W_])"
                 r"|(?<![\d:])\d{1,2}:\d{2}(?![\d:])"
                 r"|[^\W_]+(?:['’][^\W_]+)*[+#]*|[^\w\s]", re.UNICODE)
_BOUNDARY_WORDS = {"and", "but", "because", "so", "which", "who", "that", "when", "while", "if",
                   "since", "though", "although", "as", "or", "where", "whereas", "then"}
# Punctuation that joins the parts of one phrase ("open-world", "R&B", "C++", "kids'").
_JOINERS = "'’-+&/"
_NEGATION = lazy_re(r"\b(not|never|no|n't|nothing|none|neither|nor)\b|n't\b", re.I)
_PLACE_PREP = {"in", "at", "to", "from", "near", "into", "around", "on"}
NUMBER_WORDS = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty",
                "seventy", "eighty", "ninety", "hundred", "thousand", "dozen", "several",
                "few", "couple", "once", "twice"}
# (a count in words as written whole: "twenty-one days", "fourteen days", not "one days";
# minutes too, and the unit joined as a modifier: "a twenty-minute interval")
_DURATION = lazy_re(
    rf"(?<![\w-])(?:(?:\d+|a|an|(?:(?:{'|'.join(TENS)})[- ])?(?:{'|'.join(list(UNITS)[1:])})"
    rf"|{'|'.join(TENS)}|a few"
    r"|several|a couple of|many)(?:\s+|-)(?:years?|months?|weeks?|days?|hours?|minutes?|mins?"
    r"|decades?)\b(?:\s+ago)?"
    rf"|since\s+(?:(?:19|20)\d{{2}}|(?:{MONTH_NAMES})(?:\s+(?:19|20)\d{{2}})?))", re.I)
_REASON = lazy_re(r"(?:\bbecause(?: of)?|\bsince|\bso that|\bdue to|'cause|\bcause)\s+(.+)",
                  re.I)
# "<reason>, so <consequence>": the reason is the clause before "so".
_SO = lazy_re(r"^(.+?),?\s+so\s+(?!that\b)", re.I)
# A name given to something: "his name is Kyle", "a dog called Max".
_NAMED = lazy_re(r"\b(?:name(?:s|d)?(?:\s+(?:is|was|are|were))?|called|named)\s*:?\s+"
                 r"[\"“']?([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")
# Discourse words that open a reply but are never part of an answer.
_DISCOURSE = {"hey", "hi", "hello", "thanks", "thank", "yeah", "yes", "yep", "yup", "wow", "oh",
              "well", "actually", "really", "especially", "totally", "definitely", "sure", "ok",
              "okay", "btw", "anyway", "honestly", "basically", "awesome", "great", "cool",
              "nice", "haha", "lol", "aww", "omg", "finally", "recently", "always", "even",
              "sorry", "please", "usual", "guess", "maybe", "probably", "absolutely", "wanna", "gonna"}
# Nouns that measure or hold a set rather than name its members.
_PARTITIVE = {"list", "lists", "set", "sets", "lot", "lots", "bunch", "bunches", "number",
              "numbers", "couple", "kind", "kinds", "type", "types", "sort", "sorts", "variety",
              "group", "groups", "pile", "piles", "stack", "stacks", "range", "selection",
              "assortment", "series", "array", "handful", "ton", "tons", "plenty", "bit", "bits",
              "piece", "pieces", "amount", "load", "loads", "few", "several", "many", "some",
              "all", "box", "boxes", "bag", "bags", "pair", "pairs", "item", "items",
              "thing", "things", "stuff"}
_PRONOUNS = {"i", "me", "my", "you", "your", "he", "she", "it", "we", "they", "him", "her", "his",
             "its", "our", "their", "them", "us", "this", "that", "these", "those", "i'm", "it's",
             "i've", "we're", "that's", "there"}


class Tok:
    """A token of a text and where it is: ``low`` (lower-cased) and ``word`` (it starts
    with a letter or digit) are read many times per token, so they are set once
    (``tokens`` keeps a text's tokens). A plain slotted class, not a frozen dataclass:
    every record a question shows is tokenised, and a frozen dataclass's ``__init__``
    (five ``object.__setattr__`` calls) made tokenising twice as slow. Equal when
    text and offsets are; not to be changed once made."""

    __slots__ = ("text", "start", "end", "low", "word")

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text = text
        self.start = start
        self.end = end
        self.low = text.lower()
        self.word = text[0].isalnum()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tok):
            return NotImplemented
        return (self.text, self.start, self.end) == (other.text, other.start, other.end)

    def __hash__(self) -> int:
        return hash((self.text, self.start, self.end))

    def __repr__(self) -> str:
        return f"Tok(text={self.text!r}, start={self.start!r}, end={self.end!r})"


def tokens(text: str) -> list[Tok]:
    return list(_tokens(text))


@lru_cache(maxsize=65536)
def _tokens(text: str) -> tuple[Tok, ...]:
    """``tokens``, kept per text (a ``Tok`` is immutable): the same records are read for
    every question that shows them."""
    return tuple(Tok(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text))


_DAYS = rf"(?:{WEEKDAY_NAMES})"
# ("first Tuesdays": a monthly day, with its place in the month)
_RECURRING = lazy_re(rf"\b(?:every|each)\s+(?:other\s+)?{_DAYS}\b"
                     rf"|\b(?:(?:first|second|third|fourth)\s+)?{_DAYS}s\b"
                     rf"|\b{_DAYS}\s+(?:mornings|afternoons|evenings|nights)\b"
                     # "the last Friday of each month": a monthly day, not last Friday
                     rf"|\bthe\s+(?:first|second|third|fourth|last)\s+{_DAYS}\s+of\s+"
                     rf"(?:the|each|every)\s+month\b", re.I)

# "the second Wednesday", "the first week of August": a day or week by its place in a
# month, said as such ("last" only with the month: "last Friday" is the one just gone).
_MONTH_NAMES_RX = rf"(?:{MONTH_NAMES})"
_NTH_IN_MONTH = lazy_re(
    rf"\b(?:the\s+)?(?:(?:first|second|third|fourth)\s+(?:{_DAYS}|week(?:end)?)"
    rf"(?:\s+(?:of|in)\s+(?:the\s+month|{_MONTH_NAMES_RX}))?"
    rf"|last\s+(?:{_DAYS}|week(?:end)?)\s+(?:of|in)\s+{_MONTH_NAMES_RX})\b", re.I)


_DAY_WORD = rf"{_DAYS}s?"
_DAYS_LISTED = lazy_re(
    rf"\b{_DAY_WORD}(?:\s*(?:-|–|to|till|until|through|thru)\s*{_DAY_WORD}"
    rf"|(?:\s*,\s*{_DAY_WORD})*,?\s+(?:and|&)\s+{_DAY_WORD}|(?:\s*,\s*{_DAY_WORD})+)\b", re.I)


def days_listed(text: str) -> str:
    """The days a text lists or spans as it says them ("Thursday to Sunday", "Monday,
    Tuesday, Wednesday", "Mondays and Wednesdays"), '' when it names no more than one."""
    m = _DAYS_LISTED.search(text)
    return m.group(0) if m else ""


def weekly_slots(text: str) -> list[str]:
    """The weekly slots a text names ("Thursday mornings", "every Tuesday", "Fridays")."""
    return [m.group(0) for m in _RECURRING.finditer(text)]


_WEEKDAY_ABBR = lazy_re(rf"\b(?:{WEEKDAY_NAMES}|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b",
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


_PART_SAID = lazy_re(r"day\s+(morning|afternoon|evening|night)\b")


def format_when(expr: str, when: float, record_time: float) -> str:
    """An absolute date for a resolved expression, as precise as the expression: a day
    ("yesterday" said on 8 May 2023 → "7 May 2023"), a month or a year; a week, a
    weekend or a weekday named relative to it is stated against the record's day ("the
    week before 8 May 2023", "the Friday before 8 May 2023"), as the speaker said it."""
    e = ordinal_figures(expr.lower())  # "the nineteenth" names a day as "the 19th" does
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
        part = _PART_SAID.search(e)
        if part:  # "Wednesday afternoon": the part of the day said stays with the day
            return f"{time.strftime('%A', t)} {part.group(1)}, {format_day(when)}"
        return f"{time.strftime('%A', t)} {format_day(when)}"
    if re.search(r"\byears?\b", e) or re.fullmatch(r"(in |during |since )?(19|20)\d{2}", e):
        return str(t.tm_year)
    has_day = re.search(rf"{DAY_NUMBER}\b(?!\d)", re.sub(r"(19|20)\d{2}", "", e)) or \
        re.search(r"day|yesterday|today|tomorrow|tonight|morning|evening|night|ago", e) \
        or is_holiday(e)
    if re.search(r"\bmonths?\b", e) or not has_day:
        return time.strftime("%B %Y", t)
    return format_day(when)


# A week named relative to when it was said ("this week", "next week"): a weekday said
# after it in the same text is when, more closely.
_WEEK_ONLY = lazy_re(r"(?:this|next|coming|last|past|previous)\s+week", re.I)


def answer_date(sentence: str, record_time: float, context: str = "", grain: str = "",
                lean: bool = False, months: str = "") -> str:
    """The date a sentence talks about: its resolved time expression, else one in the rest
    of its record (``context``), else the record's own day. Without a calendar record
    time (``has_calendar``) a relative expression is answered as said ("Wednesday"), and
    a record stating none gives no date (''). ``grain`` ("year", "month") is the unit the
    question asks in ("Which year …?"): a calendar date is then given in it. ``lean``:
    a bare day in a text that marks no tense ("… changed it again. Friday.") is ahead.
    ``months``: the rest of the record, whose one month said alone a day of the month said
    alone is of, where the text itself names none ("… put off till January. The 12th.")."""
    calendar = has_calendar(record_time)
    for text in (sentence, context):
        recurring = _RECURRING.search(text) or _NTH_IN_MONTH.search(text)
        if recurring:  # "every Monday", "on Wednesdays": a schedule, not a date; "the
            # second week of August": as said, a day of the week resolved is not it
            return recurring.group(0)
        future = None
        week = ""
        found = find_candidates(text)
        anchored = anchored_weekday(text, months or context or text, record_time, found) \
            if calendar else None
        if anchored is not None:  # "on the 17th. Manual handling slides to the following
            # Wednesday": the day said by the date before it, the thing's own
            return _in_grain(anchored, grain) if grain else \
                f"{time.strftime('%A', time.gmtime(anchored))} {format_day(anchored)}"
        for k, m in enumerate(found):
            if k + 1 < len(found) and re.search(r"\bfrom\s+(the\s+)?$", text[: m.start()], re.I):
                continue  # "moved from Monday to Tuesday": the new time is the one that holds
            if _WEEK_ONLY.fullmatch(m.group(0).strip()) \
                    and any(_WEEKDAY_ABBR.search(n.group(0)) for n in found[k + 1:]):
                week = m.group(0).strip()
                continue  # "on the Milan run this week, home Friday night": the day says when
            if re.fullmatch(rf"(?:in\s+)?{_MONTH_NAMES_RX}", m.group(0).strip(), re.I) \
                    and any(BARE_DAY.fullmatch(n.group(0).strip()) for n in found[k + 1:]):
                continue  # "in January, on the 12th": the day said next is of that month
            dated = _weekday_dated(m.group(0), found[k + 1:], text, record_time) \
                if calendar else None
            if dated is not None:  # "to the Sunday after, the 19th": the day of the month
                # says which Sunday, whatever tense the sentence is in
                return _in_grain(dated, grain) if grain else \
                    f"{time.strftime('%A', time.gmtime(dated))} {format_day(dated)}"
            if future is None:
                future = forward_at(text, found[0].start(), lean)
            expr = _in_month_named(m.group(0).strip(), text)
            if months and expr == m.group(0).strip() and not _MONTH_ALONE.search(text):
                expr = _in_month_named(expr, months)
            when = _in_week(expr, week, record_time) if calendar and week else None
            when = when if when is not None else resolve_expression(expr, record_time, future)
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


def _weekday_dated(said: str, later: Sequence[re.Match[str]], text: str,
                   record_time: float) -> float | None:
    """The date of a weekday said alone (``said``: "the Sunday") that a day of the month
    said alone after it falls on ("the Sunday after, the 19th": Sunday 19 October, ahead
    or behind the record, whichever falls on a Sunday); None when none does (or both)."""
    day = re.sub(r"^(?:on|the)\s+", "", said.strip().lower())
    if day not in WEEKDAYS:
        return None
    for n in later:
        if not BARE_DAY.fullmatch(n.group(0).strip()):
            continue
        expr = _in_month_named(n.group(0).strip(), text)
        fits = {w for w in (resolve_expression(expr, record_time, f) for f in (True, False))
                if w is not None and time.gmtime(w).tm_wday == WEEKDAYS.index(day)}
        if len(fits) == 1:
            return fits.pop()
    return None


# A weekday said by its place beside another day told before it: "the following
# Wednesday", "the Friday before (that)", "the Saturday after", "that Friday" (the week
# of the day told); not "the Saturday after next" (two weeks on, said from now).
_RELATIVE_BEFORE = lazy_re(r"\b(?:(following)|(that)|the)\s+$", re.I)
_RELATIVE_AFTER = lazy_re(r"\s+(after|before)\b(?!\s+next\b)", re.I)
# A day told that another may be placed by: a weekday or a day of the month.
_ANCHOR_DAY = lazy_re(rf"\b{_DAYS}\b|\d", re.I)


def anchored_weekday(text: str, whole: str, record_time: float,
                     found: Sequence[re.Match[str]] | None = None) -> float | None:
    """The date of a weekday ``text`` places by another day told before it in the record
    (``whole``): the first after it ("the following Wednesday", "the Saturday after"),
    before it ("the Friday before that") or in its week ("on the 5th, so we'll shut that
    Friday"); None when ``text`` says none so or no day is told before it."""
    for m in find_candidates(text) if found is None else found:
        day = re.sub(r"^(?:on|the)\s+", "", m.group(0).strip().lower())
        if day not in WEEKDAYS:
            continue
        lead = _RELATIVE_BEFORE.search(text[:m.start()])
        if lead is None or re.search(r"\b(?:not|n['’]t)\s+$", text[:lead.start()], re.I):
            continue  # (not a day turned down: "not the Sunday after")
        trail = _RELATIVE_AFTER.match(text, m.end())
        way = "after" if lead.group(1) else "that" if lead.group(2) else \
            trail.group(1).lower() if trail else ""
        if not way or lead.group(2) and trail:
            continue
        where = whole
        at = re.search(re.escape(text[lead.start():m.end()]), where)
        if at is None:
            where, at = text, lead
        told = [n for n in find_candidates(where[:at.start()])
                if _ANCHOR_DAY.search(n.group(0)) and not _WEEK_ONLY.search(n.group(0))]
        if not told:
            continue
        expr = _in_month_named(told[-1].group(0).strip(), where)
        # (the day told read as where it is told, ahead where nothing marks its tense)
        base = resolve_expression(expr, record_time, forward_at(where, told[-1].start(), True))
        if base is None:
            continue
        gap = (WEEKDAYS.index(day) - time.gmtime(base).tm_wday) % 7
        shift = {"after": gap or 7, "before": (gap - 7) if gap else -7,
                 "that": gap - 7 if gap > 3 else gap}[way]
        return base + shift * 86400.0
    return None


_WEEK_OFFSET = {"this": 0, "next": 1, "coming": 1, "last": -1, "past": -1, "previous": -1}
# A month said alone ("into January"); a day of the month said alone is ``BARE_DAY``.
_MONTH_ALONE = lazy_re(rf"(?<![\d\w])({_MONTH_NAMES_RX})\b(?!\s*\d)", re.I)


def _in_month_named(expr: str, text: str) -> str:
    """``expr``, a day of the month said alone ("the 12th"), in the one month the same
    text names with no day of its own ("slipped into January, the 12th": 12 January);
    else ``expr`` as it is (a day alone is then of the record's month or the next)."""
    day = BARE_DAY.fullmatch(expr)
    if day is None:
        return expr
    months = {m.group(1).lower() for m in _MONTH_ALONE.finditer(text)
              if not (m.group(1).islower() and m.group(1).lower() in ("may", "march"))}
    if len(months) != 1:
        return expr
    return f"{int(day.group(1))} {months.pop().capitalize()}"


def _in_week(expr: str, week: str, record_time: float) -> float | None:
    """The weekday ``expr`` names ("Tuesday") in the week ``week`` names relative to the
    record ("same time next week, Tuesday five": the Tuesday of next week, not the first
    one ahead); None when ``expr`` is no plain weekday."""
    day = expr.lower().removeprefix("on ").strip()
    if day not in WEEKDAYS:
        return None
    monday = (record_time // 86400.0 - time.gmtime(record_time).tm_wday) * 86400.0
    shift = _WEEK_OFFSET.get(week.lower().split()[0], 0)
    return monday + (7 * shift + WEEKDAYS.index(day)) * 86400.0 + 12 * 3600.0


# "I've been playing for four months now": something going on for a span up to the
# record's day began that span before it.
_HELD_FOR = lazy_re(
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


def event_time(text: str, record_time: float, future: bool | None = None) -> float:
    """The time ``text`` talks about: its first resolvable time expression (against the
    record's time; ahead of it when ``future``, else as its tense says), else the record's
    own time."""
    for m in find_candidates(text):
        if future is None:
            future = is_future(text)
        when = resolve_expression(m.group(0).strip(), record_time, future)
        if when is not None:
            return when
    return record_time


_SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_ASKED_UNIT = lazy_re(r"\bhow many (year|month|week|day)s?\b", re.I)


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


_GRAIN = lazy_re(r"\b(?:what|which)\s+(year|month)\b|\bin\s+(?:what|which)\s+(year|month)", re.I)


def question_grain(question: str) -> str:
    """The calendar unit a question asks a date in ("Which year …?" → "year"), else ''."""
    m = _GRAIN.search(question)
    return (m.group(1) or m.group(2)).lower() if m else ""


def _in_grain(when: float, grain: str) -> str:
    t = time.gmtime(when)
    return str(t.tm_year) if grain == "year" else time.strftime("%B %Y", t)


_DETERMINER_WORDS = frozenset(("the", "a", "an", "my", "your", "his", "her", "our", "their",
                               "its", "this", "that", "these", "those"))


def _clean(sentence: str, toks: list[Tok]) -> str:
    """The sentence text covered by ``toks``, without leading/trailing function words. A
    word that may be said as an aside ("great", "usual") is kept after a determiner: "the
    great hall" is a hall, "Great, the hall" an aside."""
    after_det = False
    while toks and not _glued(toks, 0) and (
            not toks[0].word or toks[0].low in STOPWORDS or toks[0].low in _PRONOUNS
            or toks[0].low in _DISCOURSE
            or (toks[0].text[:1].isupper() and len(toks) > 1 and toks[1].text == ",")):
        if after_det and toks[0].low in _DISCOURSE and len(toks) > 1 and toks[1].word:
            break
        after_det = toks[0].low in _DETERMINER_WORDS
        toks = toks[1:]
    while toks and (not toks[-1].word or toks[-1].low in STOPWORDS
                    or toks[-1].low in _SHORT_UNTIL and len(toks) > 1
                    and toks[-2].low not in STOPWORDS) \
            and not (toks[-1].text == "A" and len(toks) > 1 and toks[-2].word):
        toks = toks[:-1]  # (a capital "A" after a word labels it: "bay A", "plan A")
    if not toks:
        return ""
    return sentence[toks[0].start:toks[-1].end].strip()


# "until" said short: a preposition like the stopwords, left at a span's end when the time
# it led to was taken out ("at his flat till Saturday" → "flat"); after a function word it
# is the noun ("in the till").
_SHORT_UNTIL = frozenset({"till", "til"})


def _glued(toks: Sequence[Tok], i: int) -> bool:
    """Whether word ``i`` is written on to the next one by a hyphen ("out-of-hours",
    "after-school", "lactose-free"): the first part of a compound word, which a phrase
    keeps whatever kind of word it is."""
    return i + 2 < len(toks) and toks[i].word and toks[i + 1].text == "-" \
        and toks[i].end == toks[i + 1].start and toks[i + 1].end == toks[i + 2].start \
        and toks[i + 2].word


def _in_compound(toks: Sequence[Tok], i: int, step: int) -> bool:
    """Whether token ``i``, reached in direction ``step``, carries on the compound word
    the token before it began: its hyphen, or the word the hyphen joins on."""
    if toks[i].text == "-":
        return i >= 1 and _glued(toks, i - 1)
    return _glued(toks, i - 2) if step > 0 else _glued(toks, i)


def _run(toks: list[Tok], start: int, step: int, limit: int) -> list[Tok]:
    """Tokens from ``start`` in direction ``step`` up to a clause boundary, at most ``limit``
    content-bearing tokens (the hyphens of a compound count for none, and a compound is
    never cut: "the out-of-hours service" is one phrase, "lactose-free milk" another, and
    a clause word inside one is part of it: "the cash-and-carry"). Forward, the limit does
    not cut a noun phrase between two of its content words: the phrase goes on to its
    head ("the studio room at the leisure centre", not "… at the leisure"), at most
    ``_NP_TAIL`` content words more (a function word begins another phrase: "the county
    cup final with the | under-13s" stops where it was cut)."""
    out: list[Tok] = []
    i = start
    said = over = 0
    while 0 <= i < len(toks):
        tok = toks[i]
        if not tok.word and tok.text not in _JOINERS:
            break
        compound = _in_compound(toks, i, step)
        if tok.low in _BOUNDARY_WORDS and out and not compound:
            break
        if said >= limit and not compound:
            if step < 0 or over >= _NP_TAIL or not _content_word(tok) \
                    or not _content_word(out[-1]):
                break
            over += 1
        out.append(tok)
        said += tok.word
        i += step
    return out if step > 0 else out[::-1]


# How far past its word limit a run may go to reach the head of the noun phrase it is in.
_NP_TAIL = 2


def _content_word(tok: Tok) -> bool:
    """Whether ``tok`` is a content word: a word, not a function or clause word."""
    return tok.word and tok.low not in STOPWORDS and tok.low not in _BOUNDARY_WORDS


def _and_name(toks: list[Tok], run: list[Tok]) -> list[Tok]:
    """``run`` with the rest of a name it ends in that "and" joins ("the Fox and Hounds",
    "Kemp and Sons"): capitalised words on both sides of the "and" are one name."""
    if not run or not run[-1].text[:1].isupper():
        return run
    k = toks.index(run[-1]) + 1
    if k + 1 >= len(toks) or toks[k].low != "and":
        return run
    j = k + 1
    while j < len(toks) and toks[j].word and toks[j].text[:1].isupper() \
            and toks[j].low not in _NOT_NAMES and toks[j].low not in _PRONOUNS:
        j += 1
    return run + toks[k:j] if j > k + 1 else run


def _matches(toks: list[Tok], q_stems: set[str]) -> list[int]:
    return [i for i, t in enumerate(toks)
            if t.word and t.low not in STOPWORDS and stem(t.low) in q_stems]


def denied(toks: list[Tok], a: int, b: int) -> bool:
    """Whether the clause holding tokens [a, b) says they no longer hold: it says so ("No
    more sugar in his tea", "I don't take the blue pills any more", "no longer") or it
    opens with "not" to set them against what does ("the 1st, not the 5th"). What a
    speaker gave up is not what is so; a plain "no" states the value ("no dairy")."""
    i = a - 1
    while i >= 0 and (toks[i].word or toks[i].text in _JOINERS) \
            and toks[i].low not in _BOUNDARY_WORDS:
        i -= 1
    j = b
    while j < len(toks) and (toks[j].word or toks[j].text in _JOINERS) \
            and toks[j].low not in _BOUNDARY_WORDS:
        j += 1
    clause = [t.low for t in toks[i + 1:j]]
    if clause[:1] == ["not"] and i >= 0 and not toks[i].word:
        return True  # ", not the 5th"
    if any(t.low.replace("’", "'") in _DID_NOT for t in toks[i + 1:b]):
        return True  # "I didn't sign Harbour Road in the end": what did not come about
    pairs = set(zip(clause, clause[1:], strict=False))
    return "anymore" in clause or bool(pairs & {("no", "more"), ("any", "more"),
                                                ("no", "longer")})


# A verb negated in the past or perfect: what did not happen ("didn't sign", "never
# turned up"), not a habit or a wish ("I don't eat fish", "can't have walnuts").
_DID_NOT = frozenset({"didn't", "didnt", "never", "hasn't", "haven't", "hadn't", "wasn't",
                      "weren't"})


def _focus_phrase(sentence: str, toks: list[Tok], focus: str, limit: int,
                  q_stems: set[str], skip_denied: bool = False) -> str:
    """The phrase naming the ``focus`` noun, when it says more than the question did;
    ``skip_denied``: not where its clause denies it ("I don't take the blue pills any
    more" for "Which pills do I take now?")."""
    phrase = _focus_span(sentence, toks, focus, limit, skip_denied, q_stems - {stem(focus)})
    if phrase and _new_words(phrase, q_stems | {stem(focus)}):
        return phrase
    # "Zelda is an awesome open-world game": the subject of a copula ending in the focus.
    m = _copula_ending(focus).search(sentence) if may_hold(sentence, focus) else None
    if m:
        subject = _clean(m.group(1), tokens(m.group(1)))
        if subject and _new_words(subject, q_stems):
            return subject
    return ""


# The patterns below are built from a question's words (its focus noun, a place or a
# value found); compiled once per word here, since a pass over many questions builds
# more of them than ``re``'s own cache keeps, and each miss compiles again.
_BUILT = 4096


@lru_cache(maxsize=_BUILT)
def _copula_ending(focus: str) -> re.Pattern[str]:
    return re.compile(r"^(.{1,60}?)\s+(?:is|was|are|were|'s)\s+(?:(?:a|an|the|my|our|his|her|their)\s+)?"
                      r"(?:[\w'-]+\s+){0,3}" + re.escape(focus), re.I)


@lru_cache(maxsize=_BUILT)
def _name_locating(place: str) -> re.Pattern[str]:
    return re.compile(r"([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)\s+(?:on|in|at|by|near)\s+(?:the\s+)?"
                      + re.escape(place))


# What ``_name_locating(place)`` needs right before ``place`` (its last capitalised word
# and the preposition), the same for every place: compiled once.
_LOCATING_BEFORE = lazy_re(r"[A-Z][\w'’-]*\s+(?:on|in|at|by|near)\s+(?:the\s+)?$")


def _may_be_located(sentence: str, place: str) -> bool:
    """Whether ``_name_locating(place)`` can match in ``sentence``: some occurrence of
    ``place`` follows a capitalised word and a locating preposition. Most place phrases
    follow none ("I work at the bakery"), and building and compiling the pattern for a
    new place cost ~1 ms; where this says no, that pattern finds nothing either."""
    at = sentence.find(place)
    while at >= 0:
        if _LOCATING_BEFORE.search(sentence, 0, at):
            return True
        at = sentence.find(place, at + 1)
    return False


@lru_cache(maxsize=_BUILT)
def _not_before(value: str) -> re.Pattern[str]:
    return re.compile(rf"\bnot\s+(?:the\s+)?{re.escape(value)}(?!\w)", re.I)


# The numbers in words that may label a thing ("kennel nine", "room two").
_LABEL_NUMBERS = "|".join(sorted(NUMBER_WORDS - {"hundred", "thousand", "dozen", "several",
                                                 "few", "couple", "once", "twice"}))


# A label after the noun (``_labels``): what follows the noun and the space after it —
# figures (also said as what it is: "his locker is 27."), a name, a lone capital letter
# ("rack A", not the pronoun "I") or a number in words that ends the phrase ("kennel nine
# now", not "room two more"). The same for every noun, so compiled once here: with the
# noun in it the whole pattern took ~1-3 ms to compile for each new focus word.
_LABEL_AFTER = lazy_re(rf"(?:is\s+(?=\d[\d.]*\b\s*(?:[,.;!?]|$)))?"
                       rf"((?:no\.?\s*|number\s+)?\d[\w.]*\b"
                       rf"|(?P<words>{_LABEL_NUMBERS})\b(?=\s*(?:[,.;!?]|$|(?:now|then|"
                       rf"instead|again|too|and|but|at|on|in|by|next|near|with|for)\b))"
                       rf"|[A-Z][\w'-]+|(?-i:(?!I\b)[A-Z])\b(?![.'’]\w))", re.I)


@lru_cache(maxsize=_BUILT)
def _label_patterns(focus: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """``_labels``' patterns for ``focus``: the noun before a label (``_LABEL_AFTER``
    follows it), a time before it, a name before it."""
    f = re.escape(focus)
    noun = re.compile(rf"\b({f}s?)\s+", re.I)
    # "the 8:10 train": a time names a train, a bus, a flight
    timed = re.compile(rf"\b(\d{{1,2}}[:.]\d{{2}}(?:\s*[ap]\.?m\.?)?)\s+({f}s?)\b", re.I)
    before = re.compile(rf"\b((?:[A-Z][\w'-]+\s+){{1,2}})({f}s?)\b", re.I)
    return noun, timed, before


def _after(noun: re.Pattern[str], text: str) -> Iterator[tuple[str, str, str | None]]:
    """(the noun as written, the label after it, its number in words or None) for each
    label ``_LABEL_AFTER`` reads right after ``noun``, in order: what ``finditer`` of the
    two as one pattern finds (no label begins with a space, so the noun's match at a
    place is the only one the whole pattern could start with there)."""
    pos = 0
    while (m := noun.search(text, pos)) is not None:
        label = _LABEL_AFTER.match(text, m.end())
        if label is None:
            pos = m.start() + 1
            continue
        yield m.group(1), label.group(1), label.group("words")
        pos = label.end()


def _focus_span(sentence: str, toks: list[Tok], focus: str, limit: int,
                skip_denied: bool = False, asked: set[str] | frozenset[str] = frozenset()
                ) -> str:
    target = stem(focus)
    at = [i for i, t in enumerate(toks)
          if t.word and stem(t.low) == target and not (skip_denied and denied(toks, i, i + 1))]
    # Said twice, the noun in the clause with another word of the question (``asked``)
    # first: "I've swapped shows with Dan: I'm producing the Tuesday evening arts show"
    # for "Which show do I produce now?".
    if len(at) > 1 and asked:
        at.sort(key=lambda i: not _clause_stems(toks, i) & asked)
    for i in at:
        t = toks[i]
        # A colon gives it: "about the bedding: nothing with feathers".
        if i + 2 < len(toks) and toks[i + 1].text == ":":
            told = _clean(sentence, _run(toks, i + 2, 1, limit))
            if told:
                return told
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


def _clause_stems(toks: list[Tok], i: int) -> set[str]:
    """The stems of the words of token ``i``'s part of the sentence, between marks that
    end a clause for sure (a comma may stand for a time ``extract`` blanked out)."""
    a = i
    while a > 0 and toks[a - 1].text not in _PART_END:
        a -= 1
    b = i
    while b + 1 < len(toks) and toks[b + 1].text not in _PART_END:
        b += 1
    return {stem(t.low) for t in toks[a:b + 1] if t.word}


_PART_END = frozenset(".!?:;—–")


# A preposition that says where against the thing it names ("under the stairs" is not
# the stairs): it stays with the place.
_RELATIONAL = frozenset({"under", "underneath", "beneath", "below", "above", "behind",
                         "beside", "opposite", "inside", "outside", "near"})


_VERB_AFTER = AUXILIARIES - {"am", "shall", "should", "may", "might", "must"}


def _place(sentence: str, toks: list[Tok], q_stems: set[str], limit: int,
           preps: frozenset[str] | set[str] = _PLACE_PREP,
           opens: frozenset[str] | set[str] = frozenset()) -> str:
    """The first place phrase after one of ``preps`` (one with a capital, else the
    first). A phrase inside the one another preposition of ``opens`` leads ("into the
    key safe by reception") belongs to that phrase: the place is the whole of it ("key
    safe by reception": where it went, said by where that is)."""
    best = ""
    covered, opened = -1, ""
    for i, t in enumerate(toks):
        if t.low in opens and t.low not in preps:
            run = _run(toks, i + 1, 1, limit)
            covered, opened = i + len(run), _clean(sentence, run)
            continue
        if t.low in preps and i <= covered and opened:
            return opened
        if t.low not in preps or _compound_part(toks, i):
            continue
        # The place ends where the verb of its clause begins ("Gwen at number 14 is …").
        run = list(takewhile(lambda t: t.low not in _VERB_AFTER, _run(toks, i + 1, 1, limit)))
        phrase = _clean(sentence, _and_name(toks, run))
        if not phrase or all(stem(w.lower()) in q_stems for w in phrase.split()):
            continue
        if _ends_on_asked(phrase, q_stems):
            continue  # "in the county cup final" for "Where is the cup final?": the thing
            # asked about, not where it is
        if run and denied(toks, i, i + 1 + len(run)):
            continue  # "in there, not under the mat": where it no longer is
        if find_candidates(phrase) and not any(c.isupper() for c in phrase[1:]):
            continue  # "in May" / "at 5" is a time, not a place
        if phrase.split()[-1].lower() in _CALENDAR_HEADS:
            continue  # "in the first week (of November)": a span of the calendar
        at = sentence.find(phrase, t.end)
        if at >= 0 and _clock_at(sentence, t.start, at):
            continue  # "starts at half six", "kicking off at seven": a time, not a place
        if all(w.lower() in _GENERAL for w in phrase.split()):
            # "at her place": a general noun is a place only with whose it is.
            owner = re.search(r"\b(?:my|your|his|her|our|their|[\w'’-]+['’]s)\s+$",
                              sentence[:at], re.I) if at >= 0 else None
            if owner is None:
                continue
            phrase = sentence[owner.start():at + len(phrase)]
        at = sentence.find(phrase, t.end)
        cut = next((m.start() for m in re.finditer(r"\s+(?:at|from|till|until|by)\s+", phrase)
                    if _clock_at(phrase, m.start() + 1, m.end())), None)
        if cut:
            phrase = phrase[:cut]  # "room 5 at 10": the place, not the time after it
        if t.low in _RELATIONAL and at >= 0:
            phrase = sentence[t.start:at + len(phrase)]
        if any(w[:1].isupper() for w in phrase.split()):
            return phrase
        best = best or phrase
    return best


def _ends_on_asked(phrase: str, q_stems: set[str]) -> bool:
    """Whether ``phrase`` is the thing asked about, not a place: it ends on a word of the
    question, says another, and no preposition inside it leads to a place of its own
    ("the county cup final", "the G3 unvented course"; not "wall by the back door",
    "architecture firm in Manchester", "workshop overnight")."""
    said = [w.lower() for w in _PHRASE_WORD.findall(phrase)]
    asked = [w for w in said if w not in STOPWORDS and stem(w) in q_stems]
    return bool(said) and said[-1] in asked and len(asked) >= 2 \
        and not set(said) & (_PLACE_PREP | _WHERE_PREP)


def _compound_part(toks: list[Tok], i: int) -> bool:
    """Whether token ``i`` is written on to the word before by a hyphen ("the break-in
    scare", "a drop-in"): part of a compound word, not a preposition."""
    return i >= 2 and toks[i - 1].text == "-" and toks[i - 2].word \
        and toks[i - 2].end == toks[i - 1].start and toks[i - 1].end == toks[i].start


def _clock_at(sentence: str, *starts: int) -> bool:
    """Whether a clock time begins at one of ``starts`` ("at half six", "seven"), not
    the number of an address ("at 12 Mill Road")."""
    for i in starts:
        m = _CLOCK.match(sentence, i)
        if m and not re.match(r"\s+[A-Z]", sentence[m.end():]):
            return True
    return False


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
        if t.word and (t.text.replace(",", "").isdigit() or t.low in NUMBER_WORDS):
            rate = []
            for nxt in toks[i + 1:i + 4]:
                if not nxt.word or nxt.low not in _RATE:
                    break
                rate.append(nxt)
            if rate and rate[-1].low not in ("a", "an", "per", "every", "each"):
                return sentence[t.start:rate[-1].end]
            nxt_text = toks[i + 1].text if i + 1 < len(toks) and toks[i + 1].word \
                and toks[i + 1].low not in STOPWORDS else ""  # "Fifteen a side": not "a"
            return f"{t.text} {nxt_text}".strip()
    return ""


# A length in space ("a 5k loop", "two miles"): what "How long is the loop?" may ask.
_LENGTH = lazy_re(
    rf"(?<![\w.-])(?:\d+(?:\.\d+)?|(?:(?:{'|'.join(TENS)})[- ])?(?:{'|'.join(list(UNITS)[1:])})"
    rf"|{'|'.join(TENS)})[- ]?(?:k|km|kms|kilomet(?:re|er)s?|miles?|metres?|meters?|yards?"
    r"|feet|foot|ft)\b", re.I)


# "How long is/are …?": a length asked of a thing, in time or in space.
HOW_LONG_IS = lazy_re(r"\s*how\s+long\s+(?:is|are|was|were)\b", re.I)


def states_length(text: str) -> bool:
    """Whether ``text`` states a length in space ("a 5k loop", "three miles")."""
    return bool(_LENGTH.search(text))


def states_duration(text: str) -> bool:
    """Whether ``text`` states a span of time ("for seven years", "since 2016")."""
    return bool(_DURATION.search(text))


def has_number(text: str) -> bool:
    """Whether ``text`` states a number (digits or a number word)."""
    return any(ch.isdigit() for ch in text) or any(w in NUMBER_WORDS for w in text.lower().split())


@lru_cache(maxsize=65536)
def fits(kind: str, text: str) -> bool:
    """Whether ``text`` holds the kind of thing the answer is (a time for a date, a
    number for a count, a name for a person or place). Kept per kind and text: the
    reader asks it of every record it is shown, and the same records are shown for
    many questions."""
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
    # "What don't I eat?" asks for what is denied; otherwise a denied phrase is not it.
    asks_denied = bool(_NEGATION.search(question))
    said_times: list[str] = []
    if kind != "duration":
        # A time expression is not part of a non-temporal answer ("I bought yesterday")
        # unless it is all the sentence says beyond the question ("… is on Monday").
        for m in reversed(find_candidates(sentence)):
            if re.match(r"[-‐][^\W_]", sentence[m.end():m.end() + 2]):
                continue  # "the weekend-only plan": a word of a compound, not a time said
            said_times.insert(0, m.group(0).strip())
            sentence = sentence[: m.start()] + "," + sentence[m.end():]
    toks = tokens(sentence)
    if kind == "duration":
        m = _DURATION.search(sentence) or _DURATION.search(context)
        if m is None and HOW_LONG_IS.match(question):
            m = _LENGTH.search(sentence)  # "How long is the loop?": "a 5k loop"
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
        p = _focus_phrase(sentence, toks, plan.focus, limit, q_stems, not asks_denied)
        if p:
            return p
    # The phrase of the record that says what the question did not, next to what it did.
    run = scored_run(sentence, q_stems, limit, context,
                     _CLAUSE_WEIGHTS if kind in ("manner", "reason") else None,
                     asks_denied, plan.current and plan.tense != "past")[0]
    if run and plan.focus and len(run.split()) <= 3:
        # "It's the white ones now" for "Which pills …?": "ones" stands for the noun asked
        # (in a noun phrase; "book me into the evening ones" may speak of other things).
        run = re.sub(r"^(\S.*?)\s+ones?$", rf"\1 {plan.focus}", run, flags=re.I)
    if run:
        return run
    # Never the question's own words back; a time said is more than nothing.
    return next((t for t in said_times if _new_words(t, q_stems)), "")


# The words that mark a state as the new one ("vegan now", "tea instead").
NEW_MARKERS = r"now|instead|these days|nowadays|from now on"
NEW_STATE = lazy_re(rf"\b(?:{NEW_MARKERS})\b", re.I)
# Where a clause ends: a comma (or the like) before a space; ``extract`` puts a bare
# comma where it takes a time out ("on ,s from now on"), which ends none.
# A passive telling that something happened ("so Tom's been promoted"): the event, whose
# outcome another clause says ("He's Herod!"), not a state with its value.
_EVENT_TOLD = lazy_re(r"\b(?:been|got|gets|getting|was|were|is|are)\s+(?:\w+ly\s+)?\w+ed\b"
                      r"(?:\s+(?:again|too|now|today|already))?\W*$", re.I)
# The consequence "so" after a comma that ends its cause, not "so that" (a purpose) nor
# the "so" of degree ("it brings so much joy", "so far").
_CAUSE_SO = lazy_re(r",\s+so\s+(?!(?:that|much|many|far|long)\b)", re.I)
# What follows from the cause tells a state with a form of "be" or "have" ("so I'm back
# to black coffee", "so it's the chippy"); "so I want to give something back" tells a wish.
_STATE_VERB = lazy_re(r"(?:\b(?:is|are|am|was|were|be|been|has|have|had)\b|['’](?:s|re|m|ve)\b)",
                      re.I)
# Where a clause told as new ends, as character offsets (``_told_new`` returns ranges of
# the text, so it cannot use ``language.clauses``, which returns stripped pieces): marks
# only, no conjunction ("from now on it's the chippy and chips" is one state told new).
_CLAUSE_END = lazy_re(r"[,;:—–]\s+|\s+-\s+|(?<=[.!?])\s+")


def told_new(text: str, addressed: bool = False) -> list[tuple[int, int]]:
    """Where ``text`` tells a state as the new one: a clause that marks it so ("it's the
    chippy on Fridays from now on") and what follows a consequence "so" to the end of
    its sentence ("…, so I'm back to plain black coffee"), as character ranges.
    ``addressed``: the turn speaks to someone by name ("Tom, … so your locker is 58
    now"); what it tells them of their own ("you", "your") is not told here."""
    out = _told_new(text)
    if addressed:
        out = [(a, b) for a, b in out if not _SECOND_PERSON.search(text[a:b])]
    return out


_SECOND_PERSON = lazy_re(r"\byou(?:r|rs|['’](?:re|ve|ll|d))?\b", re.I)


def _told_new(text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = 0
    # (a clause that ends at a consequence "so" is its cause, not the state it comes to:
    # "the Glockner is too icy right now, so we're switching to the Wildspitze")
    ends_cause = {m.start() for m in _CAUSE_SO.finditer(text)}
    for m in [*_CLAUSE_END.finditer(text), None]:
        end = m.start() if m else len(text)
        if NEW_STATE.search(text[start:end]) and end not in ends_cause:
            out.append((start, end))
        start = m.end() if m else end
    for m in _CAUSE_SO.finditer(text):
        stop = re.search(r"[.!?](?:\s|$)", text[m.end():])
        end = m.end() + stop.start() if stop else len(text)
        told = text[m.end():end]
        if NEW_STATE.search(told) or _STATE_VERB.search(told) and not _EVENT_TOLD.search(told):
            out.append((m.end(), end))
    return out


# General nouns and adverbs of time or manner: they stand for a value said elsewhere
# ("our new Friday place", "by the way", "same as before instead"), never name one.
_GENERAL = {"place", "places", "thing", "things", "stuff", "way", "ways", "one", "ones",
            "time", "times", "lot", "bit", "instead", "still", "again", "anyway", "too",
            "though", "either", "else", "now", "then", "same"}


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
_SENTENCES = lazy_re(r"(?<=[.!?])\s+")


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
    denied: float = 2.0  # a phrase its clause denies ("no more sugar", "not the 5th")
    new_state: float = 2.5  # asked now: a phrase where the record tells the new state


# "How …?" and "Why …?" are answered with a clause, not a name: more new words count.
_CLAUSE_WEIGHTS = RunWeights(new_cap=5)


_OPEN_QUOTES = frozenset("'\"‘“")
_CLOSE_QUOTES = frozenset("'\"’”")


def _quoted(toks: list[Tok]) -> set[int]:
    """The indexes of the words inside quotation marks (a quote opening after a space or
    at the start, closing before a space, a mark or the end): a title or a name said as
    written ("'At Last' by Etta James")."""
    inside: set[int] = set()
    opened: int | None = None
    for i, t in enumerate(toks):
        if t.word:
            continue
        before = i == 0 or toks[i - 1].end < t.start
        after = i + 1 == len(toks) or toks[i + 1].start > t.end or not toks[i + 1].word
        if opened is None and t.text in _OPEN_QUOTES and before and not after:
            opened = i
        elif opened is not None and t.text in _CLOSE_QUOTES and after and i > opened + 1:
            inside.update(range(opened + 1, i))
            opened = None
    return inside


def _phrases(toks: list[Tok], q_stems: set[str]) -> list[tuple[int, int]]:
    """[start, end) token ranges of the phrases of a sentence: cut at punctuation, clause
    words, subject pronouns and the question's own words (never part of an answer)."""
    out: list[tuple[int, int]] = []
    start = 0
    quoted = _quoted(toks)
    for i, t in enumerate([*toks, Tok(".", 0, 0)]):
        if i in quoted:
            continue  # "'Dancing in the Moonlight'": a title is said whole
        cut = (not t.word and t.text not in _JOINERS) or \
            (t.low in _BOUNDARY_WORDS and t.low not in ("and", "or")) or t.low in _SUBJECTS or \
            (t.word and t.low not in STOPWORDS and stem(t.low) in q_stems)
        if cut:
            if i > start:
                out.append((start, i))
            start = i + 1
    return out


# Object pronouns that end a clause ("scratch that —", "keep it."): the word before is a verb.
_OBJECT_PRONOUNS = {"it", "that", "this", "them", "me", "us", "him"}


def _verb_of(toks: list[Tok], a: int, b: int) -> bool:
    """Whether the one-word phrase [a, b) is a verb: an object pronoun follows it and ends
    the clause ("Actually no, scratch that — soya": not "scratch")."""
    return b - a == 1 and b < len(toks) and toks[b].low in _OBJECT_PRONOUNS \
        and (b + 1 == len(toks) or not toks[b + 1].word and toks[b + 1].text not in _JOINERS)


# Words that open a command ("don't book me …", "please bring …", "let's keep …").
_COMMAND_OPENERS = {"don't", "dont", "do", "please", "let's", "lets", "never"}


def _command(toks: list[Tok], a: int, b: int) -> bool:
    """Whether the phrase [a, b) opens its clause as a command: a word that opens one
    ("don't book me into …"), or a verb whose object is the speaker ("robot make me a
    latte"), the subject left unsaid. It tells what to do, not a value."""
    if a and (toks[a - 1].word and toks[a - 1].low not in _BOUNDARY_WORDS
              or toks[a - 1].text in _JOINERS or toks[a - 1].low in _SUBJECTS):
        return False  # mid-clause, or after its subject ("they've put me in …")
    words = [t for t in toks[a:b] if t.word]
    if not words:
        return False
    if words[0].low in _COMMAND_OPENERS and len(words) > 1 \
            and (words[0].low != "do" or words[1].low == "not"):
        return True
    return any(words[i].low in ("me", "us") and words[i - 1].text.islower()
               and all(w.text.islower() for w in words[:i]) for i in (1, 2)
               if i < len(words))


def _has_name(toks: list[Tok], a: int, b: int, q_stems: set[str]) -> bool:
    """Whether tokens [a, b) hold a capitalised word that is not the sentence's first word,
    a pronoun or one of the question's words."""
    return any(t.text[:1].isupper() and t.low not in _SUBJECTS and i > 0
               and toks[i - 1].text not in ".!?" and stem(t.low) not in q_stems
               for i, t in enumerate(toks[a:b], start=a))


# Modal auxiliaries between a subject and its verb ("Clover will touch").
_MODALS = frozenset({"will", "would", "can", "could", "should", "shall", "might", "must",
                     "won't", "can't", "wouldn't", "couldn't"})


def _predicate(toks: list[Tok], a: int, b: int, hits: list[int]) -> bool:
    """Whether the phrase [a, b) follows right after the question's words that open its
    clause and is (past a modal) one lower-case word, function words after it aside ("The
    brewery wants our cask order": "wants our"): those words are its subject and
    the phrase its verb ("Ravi says he's sticking with his cappuccino", "The kitchen
    tap came. Chrome"), not the object that follows a verb the question asks with, so
    it gains no bonus for following them. A copula or auxiliary after the subject ("My
    coffee is a flat white"), a phrase after a verb ("I play viola") and a label, count
    or participle after a noun ("Bay 4", "bacon rolls two pounds fifty", "Riga's
    cancelled") are not this, nor a phrase of more words ("Panto band is me on viola",
    "Crumbs bakery want 500"), where the first word may be the subject's own noun."""
    h, c = a - 1, a
    while c < b and toks[c].low in _MODALS:
        c += 1
    if h not in hits or c >= b or any(t.word and t.low not in STOPWORDS for t in toks[c + 1:b]) \
            or not (toks[c].text.isalpha() and toks[c].text.islower()) \
            or toks[c].low in STOPWORDS or toks[c].low in _DISCOURSE \
            or toks[c].low in NUMBER_WORDS or toks[c].low.endswith("ed") \
            or toks[h].low.endswith(("'s", "’s")):
        # (a figure or a capital after a noun labels it: "Bay 4", "stable C"; a count is
        # its value: "bacon rolls two pounds fifty"; "Riga's cancelled" is a copula's)
        return False
    # The subject: the question's words, after the clause's opening function words only
    # ("the kitchen tap"; not "Biscuit only eats the salmon", where a function word
    # comes after one of them and the words before it are no one noun phrase, nor "I
    # play viola", where a subject pronoun goes before them).
    i, opening = h - 1, False
    while i >= 0 and toks[i].word and toks[i].low not in _BOUNDARY_WORDS:
        if toks[i].low in _SUBJECTS:
            return False
        if i not in hits or opening:  # past the subject's words: opening function words only
            if toks[i].low not in STOPWORDS:
                return False
            opening = True
        i -= 1
    # (where the sentence or a clause word opens it: after a comma the words may be an
    # aside, "Lena, the other coach, charges twenty-eight")
    return i < 0 or toks[i].text in ".!?;:" or toks[i].low in _BOUNDARY_WORDS


# (compiled once: ``scored_run`` asks them of every candidate phrase)
_BARE_S = lazy_re(r"['’]?s")
_PHRASE_WORD = lazy_re(r"[\w'’-]+")


def scored_run(sentence: str, q_stems: set[str], limit: int = 6, context: str = "",
               weights: RunWeights | None = None, asks_denied: bool = False,
               now: bool = False) -> tuple[str, float]:
    """The phrase of ``sentence`` most likely to answer a question with stems ``q_stems``,
    with its score: it says something the question did not, is short, and follows a word
    the sentence repeats from the question (the object after the verb), or is near one.
    The other sentences of ``context`` (the whole record) compete at a cost, and so does
    a phrase its clause denies ("No more sugar in his tea, he's on sweetener"), unless
    the question asks what is denied (``asks_denied``). ('', -inf) when no phrase says
    anything new. ``now``: the state is asked as it is now; a phrase where the record
    tells a state as the new one (``told_new``) gains: "it was X, so now it's Y" answers Y."""
    w = weights or RunWeights()
    addressed = now and bool(spoken_to(context or sentence))
    best, best_score = "", float("-inf")
    others = [x for x in _SENTENCES.split(context) if x.strip() and x.strip() != sentence.strip()]
    # Where the sentence that best matches the question tells no state as the new one
    # and another sentence of the record does ("Kale gave Biscuit the runs. Dandelion
    # leaves and hay these days."), that one is not the lesser for being another.
    # (where it marks the state new: "these days", "now", "instead")
    told_here = bool(now and told_new(sentence, addressed))
    for k, text in enumerate([sentence, *others]):
        toks = tokens(text)
        hits = _matches(toks, q_stems)
        fresh = told_new(text, addressed) if now else []
        if k and fresh and not told_here:
            waived = [(x, y) for x, y in fresh if NEW_STATE.search(text[x:y])]
        else:
            waived = []
        for a, b in _phrases(toks, q_stems):
            # (never the "s" a time taken out of "Fridays" by ``extract`` leaves)
            phrase = _clean(text, toks[a:b])
            new = _new_words(phrase, q_stems)
            if not new or _BARE_S.fullmatch(phrase) \
                    or _verb_of(toks, a, b) or _command(toks, a, b) \
                    or all(w.lower() in _GENERAL for w in _PHRASE_WORD.findall(phrase)):
                continue
            score = w.new * min(new, w.new_cap) - w.long * max(0, len(phrase.split()) - limit)
            if 0 < a and b < len(toks) and toks[a - 1].text in _QUOTES and toks[b].text in _QUOTES:
                score += w.quoted
            if _has_name(toks, a, b, q_stems):
                score += w.name
            if k and not any(x <= toks[a].start < y for x, y in waived):
                score -= w.other
            if any(x <= toks[a].start < y for x, y in fresh):
                score += w.new_state
            if not asks_denied and denied(toks, a, b):
                score -= w.denied
            if hits:
                score -= w.distance * min(min(abs(h - a), abs(h - (b - 1))) for h in hits)
                if any(0 < a - h <= 2 for h in hits) and not _predicate(toks, a, b, hits):
                    score += w.after
            else:
                score -= w.distance * w.far
            if score > best_score:
                best, best_score = phrase, score
    return best, best_score


# -- the value a question asks for ---------------------------------------------------------
#
# The plan's answer type is coarse ("date" for "when", "what time" and "what day" alike,
# "thing" for "which room"). ``asked`` reads the wh-phrase more closely, and ``typed_span``
# takes a value of that kind from a record, or nothing: a clock time when a time is asked
# (never the day the message was said), a stated day for "what day / what night", a sum of
# money for "how much … cost", a rate for "how often", digits for "what's the number", a
# name tied to the thing named for "what's X called", and for "which X" a phrase that fills
# X. General English only: the few nouns below say what kind of value a noun asks for
# ("budget" a sum, "number" digits), never what any history is about.

_HOURS = rf"(?:1[0-2]|0?[1-9]|{HOUR_WORDS})"
_MERIDIEM = r"(?:\s*(?:am|pm|a\.m\.|p\.m\.)(?![a-z]))"
_MINUTES = r"(?:five|ten|twenty|twenty[- ]five|quarter|half|\d{1,2})"
# Minutes in words after an hour in words ("thirty", "forty-five").
_MINUTE_TENS = "|".join(w for w, n in TENS.items() if n <= 50)  # twenty … fifty
_WORD_MINUTES = (rf"(?:fifteen|thirty|(?:{_MINUTE_TENS})[- ]"
                 rf"(?:{'|'.join(w for w, n in UNITS.items() if 1 <= n <= 9)}))\b")
_CLOCK_POINT = (
    rf"\b\d{{1,2}}[:.]\d{{2}}{_MERIDIEM}?"
    rf"|\b\d{{1,2}}{_MERIDIEM}"
    rf"|\b{_MINUTES}\s+(?:minutes\s+)?(?:past|to)\s+{_HOURS}\b{_MERIDIEM}?"
    rf"|\bhalf\s+{_HOURS}\b(?!\s+(?:an?\b|of\b|the\b|hours?|days?|weeks?|months?|years?|"
    r"miles?|pounds?|price|term|dozen))"
    rf"|\b{_HOURS}\s+o['’]?\s?clock\b"
    # "two thirty", "seven forty-five", "four-thirty": an hour in words and its minutes
    # in words.
    rf"|\b{HOUR_WORDS}(?:\s+|-){_WORD_MINUTES}"
    r"(?![-‐]\w)(?!\s+(?:of|[a-z]{3,}s)\b)"
    rf"|\b{_HOURS}\s+sharp\b"
    r"|\b(?:noon|midday|midnight)\b")
# A function word ending in s ("at seven this term", "does") is no plural noun counted.
_NOT_PLURAL = "|".join(sorted(w for w in STOPWORDS if w.endswith("s") and len(w) > 3))
# A bare hour is a time only where a time word leads to it ("at seven", "from 7", "till
# four") and no counted noun follows ("at 2 people" is none).
_COUNTED = (r"(?!\s*(?:[:.]\d|%|st\b|nd\b|rd\b|th\b))(?!\s+(?:of|people|kids|children|"
            r"times|minutes|hours|days|weeks|months|years|pounds|quid|tablets|puffs|sugars|"
            rf"(?!(?:{_NOT_PLURAL})\b)[a-z]{{3,}}s)\b)")
_CLOCK_ANY = rf"(?:{_CLOCK_POINT}|\b{_HOURS}\b{_MERIDIEM}?)"
# "a 9-5 job": bare hours joined by a dash and followed by a noun describe the noun.
_NOUN_AFTER = (r"(?!\s+(?!(?:am|pm|on|in|at|and|or|but|so|if|every|each|then|tomorrow|today|"
               r"tonight|sharp|start|starts|daily|weekdays|though|now|the|a|is|it|with|for|to)\b)"
               r"[a-z]{2,}\b)")
_CLOCK = lazy_re(
    rf"(?:\bbetween\s+{_CLOCK_ANY}\s+and\s+{_CLOCK_ANY}{_COUNTED}"
    rf"|(?:\bfrom\s+)?(?:{_CLOCK_POINT}|\b{_HOURS}\b)\s*(?:-|–|to|till|til|until)\s*"
    rf"(?:{_CLOCK_POINT}|\b{_HOURS}\b{_MERIDIEM}|\b{_HOURS}\b{_COUNTED}{_NOUN_AFTER})"
    rf"|{_CLOCK_POINT}"
    rf"|\b(?:at|from|till|until|around|about|after|by)\s+{_HOURS}\b(?!\s+(?:past|to)\s+{_HOURS}\b)"
    rf"(?!\s+(?:fifteen|{_MINUTE_TENS})\b)(?!-{_WORD_MINUTES}){_COUNTED}"
    # "six in the evening", "seven tonight": an hour with its part of the day.
    rf"|\b{_HOURS}\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight)\b"
    # "the alarm can be seven.": a bare hour a copula gives, ending the clause.
    rf"|(?<=\bbe\s){_HOURS}(?=\s*(?:[.!?;,](?!\d)|$))"
    rf"|(?<=\bis\s){_HOURS}(?=\s*(?:[.!?;,](?!\d)|$)))", re.I)  # not "is 5.1 kilos"
# "so bedtime's ten now": an hour in words a noun's "'s" gives, ending the clause or with a
# word that says it is the new one; read only where a clock time is asked and no other is
# said ("that's seven now" counts elsewhere; "he's ten now" is an age).
_CLOCK_GIVEN = lazy_re(
    rf"(?<=[a-z]{{2}}['’]s\s)(?<!\bhe['’]s\s)(?<!\bshe['’]s\s)(?<!\bit['’]s\s)(?<!\bthat['’]s\s)"
    rf"(?<!\bthere['’]s\s){HOUR_WORDS}(?=\s*(?:[.!?;,](?!\d)|$)|\s+(?:now|then|instead)\b)",
    re.I)
# A sentence that is only an hour ("Eight.", "Half seven now.", "It's eleven then."): the
# time a turn gives, its thing said in the sentence before.
_HOUR_ALONE = lazy_re(rf"\s*(?:(?:it|that)['’]s\s+)?((?:half\s+)?{_HOURS}\b{_MERIDIEM}?)"
                      r"(?:\s+(?:now|then|instead|from\s+now\s+on))?\s*[.!]*\s*$", re.I)


def hour_alone(sentence: str) -> str:
    """The hour a sentence says and nothing else ("Seven now." → "Seven"), or ''. Read
    only where a clock time is asked and the record revises one: alone, "ten now" may
    be an age."""
    m = _HOUR_ALONE.match(sentence)
    return m.group(1) if m else ""


# A time of day named by what happens then ("at bedtime", "with breakfast", "mornings").
_DAY_PART = lazy_re(
    r"\b(?:(?:at|before|after|with|by|around|in\s+the|every|each|first\s+thing\s+in\s+the)\s+)?"
    r"(?:bed\s*time|bed|breakfast|lunch\s*time|lunch|dinner\s*time|dinner|tea\s*time|tea|supper"
    r"|mornings?|afternoons?|evenings?|nights?|overnight)"
    r"(?:\s+and\s+(?:at\s+)?(?:mornings?|afternoons?|evenings?|nights?|bed\s*time|bed))?\b",
    re.I)
# A bare part of day is too weak alone: a word of time or a preposition must come with it.
_DAY_PART_STRONG = lazy_re(r"\b(?:at|before|after|with|by|in\s+the|every|each)\s|"
                           r"bed\s*time|breakfast|lunch|dinner|supper|mornings|evenings|"
                           r"\band\b", re.I)
_NUMBER_WORD = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen"
                r"|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty"
                r"|fifty|sixty|seventy|eighty|ninety|hundred|thousand)")
# A number said in words, read whole: "twenty-eight", "a hundred and fifty", "two thousand
# and five" ("and" joins only after a hundred or a thousand: "three and four" are two).
_NUMBER_RUN = (rf"(?:a\s+(?=(?:hundred|thousand)\b))?{_NUMBER_WORD}"
               rf"(?:(?:[\s-]+|(?<=hundred)\s+and\s+|(?<=thousand)\s+and\s+){_NUMBER_WORD})*")
_MONEY = lazy_re(
    r"[£$€]\s?(?:\d[\d,]*\d|\d)(?:\.\d{1,2})?(?:\s?(?:k|m|bn)\b)?(?:\s*(?:an?|per)\s+\w+)?"
    rf"|\b(?:(?:\d[\d,]*\d|\d)(?:\.\d{{1,2}})?|{_NUMBER_RUN})\s*"
    # "two pounds twenty, not two fifty": the pence said after the pounds, where the
    # clause ends on them.
    r"(?:(?:pounds?|quid|dollars?|euros?)\b"
    rf"(?:\s+(?:\d{{1,2}}|{_NUMBER_WORD}(?:-{_NUMBER_WORD})?)(?=\s*(?:[,.;:!?)]|$)))?"
    r"|(?:p|pence|bucks|cents?|grand)\b)"
    r"(?:\s*(?:an?|per)\s+\w+)?"
    r"|\b(?:a\s+)?(?:tenner|fiver)\b|\ba\s+grand\b", re.I)  # "Grand, …" is no sum
_FREQUENCY = lazy_re(
    rf"\b(?:once|twice|thrice|(?:\d+|{_NUMBER_WORD}|a\s+few|several)\s+times)"
    rf"(?:\s+or\s+(?:twice|thrice|(?:\d+|{_NUMBER_WORD})\s+times))?"
    r"(?:\s+(?:a|an|per|every|each)\s+(?:other\s+)?\w+|\s+daily|\s+weekly|\s+nightly)?"
    # "every three hours", "every two and a half hours": a count of a unit of time.
    r"|\b(?:every|each)\s+(?:other\s+)?(?:[\d.]+\s+|\w+\s+)?(?:and\s+a\s+half\s+)?"
    r"(?:day|days|week|weeks|hour|hours|minutes|months|years|morning|"
    rf"evening|night|weekday|weekend|month|fortnight|{WEEKDAY_NAMES})\b"
    rf"|\b(?:(?:\d+|{_NUMBER_WORD})-)?(?:daily|weekly|nightly|monthly|fortnightly|hourly)\b"
    r"|\b(?:morning|mornings)\s+and\s+(?:night|evening|nights|evenings)\b", re.I)
_ORDINAL = (r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh"
            rf"|twelfth|\d+{SUFFIX}")
# A part of a unit ("a third of a scoop", "three quarters of a cup"): the whole phrase.
_PART = (rf"(?:(?:a|an|one|{_NUMBER_WORD})\s+(?:half|halves|thirds?|quarters?)\s+of|half)"
         r"\s+(?:a|an)\s+[a-z]+"
         rf"|(?:\d[\d,.]*|{_NUMBER_WORD})\s+and\s+a\s+half"
         # "a quarter tablet", "two thirds cup": the part said before the noun, no "of"
         rf"|(?:a|an|one|{_NUMBER_WORD})\s+(?:thirds?|quarters?)(?=\s+[a-z])(?!\s+of\b)")
_PART_RX = lazy_re(_PART, re.I)
_NUMBER_RUN_RX = lazy_re(rf"{_NUMBER_RUN}(?![\w-])", re.I)  # not "one-visitor"
_QUANTITY = lazy_re(rf"\b(?:{_PART}"
                    rf"|\d[\d,.]*|{_NUMBER_RUN}|{_ORDINAL}"
                    r"|half|a\s+dozen|a\s+couple|a\s+few)(?:\b|(?=(?:mg|ml|g|kg)\b))"
                    # a unit is a whole word: "38 guests" counts guests, not grams
                    r"(?:\s*(?:mg|ml|g|kg)\b|\s*%)?"
                    r"(?:[\s-]+(?!and\b|or\b|but\b)[a-z][\w'-]*){0,2}", re.I)
# A figure with a dot that may be a clock time ("1.07") or a room ("desk 2.09").
_DOTTED = lazy_re(r"\d{1,2}\.\d{2}")
# Digits that name something (a phone, a room, a desk), with the word that labels them.
_LABEL = r"(?:(?<![\w'’-])(?!(?:is|was|are|at|on|in|it|to|the|my|its|and|or|of)\b)[A-Za-z][\w'’-]*\s+)?"
# Digits, a letter or three before them ("B12"), or one letter after them ("bay 7A").
# A dotted room number ("1.07") is one ident.
_IDENT = lazy_re(rf"{_LABEL}\b\d{{1,2}}\.\d{{2}}\b(?!\.\d)"
                 rf"|{_LABEL}\b[A-Za-z]{{0,3}}-?\d[\d\s-]*\d\b|{_LABEL}\b[A-Za-z]*\d+\b"
                 rf"|{_LABEL}\b\d+[A-Za-z]\b")
_MONTH_NAMES = set(MONTHS)
_WEEKDAY_NAMES = set(WEEKDAYS) | {d + "s" for d in WEEKDAYS}
# Capitalised words that are not names: days, months, greetings and reply words.
_NOT_NAMES = _MONTH_NAMES | _WEEKDAY_NAMES | _DISCOURSE | {
    "i", "mr", "mrs", "ms", "dr", "mum", "mom", "dad", "no", "not", "please", "got", "noted",
    "okay", "good", "congratulations", "welcome", "lovely", "fine", "done", "right", "update"}

# Titles before a name, lower-cased (their Porter stems are among them: "mrs" -> "mr").
TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "prof"})
# Nouns that say what kind of value they ask for.
_IDENT_HEADS = {"number", "numbers", "code", "pin", "extension", "postcode", "zip", "plate",
                "registration", "reference", "id", "password", "passcode"}
_QUANTITY_HEADS = {"age", "dose", "dosage", "amount", "count", "total", "score", "size",
                   "height", "weight", "temperature", "floor", "level", "distance"}
# A measure named by the question is asked, not said: "What temperature is incubator 2
# at?" is told by "incubator 2 runs at 30".
MEASURES = frozenset(_QUANTITY_HEADS)
_MONEY_HEADS = {"price", "cost", "costs", "budget", "fee", "fees", "salary", "wage", "wages",
                "rent", "fare", "bill", "charge", "allowance", "pay"}
# Words beside which a bare figure is a sum: the nouns above and the verbs of paying.
MONEY_STEMS = frozenset(stem(w) for w in (*_MONEY_HEADS, "offered", "paid", "paying",
                                           "charged", "charging", "costing"))
_DAY_HEADS = {"day", "days", "night", "nights", "evening", "weekday"}
# Nouns that name a day of the calendar itself ("What was the deadline?": a date).
_DATE_HEADS = {"date", "deadline"}
_NAME_HEADS = {"name", "surname", "nickname"}
# Nouns that stand for the whole state asked about, not an attribute of it.
_LIGHT_HEADS = {"plan", "plans", "schedule", "arrangement", "arrangements", "situation", "status",
                "story", "news", "update", "deal", "idea", "thing", "things", "problem", "issue",
                "matter", "state", "setup", "change", "word", "latest", "answer", "one"}
_CALENDAR_HEADS = {"year", "years", "month", "months", "week", "weeks", "season", "decade",
                   "century", "weekend"}
_DETERMINERS = {*_DETERMINER_WORDS, "some", "any"}  # and the quantifiers
_KIND_SKIP = {"kind", "kinds", "type", "types", "sort", "sorts", "of"}
# "What kind of diet", "what style of yoga", "what breed of dog": the noun after "of" is
# the thing; the answer is the kind of it ("kundalini yoga").
_KIND_OF = _KIND_SKIP | {"style", "styles", "form", "forms", "genre", "genres", "brand",
                         "brands", "breed", "breeds", "variety", "varieties"}
_AUX_RX = "|".join(sorted(AUXILIARIES))
# The verbs of measuring: "how much" with one asks an amount of the measure ("How much
# does the baby weigh now?"), not a sum of money.
MEASURING = lazy_re(r"\b(?:weigh|weighs|weighed|measure|measures|measured)\b")
_DET = r"(?:the|a|an|my|your|our|his|her|their|its|this|that|[\w'-]+(?:'s|s'))"
_PREP_END = (r"(?:\s+(?:of|for|in|on|at|with|from|to|by|about|now|these|right|currently|called"
             r"|named|that|which|who|whom|whose|just|before|after|until|since|when|while)\b"
             r"|\s*[?.!]*\s*$)")


@dataclass(frozen=True)
class Asked:
    """What kind of value a question asks for (``kind``; '' leaves it to the plan) and
    the noun it is about (``focus``, the wh-phrase's head; ``compound`` the noun before
    it: "landline" in "landline number")."""

    kind: str = ""
    focus: str = ""
    compound: str = ""


# Particles that complete a noun after it ("day off", "night out"): no head of their own.
_PARTICLES = frozenset({"off", "out", "away"})
# Prepositions that open a phrase after the head noun, telling which one it is.
_POST_PREPS = frozenset({"from", "at", "in", "on", "with", "for"})


def _head(phrase: str) -> tuple[str, str]:
    """The head noun of a noun phrase and the word before it ("kind of diet" → diet)."""
    ws = [w for w in re.findall(r"[\w'-]+", phrase.lower())]
    if len(ws) >= 2 and ws[0] in _KIND_OF and "of" in ws:
        ws = ws[ws.index("of") + 1:]
    elif "of" in ws[1:]:
        ws = ws[:ws.index("of")]  # "dose of paracetamol": the dose is asked for
    if len(ws) >= 2 and ws[-1] in _PARTICLES:
        ws = ws[:-1]  # "day off", "night out": the noun heads, the particle only completes it
    cut = next((k for k, w in enumerate(ws) if k and w in _POST_PREPS), len(ws))
    ws = ws[:cut]  # "Kate from legal", "the cafe on Main Street": the head comes before
    # the phrase that tells which one
    ws = [w for w in ws if w not in _KIND_SKIP and w not in _DETERMINERS]
    # The possessor ("Pat's" in "Pat's landline number") is not a modifier of the head.
    ws = [w for i, w in enumerate(ws) if i == len(ws) - 1 or not re.search(r"'s$|s'$", w)]
    if not ws:
        return "", ""
    return ws[-1], (ws[-2] if len(ws) > 1 else "")


def _by_head(head: str, compound: str, which: bool) -> Asked:
    if head in _CALENDAR_HEADS:
        return Asked()  # "which year", "what month": the plan's date, in that unit
    if head in _IDENT_HEADS:
        return Asked("ident", head, compound)
    if head in _MONEY_HEADS:
        return Asked("money", head, compound)
    if head in _QUANTITY_HEADS:
        return Asked("quantity", head, compound)
    if head == "time" or head == "hours":
        return Asked("clock", head, compound)
    if head in _DATE_HEADS:
        return Asked("date", head, compound)
    if head in _DAY_HEADS:
        return Asked("day", head, compound)
    return Asked("which" if which else "what", head, compound)


_FRONTED = lazy_re(r"^[^,?]{1,120},\s*(?=(?:what|which|who|whom|whose|where|when|how)\b)")


@lru_cache(maxsize=4096)  # read again by each stage and candidate of a question
def asked(question: str, plan: Plan) -> Asked:
    """The kind of value ``question`` asks for, read from its wh-phrase (see ``Asked``)."""
    q = re.sub(r"\s+", " ", question.strip().lower().replace("’", "'"))
    q = re.sub(r"^(?:and|so|ok|okay|hey|robot|please)\b[,\s]*", "", q)
    # "In January, which night was …?": the time named first frames the question.
    q = re.sub(r"^(?:in|on|at|before|after|during|by|back in|as of)\b[^,?]{1,60},\s*", "", q)
    # So does any phrase put before a wh-word: "Originally, what time …?", "When Kofi
    # first did the rota, which night …?" ask what the wh-phrase after it asks.
    q = _FRONTED.sub("", q)
    if re.match(r"^(?:at |from |until |by )?what time\b|^what hours\b", q):
        return Asked("clock", "time")
    m = re.match(r"^(?:on |in )?(?:what|which) (day|night|morning|afternoon|evening|weekday|"
                 r"date)s?\b", q)
    if m:
        return Asked("date" if m.group(1) == "date" else "day", m.group(1))
    if q.startswith("when"):
        perfect = re.search(r"\b(?:has|have|had)\s+(?:[\w'-]+\s+){0,3}?[\w'-]+(?:ed|en|t|un|ung)\b", q)
        return Asked("when") if plan.tense != "past" and not perfect else Asked()
    if re.match(r"^how often\b", q):
        return Asked("frequency")
    m = re.match(r"^how much (\w+)", q)
    part = re.match(rf"^how much of {_DET}? ?([\w'-]+)", q)
    if part:
        # "How much of a pill does Rex get?": a part of the thing ("half a pill").
        return Asked("quantity", part.group(1))
    if m:
        word = m.group(1)
        if word in AUXILIARIES and MEASURING.search(q):
            return Asked("quantity")  # "How much does the baby weigh?": a weight, not a sum
        if word in AUXILIARIES or word in ("money", "cash") or word in _MONEY_HEADS \
                or word.endswith("ing"):
            return Asked("money")  # "How much rent …?": a sum, not an amount of rent
        return Asked("quantity", word)
    # "have we got", "has she got": possession now (British), not a perfect that counts
    # occasions ("How many pets has she adopted?").
    m = re.match(r"^how many ((?:[\w'-]+ ){1,5}?)(?:is|are|am|do|does|can|could|will|would|"
                 r"should|(?:have|has) (?:i|we|you|they|he|she|it) got"
                 r"|did (?:i|we|you|they|he|she|it) have)\b", q)
    # "How many centrepieces for the Harrington wedding?": the verb left unsaid.
    bare = re.match(r"^how many ((?:[\w'-]+ ){0,2}?[\w'-]+)(?= (?:for|in|at|on|now)\b|\s*\?*$)",
                    q)
    m = m or (bare if bare and not re.search(rf"\b(?:{_AUX_RX})\b", bare.group(1)) else None)
    if m is None and plan.current and re.match(r"^how many (?:are|is|will|do|does) (?:we|you|they|"
                                              r"i|he|she|there|in|on|at|coming|going)\b", q):
        # "How many are we catering for?", "How many are in the party?": the people, unsaid
        return Asked("count")
    if m and plan.current:
        # "How many kids are coming?": the number stated now, of what it counts ("cubic
        # metres of concrete": the measure). "How many pets has she adopted?" counts
        # occasions, as the plan says.
        counted = m.group(1).strip().split(" of ")[0]
        return Asked("count", re.split(r"[\s-]+", counted)[-1])
    # "What's the name of X?", "What is X's name?", "What's X called?"
    m = re.match(rf"^what(?:'s| is| was| are) (?:the |his |her |their |its |my |your |our )?"
                 rf"(?:first |last |full |real )?(?:sur|nick)?name of (.+?){_PREP_END}", q)
    if m:
        return Asked("name", *_head(m.group(1)))
    m = re.match(r"^what(?:'s| is| was| are) (.+?)(?:'s|s') (?:first |last |full |real )?"
                 r"((?:sur|nick)?name)\b", q)
    if m:
        head, compound = _head(m.group(1))
        return Asked("name", head, compound)
    m = re.match(r"^what(?:'s| is| was| are| do you call| did they call) (.+?) (?:called|named)"
                 r"\b", q)
    if m:
        return Asked("name", *_head(m.group(1)))
    if re.match(r"^(?:who|whom|whose)\b", q):
        m = re.match(rf"^who(?:'s| is| was| are) {_DET} (.+?){_PREP_END}", q)
        if m and not re.search(rf"\b(?:{_AUX_RX})\b", m.group(1)):
            head, compound = _head(m.group(1))
            return Asked("person", head, compound)
        return Asked("person")
    if re.match(r"^where\b", q):
        return Asked("place")
    if re.match(r"^what(?:'s| is| are| was| were) .*\b(?:doing|up to|like|happening)\b", q):
        return Asked()  # "What's Jay doing?": an activity, read as before
    which = q.startswith("which")
    m = re.match(rf"^(?:what|which) (?!(?:{_AUX_RX})\b)((?:[\w'-]+ ){{1,5}}?)(?:{_AUX_RX}|goes|go)\b",
                 q)
    if m:
        head, compound = _head(m.group(1))
        if not head:
            return Asked()
        got = _by_head(head, compound, which)
        # "What activity did she try?": a category speakers seldom name; read as before.
        # "What dose does Dad take?": a state asked now names its attribute or is not known.
        return got if got.kind != "what" or plan.current else Asked()
    m = re.match(rf"^(?:what|which)(?:'s| is| was| are| were) (?:{_DET} )?(.+?){_PREP_END}", q)
    if m and not re.search(rf"\b(?:{_AUX_RX})\b", m.group(1)):
        counted = re.search(r"\bnumber of (?!(?:my|your|his|her|our|their|the|this|that)\b)"
                            r"([\w'-]+)", q)
        if counted:  # "the number of points": a count, not a number that names
            return Asked("quantity", counted.group(1))
        head, compound = _head(m.group(1))
        if head in _NAME_HEADS:
            return Asked("name", compound) if compound else Asked()
        if head and (head in _IDENT_HEADS | _MONEY_HEADS | _QUANTITY_HEADS | _DAY_HEADS
                     | _DATE_HEADS or head in ("time", "hours")):
            return _by_head(head, compound, which)
        if head in _LIGHT_HEADS:
            return Asked()  # "What's the latest plan for …?": the state itself
        if which:
            return Asked("which", head, compound) if head else Asked()
        # "What's the theme of the party?": an attribute the records state now, or not.
        present = re.match(r"^what(?:'s| is| are)\b", q)
        return Asked("what", head, compound) if head and present else Asked()
    return Asked()


# "How many people came …?", "At how many units does …": what is counted, up to the
# first function word or auxiliary after it.
_HOW_MANY = lazy_re(r"\bhow many ((?:[\w'-]+ ?){1,4})", re.I)


def counted_noun(question: str) -> str:
    """The noun a "how many" question counts ("guests" in "How many guests were booked
    …?", "people" in "How many people came …?"), '' when it asks none. Of the words
    after "how many" up to the first function word, the last plural-looking one (the
    head of "blood pressure tablets"), else the first: no part of speech is read, so a
    verb right after the noun ("people came") is never taken for it."""
    m = _HOW_MANY.search(question)
    if m is None:
        return ""
    run: list[str] = []
    for w in m.group(1).lower().split():
        if w in STOPWORDS or w in AUXILIARIES:
            break
        run.append(w)
    plural = [w for w in run if w.endswith("s") and not w.endswith("ss")]
    return plural[-1] if plural else (run[0] if run else "")


_FIGURE = rf"(?:[£$€]?[A-Za-z]{{0,3}}-?\d[\w.-]*|{_NUMBER_WORD}(?:-{_NUMBER_WORD})?)"
# A figure the speaker takes back for the next one ("62. Sorry, 61", "room 512, I mean
# 521"): the repair marker stands between the two.
_REPAIR = lazy_re(rf"(?<![\w.-]){_FIGURE}[.,!]?\s+(?:sorry|I mean|no wait|or rather|"
                  rf"make that|correction)\b[,:.!]?\s+(?={_FIGURE}\b)", re.I)


@lru_cache(maxsize=4096)  # asked of the same records for every question
def repaired(text: str) -> str:
    """``text`` with each figure the speaker takes back left out ("Final numbers: 62.
    Sorry, 61, someone's dropped out" → "Final numbers: 61, someone's dropped out")."""
    return _REPAIR.sub("", text)


# Where a clause begins: a punctuation mark, a clause word, or a subject with its verb
# ("Don't forget it's at 8": "it's" opens a clause the "don't" does not reach).
_CLAUSE_START = lazy_re(rf"[,;:.!?—–]|\b(?:{'|'.join(sorted(_BOUNDARY_WORDS))})\b"
                        r"|\b(?=(?:i|you|he|she|it|we|they)(?:['’](?:s|re|m)|\s+(?:is|are|am)\b))",
                        re.I)


def _clause_before(text: str, at: int) -> str:
    """The words of ``text``'s clause before offset ``at`` (from the last punctuation mark
    or clause word before it)."""
    starts = [m.end() for m in _CLAUSE_START.finditer(text, 0, at)]
    return text[starts[-1] if starts else 0:at]


def clock_time(text: str) -> str:
    """The first clock time ``text`` states ("7:30", "half seven", "two till four",
    "between eight and twelve", "at 7pm"), '' when none; the numbers of a date
    ("August 1 to 4") are not a time."""
    for d in find_candidates(text):
        if not re.search(r"\d:\d|am\b|pm\b|o'?clock|noon", d.group(0), re.I):
            # "on the 18th at 4 o'clock", "Friday 12 December at 7": the date is blanked,
            # the hour said after it with "at" is the time.
            at = re.search(r"\s+at\s+(?=\S+\s*$)", d.group(0), re.I)
            end = d.start() + at.start() if at else d.end()
            text = text[:d.start()] + "," * (end - d.start()) + text[end:]
    # "they take me not at ten. They say two": a time taken back with "not" is none said.
    # ("not until three", "not before 3" say when it is: kept.)
    # "Just checking I'm not dragging him there at eight again": nor is one its clause
    # denies.
    m = next((m for m in _CLOCK.finditer(text)
              if not (re.search(r"\bnot\s+(?:at\s+)?$", text[:m.start()], re.I)
                      or _NEGATION.search(_clause_before(text, m.start())))
              or re.match(r"(?:until|till|before|after)\b", m.group(0), re.I)), None)
    if m is None:
        given = _CLOCK_GIVEN.search(text)
        return given.group(0) if given else ""
    said = m.group(0) + _half_after(said_hour=m.group(0), rest=text[m.end():])
    more = _CLOCK_AND.match(text, m.end())
    if more and not re.match(r"between\b", said, re.I):
        said = text[m.start():more.end()]  # "at seven and four": both times it is
    # "9:20am" is written "9:20 am": the time and its half of the day are two words.
    return hour_figures(re.sub(r"(\d)(am|pm|a\.m\.|p\.m\.)", r"\1 \2", said.strip(),
                               flags=re.I))


_BARE_LED = lazy_re(rf"(?:at|from|till|until|around|about|after|by)\s+{_HOURS}", re.I)
_HALF_SAID = lazy_re(rf"{_MERIDIEM}|\s+in\s+the\s+(morning|afternoon|evening)\b", re.I)


def _half_after(said_hour: str, rest: str) -> str:
    """The half of the day said right after a bare hour a time word leads to ("at 10 am",
    "at 7 p.m.", "at 10 in the morning": " am", " pm", " am"), '' when none: the hour
    is read with it, not on a twelve-hour clock."""
    if not _BARE_LED.fullmatch(said_hour):
        return ""
    m = _HALF_SAID.match(rest)
    if m is None:
        return ""
    if m.group(1) is None:
        return " " + m.group(0).strip().lower().replace(".", "")
    return " am" if m.group(1).lower() == "morning" else " pm"


def hour_figures(said: str) -> str:
    """``said`` with an hour in words that has its half of the day written as a figure
    ("at six am" -> "at 6 am"): a time with "am" or "pm" is written in figures."""
    return re.sub(rf"\b({HOUR_WORDS})(?=\s+(?:am|pm)\b)",
                  lambda m: str(_COUNTS[m.group(1).lower()]), said, flags=re.I)


# A second time joined to a first ("fed at seven and four", "at eight and at five").
_CLOCK_AND = lazy_re(rf"\s+and\s+(?:at\s+)?(?:{_CLOCK_POINT}|\b{_HOURS}\b{_MERIDIEM}?"
                     rf"(?![:.]?\d){_COUNTED}{_NOUN_AFTER})", re.I)


def day_part(text: str) -> str:
    """A time of day named by what happens then ("at bedtime", "with breakfast",
    "mornings"), '' when none (a bare "morning" needs a preposition with it)."""
    for m in _DAY_PART.finditer(text):
        if re.search(r"\bsince\s+(?:the\s+)?$", text[:m.start()], re.I):
            continue  # "nothing since lunch": when a span up to now began, past
        if _DAY_PART_STRONG.search(m.group(0)):
            return m.group(0).strip()
    return ""


def money(text: str) -> str:
    """A sum of money ("£15", "twenty quid", "a tenner"), '' when none."""
    m = _MONEY.search(text)
    return m.group(0).strip() if m else ""


# A figure said per period ("800 a month", "1,200 per year"): what is paid.
_AT_TIME = lazy_re(r"\b(?:at|from|till|until|by|around|about|after|before)\s+$", re.I)
_PER_PERIOD = lazy_re(rf"\b(\d[\d,.]*|{_NUMBER_WORD}(?:-{_NUMBER_WORD})?)\s+(?:a|an|per)\s+"
                      r"(?:month|week|year|night|day|hour|head)\b", re.I)


@lru_cache(maxsize=4096)
def without_times(text: str) -> str:
    """``text`` with its clock times and dates blanked out (offsets kept): their figures
    count nothing and cost nothing (kept per text: asked of the same records again)."""
    masked = text
    for m in list(_CLOCK.finditer(text)) + list(find_candidates(text)):
        masked = masked[:m.start()] + " " * (m.end() - m.start()) + masked[m.end():]
    return masked


def sum_stated(text: str) -> str:
    """A sum of money ``text`` states, '' when none: one with its currency ("£15",
    "twenty quid"), or a bare figure said per period ("800 a month") or beside a word for
    a sum ("rent is going up to 1450"); not a clock time or a date."""
    found = money(text)
    if found:
        return found
    masked = without_times(text)
    per = _PER_PERIOD.search(masked)
    if per is None:
        # "pays 11.50 an hour": a figure said per period is a sum, though it reads as a
        # clock time, unless a word of time leads it ("at 7.30 a day early").
        per = next((m for m in _PER_PERIOD.finditer(text) if re.fullmatch(
            r"\d+[.,]\d\d", m.group(1)) and not _AT_TIME.search(text[:m.start()])), None)
        if per is not None:
            return per.group(1)
    if per and not re.search(r"\d", per.group(1)):
        return per.group(1)  # "twenty-three a night"
    if per or stems(masked) & MONEY_STEMS:
        # "rent is six-eighty each": a sum said in words, where no figure is written.
        return bare_figure(masked) or figure_in_words(masked, moved=False)
    return ""


def frequency(text: str) -> str:
    """A rate ("twice a day", "four times a week", "every other Monday", "daily")."""
    m = _FREQUENCY.search(text)
    return m.group(0).strip() if m else ""


def quantity(text: str) -> str:
    """A number with what it counts ("two tablets", "third floor", "5mg")."""
    for m in _QUANTITY.finditer(text):
        phrase = m.group(0).strip()
        # "a third of a scoop", "two and a half", "a hundred and fifty": one number.
        part = _PART_RX.match(phrase) or _NUMBER_RUN_RX.match(phrase)
        words_ = [part.group(0), *phrase[part.end():].split()] if part else phrase.split()
        # Keep the counted noun, not the clause after it.
        keep = [words_[0]]
        for w in words_[1:]:
            if w.lower() in STOPWORDS or w.lower() in _PRONOUNS or w.lower() in _BOUNDARY_WORDS:
                break
            keep.append(w)
        return " ".join(keep).strip(" ,.")
    return ""


def ident(text: str, labels: set[str] | frozenset[str] = frozenset()) -> str:
    """Digits that name something, with the word labelling them when it is a name or one
    of ``labels`` (the question's words: "Flat 9", "locker 112", "07700 900 421"); not the
    digits of a date or a clock time. The longest of ``idents``, the first of equals."""
    best = ""
    for span in idents(text, labels):
        if len(re.sub(r"\D", "", span)) > len(re.sub(r"\D", "", best)):
            best = span
    return best


def _room_like(text: str, m: re.Match[str], labels: set[str] | frozenset[str]) -> bool:
    """Whether the dotted figure ``m`` read as a clock time ("1.07") names a place: said
    after "in" or after a word of the question that labels it ("we've ended up in 1.07",
    "room 2.09" for "Which room …?"), not as a time ("at 1.07", "the 9.30 train")."""
    if not _DOTTED.fullmatch(m.group(0).strip()):
        return False
    before = re.search(r"([A-Za-z]+)\s+$", text[:m.start()])
    return bool(before) and (before.group(1).lower() == "in"
                             or stem(before.group(1).lower()) in labels)


def ident_near(text: str, labels: set[str] | frozenset[str] = frozenset()) -> str:
    """The ``ident`` of ``text``; where the sentence gives several and its first comes
    before any word of the question (``labels``), the first said after one: "214 is the
    sterilisation room, Leanne is on 216" answers "Leanne's extension" with 216, the
    figure before the question's words being another thing's."""
    found = idents(text, labels)
    hits = [m.start() for m in re.finditer(r"[\w'’-]+", text) if stems(m.group(0)) & labels]
    if len(found) < 2 or not hits:
        return ident(text, labels)
    placed: list[tuple[int, str]] = []
    at = 0
    for span in found:
        at = text.find(span, at)
        placed.append((at, span))
        at += len(span)
    if placed[0][0] + len(placed[0][1]) > hits[0]:
        return ident(text, labels)
    return next((span for start, span in placed if start > hits[0]), ident(text, labels))


def idents(text: str, labels: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Every ``ident`` of ``text``, in order."""
    for m in list(_CLOCK.finditer(text)) + list(find_candidates(text)):
        if not _room_like(text, m, labels):
            text = text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]
    out: list[str] = []
    for m in _IDENT.finditer(text):
        span = m.group(0).strip(" -")
        first = span.split()[0] if " " in span else ""
        if first and not any(c.isdigit() for c in first) and not (
                first[:1].isupper() and first.lower() not in _PRONOUNS | _DISCOURSE | STOPWORDS
                and not re.search(r"['’]s$", first) or stem(first.lower()) in labels):
            span = span.split(" ", 1)[1]  # "scored 40": the verb is no label
        out.append(span)
    return out


_I_CONTRACTED = lazy_re(r"i['’][a-z]+$")


def names_in(text: str, skip: set[str], known: set[str] = frozenset()) -> list[tuple[int, str]]:
    """Capitalised name phrases of ``text`` (with their character offsets): a word that is
    capitalised where a sentence does not start, or at a sentence start when ``known``
    holds it (seen capitalised mid-sentence elsewhere); never a weekday, month, reply
    word, pronoun, or a word whose stem is in ``skip`` (the question's own words)."""
    toks = tokens(text)
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        starts = _starts_sentence(toks, i)
        after = i + 2 if i + 2 < len(toks) and toks[i + 1].text == "." else i + 1
        if t.low in TITLES and after < len(toks) and toks[after].text[:1].isupper() \
                and stem(toks[after].low) not in skip:
            # "Mrs Okafor", "Dr. Adeyemi": a title starts the name it comes with.
            j = after + 1
            while j < len(toks) and toks[j].word and toks[j].text[:1].isupper() \
                    and toks[j].low not in _NOT_NAMES:
                j += 1
            out.append((t.start, re.sub(r"['’]s$", "", text[t.start:toks[j - 1].end])))
            i = j
            continue
        if (t.word and t.text[:1].isupper() and t.low not in _NOT_NAMES
                and t.low not in _PRONOUNS and t.low not in STOPWORDS
                and not _I_CONTRACTED.match(t.low)  # "I'll", "I’d": the speaker, no name
                and stem(t.low.removesuffix("'s").removesuffix("’s")) not in skip
                and (not starts or t.low.removesuffix("'s").removesuffix("’s") in known
                     or _name_goes_on(toks, i))):
            j = i + 1
            while j < len(toks) and toks[j].word and toks[j].text[:1].isupper() \
                    and toks[j].low not in _NOT_NAMES and toks[j].low not in _PRONOUNS:
                j += 1
            phrase = text[t.start:toks[j - 1].end]
            phrase = re.sub(r"['’]s$", "", phrase)
            out.append((t.start, phrase))
            i = j
            continue
        i += 1
    return out


def _name_goes_on(toks: Sequence[Tok], i: int) -> bool:
    """Whether the capitalised word ``i`` opening a sentence begins a name that is the
    sentence's subject ("Maggie Doyle's stepping in", "Greenway Garden Centre have signed
    up"): the next word is capitalised too, where no sentence starts, neither is a word
    written so for other reasons (a day, a greeting, a title, a pronoun, a function word),
    and the capitalised run ends on a clitic or an auxiliary; an order's verb ("Put Eddie
    on the Boise load") is no part of the name after it."""
    run = i
    while run < len(toks) and toks[run].word and toks[run].text[:1].isupper():
        bare = re.sub(r"['’][a-z]+$", "", toks[run].low)
        if bare in _NOT_NAMES or bare in TITLES or bare in _PRONOUNS or bare in STOPWORDS:
            return False
        run += 1
    if run - i < 2:
        return False
    last = toks[run - 1].low
    return bool(re.search(r"['’](?:s|ve|ll|d|re)$", last)) \
        or run < len(toks) and toks[run].low in _AUX_AFTER_NAME


# The auxiliaries a name opening a sentence is the subject of ("… have signed up").
_AUX_AFTER_NAME = AUXILIARIES - {"am", "shall", "should", "may", "might", "must"} | {"says", "said"}


def capitalised_mid_sentence(texts: list[str]) -> set[str]:
    """Lower-cased words written capitalised where no sentence starts: names the
    conversation uses ("Nacho" in "… he's Nacho now")."""
    out: set[str] = set()
    for text in texts:
        out.update(_capitalised(text))
    return out


@lru_cache(maxsize=65536)
def _capitalised_as_written(text: str) -> tuple[str, ...]:
    """The words ``text`` writes capitalised where no sentence starts, as written.

    Over ``_TOKEN``'s matches, not ``_tokens``: a reader's holder checks ask this of
    every record a question shows, most of which nothing else tokenises, and keeping a
    ``Tok`` per word of each was a third of the tokens made (and kept) per question.
    The same tokens and the same test as ``_starts_sentence``."""
    out: list[str] = []
    before = last = ""  # the two tokens before this one ("": none)
    for m in _TOKEN.finditer(text):
        word = m.group(0)
        if word[0].isalnum() and word[:1].isupper() and last \
                and (last == "." and before.lower() in TITLES or last not in _SENTENCE_END):
            low = word.lower()
            if low not in _NOT_NAMES and low not in _PRONOUNS:
                out.append(word)
        before, last = last, word
    return tuple(out)


# The tokens after which a sentence starts (``_starts_sentence``).
_SENTENCE_END = ".!?:;\"“"


def _starts_sentence(toks: Sequence[Tok], i: int) -> bool:
    """Whether token ``i`` opens a sentence: it comes first or after a mark that ends
    one, but not after the full stop of a title ("Dr. Adeyemi" names someone mid-way)."""
    if i == 0:
        return True
    if toks[i - 1].text == "." and i >= 2 and toks[i - 2].low in TITLES:
        return False
    return toks[i - 1].text in _SENTENCE_END


@lru_cache(maxsize=65536)
def _capitalised(text: str) -> tuple[str, ...]:
    """``capitalised_mid_sentence`` of one text, in the order written."""
    return tuple(w.lower().removesuffix("'s").removesuffix("’s")
                 for w in _capitalised_as_written(text))


# A code that labels a thing: letters and digits together ("B204", "A100", "4B").
_CODE = lazy_re(r"\b(?:[A-Za-z]{1,3}\d+[A-Za-z]?|\d+[A-Za-z])\b")
_ORDINAL_SUFFIX = lazy_re(rf"^\d+{SUFFIX}$", re.I)


def states_label(text: str) -> bool:
    """Whether ``text`` gives something a label that tells it from others of its kind: a
    name written capitalised mid-sentence ("we're in Kilimanjaro") or a code ("A100"),
    not an ordinal ("the 14th") or a clock time."""
    codes = [m.group(0) for m in _CODE.finditer(text) if not _ORDINAL_SUFFIX.match(m.group(0))
             and not re.fullmatch(r"\d+(?:am|pm|h)", m.group(0), re.I)]
    # A word in capitals throughout is said loudly ("pushed AGAIN"), not a name.
    return bool(codes) or any(w.upper() != w for w in _capitalised_as_written(text))


def names_someone(text: str) -> bool:
    """Whether ``text`` names a person (a capitalised word that is no day, month, greeting
    or common word), or the speaker or the one spoken to as doing something ("I'm the
    first-aider", "you're doing the orders")."""
    for m in re.finditer(r"\b([A-Z][a-z]+)", text):
        w = m.group(1).lower()
        if w not in STOPWORDS and w not in _NOT_NAMES and w not in _PRONOUNS:
            return True
    return bool(re.search(r"\b(?:me|I'm|I'll|you're|you'll)\b", text))


def states_asked(kind: str, text: str, before: str = "") -> bool | None:
    """Whether ``text`` states a value of the ``asked`` kind where one reads a kind of its
    own (a clock time, a frequency, a sum of money); None for the other kinds. After
    ``before`` stated a sum, a bare figure is one in its unit ("council put the permit
    up to 85" after "60 quid a year")."""
    if kind == "person":
        return names_someone(text)
    read = {"clock": clock_time, "frequency": frequency, "money": sum_stated}.get(kind)
    if read is None:
        return None
    return bool(read(text)) or kind == "money" and bool(sum_stated(before)) \
        and bool(bare_figure(text))


# A figure that counts nothing ("up to 85", "85 a year"), not "85 pages" or "85%".
_BARE_FIGURE = lazy_re(r"\b\d+(?:\.\d{1,2})?\b(?!\s*(?:%|[a-z]+s\b))")


# A figure turned down as too much, too high, too late ("680's too much").
_TOO = lazy_re(r"(?:['’]s|\s+(?:is|was|are|were))\s+(?:(?:way|far|much|a\s+bit)\s+)?too\b", re.I)


def bare_figure(text: str) -> str:
    """A figure with no unit of its own, '' when none: after a sum, a sum in its unit. Not
    one turned down as too much ("680's too much … 660 for a full day")."""
    m = next((m for m in _BARE_FIGURE.finditer(text) if not _TOO.match(text, m.end())), None)
    return m.group(0) if m else ""


# A figure said in words that ends its clause or comes before a word that says it is the
# state ("now", "each") or joins the next clause ("because", "but"): a value, not a count
# of a noun ("three boxes").
_ENDS_FIGURE = (r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:now|instead|each|apiece|then|because|but|and|so|"
                r"since)\b)")
_FIGURE_WORDS = lazy_re(rf"(?<![\w'’-])({_NUMBER_RUN}){_ENDS_FIGURE}", re.I)
_FIGURE_WORDS_TO = lazy_re(rf"\bto\s+({_NUMBER_RUN}){_ENDS_FIGURE}", re.I)


def figure_in_words(text: str, moved: bool = True) -> str:
    """A figure said in words as a value, '' when none: ``moved``, one a sum moves to ("go
    to three now", "up to twenty"; after a sum, the sum in its unit); else any that ends
    its clause ("rent is six-eighty each", "gets twelve twenty because …")."""
    m = (_FIGURE_WORDS_TO if moved else _FIGURE_WORDS).search(text)
    return m.group(1) if m else ""


# A weekday clipped ("moved to thurs", "on weds"), after a word that leads a day and before
# the end of its phrase: a day. "sun", "sat", "wed" elsewhere are a noun or a verb ("to
# wed" is the verb).
_CLIPPED_DAY = lazy_re(
    r"\b((?:to|on|till|until|til|by|from|before|after|every|each|next|last|this)\s+)"
    r"(mon|tues?|weds?|thur?s?|fri|sat|sun)\b(?=\s*(?:[,.;:!?)]|$|\d|(?:morning|afternoon|"
    r"evening|night|now|instead|then|again|too|and|or|at|from|till|until)\b))", re.I)
_CLIPPED_FULL = {d[:3]: d.capitalize() for d in WEEKDAYS}


def weekdays_written_out(text: str) -> str:
    """``text`` with the weekdays it clips after a word that leads a day written out
    ("parents evening moved to thurs" -> "… moved to Thursday"), so that it names them."""
    def full(m: re.Match[str]) -> str:
        if m.group(2).lower() == "wed" and m.group(1).lower().startswith("to"):
            return m.group(0)  # "going to wed": the verb
        return m.group(1) + _CLIPPED_FULL[m.group(2)[:3].lower()]

    return _CLIPPED_DAY.sub(full, text)


@lru_cache(maxsize=16384)
def states_time(text: str) -> bool:
    """Whether ``text`` names a day or date (an expression ``answer_date`` resolves, or a
    recurring day)."""
    return bool(find_candidates(text) or _RECURRING.search(text))


# Prepositions that say where something is kept or happens.
_WHERE_PREP = _PLACE_PREP | {"under", "above", "behind", "beside", "inside", "below", "over",
                             "outside", "opposite", "underneath", "beneath", "by"}


def _has_question_word(phrase: str, q_stems: set[str]) -> bool:
    return any(stem(w.lower()) in q_stems for w in re.findall(r"[\w'’-]+", phrase))


def place_phrase(sentence: str, q_stems: set[str], limit: int = 6, origin: bool = True,
                 moving: bool = True) -> str:
    """The place phrase of ``sentence`` ("at the bakery on Mill Lane" → "bakery on Mill
    Lane"), '' when it names none; its time expressions are not part of it. ``origin``:
    "from …" may be one ("Where is she flying from?"); else it says where something came
    from ("smashed lids from that forklift bump"), not where it is. ``moving``: "to …"
    may be one (where someone goes); else only where something is."""
    for m in reversed(find_candidates(sentence)):
        noun = re.search(r"\b([A-Za-z]+)\s+$", sentence[: m.start()])
        if re.fullmatch(r"\d{1,4}", m.group(0).strip()) and noun \
                and noun.group(1).lower() not in STOPWORDS:
            continue  # "at number 14", "room 5": a number after a noun labels, not a time
        sentence = sentence[: m.start()] + "," + sentence[m.end():]
    sentence = re.sub(r"\b(St|Dr|Mt|Rd|Ave|No)\.(?=\s+[A-Z0-9])", r"\1", sentence)  # "St. Mary's"
    # "on three dates" counts occasions; a place is not a count. "to take" is a verb.
    sentence = re.sub(rf"\b(?:\d+|{_NUMBER_WORD}|a\s+few|several)\s+(?!(?:is|was|has|does)\b)"
                      r"[a-z]+s\b", ",", sentence,
                      flags=re.I)
    # (A numbered place is no verb: "went up to aisle 12", "moved to room 5".)
    sentence = re.sub(r"\bto(?=\s+(?!(?:the|a|an|my|your|his|her|our|their|this|that)\b"
                      r"|[a-z]+\s+\d+\b(?!\s+[a-z]))[a-z])", ",", sentence)
    preps = _WHERE_PREP - (set() if origin else {"from"}) \
        - (set() if moving else {"to", "into", "over"})
    place = _place(sentence, tokens(sentence), q_stems, limit, preps, {"to", "into", "onto"})
    if re.fullmatch(r"[\d.,]+", place):
        return ""  # "down to 150": a figure, not a place
    place += _renamed(sentence, place)
    if place:
        # "Casa Verde on Main": the name the place phrase locates comes with it.
        m = _name_locating(place).search(sentence) if _may_be_located(sentence, place) else None
        if m and m.group(1).lower() not in _NOT_NAMES | _PRONOUNS and m.start() > 0 \
                and not _has_question_word(m.group(1), q_stems):
            return sentence[m.start():m.end()]
    return place


# A clause that only names a place ("…, Church Street." after "above the bakery"): the
# place said again by its name, to the clause's end.
_NAME_CLAUSE = lazy_re(r",\s+((?:[A-Z][\w'’-]*|\d+[A-Za-z]?)(?:\s+(?:[A-Z][\w'’-]*|\d+[A-Za-z]?"
                       r"|of|the|on|upon))*)\s*(?=[.;!?]|$)"
                       # "on two, rack C", "in the minus-80, shelf 2": a part of the
                       # place with its label; "a farm in Devon, Greenacre, they …": its
                       # name, set off by commas.
                       r"|,\s+((?:the\s+)?[a-z][\w-]*\s+(?:[A-Z]|\d+)[A-Za-z\d]*)\s*(?=[,.;!?]|$)"
                       r"|,\s+([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*),(?=\s+[a-z])")


def _renamed(sentence: str, place: str) -> str:
    """The clause right after ``place`` in ``sentence`` when it names the place again
    ("Flat 3, above the bakery, Church Street.": ", Church Street"), else ''."""
    at = sentence.find(place) if place else -1
    m = _NAME_CLAUSE.match(sentence, at + len(place)) if at >= 0 else None
    if m is None:
        return ""
    k = next(i for i in (1, 2, 3) if m.group(i))
    said = m.group(k).split()
    if k == 2:  # a part and its label: a noun, not a function word ("…, at 5")
        return "" if said[-2].lower() in STOPWORDS else sentence[at + len(place):m.end(k)]
    if k == 3 and not re.search(r"\b(?:a|an|one|some)\s+$", sentence[:at], re.I):
        return ""  # only a place said as "a …" is named after it, not one spoken to
    named = [w for w in said if w[:1].isupper()]
    if not named or any(w.lower() in _NOT_NAMES | _PRONOUNS for w in named):
        return ""  # "…, Thursday.", "…, Thanks.": a day or a reply, no place
    return sentence[at + len(place):m.end(k)]


# "the cholesterol one", "this one": "one" standing for a thing named before.
_ONE_PRONOUN = lazy_re(r"\b(?:the|this|that|which|other|another|each|every)\s+(?:[a-z]+\s+)?$",
                       re.I)


def quantities(text: str) -> list[tuple[int, str]]:
    """Numbers ``text`` states with what they count, as (character offset, phrase):
    not the numbers of a clock time or date, not "one of" (a member, not a count)."""
    return list(_quantities(text))


@lru_cache(maxsize=4096)
def _quantities(text: str) -> tuple[tuple[int, str], ...]:
    """``quantities``, kept per text: the chain measures the same records again for
    every later record and question."""
    masked = without_times(text)
    out: list[tuple[int, str]] = []
    at = 0
    while m := _QUANTITY.search(masked, at):
        at = m.end()
        head = m.group(0).strip().split()[0]
        if re.match(r"\s*of\b", masked[m.start() + len(head):]) \
                and (" " not in m.group(0).strip() or head.lower() in ("one", "1")):
            continue  # "one of Alfie's mates": a member, not a count ("five of us" counts)
        if head.lower() == "one" and _ONE_PRONOUN.search(masked[:m.start()]):
            # "the cholesterol one": which thing, not how many; a number may follow it
            # ("that one is one hundred twenty people").
            at = m.start() + len(head)
            continue
        phrase = quantity(m.group(0))
        if phrase and not re.fullmatch(r"(?:half|a\s+(?!hundred\b|thousand\b)\w+)", phrase,
                                       re.I):
            out.append((m.start(), phrase))
    return tuple(out)


_FRACTION = lazy_re(r"(?:quarters?|halves|half|thirds?)$", re.I)
_OF_UNIT = lazy_re(r"\s+of\s+(?:a|an)\s+([a-z]+)", re.I)


def number_head(phrase: str) -> str:
    """The number a ``quantities`` phrase opens with ("a hundred and fifty" of "a hundred
    and fifty copies"; "5" of "5 tablets")."""
    m = _PART_RX.match(phrase) or _NUMBER_RUN_RX.match(phrase)
    return m.group(0) if m else phrase.split()[0] if phrase.split() else ""


def measures(text: str) -> dict[str, str]:
    """The amounts ``text`` gives in a unit, by the unit's stem ("two litres" → litr:
    "two litres"; "three quarters of a cup" → cup): a changed amount of one measure."""
    out: dict[str, str] = {}
    for pos, phrase in quantities(text):
        said = re.sub(r"^(\d[\d,.]*)(mg|ml|g|kg)\b", r"\1 \2", phrase)  # "5mg"
        run = _NUMBER_RUN_RX.match(said)  # "a hundred and fifty" is one number, no unit
        words = [run.group(0), *said[run.end():].split()] if run else said.split()
        if len(words) < 2:
            continue
        unit = words[-1]
        if _FRACTION.match(unit):
            m = _OF_UNIT.match(text, pos + len(phrase))
            if m is None:
                continue
            unit = m.group(1)
        out.setdefault(stem(unit.lower()).removesuffix("s"), phrase.lower())
    return out


# Days said relative to the moment of speaking: when something was talked about.
_DEICTIC = lazy_re(r"\b(?:today|tonight|tomorrow|yesterday|this\s+(?:morning|afternoon|"
                   r"evening|week|weekend)|last\s+night)\b", re.I)


def names_day(text: str) -> bool:
    """Whether ``text`` names a day by itself (a weekday, a date, a month, a recurring
    day), not only relative to when it was said ("today", "tomorrow")."""
    if _RECURRING.search(text):
        return True
    return any(not _DEICTIC.fullmatch(m.group(0).strip()) for m in find_candidates(text))


# A day the sentence turns down: "not Saturdays", "instead of Wednesday", "from Monday
# (to Tuesday)", "Thursday evenings just don't work".
TURNED_DOWN_BEFORE = lazy_re(r"\b(?:not|instead\s+of|rather\s+than|from|no\s+longer|except|"
                              r"never|forget|(?:can['’]?t|cannot|couldn['’]t|won['’]t)\s+"
                              r"(?:do|make|manage))\s+(?:the\s+|on\s+|at\s+)?$", re.I)
_TURNED_DOWN_AFTER = lazy_re(r"^[^,.;!?]{0,30}?(?:n['’]t\b|\b(?:not|no\s+longer|cancel+ed|off)\b)"
                             r"(?![^,.;!?]*\b(?:to|till|until)\b)", re.I)


def declines(text: str, end: int) -> bool:
    """Whether the clause after a name ending at ``end`` says they can't, won't or no
    longer do it ("Shona can't do Wednesdays any more")."""
    return bool(_DECLINES.match(text, end))


_DECLINES = lazy_re(r"\s+(?:can['’]?t|cannot|won['’]t|couldn['’]t|isn['’]t|is\s+not|no\s+longer"
                    r"|doesn['’]t|has\s+stopped|'s\s+stopped"
                    # (or did not, or never did: "Jordan never turned up")
                    r"|never|didn['’]t|did\s+not|hasn['’]t|has\s+not|wasn['’]t|was\s+not)\b",
                    re.I)


def turned_down(sentence: str) -> bool:
    """Whether every day ``sentence`` names is one it turns down ("Forget Friday, the CEO
    can't make it.", "She can't do Thursday.")."""
    found = find_candidates(sentence)
    return bool(found) and all(TURNED_DOWN_BEFORE.search(sentence[:m.start()])
                               or _TURNED_DOWN_AFTER.search(sentence[m.end():]) for m in found)


_WORD_BEFORE = lazy_re(r"([\w'’]+?)(?:['’]s)?\s+(?:(?:is|are)\s+)?"
                       r"(?:(?:on|at|in|by|from|until|till|for)\s+)?$", re.I)


def asked_day(sentence: str, q_stems: set[str] | frozenset[str]) -> str:
    """``sentence`` with its other times blanked out when exactly one of them comes right
    after a word of the question, or its copula ("away the week of the 18th, back on the
    25th" for "When am I back?"; "needs Tuesdays …, so guitar is Mondays" for "When is
    my guitar lesson?"): that word says which time it is."""
    found = find_candidates(sentence)
    if len(found) < 2:
        return sentence
    after = []
    for m in found:
        w = _WORD_BEFORE.search(sentence[:m.start()])
        low = w.group(1).lower() if w else ""
        after.append(bool(low) and low not in STOPWORDS and stem(low) in q_stems)
    if sum(after) != 1:
        return sentence
    for m, keep in reversed(list(zip(found, after, strict=True))):
        if not keep:
            sentence = sentence[:m.start()] + "," + sentence[m.end():]
    return sentence


_WAS_BEFORE = lazy_re(r"\b(?:was|were|used\s+to\s+be)\s+(?:on\s+|at\s+|for\s+)?$", re.I)
_NOW_BEFORE = lazy_re(r"\bnow\b[^,.;!?]{0,20}$", re.I)


def _was_then_now(sentence: str, m: re.Match[str], found: Sequence[re.Match[str]]) -> bool:
    """Whether day ``m`` is said as what was, before a day said as what is now ("that
    was the 9th and now it's the 16th"): the first is the one it changed from."""
    return bool(_WAS_BEFORE.search(sentence[:m.start()])) and any(
        n.start() > m.end() and _NOW_BEFORE.search(sentence[m.end():n.start()])
        for n in found)


def held_days(sentence: str, replaced: frozenset[str] = frozenset()) -> str:
    """``sentence`` with the days it does not hold to blanked out, when another remains:
    a day it turns down ("not Saturdays", "instead of Wednesday", "Thursday evenings just
    don't work, so …"), one among ``replaced`` (the values of the revisions the record
    supersedes: "the juniors have the green on Tuesdays, so we're on Wednesdays") and,
    beside a named day, "today"/"tomorrow" (when it was said)."""
    found = find_candidates(sentence)
    if len(found) < 2:
        return sentence
    # A day the revisions named is what it changes from only where the sentence names
    # another day: "same time next week, Tuesday five" keeps its Tuesday.
    old = [m for m in found if replaced and state_values(m.group(0)) <= replaced
           and bool(state_values(m.group(0)))]
    days = [m for m in found if m not in old and not _WEEK_ONLY.fullmatch(m.group(0).strip())
            and not _DEICTIC.fullmatch(m.group(0).strip())]
    down = [m for m in found if TURNED_DOWN_BEFORE.search(sentence[:m.start()])
            or _TURNED_DOWN_AFTER.search(sentence[m.end():]) or m in old and days
            or _was_then_now(sentence, m, found)]
    told = [m for m in found if _DEICTIC.fullmatch(m.group(0).strip())]
    drop = [m for m in found if m in down or (m in told and len(told) < len(found))]
    if len(drop) >= len(found):
        drop = [m for m in drop if m not in down] if len(down) < len(found) else []
    for m in sorted(drop, key=lambda m: -m.start()):
        sentence = sentence[:m.start()] + " " * (m.end() - m.start()) + sentence[m.end():]
    return sentence


def said_not(value: str, text: str) -> bool:
    """Whether ``text`` takes ``value`` back with "not" ("Sorry, 4B, not 4D.")."""
    return bool(_not_before(value).search(text))


def labelled(focus: str, text: str, question: str = "", old: str = "") -> str:
    """The ``focus`` noun with the label a text gives it, "" when none: a number or a
    name after it ("Room 7", "desk 2.09", "Kennel No. 4", "Suite Sapphire") or a name
    before it ("the Everest room", "Sapphire Suite"); a label the question already
    names is not the answer, nor one ``old`` (what the text revises) gave when the text
    gives another ("painting Room 3, so he's been shifted to Room 7")."""
    said = [label for label in _labels(focus, text, question)
            if not said_not(label.split(" ", 1)[-1], text)]
    fresh = [label for label in said if label.lower() not in old.lower()]
    if said and not fresh and old:
        # Every label it gives is one the revised text gave: it names what it changes
        # from ("Plot 9 floods … swapped me to 6"), the new one is said without the noun.
        return ""
    return (fresh or said or [""])[0]


def _labels(focus: str, text: str, question: str) -> list[str]:
    """Every ``labelled`` label of ``text``, in order: those after the noun first."""
    out: list[str] = []
    if not may_hold(text, focus):  # every pattern needs the noun: none to build or run
        return out
    asked_words = {w.lower() for w in re.findall(r"[\w.]+", question)}
    noun, timed, before = _label_patterns(focus)
    for said, label, words in _after(noun, text):
        if (label[0].isdigit() or label[0].isupper() or words) \
                and label.lower() not in asked_words:
            out.append(f"{said} {label}".strip())
    for m in timed.finditer(text):
        out.append(f"{m.group(1)} {m.group(2)}")
    for m in before.finditer(text):
        # The capitalised words right before the noun ("the Everest room"), not a
        # sentence's first word further back ("I've swapped spaces").
        names = list(takewhile(lambda w: w[0].isupper(), reversed(m.group(1).split())))[::-1]
        if names and names[-1].lower() not in asked_words | {"the", "a", "my", "our"} \
                and m.start() > 0:
            out.append(f"{' '.join(names)} {m.group(2)}")
    return out
