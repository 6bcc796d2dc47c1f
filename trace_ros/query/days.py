"""Days and weekdays: a day said by when it was told ("today") and not held to, a bare
weekday read as the date another sentence gives it, the hour a later "still on for
Thursday" keeps, and which side of a consequence "so" holds the day.
"""

from __future__ import annotations

import calendar
import re
import time
from collections.abc import Sequence

from ..language.lazyre import lazy_re
from ..language.monthday import DAY_OF_MONTH, MONTHS
from ..language.text import STOPWORDS, stem, stems
from ..language.timeanchor import clock_minutes, find_candidates, ordinal_figures
from .newstate import CONSEQUENCE_SO
from .pack import Pack
from .readout import Scored
from .spans import days_listed, held_days, hour_figures, turned_down

_BARE_DAY = lazy_re(r"(\d{1,2} [A-Z][a-z]+ \d{4})(?: at \S+(?: [ap]m)?)?")


def upcoming_weekday(answer: str, cited: Sequence[str], pack: Pack) -> str:
    """A day asked about now that lies ahead of the record telling it (a booking, a
    plan), named with its weekday as people name the days they go by ("the 27th" -
    "Thursday 27 November 2025"); a day already past is given as the date alone."""
    m = _BARE_DAY.fullmatch(answer)
    told = next((i.record.source_time for i in pack.items if i.source_id in cited[:1]), None)
    if m is None or told is None:
        return answer
    try:
        day = calendar.timegm(time.strptime(m.group(1), "%d %B %Y"))
    except ValueError:
        return answer
    if day < told - told % 86400 + 86400:
        return answer  # the day it was told, or before
    return f"{time.strftime('%A', time.gmtime(day))} {answer}"


_TOLD_DAY = lazy_re(r"(?:today|tonight|tomorrow|yesterday)\b", re.I)


def drops_told_day(text: str) -> bool:
    """Whether ``text`` names a day by when it was said ("today") that it does not hold
    to (``spans.held_days`` blanks it: "on Tuesday, not today")."""
    held = held_days(text)
    return held != text and any(_TOLD_DAY.match(m.group(0).strip())
                                and not held[m.start():m.end()].strip()
                                for m in find_candidates(text))


# "Which days …?", "What nights …?": more than one day is asked for.
_DAY_PARTS = frozenset({"morning", "mornings", "afternoon", "afternoons", "evening",
                        "evenings", "night", "nights"})
ASKS_OWN = lazy_re(r"\b(?:i|me|my|mine|i['’]m)\b", re.I)
PLURAL_DAYS = lazy_re(r"\b(?:which|what)\s+(?:days|nights|evenings|mornings|afternoons)\b",
                       re.I)


def with_hour(day: str, found: Sequence[tuple[Scored, str, float]]) -> str:
    """``day`` ("Thursday 26 March 2026") with the hour the newest record that gave that
    same day gave ("Thursday 26 March 2026 at half ten"), where ``day`` states none: a
    later "still on for Thursday" keeps the day and says nothing that moves its hour."""
    if not re.fullmatch(r"(?:[A-Z][a-z]+day )?\d{1,2} [A-Z][a-z]+ \d{4}", day):
        return day
    fuller = [f for f in found if f[1].startswith(f"{day} at ")]
    if not fuller:
        return day
    return max(fuller, key=lambda f: (f[0].item.record.source_time, f[0].item.record.seq))[1]


_BARE_HOUR = lazy_re(r"(?:(?:at|by|from)\s+)?(?:\d{1,2}|[a-z]+)", re.I)


def with_meridiem(value: str, found: Sequence[tuple[Scored, str, float]]) -> str:
    """A bare hour ("at 11", "at 8") with the half of the day the other times found for
    the same thing say: the same hour said with "pm" ("10pm start … at 11 instead" -
    robot: "doors at 11 pm"), else the half of a time it moved from up to two hours away
    ("7 pm", "7:30", then "at 8": 8 pm). Unchanged when none or they disagree."""
    read = clock_minutes(value)
    if read is None or read[1] or not _BARE_HOUR.fullmatch(value.strip()) or read[0] % 60:
        return value
    hour = read[0] // 60
    if not 1 <= hour <= 11:
        return value
    same: set[str] = set()
    near: set[str] = set()
    for _, other, _ in found:
        got = clock_minutes(other)
        if got is None or not got[1]:
            continue
        h = got[0] // 60 % 12
        if h == hour:
            same.add(got[1])
        elif h and abs(h - hour) <= 2:
            near.add(got[1])
    half = same if same else near
    return hour_figures(f"{value} {half.pop()}") if len(half) == 1 else value


_MONTH_NAMED = lazy_re(rf"\b(?:{'|'.join(MONTHS)})\b")


def turns_down_only(named: Sequence[str]) -> bool:
    """Whether every sentence naming a day turns its dated days down while it gives
    another day of the month too ("the rent by the 1st of the month from now on, not
    the 5th": "the 1st of the month" is no date ``find_candidates`` reads): the day turned
    down is not when, and the record states none (an acknowledgement may). A record that
    only turns a day down ("Forget Friday.") still answers where nothing else is said."""
    return bool(named) and all(
        turned_down(x) and len(DAY_OF_MONTH.findall(ordinal_figures(x.lower()))) >= 2
        for x in named)


_WEEKDAY_DATE = lazy_re(r"^([A-Z][a-z]+day(?: (?:morning|afternoon|evening|night),)?) "
                        r"(\d{1,2} [A-Z][a-z]+ \d{4})(.*)$")


def bare_weekday(sentence: str) -> bool:
    """Whether ``sentence`` names its day by the weekday alone: no day of the month, no
    month ("Tuesday, same morning slot.")."""
    low = ordinal_figures(sentence.lower())
    return not DAY_OF_MONTH.search(low) and not _MONTH_NAMED.search(low)


def dated_weekday(day: str, others: Sequence[str]) -> str:
    """``day`` read from a bare weekday ("Tuesday, same morning slot." → "Tuesday 20
    January 2026"), or the date another sentence of the same record gives on that weekday
    a few weeks on ("It's the twenty-seventh … Tuesday": the 27th is that Tuesday): the
    weekday was resolved to the first one ahead, the date says which Tuesday is meant."""
    m = _WEEKDAY_DATE.match(day)
    if m is None:
        return day
    at = calendar.timegm(time.strptime(m.group(2), "%d %B %Y"))
    for other in others:
        d = re.search(r"\b(\d{1,2} [A-Z][a-z]+ \d{4})", other or "")
        if d is None or (other or "").startswith(m.group(1)) and d.group(1) == m.group(2):
            continue
        when = calendar.timegm(time.strptime(d.group(1), "%d %B %Y"))
        if 0 < when - at <= 28 * 86400.0 and time.gmtime(when).tm_wday == time.gmtime(at).tm_wday:
            return f"{m.group(1)} {d.group(1)}{m.group(3)}"
    return day


def days_labelling(sentence: str) -> bool:
    """Whether the days ``sentence`` lists stand before a noun they label ("the Monday and
    Thursday slots"), not as what is said of something ("It's Monday, Tuesday, now")."""
    listed = days_listed(sentence)
    at = sentence.find(listed) if listed else -1
    m = re.match(r"\s+([a-z][\w'’-]*)", sentence[at + len(listed):]) if at >= 0 else None
    return m is not None and m.group(1).lower() not in STOPWORDS \
        and m.group(1).lower() not in _DAY_PARTS


def _days_label(side: str, asked_stems: set[str] | frozenset[str]) -> bool:
    """Whether every day ``side`` names comes right before a word of what is asked, as
    the label of the thing ("The Monday huddle clashes with …"): it says which one it
    is, not when it is."""
    found = find_candidates(side)
    return bool(found) and all(
        (m := re.match(r"\s*([\w'’-]+)", side[f.end():])) is not None
        and stem(m.group(1).lower()) in asked_stems for f in found)


def so_held(sentence: str, asked_stems: set[str] | frozenset[str]) -> str:
    """``sentence`` with the days of one side of a consequence "so" blanked, where both
    sides name one: the side that says more of what is asked (``asked_stems``) holds, and
    on a tie what follows ("His physio's on Thursdays now, so he'll come Wednesday
    afternoons": Wednesday), unless it only turns its days down. The whole sentence stays,
    so its tense still reads."""
    m = CONSEQUENCE_SO.search(sentence)
    if m is None or re.match(r"that\b", sentence[m.end():], re.I):
        return sentence
    cause, result = sentence[:m.start()], sentence[m.end():]
    if not find_candidates(cause) or not find_candidates(result):
        return sentence
    keep_cause = len(stems(cause) & asked_stems) > len(stems(result) & asked_stems) \
        and not _days_label(cause, asked_stems)
    if turned_down(cause if keep_cause else result):
        # "Ms Adeyemi can't do Thursday, so … Friday": a side that only turns its day
        # down does not hold, however much of what is asked it says.
        keep_cause = not keep_cause
    start, side = (m.end(), result) if keep_cause else (0, cause)
    for found in reversed(find_candidates(side)):
        a, b = start + found.start(), start + found.end()
        sentence = sentence[:a] + " " * (b - a) + sentence[b:]
    return sentence
