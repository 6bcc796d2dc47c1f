"""Time anchors resolved per message: when does the stated thing hold or happen?

"yesterday", "last Friday", "in two weeks", "on 5 May 2023" are resolved against
the *message's own* time (never the session's, never the wall clock). dateparser
does the calendar arithmetic, but it is slow (~0.3 ms a call) and eager (it reads
"may" or "second" as dates), so a cheap regex first finds candidate expressions
and only those reach it. Phrases dateparser does not know ("a few days ago",
"this weekend") are rewritten or computed here. When nothing is found or nothing
resolves, the caller's fallback time is used and ``fallback`` says so.

Which way a bare weekday or date points is read from the grammar of its clause,
never from the event it names (``tense``, ``forward_at``): a modal or auxiliary
future ("will", "'ll", "going to", "about to"), a wish, need or request, an
imperative, the present tense ("leaves Friday", "is on Friday", "meets on
Wednesdays": schedules state what comes) and the destination of a plan verb
("pushed me to Thursday", "booked for Friday", "switched to Tuesdays") point
forward; the past tense ("-ed", irregular past forms, "was", "did", "ago") points
backward. An unmarked clause follows the caller's ``lean``. Forward, today's own
weekday is today; a recurring day ("on Wednesdays", "every Tuesday") is its next
occurrence at or after the message.

A message may also *change* an anchor rather than name one: "the 14th, not the
12th" (the rejected time is skipped), "starting this month" / "from next week on"
(the change takes effect then: ``Anchor.effective``), "pushed back a week",
"moved up two days", "same time next week" (a shift of the thing's previous anchor:
``Anchor.shift``; applied to ``previous`` when the caller knows it, else to the
message's own named date, else left to the linker through ``shifted``).

All times are epoch seconds; calendar arithmetic is done in UTC.
"""

from __future__ import annotations

import calendar
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from .lazyre import lazy_re
from .monthday import (
    DAY_NUMBER,
    MONTH_WORDS,
    MONTHS,
    ORDINAL,
    ORDINAL_WORD,
    SUFFIX,
    WEEKDAY_NAMES,
    WEEKDAYS,
)
from .text import folded_search

_WD = WEEKDAY_NAMES
_MONTH = MONTH_WORDS
_NUM = (r"\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
        r"a\s+few|a\s+couple(?:\s+of)?|couple\s+of|several")
_UNIT = r"minute|hour|day|night|week|weekend|fortnight|month|year"
_PART = r"morning|afternoon|evening|night"
_SEASON = r"spring|summer|autumn|fall|winter"
_CLOCK = r"(?:\s+at\s+\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?|\s+at\s+noon)?"
_DAYNUM = DAY_NUMBER
# A day of the month in words ("the nineteenth", "the twenty-first"), read as its figure.
_ORD_UNIT = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
             "ninth")
_ORD_TEEN = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
             "sixteenth", "seventeenth", "eighteenth", "nineteenth")
_ORD_TENS = {"twenty": 20, "thirty": 30}


def ordinal_value(word: str) -> int:
    """The number an ordinal word or numeral says ("twenty-ninth" 29, "12th" 12), else 0."""
    w = word.lower().replace(" ", "-")
    m = ORDINAL_WORD.fullmatch(w)
    if m:
        return int(m.group(1))
    if w in _ORD_WORDS:
        return _ORD_WORDS[w]
    if w in ("twentieth", "thirtieth"):
        return 20 if w == "twentieth" else 30
    tens, _, unit = w.partition("-")
    # "twenty-ninth" is an ordinal; "thirty-five" is not.
    return _ORD_TENS[tens] + _ORD_WORDS[unit] if tens in _ORD_TENS and unit in _ORD_WORDS \
        else 0


_ORD_WORDS = {w: i for i, w in enumerate(_ORD_UNIT + _ORD_TEEN, 1)}
# Written compactly: a long alternation of literals costs ``re`` a try of each.
_ORD_TEENS = "|".join((*_ORD_TEEN, "twentieth", "thirtieth"))
_ORD_WORD = rf"(?:(?:twenty|thirty)(?:-|\s+)(?:{'|'.join(_ORD_UNIT)})|{_ORD_TEENS}|{'|'.join(_ORD_UNIT)})"
# Alone ("on the nineteenth"), an ordinal below the fourth is as often a rank ("the first
# to arrive", "the second, not the third") as a day: only with a month or a weekday.
_ORD_ALONE = (rf"(?:(?:twenty|thirty)(?:-|\s+)(?:{'|'.join(_ORD_UNIT)})|{_ORD_TEENS}"
              rf"|{'|'.join(_ORD_UNIT[3:])})")
_ORD_WORD_RX = lazy_re(rf"\b{_ORD_WORD}\b")
_DAY_ANY = rf"(?:{_DAYNUM}|{_ORD_WORD})"
_WD_ABBR = r"mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun"
_WD_FULL = dict(zip(("mon", "tue", "wed", "thu", "fri", "sat", "sun"), WEEKDAYS, strict=True))
# The holidays of fixed date that people name as days ("he'll come for me Christmas Eve").
_HOLIDAYS = {"christmas eve": (12, 24), "christmas day": (12, 25), "boxing day": (12, 26),
             "new year's eve": (12, 31), "new year's day": (1, 1), "halloween": (10, 31),
             "valentine's day": (2, 14)}
# The words a holiday is named by ("Christmas", "Halloween"): the calendar's names, as
# weekdays and months are, not anyone's ("New" names much else: "New Year's Day" is read
# whole, ``holidays_lowered``).
HOLIDAY_WORDS = frozenset(h.split()[0].split("'")[0] for h in _HOLIDAYS) - {"new"}
_HOLIDAY = "|".join(h.replace("'", "['’]?").replace(" ", r"\s+") for h in _HOLIDAYS)
_HOLIDAY_ONLY = lazy_re(rf"(?:{_HOLIDAY})", re.I)


def is_holiday(expr: str) -> bool:
    """Whether a time expression is only a holiday's name ("Christmas Eve")."""
    return bool(_HOLIDAY_ONLY.fullmatch(expr.strip()))


_HOLIDAY_NAMED = lazy_re(rf"\b(?:{_HOLIDAY})\b", re.I)


def holidays_lowered(text: str) -> str:
    """``text`` with the holidays it names written in lower case, the same length ("for
    New Year's Day" -> "for new year's day"): a day, not anyone's name."""
    return _HOLIDAY_NAMED.sub(lambda m: m.group(0).lower(), text)


def _candidate_rx(day: str, alone: str) -> re.Pattern[str]:
    """The candidate pattern, with ``day`` for a day of the month beside a month or a
    weekday and ``alone`` for one said alone after "the" (besides its figures).
    Alternatives are ordered most specific first; one regex, scanned once per text.
    Compiled at its first use (``lazy_re``): ~5,000 characters each, the two took ~10 ms
    of every query process's imports."""
    return lazy_re(
        r"\b(?:"
        rf"(?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow)"
        r"|the\s+week(?:end)?\s+(?:before\s+last|after\s+next)"
        rf"|(?:{_NUM})\s+(?:{_UNIT})s?\s+ago"
        rf"|(?:in|within)\s+(?:the\s+next\s+)?(?:{_NUM})\s+(?:{_UNIT})s?"
        rf"|(?:earlier|later)\s+this\s+(?:week|month|year)"
        # ("next Friday, the 24th": the weekday and its day of the month, read whole below.)
        rf"|(?:last|this|next|coming|past|previous)\s+(?:{_WD})\b(?!,?\s+the\s+(?:{day})\b)"
        rf"|(?:last|this|next|coming|past|previous)\s+(?:{_UNIT}|{_MONTH}|{_SEASON})\b"
        rf"|(?:last|this|next)\s+(?:{_WD_ABBR})\b"
        r"|the\s+other\s+day|(?:over|on|during)\s+the\s+weekend"
        rf"|(?:yesterday|today|tonight|tomorrow)(?:\s+(?:{_PART}))?"
        # ("Saturday the 12th of September": the weekday, its day and the month, whole.)
        rf"|(?:{_WD}),?\s+(?:(?:the\s+)?{day}\s+(?:of\s+)?(?:{_MONTH})|the\s+{day}"
        rf"|{ORDINAL}"
        rf"|(?:{_MONTH})\s+{day})\b(?:,?\s+\d{{4}})?"
        rf"|(?:{_WD})(?:\s+(?:{_PART}))?"
        rf"|{day}\s+(?:of\s+)?(?:{_MONTH})\b(?:,?\s+\d{{4}})?"
        # "on the 14th", "it's the 14th, not the 12th": a day of the month alone only where
        # nothing follows it ("on the 2nd attempt" is none) and not a rank "in the 3rd".
        # Or the subject of "is" ("the 19th's fine"). A dash ends its clause as a comma
        # does ("off till the 10th — leaving at 6"); a preposition or conjunction after it
        # opens another phrase ("on the 23rd for Christmas"), where a rank's noun would
        # follow ("the 2nd attempt").
        rf"|(?<!\bin\s)the\s+(?:{ORDINAL}|{alone})\b(?=\s*(?:[,.;:!?)—–]|$)"
        r"|\s+-\s|\s+(?:not|instead|rather|or|at|to|until|till|now|then|for|with|when|too"
        r"|as\s+well|again"
        r"|from\s+(?:now|next|then|this))\b|['’]s\b"
        # ("on the 29th and lend me a car": "and" opens another clause, not "the 29th
        # and 30th", a list of days, nor "the 2nd and final attempt", a rank)
        r"|\s+and\b(?!\s+(?:the\s+)?\d|\s+(?:final|last)\b))"
        # "20th, 9:15 from Kings Cross": one heading a sentence, its clock time after it;
        # "Nineteenth's my last day": one heading a sentence as the subject of "is".
        rf"|(?:^|(?<=[.!?;:]\s)){ORDINAL}\b(?=,\s*\d|\s+at\s+\d|['’]s\b)"
        rf"|(?:^|(?<=[.!?;:]\s)){alone}\b(?=['’]s\b)"
        rf"|(?:{_MONTH})\s+{day}\b(?:,?\s+\d{{4}})?"
        rf"|(?:{_HOLIDAY})\b"
        r"|\d{4}-\d{2}-\d{2}"
        r"|\d{1,2}/\d{1,2}/\d{2,4}"
        rf"|(?:in|since|during|by|until|of)\s+(?:(?:early|late|mid)[\s-]+)?(?:{_MONTH})\b(?:\s+\d{{4}})?"
        r"|(?:in|since|during)\s+(?:19|20)\d{2}\b"
        rf")(?:{_CLOCK})",
        re.I)


_CANDIDATE = _candidate_rx(_DAYNUM, r"(?!)")
# With the days in words ("the nineteenth"): a longer pattern, used on the texts that
# say an ordinal (``_says_ordinal``, a substring test).
_CANDIDATE_WORDS = _candidate_rx(_DAY_ANY, _ORD_ALONE)
_ORDINAL_PARTS = (*_ORD_UNIT, *_ORD_TEEN[:3], "teenth", "twentieth", "thirtieth")


def _says_ordinal(text: str) -> bool:
    """Whether ``text`` may say an ordinal in words (a substring test, cheap)."""
    low = text.lower()
    return any(w in low for w in _ORDINAL_PARTS)


# -- tense and mood ---------------------------------------------------------------------
# Closed-class grammar only (auxiliaries, modals, the irregular past forms of English
# verbs, determiners): no list of events. Strong future marks beat the past tense ("I
# told her I'll come on Friday"); the past beats the present ("the film we saw is on
# Friday" is rare, "I'm glad we went on Friday" is not).

# A future by auxiliary, intention, wish, need or request, or a start ahead ("from now").
_FUTURE_AUX = lazy_re(
    r"'ll\b|\b(?:will|shall|won'?t|gonna|wanna|gotta|about\s+to|going\s+to|"
    r"(?:want|need|have|has|hope|plan|intend|expect|mean|wish)(?:s|ing)?\s+to|"
    r"(?:would|'d)\s+(?:like|love|rather|prefer)|can'?t\s+wait|look(?:s|ing)?\s+forward|"
    r"let'?s|let\s+us|remind|remember\s+to|don'?t\s+forget|make\s+sure|please|"
    r"(?:can|could|would|will)\s+(?:you|we)|should|must|might|from\s+(?:now|next))\b", re.I)
# "was going to", "were about to": a future seen from the past is past.
_WAS_GOING = lazy_re(r"\b(?:was|were)\s+(?:going\s+to|gonna|about\s+to)\b", re.I)
_PAST_AUX = lazy_re(
    r"\b(?:was|were|wasn'?t|weren'?t|did|didn'?t|had|hadn'?t|couldn'?t|used\s+to|ago|"
    r"yesterday|last\s+(?:night|week|weekend|month|year|time))\b", re.I)
# Irregular past forms (words that are also common nouns or present forms left out:
# "read", "put", "set", "shot", "bit", "rose", "sat").
_PAST_IRREGULAR = lazy_re(
    r"\b(?:went|came|saw|took|made|met|ran|gave|found|wrote|bought|built|won|taught|began|"
    r"spent|brought|ate|drove|flew|sang|swam|held|told|felt|kept|sent|heard|sold|thought|"
    r"lost|paid|caught|said|knew|grew|threw|wore|woke|rode|broke|spoke|stole|chose|froze|"
    r"fell|forgot|became|stood|understood|slept|fought|shook|forgave|dug|hung|slid|stuck|"
    r"struck|swung|meant|dealt|fled|lent|wept|swept|crept|leapt|knelt|rang|drank|sank|"
    r"shone|hid|arose|awoke|overslept|mistook|withdrew|(?<!the\s)(?<!on\s)(?<!to\s)left|"
    r"(?<!'ve\s)(?<!have\s)(?<!has\s)(?<!'s\s)got)\b", re.I)
_ED = lazy_re(r"\b[a-z]{3,}ed\b", re.I)
# A word before an "-ed" form that makes it an adjective or a passive in the present
# ("the updated plan", "I'm excited", "is scheduled for"), not a past tense.
_ED_NOT_PAST_BEFORE = frozenset((
    "the", "a", "an", "my", "your", "our", "his", "her", "their", "its", "this", "that",
    "these", "those", "is", "are", "am", "be", "been", "being", "get", "gets", "getting",
    "feel", "feels", "seem", "seems", "look", "looks", "so", "very", "really", "super", "too",
    "pretty", "quite", "kinda", "totally", "all", "more", "most", "less", "fully", "well",
    "i'm", "you're", "we're", "they're", "it's", "he's", "she's", "that's", "not", "now"))
_ED_NOT_VERB = frozenset(("hundred", "sacred", "naked", "wicked", "beloved", "kindred",
                          "rugged", "ragged", "jagged", "crooked", "wretched"))
_PRESENT = lazy_re(
    r"'m\b|'re\b|\b(?:it|he|she|that|there|what|who|here|where|everything|nothing)'s\b|"
    r"\b(?:am|is|are|isn'?t|aren'?t|do|does|don'?t|doesn'?t|has|have|can|tonight|tomorrow|"
    r"next|upcoming|every|each)\b", re.I)
# A base-form verb opening a clause and taking an object: an imperative ("Call me on
# Sunday", "Take the bins out Tuesday").
_IMPERATIVE = lazy_re(
    r"^(?:(?:ok|okay|so|and|actually|please|hey|oh|also|then|just|but|now)\b[,\s]*)*"
    r"(?P<verb>[a-z]+)\s+(?:the|a|an|my|your|our|his|her|their|me|you|us|him|them|it|this|that|"
    r"these|those|up|out|down|off|back|over)\b", re.I)
_NOT_VERBS = frozenset((
    "i", "you", "we", "they", "he", "she", "it", "there", "here", "this", "that", "these",
    "those", "the", "a", "an", "my", "your", "our", "his", "her", "their", "what", "who",
    "when", "where", "why", "how", "which", "if", "as", "at", "in", "on", "for", "with",
    "from", "by", "to", "of", "and", "but", "or", "so", "then", "all", "some", "both", "one",
    "last", "next", "every", "each", "today", "tomorrow", "yesterday", "tonight", "after",
    "before", "since", "until", "because", "while", "once", "about", "over", "up", "out",
    *WEEKDAYS))
# A verb that plans or moves a thing in time: what follows "to"/"for" is its new time
# ("pushed me to Thursday", "booked the haircut for Friday", "I've rebooked it for
# February 18"), whatever its tense. The planning verbs take "re-" for doing it again
# ("rebook", "re-arrange", "replan", "reset"); the moving verbs do not ("remove").
_RE_PLAN = r"schedul\w*|book\w*|plan\w*|arrang\w*|set|sets|setting|slot\w*|confirm\w*"
_PLAN_VERB = (rf"(?:re-?)?(?:{_RE_PLAN})|mov(?:e|ed|es|ing)|"
              r"push\w*|shift\w*|switch\w*|chang\w*|postpon\w*|delay\w*|bump\w*|swap\w*|put|puts|"
              r"putting|bring\w*|brought|pencil\w*|reserv\w*|fix\w*")
_DESTINATION = lazy_re(
    rf"\b(?:{_PLAN_VERB})\b[^.!?;:]{{0,60}}?\b(?:to|for|until|till|into)\s+$", re.I)
# A bare hour a moving verb (not a planning one: "booked for 9" says no change) takes a
# thing to ("has moved to 9", "pushed it to 8.30").
# The hours in words (the query's clock readers use them too).
HOUR_WORDS = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
# (an hour in words, "half" before it or not: "moved to half eight", "going to eleven")
_TO_HOUR = lazy_re(r"\b(?:moved|moving|pushed|put|brought|changed|switched|shifted|going|gone)"
                   r"(?:\s+\w+){0,2}?\s+to\s+(\d{1,2}(?:[:.]\d{2})?(?![\w:.]*\d)"
                   rf"|(?:half\s+)?{HOUR_WORDS}(?![\w-]))\b"
                   # not a count of something ("going to twelve people", "one of")
                   r"(?!\s+(?:of|people|[a-z]{3,}s)\b)", re.I)


def destination_hour(text: str) -> str:
    """The bare hour ``text`` moves a thing to ("9" in "my lesson has moved to 9"), or ''."""
    m = _TO_HOUR.search(text)
    return m.group(1) if m else ""


_EFFECTIVE = lazy_re(r"\b(?:starting|beginning|commencing|effective|as\s+of|from)\s+$", re.I)
_REJECTED = lazy_re(r"\b(?:not|instead\s+of|rather\s+than|no\s+longer|isn'?t|aren'?t|"
                    r"wasn'?t|weren'?t)\s+(?:(?:on|at|for|in)\s+)?$", re.I)
# A change of time away from a day ("moved from Monday to ..."): the moving verbs, and
# the planning verbs done again ("rebooked from the 3rd to the 5th"; "booked from
# Monday to Friday" is a span).
_CHANGE_FROM = lazy_re(rf"\b(?:mov|push|shift|switch|chang|postpon|bump|brought|bring|swap|"
                       rf"delay|re-?(?:{_RE_PLAN}))\w*\b[^.!?;]{{0,60}}?\bfrom\s+$", re.I)
_BE_NOW = lazy_re(r"(?:'m|'re|'s|\b(?:is|are|am))\s+(?:(?:now|still|also|then|actually|"
                  r"definitely|probably|due|on|at|this|every)\s+){0,3}$", re.I)
_BE_PAST = lazy_re(r"\b(?:was|were)\s+(?:(?:still|also|then|actually|on|at|this|every)\s+)"
                   r"{0,3}$", re.I)
_THIRD_SINGULAR = lazy_re(r"\b([a-z]+[^s\W'])s\s+(?:(?:on|at|this|every|each|from|until|"
                          r"till)\s+)?$", re.I)
_NOT_THIRD = frozenset(("is", "was", "has", "does", "this", "its", "his", "us", "plus",
                        "always", "sometimes", "perhaps", "besides", "thanks", "news", "yes",
                        "days", "weeks", "months", "years", "hours", "minutes", "times",
                        "nights", "mornings", "evenings", "afternoons", "weekends"))
# Where the clause around a date or weekday ends (``_clause``, by offsets): besides
# ``language.clauses``' cut, at subordinators that open a time of their own ("when",
# "although", "whereas"), and not at a comma before a figure ("Friday, 3pm").
_CLAUSE_END = lazy_re(r"[.;!?]+(?:\s+|$)|\s+-\s+|,\s+(?!\d)|\s+(?:and|but|because|"
                      r"while|although|though|when|whereas)\s+", re.I)
_RECUR_BEFORE = lazy_re(r"\b(?:every|each)\s+(?:other\s+|single\s+)?$", re.I)
_RECUR_AFTER = lazy_re(r"s\b(?:\s+at\s+(\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?|noon)"
                       r"(?![\w:]))?", re.I)
_BARE_WD = lazy_re(rf"({_WD})(?: ({_PART}))?(?: at (?:(\d{{1,2}})(?::(\d{{2}}))? ?"
                   r"(am|pm|a\.m\.|p\.m\.)?|(noon)))?")
_PART_HOUR = {"morning": 9, "afternoon": 15, "evening": 18, "night": 20}


# A preposition of time with the phrase it opens: "at the start of term", "after the
# first one left", "during the refit", "till the new year".
_DATING_PHRASE = lazy_re(r"\b(?:at|after|during|until|till)\s+(?:the|a|an|my|your|his|her|"
                         r"our|their)\b", re.I)


def dated_by_phrase(question: str) -> bool:
    """Whether a question dates what it asks by a phrase of time or of an event it
    names ("What was her weight at the first clinic visit?", "How many students did I
    have after the first one left?"): it asks what held then, not the last word of it."""
    return bool(_DATING_PHRASE.search(question))


def tense(text: str) -> str:
    """The tense or mood that sets which way ``text``'s times point: "future" (a modal or
    auxiliary future, a wish or request), "past", "present" (a present-tense verb, a
    progressive, an imperative) or "" when the text marks none."""
    t = _WAS_GOING.sub(" was ", text)
    if _FUTURE_AUX.search(t):
        return "future"
    if _is_past(t):
        return "past"
    if _PRESENT.search(t) or _imperative(t):
        return "present"
    return ""


def _is_past(text: str) -> bool:
    if _PAST_AUX.search(text) or _PAST_IRREGULAR.search(text):
        return True
    for m in _ED.finditer(text):
        word = m.group(0).lower()
        if word.endswith("eed") or word in _ED_NOT_VERB:
            continue
        before = text[:m.start()].split()
        if before and before[-1].lower().replace("\u2019", "'") in _ED_NOT_PAST_BEFORE:
            continue
        return True
    return False


def _imperative(text: str) -> bool:
    m = _IMPERATIVE.match(text.strip())
    if not m:
        return False
    verb = m.group("verb").lower()
    return verb not in _NOT_VERBS and not verb.endswith(("ed", "ing", "ly", "s"))


def _clause(text: str, pos: int) -> str:
    """The clause of ``text`` around character ``pos``."""
    start, end = 0, len(text)
    for m in _CLAUSE_END.finditer(text):
        if m.end() <= pos:
            start = m.end()
        elif m.start() >= pos:
            end = m.start()
            break
    return text[start:end]


def forward_at(text: str, pos: int, lean: bool = False) -> bool:
    """Whether a bare weekday or date at character ``pos`` of ``text`` points forward:
    the new time of a plan verb ("pushed me to Thursday"), a copula right before it ("is
    on Friday" / "was on Friday"), else the tense of its clause, else a present-tense
    verb right before it ("leaves Friday"), else the tense of the whole text, else
    ``lean``."""
    way = _direction(text, pos)
    return way != "past" if way else lean


def _direction(text: str, pos: int) -> str:
    """``forward_at``'s reading: "future" (a future, a plan verb's new time), "present",
    "past", or "" when nothing marks it."""
    before = text[:pos]
    if _DESTINATION.search(before) or _EFFECTIVE.search(before):
        return "future"
    if _BE_NOW.search(before):
        return "present"
    if _BE_PAST.search(before):
        return "past"
    t = tense(_clause(text, pos))
    if t:
        return t
    if _SUBJECT_IS.match(text, pos):  # "saturday's the big day": said of a day ahead
        return "present"
    third = _THIRD_SINGULAR.search(before)
    if third and third.group(1).lower() + "s" not in _NOT_THIRD:
        return "present"
    return tense(text)


# A time that is the subject of a present copula ("saturday's the big day").
_SUBJECT_IS = lazy_re(r"[a-z]+(?:'s|’s|\s+is)\s+(?:the|a|an|my|our|when)\b", re.I)

_WORD_NUM = {"a few": "3", "a couple of": "2", "a couple": "2", "couple of": "2",
             "several": "3"}
_FEW = lazy_re(r"\b(a\s+few|a\s+couple\s+of|a\s+couple|couple\s+of|several)\b", re.I)
_GENERIC_MONTH_WORDS = {"may", "march", "mar", "jan", "sep", "oct", "dec", "nov", "aug",
                        "jun", "jul", "apr", "feb", "sept"}
_SPACE = lazy_re(r"\s+")


@dataclass(frozen=True)
class Anchor:
    """A resolved time anchor: ``time`` (epoch s), the expression it came from
    (empty on fallback) and whether the fallback time was used.

    ``shift``: a change stated relative to the thing's previous time ("pushed back a
    week"), as said; when neither the caller's ``previous`` nor a date named in the
    message could carry it, ``fallback`` is true, ``text`` is the phrase and the linker
    applies it with ``shifted(previous, text)``. ``effective``: when a stated change
    takes effect ("starting this month": the 1st), or None."""

    time: float
    text: str = ""
    fallback: bool = True
    shift: str = ""
    effective: float | None = None


# Every candidate contains one of these; most sentences contain none, and this test
# is several times cheaper than the full pattern.
_QUICK = lazy_re(
    rf"\d|ago\b|yesterday|today|tonight|tomorrow|week|month|year|\bdays?\b|night|morning|"
    rf"afternoon|evening|other\s+day|{_SEASON}|\b(?:{_WD})s?\b|\b(?:{_MONTH})\b|"
    rf"\b(?:last|this|next)\s+(?:{_WD_ABBR})\b|{_HOLIDAY}", re.I)

_quick = folded_search(_QUICK)


def find_candidates(text: str) -> list[re.Match[str]]:
    """Candidate time expressions in ``text`` (cheap regex, no dateparser)."""
    return list(_candidates(text))


@lru_cache(maxsize=32768)
def _candidates(text: str) -> tuple[re.Match[str], ...]:
    """``find_candidates``, kept per text: the readers, the chain and the revision
    judgements look for the times of the same records again and again."""
    words = _says_ordinal(text)  # a day in words ("the nineteenth") needs no figure
    if not words and not _quick(text):
        return ()
    rx = _CANDIDATE_WORDS if words else _CANDIDATE
    return tuple(m for m in rx.finditer(text) if not _is_false_month(m.group(0)))


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
    """Whether the phrasing points forward (so a bare weekday/month is the next one), read
    at its first time expression (``forward_at``; "We planned it for Friday" is ahead),
    else from its tense: a future, a wish or request, an imperative or the present.
    Callers resolving several expressions of one text should ask ``forward_at`` for each."""
    cands = find_candidates(text)
    if cands:
        return forward_at(text, cands[0].start())
    return tense(text) in ("future", "present")


def resolve(text: str, message_time: float, fallback_time: float | None = None,
            future: bool | None = None, *, previous: float | None = None,
            lean: bool = False) -> Anchor:
    """The first resolvable time expression of ``text`` against ``message_time``;
    else an anchor at ``fallback_time`` (or ``message_time``) with ``fallback``.

    ``future`` says whether a bare weekday or date is the next one; None (the default)
    reads it per expression from the grammar around it (``forward_at``), ``lean``
    deciding a clause that marks no tense. A time the message rejects ("not the 12th",
    "instead of Monday", "moved from Monday to …") is skipped; one a change starts from
    ("starting next month") becomes ``effective`` and the other times are read from it.
    A shift ("pushed back a week", "moved up two days", "same time next week") moves
    ``previous`` (the thing's earlier anchor) when given, else the date the message
    names; with neither it falls back, keeping the phrase in ``text`` and ``shift``."""
    cands = find_candidates(text)
    shift = _find_shift(text)
    values: list[re.Match[str]] = []
    effective: re.Match[str] | None = None
    for k, m in enumerate(cands):
        if shift is not None and shift.start <= m.start() < shift.end:
            continue  # "same time next week": part of the shift
        before = text[:m.start()]
        if _REJECTED.search(before):
            continue  # "the 14th, not the 12th"
        nxt = cands[k + 1] if k + 1 < len(cands) else None
        to_next = nxt is not None and bool(_TO_NEXT.fullmatch(text[m.end():nxt.start()]))
        if to_next and _CHANGE_FROM.search(before):
            continue  # "moved from Monday to Tuesday": Monday no longer holds
        if _EFFECTIVE.search(before) and not (to_next and before.rstrip().lower()
                                              .endswith("from")):
            effective = effective or m  # "starting this month"; "from Monday to Friday" is a span
            continue
        values.append(m)
    base = message_time if fallback_time is None else fallback_time
    if shift is not None and not any(_DESTINATION.search(text[:m.start()])
                                     or _BE_NOW.search(text[:m.start()]) for m in values):
        # A time stated as the new one ("to Monday", "is now Friday") wins over a shift.
        return _shift_anchor(shift, values, message_time, previous, base)
    start = _effective_start(effective.group(0), message_time) if effective else None
    for m in values:
        expr, recurring, said = _recurrence(text, m)
        way = _direction(text, m.start()) if future is None else ""
        fwd = future if future is not None else (way != "past" if way else lean or recurring)
        at = start if start is not None and fwd and start > message_time else message_time
        when = resolve_expression(expr, at, fwd)
        if way == "present" and when is not None and _YEARLESS_DATE.search(expr):
            # "My birthday is May 5th": only the year is open, and a date just past is
            # likelier than one almost a year ahead: the nearer of the two.
            behind = resolve_expression(expr, at, False)
            if behind is not None and abs(behind - at) < abs(when - at):
                when = behind
        if when is None:
            continue
        if recurring and fwd and when < message_time and " " in expr.strip():
            when += 7 * 86400.0  # "Wednesdays at 7" said at 8 pm: next week's
        return Anchor(when, _SPACE.sub(" ", said.strip()), False, effective=start)
    if effective is not None and start is not None:
        return Anchor(start, _SPACE.sub(" ", effective.group(0).strip()), False,
                      effective=start)
    return Anchor(base, "", True)


_YEARLESS_DATE = lazy_re(rf"^(?:(?:{_WD}),? )?(?:{_DAY_ANY} (?:of )?(?:{_MONTH})|(?:{_MONTH}) "
                         rf"{_DAY_ANY})$", re.I)
_TO_NEXT = lazy_re(r"\s*,?\s*(?:to|until|till|through|thru|-)\s+", re.I)


def _recurrence(text: str, m: re.Match[str]) -> tuple[str, bool, str]:
    """For candidate ``m``: the expression to resolve, whether it names a recurring day
    ("on Wednesdays at 7", "every Tuesday", "Tuesday evenings") and how it was said."""
    expr = m.group(0)
    if not _BARE_WD.fullmatch(_SPACE.sub(" ", expr.strip().lower())):
        return expr, False, expr
    after = _RECUR_AFTER.match(text, m.end())
    if after:
        said = text[m.start():after.end()]
        if after.group(1) and " at " not in expr.lower():
            return f"{expr} at {after.group(1)}", True, said
        return expr, True, said
    return expr, bool(_RECUR_BEFORE.search(text[:m.start()])), expr


def _effective_start(expr: str, message_time: float) -> float | None:
    """When a change "starting <expr>" takes effect: the first day of a named week,
    month or year ("starting this month": the 1st), else the time ``expr`` names ahead."""
    e = _SPACE.sub(" ", expr.strip().lower())
    day0 = datetime.fromtimestamp(message_time, tz=UTC).replace(
        hour=0, minute=0, second=0, microsecond=0)
    m = re.fullmatch(r"(this|next|coming) (week|month|year)", e)
    if m:
        k = 0 if m.group(1) == "this" else 1
        if m.group(2) == "week":
            start = day0 - timedelta(days=day0.weekday()) + timedelta(weeks=k)
        elif m.group(2) == "month":
            months = day0.year * 12 + day0.month - 1 + k
            start = day0.replace(year=months // 12, month=months % 12 + 1, day=1)
        else:
            start = day0.replace(year=day0.year + k, month=1, day=1)
        return start.timestamp()
    if e in ("today", "tonight", "tomorrow"):
        return (day0 + timedelta(days=e == "tomorrow")).timestamp()
    return resolve_expression(expr, message_time, True)


# "From January it's the second Wednesday", "going to Fridays from March": a change that
# starts in a named month (a bare month is no time candidate of ``resolve``).
_FROM_MONTH = lazy_re(rf"\b(?:from|starting|beginning|as\s+of)\s+(?:the\s+(?:start|beginning)"
                      rf"\s+of\s+)?(?P<month>{'|'.join(MONTHS)})\b"
                      rf"(?!\s+(?:\d|(?-i:[A-Z])))", re.I)


def takes_effect(text: str, message_time: float) -> float | None:
    """When a change ``text`` tells (at ``message_time``) takes effect, where it says
    ("starting next month": the 1st; "from January": the 1st of the next January), else
    None."""
    effective = resolve(text, message_time).effective
    if effective is not None:
        return effective
    m = _FROM_MONTH.search(text)
    if m is None:
        return None
    told = datetime.fromtimestamp(message_time, tz=UTC)
    month = _month_number(m.group("month").lower())
    year = told.year + (month < told.month)
    return datetime(year, month, 1, tzinfo=UTC).timestamp()


# -- anchor shifts ----------------------------------------------------------------------
_SHIFT_UNIT = r"minute|hour|day|night|week|fortnight|month|year"
# Every shift names a unit and a direction; substring tests in C rule out most texts.
_SHIFT_UNITS = ("minute", "hour", "day", "night", "week", "fortnight", "month", "year",
                "tomorrow")
_SHIFT_WAYS = ("back", "up", "forward", "out", "later", "earlier", "delay", "postpon", "same",
               "push", "bump", "slip", "slid")
# Verbs that move a time later when no direction is said ("pushed a week", "bumped again,
# another week", "slipped two days"); "moved it two days" says no direction.
_LATER_VERBS = ("delay", "postpon", "push", "bump", "slip", "slid")
_SHIFT = lazy_re(
    r"\b(?:(?P<verb>push(?:ed|es|ing)?|mov(?:e|ed|es|ing)|bump(?:ed|s|ing)?|"
    r"shift(?:ed|s|ing)?|bring(?:s|ing)?|brought|set(?:s|ting)?|put(?:s|ting)?|"
    r"pull(?:ed|s|ing)?|slid(?:e|es|ing)?|slip(?:ped|s|ping)?|delay(?:ed|s|ing)?|"
    r"postpon(?:e|ed|es|ing))"
    r"(?:\s+(?!(?:back|forward|up|out|by|for|a|an)\b)[\w'-]+,?){0,4}?"
    r"\s+(?:(?P<dir>back|forward|up|out|earlier|later)\s+)?(?:(?:by|for)\s+)?"
    rf"(?P<n>{_NUM}|another)\s+(?P<unit>{_SHIFT_UNIT})s?(?:\s+(?P<dir2>later|earlier|back|forward))?"
    rf"|(?P<n2>{_NUM})\s+(?P<unit2>{_SHIFT_UNIT})s?\s+(?P<dir3>later|earlier)\s+than\b"
    r"|same\s+time\s+(?P<same>next\s+week|next\s+month|tomorrow)"
    r")\b(?!\s+ago)", re.I)


class _Shift:
    """A stated change of a thing's time: ``n`` (signed) ``unit``s, said as ``phrase``."""

    __slots__ = ("end", "n", "phrase", "start", "unit")

    def __init__(self, m: re.Match[str], n: int, unit: str) -> None:
        self.start, self.end = m.start(), m.end()
        self.phrase = _SPACE.sub(" ", m.group(0).strip())
        self.n, self.unit = n, unit

    def apply(self, t: float) -> float:
        d = datetime.fromtimestamp(t, tz=UTC)
        if self.unit in ("month", "year"):
            months = d.year * 12 + d.month - 1 + self.n * (12 if self.unit == "year" else 1)
            y, mo = months // 12, months % 12 + 1
            last = (datetime(y + mo // 12, mo % 12 + 1, 1) - timedelta(days=1)).day
            return d.replace(year=y, month=mo, day=min(d.day, last)).timestamp()
        days = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1, "night": 1, "week": 7,
                "fortnight": 14}[self.unit]
        return t + self.n * days * 86400.0


_TO_SOMEWHEN = lazy_re(r"\s+(?:to|till|until|onto)\s+(?:the\s+)?(?:\d|[A-Za-z]+day\b)",
                       re.I)


def _find_shift(text: str) -> _Shift | None:
    """The first shift of a thing's time that ``text`` states with a clear direction."""
    low = text.lower()
    if not any(u in low for u in _SHIFT_UNITS) or not any(w in low for w in _SHIFT_WAYS):
        return None
    for m in _SHIFT.finditer(text):
        if _TO_SOMEWHEN.match(text, m.end()):
            continue  # "bumped a week to the 25th": the time it moves to is said
        if m.group("same"):
            which = m.group("same").lower()
            return _Shift(m, 1, "day" if which == "tomorrow" else which.split()[-1])
        n = _count(_SPACE.sub(" ", (m.group("n") or m.group("n2")).lower()))
        unit = (m.group("unit") or m.group("unit2")).lower()
        way = (m.group("dir") or m.group("dir2") or m.group("dir3") or "").lower()
        verb = (m.group("verb") or "").lower()
        if way in ("back", "out", "later") or not way and verb.startswith(_LATER_VERBS):
            sign = 1
        elif way in ("forward", "up", "earlier"):
            sign = -1
        else:
            continue  # "moved it two days": no direction said
        if n is not None:
            return _Shift(m, sign * n, unit)
    return None


def _shift_anchor(shift: _Shift, values: list[re.Match[str]], message_time: float,
                  previous: float | None, fallback: float) -> Anchor:
    if previous is not None:
        return Anchor(shift.apply(previous), shift.phrase, False, shift=shift.phrase)
    for m in values:
        # The thing's own date named in the message ("the Friday dinner got pushed back a
        # week"): a plan is moved before it happens, so the date is read ahead.
        when = resolve_expression(m.group(0), message_time, True)
        if when is not None:
            return Anchor(shift.apply(when), f"{_SPACE.sub(' ', m.group(0).strip())}, "
                          f"{shift.phrase}", False, shift=shift.phrase)
    if shift.phrase.lower().startswith("same"):
        return Anchor(shift.apply(message_time), shift.phrase, False, shift=shift.phrase)
    return Anchor(fallback, shift.phrase, True, shift=shift.phrase)


def shifted(previous: float, text: str) -> float | None:
    """``previous`` moved by the shift ``text`` states ("pushed back a week": +7 days;
    "moved up two days": -2 days), or None when it states none. For the linker, which
    knows a thing's previous anchor when the extractor did not."""
    shift = _find_shift(text)
    return None if shift is None else shift.apply(previous)


# The days beside the message's own, read as dateparser reads them (the same moment a day
# earlier or later, whichever date it prefers): asked without it, since its first use in
# a process costs ~0.3 s (its import and its time-zone patterns), and a `trace-ros query`
# for "when did I ..." met "yesterday" in the evidence it read.
_NEXT_DAYS = {"yesterday": -1, "today": 0, "tomorrow": 1}


_AT_CLOCK = lazy_re(r"\s+at\s+(?:(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?|noon)$")


def ordinal_figures(expr: str) -> str:
    """``expr`` (lower case) with its days of the month in words as figures ("the
    nineteenth" -> "the 19th", "twenty-first of march" -> "21st of march")."""
    def figure(m: re.Match[str]) -> str:
        n = ordinal_value(re.sub(r"\s+", "-", m.group(0)))
        return f"{n}{_SUFFIX.get(n % 10, 'th') if n // 10 != 1 else 'th'}"
    return _ORD_WORD_RX.sub(figure, expr)


_SUFFIX = {1: "st", 2: "nd", 3: "rd"}


def resolve_expression(expr: str, message_time: float, future: bool = False) -> float | None:
    """One time expression → epoch seconds, or None when it cannot be resolved."""
    e = _SPACE.sub(" ", expr.strip().lower())
    e = ordinal_figures(e)
    # "in mid-January", "in early March", "in late-October": the month (its part is read by
    # ``window_point``).
    e = re.sub(r"^(?:in|since|during|by|until|of) (?=(?:(?:early|late|mid)[- ])?[a-z]+( \d{4})?$)",
               "", e)
    e = re.sub(r"^(?:early|late|mid)[- ]", "", e)
    e = re.sub(r"^(last|this|next) (" + _WD_ABBR + r")\b\.?$",
               lambda m: f"{m.group(1)} {_WD_FULL[m.group(2)[:3]]}", e)
    e = re.sub(r"^(?:over|on|during) the weekend$", "weekend", e)
    base = datetime.fromtimestamp(message_time, tz=UTC).replace(tzinfo=None)
    # "Friday, 17 January": the date says it; "Sunday the 16th": the day of the month.
    named = re.match(r"^(" + _WD + r"),? ", e)
    weekday = WEEKDAYS.index(named.group(1)) if named else None
    e = re.sub(r"^(?:" + _WD + r"),? (?=(?:the )?\d|(?:" + _MONTH + r") \d)", "", e)
    special = _special(e, base, future, weekday)
    clock = _AT_CLOCK.search(e)
    if special is None and clock is not None:
        # "the 12th at 3": the day as without the hour, then the hour (dateparser reads
        # it as 3 December).
        day = _special(e[:clock.start()], base, future, weekday)
        if day is not None:
            hour = 12 if clock.group(1) is None else int(clock.group(1)) % 12 \
                + (12 if (clock.group(3) or "").startswith("p") else 0)
            special = day.replace(hour=hour, minute=int(clock.group(2) or 0))
    if special is not None:
        return special.replace(tzinfo=UTC).timestamp()
    e = _FEW.sub(lambda m: _WORD_NUM[_SPACE.sub(" ", m.group(1).lower())], e)
    # A fortnight is two weeks ("a fortnight ago", "in three fortnights"): dateparser
    # knows weeks, not fortnights.
    e = re.sub(r"\b(\S+) fortnights?\b", lambda m: f"{2 * n} weeks" if (n := _count(m.group(1)))
               else m.group(0), e)
    e = re.sub(r"^within ", "in ", e)
    e = re.sub(r"^in the next ", "in ", e)
    e = re.sub(r"^(?:this|coming|the coming) (?=" + _WD + ")", "", e)
    day = _weekday(e, base, future)
    if day is not None:
        return day.replace(tzinfo=UTC).timestamp()
    e = re.sub(r"^(?:past|previous) ", "last ", e)
    if e in _NEXT_DAYS:  # dateparser's reading, without its first use (~0.3 s: see _NEXT_DAYS)
        return (base + timedelta(days=_NEXT_DAYS[e])).replace(tzinfo=UTC).timestamp()
    # dateparser reads "next tuesday" as the coming one, which is what people mean.
    pref = "future" if future or e.startswith(("next ", "in ")) else "past"
    parsed = _dated(e, base)
    if parsed is None:
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
    m = (re.fullmatch(rf"(\d{{1,2}}){SUFFIX}? (?:of )?([a-z]+)", e)
         or re.fullmatch(rf"([a-z]+) (\d{{1,2}}){SUFFIX}?", e))
    if m:
        day_s, month_s = (m.group(1), m.group(2)) if m.group(1).isdigit() else (m.group(2),
                                                                                 m.group(1))
        month = _month_number(month_s)
        if month:
            return _day_month(int(day_s), month, day0, future, weekday)
    m = re.fullmatch(rf"(?:the )?(\d{{1,2}}){SUFFIX}", e)
    if m:
        return _day_of_month(int(m.group(1)), day0, future, weekday)
    holiday = _HOLIDAYS.get(e.replace("’", "'").replace("new years", "new year's")
                            .replace("valentines", "valentine's"))
    if holiday is not None:
        return _day_month(holiday[1], holiday[0], day0, future, weekday)
    # "the week before last", "the weekend after next": two of them back or ahead.
    m = re.fullmatch(r"the (week|weekend) (before last|after next)", e)
    if m:
        ahead = m.group(2) == "after next"
        if m.group(1) == "week":
            return day0 + timedelta(days=14 if ahead else -14)
        # After next: the one after the coming weekend; before last: the one before the
        # weekend just past.
        saturday = _special("this weekend" if ahead else "last weekend", base, future)
        return None if saturday is None else saturday + timedelta(days=7 if ahead else -7)
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


def _weekday(e: str, base: datetime, future: bool) -> datetime | None:
    """A bare weekday, with a part of the day or a clock time: ahead (today's weekday
    is today) or, in a past narrative, behind (today's, unless that is still to come)."""
    m = _BARE_WD.fullmatch(e)
    if not m:
        return None
    day0 = base.replace(hour=0, minute=0, second=0, microsecond=0)
    wd = WEEKDAYS.index(m.group(1))
    delta = (wd - day0.weekday()) % 7 if future else -((day0.weekday() - wd) % 7)
    hour, minute = _PART_HOUR.get(m.group(2) or "", 0), 0
    if m.group(6):
        hour = 12
    elif m.group(3):
        hour, minute = int(m.group(3)), int(m.group(4) or 0)
        ampm = (m.group(5) or "").replace(".", "")
        # "at 5" with no am/pm is the afternoon (nobody books 5 am unsaid); "at 7" is
        # left as said unless the part of the day says evening.
        if ampm == "pm" and hour < 12 or not ampm and (1 <= hour <= 6 or m.group(2) in (
                "afternoon", "evening", "night") and hour < 12):
            hour += 12
        elif ampm == "am" and hour == 12:
            hour = 0
        if hour > 23 or minute > 59:
            return None
    when = day0 + timedelta(days=delta, hours=hour, minutes=minute)
    if not future and when > base:
        when -= timedelta(days=7)
    return when


def _count(word: str) -> int | None:
    word = _WORD_NUM.get(word, word)
    if word.isdigit():
        return int(word)
    small = {"a": 1, "an": 1, "another": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
             "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
    return small.get(word)


# A date with its day, month and year ("7 july, 2023", "october 13, 2023"), a month and
# year ("may 2023") or a year ("in 2023"): dateparser's reading (midnight of that day; a
# missing day or month is the reference's, the day at most the month's last), without its
# cost (1-3 ms a call, ~60 ms the first).
_DATED = lazy_re(rf"(?:(\d{{1,2}}){SUFFIX}? (?:of )?([a-z]+),? |([a-z]+) (\d{{1,2}})"
                 rf"{SUFFIX}?,? |([a-z]+),? )(\d{{4}})")
_MONTH_WORDS = {**{m: i for i, m in enumerate(_MONTHS, 1)},
                **{m: i for i, m in enumerate(_MONTH_FULL.values(), 1)}, "sept": 9}


_YEAR_ONLY = lazy_re(r"(?:in )?(\d{4})")


def _dated(e: str, base: datetime) -> datetime | None:
    y = _YEAR_ONLY.fullmatch(e)
    if y is not None:  # "2023", "in 2023": the reference day in that year
        year = int(y.group(1))
        if year < 1900:
            return None
        return datetime(year, base.month, min(base.day, calendar.monthrange(year, base.month)[1]))
    m = _DATED.fullmatch(e)
    if m is None:
        return None
    month = _MONTH_WORDS.get(m.group(2) or m.group(3) or m.group(5))
    year = int(m.group(6))
    if month is None or year < 1900:
        return None
    day_s = m.group(1) or m.group(4)
    if day_s is None:
        day = min(base.day, calendar.monthrange(year, month)[1])
    else:
        day = int(day_s)
        if not 1 <= day <= calendar.monthrange(year, month)[1]:
            return None  # no such day: dateparser's reading of it
    return datetime(year, month, day)


@lru_cache(maxsize=4096)
def _parse(expr: str, base_iso: str, prefer: str) -> datetime | None:
    return _dateparser_parse(expr, {"RELATIVE_BASE": datetime.fromisoformat(base_iso),
                                    "PREFER_DATES_FROM": prefer,
                                    "RETURN_AS_TIMEZONE_AWARE": False,
                                    "STRICT_PARSING": False})


# What ``warm`` reads: a relative and a dated expression, so that both of dateparser's
# parsers, its time-zone patterns and its English locale are built.
_WARM_EXPRESSIONS = ("3 days ago", "5 June 2023")


def warm() -> None:
    """Do dateparser's first use now: its import and the tables and patterns it builds on
    its first parse (~0.3–0.5 s on this machine's cores), which the first question to need
    it would otherwise wait for. Its answers are not kept (``_parse``'s cache is left as it
    was) and later readings are the same; only their first one is faster."""
    settings: dict[str, Any] = {"RELATIVE_BASE": datetime(2023, 6, 8),
                                "PREFER_DATES_FROM": "past",
                                "RETURN_AS_TIMEZONE_AWARE": False, "STRICT_PARSING": False}
    for expr in _WARM_EXPRESSIONS:
        _dateparser_parse(expr, settings)


def _dateparser_parse(expr: str, settings: dict[str, Any]) -> datetime | None:
    import dateparser  # imported lazily: ~0.3 s to load its language data

    try:
        return dateparser.parse(expr, languages=["en"], settings=settings)
    except (ValueError, OverflowError):
        return None


PART_OF = _PART_OF = lazy_re(
    r"\b(?P<early>early|beginning\s+of|start\s+of|first\s+half\s+of)\b"
    r"|\b(?P<mid>mid|middle\s+of|halfway\s+through)\b"
    r"|\b(?P<late>late|end\s+of|second\s+half\s+of|last\s+days?\s+of)\b", re.I)


_WEEK_OF = lazy_re(r"\bweek\s+of\s+(?:the\s+)?\d", re.I)


def names_part_of(text: str) -> bool:
    """Whether ``text`` names a part of a period ("mid-June", "at the end of January",
    "the start of March"): a moment in it, at which a state held."""
    return _PART_OF.search(text) is not None


def window_point(window: tuple[float, float], text: str, said: Sequence[float] = ()) -> float:
    """The moment of ``window`` that ``text`` (the time expression that gave it) points
    at, for "what held then": "early October" a third of the way in, "mid-October" the
    middle, "the end of October" or a bare "October" its end; "the week of the 15th" its
    middle. A part of a month is read by whole days: "mid-June" is its middle day, all
    of it, and "at the start of March" ends with the first day in the window on which
    anything was ``said`` (epoch seconds), when that comes before a third of the way in:
    the first talk of the month tells what held at its start, not a change told a week
    after it."""
    start, end = window
    m = _PART_OF.search(text)
    if m is None and _WEEK_OF.search(text):
        return start + (end - start) / 2  # "the week of the 15th": the week around that day
    if m is None or m.group("late"):
        return end
    point = start + (end - start) * (1 / 3 if m.group("early") else 1 / 2)
    if end - start <= 2 * _DAY:
        return point
    if m.group("early"):
        first = min((t for t in said if start <= t < point), default=None)
        return point if first is None else min(point, _day_end(first))
    return min(end, _day_end(point))


_DAY = 86400.0


def _day_end(epoch: float) -> float:
    """The end of the UTC day that ``epoch`` falls on."""
    return (epoch // _DAY + 1) * _DAY


def years_before(epoch: float, years: int) -> float:
    """The same calendar moment ``years`` earlier (29 February becomes the 28th)."""
    t = time.gmtime(epoch)
    day = min(t.tm_mday, calendar.monthrange(t.tm_year - years, t.tm_mon)[1])
    return float(calendar.timegm((t.tm_year - years, t.tm_mon, day, t.tm_hour, t.tm_min,
                                  t.tm_sec, 0, 0, 0)))


# -- clock shifts --------------------------------------------------------------------------
# "an hour later", "ten minutes earlier", "back an hour", "half an hour earlier": a
# thing's clock time moved by a stated span, its new time left for the hearer to work out
# from the one it had.
_FIGURES = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten "
                                       "eleven twelve".split())}
_FIGURES.update({"a": 1, "an": 1, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
                 "forty-five": 45, "forty five": 45, "half an": 0.5, "half a": 0.5})
_SPAN_N = r"(?:half\s+an?|an?|\d{1,3}|forty[\s-]five|" + "|".join(
    sorted((w for w in _FIGURES if " " not in w and "-" not in w), key=len, reverse=True)) + ")"
_SPAN_UNIT = r"(?:hour|hr|minute|min)s?"
_CLOCK_SHIFT = lazy_re(
    rf"\b(?P<n>{_SPAN_N})\s+(?P<unit>{_SPAN_UNIT})\s+(?:or\s+so\s+)?(?P<way>later|earlier)\b"
    rf"|\b(?P<way2>back|forward|later|earlier)\s+(?:by\s+)?(?P<n2>{_SPAN_N})\s+(?P<unit2>{_SPAN_UNIT})\b"
    r"(?!\s+ago)",
    re.I)


def clock_shift(text: str) -> int | None:
    """The minutes by which ``text`` moves a clock time ("an hour later": +60, "ten
    minutes earlier": -10, "shoved our start back an hour": +60), or None when it moves
    none by a stated span."""
    m = _CLOCK_SHIFT.search(text)
    if m is None:
        return None
    said = _SPACE.sub(" ", (m.group("n") or m.group("n2")).lower())
    n = float(said) if said.isdigit() else _FIGURES.get(said)
    if n is None:
        return None
    unit = (m.group("unit") or m.group("unit2")).lower()
    minutes = n * (60 if unit.startswith("h") else 1)
    way = (m.group("way") or m.group("way2")).lower()
    return round(minutes if way in ("later", "back") else -minutes)


_HOUR = r"(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_CLOCK_PARTS = (
    (lazy_re(r"\b(\d{1,2})[:.](\d{2})\s*(am|pm|a\.m\.|p\.m\.)?", re.I), "figures"),
    (lazy_re(rf"\b(half|quarter)\s+(past|to)\s+{_HOUR}\b", re.I), "past"),
    (lazy_re(rf"\bhalf\s+{_HOUR}\b", re.I), "half"),
    (lazy_re(r"\b(noon|midday)\b", re.I), "noon"),
    (lazy_re(rf"\b{_HOUR}\s*(am|pm|a\.m\.|p\.m\.|o'?clock)?", re.I), "hour"),
)


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else _FIGURES[word.lower()]


def clock_minutes(said: str) -> tuple[int, str] | None:
    """A clock time as said ("7:40", "10pm", "half five", "quarter to seven", "at ten",
    "noon") as minutes after the hour twelve o'clock, and its "am"/"pm" ('' when none is
    said; a bare hour keeps its twelve-hour reading); None when it is no clock time."""
    for rx, form in _CLOCK_PARTS:
        m = rx.search(said)
        if m is None:
            continue
        if form == "noon":
            return 12 * 60, ""
        if form == "figures":
            h, mins, suffix = int(m.group(1)), int(m.group(2)), m.group(3) or ""
        elif form == "past":
            part = 30 if m.group(1).lower() == "half" else 15
            h = _hour(m.group(3))
            mins = part if m.group(2).lower() == "past" else 60 - part
            h -= m.group(2).lower() == "to"
            suffix = ""
        elif form == "half":  # "half five": half past five
            h, mins, suffix = _hour(m.group(1)), 30, ""
        else:
            h, mins, suffix = _hour(m.group(1)), 0, m.group(2) or ""
        if h > 23 or mins > 59:
            return None
        suffix = suffix.lower().replace(".", "")
        return h * 60 + mins, suffix if suffix in ("am", "pm") else ""
    return None


def clock_moved(said: str, minutes: int) -> str:
    """The clock time ``said`` moved by ``minutes``, written as figures ("7:40" moved by
    -10: "7:30"; "9" by +60: "10"; "10pm" by +60: "11 pm"), or '' when ``said`` is no
    clock time."""
    read = clock_minutes(said)
    if read is None:
        return ""
    start, suffix = read
    twelve = not suffix and start < 13 * 60  # "at 9": read on a twelve-hour clock
    if suffix == "pm" and start < 12 * 60:
        start += 12 * 60
    elif suffix == "am" and start >= 12 * 60:
        start -= 12 * 60
    h, m = divmod((start + minutes) % (24 * 60), 60)
    if suffix:
        suffix = "pm" if h >= 12 else "am"
    if suffix or twelve:
        h = h % 12 or 12
    return (f"{h}:{m:02d}" if m else f"{h}") + (f" {suffix}" if suffix else "")
