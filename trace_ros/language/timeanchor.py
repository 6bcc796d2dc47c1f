"""Time anchors resolved per message: when does the stated thing hold or happen?

"yesterday", "last Friday", "in two weeks", "on 5 May 2023" are resolved against
the *message's own* time (never the session's, never the wall clock). dateparser
does the calendar arithmetic, but it is slow (~0.3 ms a call) and eager (it reads
"may" or "second" as dates), so a cheap regex first finds candidate expressions
and only those reach it. Phrases dateparser does not know ("a few days ago",
"this weekend") are rewritten or computed here. When nothing is found or nothing
resolves, the caller's fallback time is used and ``fallback`` says so.

All times are epoch seconds; calendar arithmetic is done in UTC.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WD = "|".join(WEEKDAYS)
_MONTH = (r"january|february|march|april|may|june|july|august|september|october|november|"
          r"december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec")
_NUM = (r"\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
        r"a\s+few|a\s+couple(?:\s+of)?|couple\s+of|several")
_UNIT = r"minute|hour|day|night|week|weekend|month|year"
_PART = r"morning|afternoon|evening|night"
_SEASON = r"spring|summer|autumn|fall|winter"
_CLOCK = r"(?:\s+at\s+\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?|\s+at\s+noon)?"
_DAYNUM = r"\d{1,2}(?:st|nd|rd|th)?"
_WD_ABBR = r"mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun"
_WD_FULL = dict(zip(("mon", "tue", "wed", "thu", "fri", "sat", "sun"), WEEKDAYS, strict=True))

# Alternatives are ordered most specific first; one regex, scanned once per text.
_CANDIDATE = re.compile(
    r"\b(?:"
    rf"(?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow)"
    rf"|(?:{_NUM})\s+(?:{_UNIT})s?\s+ago"
    rf"|(?:in|within)\s+(?:the\s+next\s+)?(?:{_NUM})\s+(?:{_UNIT})s?"
    rf"|(?:earlier|later)\s+this\s+(?:week|month|year)"
    rf"|(?:last|this|next|coming|past|previous)\s+(?:{_UNIT}|{_WD}|{_MONTH}|{_SEASON})\b"
    rf"|(?:last|this|next)\s+(?:{_WD_ABBR})\b"
    r"|the\s+other\s+day|(?:over|on|during)\s+the\s+weekend"
    rf"|(?:yesterday|today|tonight|tomorrow)(?:\s+(?:{_PART}))?"
    rf"|(?:{_WD}),?\s+(?:the\s+{_DAYNUM}|\d{{1,2}}(?:st|nd|rd|th)|{_DAYNUM}\s+(?:of\s+)?(?:{_MONTH})"
    rf"|(?:{_MONTH})\s+{_DAYNUM})\b(?:,?\s+\d{{4}})?"
    rf"|(?:{_WD})(?:\s+(?:{_PART}))?"
    rf"|{_DAYNUM}\s+(?:of\s+)?(?:{_MONTH})\b(?:,?\s+\d{{4}})?"
    rf"|(?:{_MONTH})\s+{_DAYNUM}\b(?:,?\s+\d{{4}})?"
    r"|\d{4}-\d{2}-\d{2}"
    r"|\d{1,2}/\d{1,2}/\d{2,4}"
    rf"|(?:in|since|during|by|until|of)\s+(?:early\s+|late\s+|mid-?)?(?:{_MONTH})\b(?:\s+\d{{4}})?"
    r"|(?:in|since|during)\s+(?:19|20)\d{2}\b"
    rf")(?:{_CLOCK})",
    re.I)

# Words that point a weekday or month at the future ("on Tuesday" in a plan).
_FUTURE = re.compile(
    r"\b(?:will|shall|going\s+to|gonna|plan(?:s|ning)?|schedul\w*|reschedul\w*|postpon\w*|"
    r"next|upcoming|coming|tomorrow|can'?t\s+wait|looking\s+forward|hope\s+to|want\s+to|"
    r"would\s+like|about\s+to|need\s+to|have\s+to|move\s+\w+(?:\s+\w+){0,3}\s+to|"
    r"push\s+\w+(?:\s+\w+){0,3}\s+to|until|till|remind|is\s+on|are\s+on|'ll|"
    r"(?:moved|pushed|shifted|changed)\s+(?:\w+\s+){0,4}?(?:to|until|for)|is\s+now|are\s+now)\b",
    re.I)

_WORD_NUM = {"a few": "3", "a couple of": "2", "a couple": "2", "couple of": "2",
             "several": "3"}
_FEW = re.compile(r"\b(a\s+few|a\s+couple\s+of|a\s+couple|couple\s+of|several)\b", re.I)
_GENERIC_MONTH_WORDS = {"may", "march", "mar", "jan", "sep", "oct", "dec", "nov", "aug",
                        "jun", "jul", "apr", "feb", "sept"}
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Anchor:
    """A resolved time anchor: ``time`` (epoch s), the expression it came from
    (empty on fallback) and whether the fallback time was used."""

    time: float
    text: str = ""
    fallback: bool = True


# Every candidate contains one of these; most sentences contain none, and this test
# is several times cheaper than the full pattern.
_QUICK = re.compile(
    rf"\d|ago\b|yesterday|today|tonight|tomorrow|week|month|year|\bdays?\b|night|morning|"
    rf"afternoon|evening|other\s+day|{_SEASON}|\b(?:{_WD})\b|\b(?:{_MONTH})\b|"
    rf"\b(?:last|this|next)\s+(?:{_WD_ABBR})\b", re.I)


def find_candidates(text: str) -> list[re.Match[str]]:
    """Candidate time expressions in ``text`` (cheap regex, no dateparser)."""
    if not _QUICK.search(text):
        return []
    out = []
    for m in _CANDIDATE.finditer(text):
        if _is_false_month(m.group(0)):
            continue
        out.append(m)
    return out


def _is_false_month(expr: str) -> bool:
    """"may", "march", "dec" in lower case with no digit are verbs or clippings."""
    words = expr.split()
    if any(ch.isdigit() for ch in expr):
        return False
    for w in words:
        if w.lower() in _GENERIC_MONTH_WORDS and w.islower():
            return True
    return False


def is_future(text: str) -> bool:
    """Whether the phrasing points forward (so a bare weekday/month is the next one)."""
    return bool(_FUTURE.search(text))


def resolve(text: str, message_time: float, fallback_time: float | None = None,
            future: bool | None = None) -> Anchor:
    """The first resolvable time expression of ``text`` against ``message_time``;
    else an anchor at ``fallback_time`` (or ``message_time``) with ``fallback``.
    ``future`` says whether a bare weekday or month is the next one (default:
    guessed from the wording)."""
    for m in find_candidates(text):
        if future is None:
            future = is_future(text)
        when = resolve_expression(m.group(0), message_time, future)
        if when is not None:
            return Anchor(when, _SPACE.sub(" ", m.group(0).strip()), False)
    base = message_time if fallback_time is None else fallback_time
    return Anchor(base, "", True)


def resolve_expression(expr: str, message_time: float, future: bool = False) -> float | None:
    """One time expression → epoch seconds, or None when it cannot be resolved."""
    e = _SPACE.sub(" ", expr.strip().lower())
    e = re.sub(r"^(?:in|since|during|by|until|of) (?=(?:early |late |mid-?)?[a-z]+( \d{4})?$)",
               "", e)
    e = re.sub(r"^(?:early|late|mid-?) ", "", e)
    e = re.sub(r"^(last|this|next) (" + _WD_ABBR + r")\b\.?$",
               lambda m: f"{m.group(1)} {_WD_FULL[m.group(2)[:3]]}", e)
    e = re.sub(r"^(?:over|on|during) the weekend$", "weekend", e)
    base = datetime.fromtimestamp(message_time, tz=UTC).replace(tzinfo=None)
    # "Friday, 17 January": the date says it; "Sunday the 16th": the day of the month.
    named = re.match(r"^(" + _WD + r"),? ", e)
    weekday = WEEKDAYS.index(named.group(1)) if named else None
    e = re.sub(r"^(?:" + _WD + r"),? (?=(?:the )?\d|(?:" + _MONTH + r") \d)", "", e)
    special = _special(e, base, future, weekday)
    if special is not None:
        return special.replace(tzinfo=UTC).timestamp()
    e = _FEW.sub(lambda m: _WORD_NUM[_SPACE.sub(" ", m.group(1).lower())], e)
    e = re.sub(r"^within ", "in ", e)
    e = re.sub(r"^in the next ", "in ", e)
    e = re.sub(r"^(?:this|coming|the coming) (?=" + _WD + ")", "", e)
    e = re.sub(r"^(?:past|previous) ", "last ", e)
    # dateparser reads "next tuesday" as the coming one, which is what people mean.
    pref = "future" if future or e.startswith(("next ", "in ")) else "past"
    parsed = _parse(e, base.isoformat(), pref)
    if parsed is None:
        return None
    return parsed.replace(tzinfo=UTC).timestamp()


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _month_number(word: str) -> int:
    w = word[:3]
    return _MONTHS.index(w) + 1 if w in _MONTHS and (len(word) == 3 or word == "sept" or
                                                      word.startswith(_MONTH_FULL[w])) else 0


_MONTH_FULL = dict(zip(_MONTHS, ("january", "february", "march", "april", "may", "june", "july",
                                 "august", "september", "october", "november", "december"),
                       strict=True))


def _day_month(n: int, month: int, day0: datetime, future: bool,
               weekday: int | None) -> datetime | None:
    """A day and month with no year: this year's, last or next year's, whichever lies
    on the named weekday and on the wanted side of ``day0`` (today counts as ahead)."""
    options = []
    for y in (day0.year - 1, day0.year, day0.year + 1):
        try:
            options.append(datetime(y, month, n))
        except ValueError:
            continue
    return _pick(options, day0, future, weekday)


def _pick(options: list[datetime], day0: datetime, future: bool,
          weekday: int | None) -> datetime | None:
    named = [d for d in options if weekday is None or d.weekday() == weekday]
    pool = named or options
    if not pool:
        return None
    ahead = [d for d in pool if d >= day0]
    behind = [d for d in pool if d <= day0]
    if future and ahead:
        return min(ahead)
    if not future and behind:
        return max(behind)
    return min(pool, key=lambda d: abs((d - day0).total_seconds()))


def _day_of_month(n: int, day0: datetime, future: bool, weekday: int | None) -> datetime | None:
    """The date with day-of-month ``n`` nearest ``day0`` (this, the previous or the next
    month) that falls on ``weekday`` where one was named, ahead when ``future``."""
    options = []
    for shift in (-1, 0, 1):
        y, mo = day0.year + (day0.month - 1 + shift) // 12, (day0.month - 1 + shift) % 12 + 1
        try:
            options.append(datetime(y, mo, n))
        except ValueError:
            continue
    return _pick(options, day0, future, weekday)


def _special(e: str, base: datetime, future: bool,
             weekday: int | None = None) -> datetime | None:
    """Expressions dateparser does not know: weekends, seasons, 'this week'."""
    day0 = base.replace(hour=0, minute=0, second=0, microsecond=0)
    m = re.fullmatch(r"(?:(last|this|next|coming|past|previous) )?weekend", e)
    if m:
        saturday = day0 + timedelta(days=(5 - day0.weekday()) % 7)
        which = m.group(1) or ("this" if future else "last")
        if which in ("last", "past", "previous"):
            return saturday - timedelta(days=7)
        if which == "next" and day0.weekday() < 5:
            return saturday + timedelta(days=7)
        return saturday
    m = re.fullmatch(r"(\S+(?: \S+)?) weekends? ago", e)
    if m:
        n = _count(m.group(1))
        if n is None:
            return None
        last_sat = day0 - timedelta(days=(day0.weekday() - 5) % 7 or 7)
        return last_sat - timedelta(days=7 * (n - 1))
    m = re.fullmatch(r"(last|this|next|coming|past|previous) (" + _SEASON + ")", e)
    if m:
        month = {"spring": 4, "summer": 7, "autumn": 10, "fall": 10, "winter": 1}[m.group(2)]
        year = base.year + {"last": -1, "past": -1, "previous": -1, "next": 1}.get(m.group(1), 0)
        if m.group(1) in ("last", "past", "previous") and month < base.month:
            year += 1
        if m.group(1) == "next" and month > base.month:
            year -= 1
        return datetime(year, month, 15)
    m = (re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)? (?:of )?([a-z]+)", e)
         or re.fullmatch(r"([a-z]+) (\d{1,2})(?:st|nd|rd|th)?", e))
    if m:
        day_s, month_s = (m.group(1), m.group(2)) if m.group(1).isdigit() else (m.group(2),
                                                                                 m.group(1))
        month = _month_number(month_s)
        if month:
            return _day_month(int(day_s), month, day0, future, weekday)
    m = re.fullmatch(r"(?:the )?(\d{1,2})(?:st|nd|rd|th)", e)
    if m:
        return _day_of_month(int(m.group(1)), day0, future, weekday)
    if e == "the other day":  # a vague "a couple of days ago"
        return base - timedelta(days=2)
    if e in ("this week", "earlier this week", "later this week", "this month",
             "earlier this month", "later this month", "this year", "earlier this year",
             "later this year", "today", "tonight"):
        return base
    if e in ("this morning", "today morning"):
        return day0 + timedelta(hours=9)
    if e in ("this afternoon",):
        return day0 + timedelta(hours=15)
    if e in ("this evening", "tonight evening"):
        return day0 + timedelta(hours=19)
    return None


def _count(word: str) -> int | None:
    word = _WORD_NUM.get(word, word)
    if word.isdigit():
        return int(word)
    small = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
    return small.get(word)


@lru_cache(maxsize=4096)
def _parse(expr: str, base_iso: str, prefer: str) -> datetime | None:
    return _dateparser_parse(expr, {"RELATIVE_BASE": datetime.fromisoformat(base_iso),
                                    "PREFER_DATES_FROM": prefer,
                                    "RETURN_AS_TIMEZONE_AWARE": False,
                                    "STRICT_PARSING": False})


def _dateparser_parse(expr: str, settings: dict[str, Any]) -> datetime | None:
    import dateparser  # imported lazily: ~0.3 s to load its language data

    try:
        return dateparser.parse(expr, languages=["en"], settings=settings)
    except (ValueError, OverflowError):
        return None
