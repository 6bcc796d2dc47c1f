"""The kinds of the values a statement gives, read from each value's own shape.

``revision.replaces`` lumps every figure together ("bay 12", "8 to 4", "the 25th" are
all numbers) because the shared word of the thing already says which values meet. A
statement that names no thing of its own ("I've got 23 now", "Now the 7th of
February") can only be tied to an earlier one by the kind of value it gives, so the
kind must be read finer: a *weekday* ("Tuesdays"), a *date* (a month, a day of the month:
"the 21st", "9th of Jan"), a *clock* time ("10am", "9:30", "at four", "half six",
"nine till ten"), a *year*, a *figure* (any other number written in digits: a room, an
extension, a count, a price, a rank: "the 4th floor") or a *name* (a capitalised value: a
place, a room's name).
Closed-class words only: weekdays, months, ordinals, the number words and the
prepositions a clock time follows.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .monthday import DAY_OF_MONTH, MONTH_WORDS, ORDINAL_WORD, SUFFIX, WEEKDAYS, figure_of
from .text import stem as _stem

_MONTHS = frozenset(MONTH_WORDS.split("|"))
_ORDINAL_WORDS = frozenset("""first second third fourth fifth sixth seventh eighth ninth tenth
eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth
twentieth thirtieth""".split())
_HOURS = frozenset("""one two three four five six seven eight nine ten eleven twelve noon
midday midnight""".split())
# The words a clock time follows ("at four", "till ten", "from 9"); "to" only between
# two hours ("nine to five"), read below.
_CLOCK_BEFORE = frozenset("at till until til from by half quarter past around about "
                          "before after".split())
_TOKEN = re.compile(rf"\d+(?::\d\d)?(?:{SUFFIX}|am|pm|a\.m\.|p\.m\.)?|[^\W\d_]+(?:['’][a-z]+)?")
_CLOCK = re.compile(r"\d{1,2}(?::\d\d)?(?:am|pm|a\.m\.|p\.m\.)$|\d{1,2}:\d\d$")
_YEAR = re.compile(r"(?:19|20)\d\d$")
_SUFFIX = frozenset(("am", "pm", "oclock", "o'clock"))
_CAPITAL = re.compile(r"[A-Z][a-z]{2,}")
_WEEKDAY_WORDS = frozenset(WEEKDAYS) | {d + "s" for d in WEEKDAYS}
# The kinds a value of a state can be of.
KINDS = ("weekday", "date", "clock", "year", "figure", "name")


@lru_cache(maxsize=65536)
def kinds_of(text: str, names: frozenset[str] = frozenset()) -> dict[str, frozenset[str]]:
    """Each kind of value ``text`` gives, with the values of it (lower-cased; a weekday
    without its plural "s", a day of the month as its figure: "the 21st" is "21").
    ``names``: the stems of the capitalised values to count as names (the caller's
    ``revision.state_values`` less its people), read where they stand."""
    found = list(_TOKEN.finditer(text))
    toks = [m.group(0) for m in found]
    low = [t.lower().replace("’", "'") for t in toks]
    out: dict[str, set[str]] = {}

    def add(kind: str, value: str) -> None:
        out.setdefault(kind, set()).add(value)

    for i, (tok, w) in enumerate(zip(toks, low, strict=True)):
        before = low[i - 1] if i else ""
        after = low[i + 1] if i + 1 < len(low) else ""
        near_month = bool({before, after, low[i - 2] if i > 1 else ""} & _MONTHS)
        if w in _WEEKDAY_WORDS:
            add("weekday", w.rstrip("s") if w.endswith("days") else w)
        elif w in _MONTHS and (tok[:1].isupper() or len(w) > 3 and w != "may"):
            add("date", w[:3])
        elif ORDINAL_WORD.fullmatch(w):  # a day of the month, or a rank ("4th floor")
            add("date" if DAY_OF_MONTH.match(text, found[i].start()) else "figure", figure_of(w))
        elif w in _ORDINAL_WORDS and before == "the":
            add("date", w)
        elif _CLOCK.match(w):
            add("clock", _hour_of(w))
        elif w.isdigit() and near_month and int(w) <= 31:
            add("date", w)
        elif w.isdigit() and _YEAR.match(w):
            add("year", w)
        elif (w.isdigit() and int(w) <= 24 or w in _HOURS) and _clock_context(low, i):
            add("clock", _hour_of(w, _minutes_before(low, i)))
        elif w.isdigit():
            add("figure", w)
        elif _CAPITAL.fullmatch(tok) and _stem(w) in names:
            add("name", _stem(w))
    return {k: frozenset(v) for k, v in out.items()}


_FIGURE_OF = {w: str(n) for n, w in enumerate(
    "twelve one two three four five six seven eight nine ten eleven".split())}
_FIGURE_OF.update(noon="0", midday="0", midnight="0")


def _minutes_before(low: list[str], i: int) -> int:
    """The minutes the words before the hour at ``low[i]`` set it off by: "half nine" and
    "half past nine" are 30 past, "quarter past" 15, "quarter to" 45 before the hour."""
    before = low[max(0, i - 2):i]
    if before[-1:] == ["half"] or before == ["half", "past"]:
        return 30
    if before == ["quarter", "past"]:
        return 15
    if before == ["quarter", "to"]:
        return -15
    return 0


def _hour_of(said: str, minutes: int = 0) -> str:
    """A clock time as its hour on the twelve-hour dial and its minutes ("10am", "10",
    "ten" are "10"; "9:30" is "9:30"; "22:00" is "10"), so one time said two ways is one
    value."""
    figures = re.match(r"(\d{1,2})(?::(\d\d))?", said)
    if figures is None:
        hour = int(_FIGURE_OF.get(said, "0"))
    else:
        hour, minutes = int(figures.group(1)) % 12, minutes or int(figures.group(2) or 0)
    if minutes < 0:
        hour, minutes = (hour - 1) % 12, 60 + minutes
    return f"{hour}:{minutes:02d}" if minutes else str(hour)


def _clock_context(low: list[str], i: int) -> bool:
    """Whether the hour at ``low[i]`` is said as a clock time: after a word a time
    follows ("at four", "till ten", "half six"), before "am"/"pm"/"o'clock", or as one
    end of a span of hours ("nine to five", "8 to 4")."""
    before = low[i - 1] if i else ""
    after = low[i + 1] if i + 1 < len(low) else ""
    if before in _CLOCK_BEFORE or after in _SUFFIX or low[max(0, i - 2):i] == ["quarter", "to"]:
        return True
    hour = re.compile(r"\d{1,2}$")
    def is_hour(w: str) -> bool:
        return w in _HOURS or bool(hour.match(w)) and int(w) <= 24
    if after in ("to", "till", "until", "-") and i + 2 < len(low) and is_hour(low[i + 2]):
        return True
    return before in ("to", "till", "until", "-") and i > 1 and is_hour(low[i - 2])
