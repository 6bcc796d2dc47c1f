"""Operation, shape and time view of a question: which answer plan it needs.

Rules are generic English question forms, not tuned to any benchmark.

Every question asks about the current state (``current``) unless it names
another time: a date or period ("in 2022", "last week", "in May"), a relative
past ("before she moved", "when he was a kid") or a past habit ("used to").
A named time that resolves against the reference time (the request time, or
the request's as-of) becomes ``window`` (start, end epoch seconds); "before
<time>" becomes ``as_of`` (the view ends there). The plan also says what kind
of span answers it (``answer_type``) and which evidence must be complete:
``needs_complete_set`` (a count or list needs every member) and
``needs_endpoints`` (a duration needs both ends) are read by packing and by
the readers.
"""

from __future__ import annotations

import re
import time as _time
from dataclasses import asdict, dataclass

from ..language.lazyre import lazy_re
from ..language.monthday import DAY_NUMBER, MONTH_NAMES, MONTH_WORDS, MONTHS, ORDINAL, WEEKDAY_NAMES, WEEKDAYS
from ..language.text import built, stem
from ..language.timeanchor import (
    PART_OF,
    find_candidates,
    forward_at,
    is_holiday,
    resolve_expression,
    tense,
    years_before,
)
from ..language.vocab import AUXILIARIES

OPERATIONS = ("fact", "count", "list", "temporal_lookup", "temporal_arithmetic",
              "current_state", "history")
SHAPES = ("factual", "temporal", "preference", "multi_hop", "open")
ANSWER_TYPES = ("date", "duration", "number", "place", "person", "reason", "yesno", "manner",
                "thing")

_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("temporal_arithmetic", lazy_re(
        r"\bhow long\b|\bhow many (days|weeks|months|years|hours|minutes)\b|\bsince when\b"
        r"|\bhow (old|recently)\b", re.I)),
    ("count", lazy_re(r"\bhow many\b|\bhow often\b|\bnumber of\b|\bhow much\b", re.I)),
    # The time word must head what is asked: "What day rate …?", "What year group …?" ask
    # of a rate and a group a time word only modifies.
    ("temporal_lookup", lazy_re(
        r"^\s*when\b|\b(?:what (?:time|date|day|year|month)|which (?:day|year|month))\b"
        r"(?!\s+(?!(?:" + "|".join(sorted(AUXILIARIES)) + r"|and|or|of|on|in|at|for|next|this"
        r"|last|i|you|he|she|we|they|it)\b)[a-z])", re.I)),
    # An outcome asked ("How did the party turn out?", "What came of it?") is the latest.
    ("current_state", lazy_re(r"\b(currently|current|these days|at the moment|latest|"
                              r"most recent(?:ly)?|turn(?:ed)? out|came of|end(?:ed)? up)\b"
                              r"|^\s*how did\b.*\b(?:go|do)\b", re.I)),
    ("history", lazy_re(
        r"\b(used to|previously|originally|at first|before (that|then)|changed?|history"
        r"|formerly|earlier)\b|\bbefore\s*[?.!]?\s*$", re.I)),
    # "List …" asks for a list; "the shopping list" is a thing asked about.
    ("list", lazy_re(r"\b(what|which) (are|were) (all|some)\b|(?:^|\b(?:you|please)\s+)list\b"
                     r"|\bwhat (kinds?|types?|sorts?)"
                     r" of \w+s\b|\bname (all|some|every)\b", re.I)),
]
_FRONTED = lazy_re(r"^\s*[^,?]{3,80},\s+(?=(?:when|what|which|who|whom|whose|where|how|why"
                   r"|is|are|was|were|do|does|did|has|have|had|can|could|will|would)\b)", re.I)
# Explicitly about now ("When is X now?"), whatever the operation.
_NOW = lazy_re(r"\b(now|currently|current|still|these days|at the moment|latest|anymore|"
               r"most recent(?:ly)?)\b"
               r"|^\s*where (is|are)\b|\blast (seen|saw|see)\b", re.I)
# A past the question names without a date: not the current state.
_PAST_VIEW = lazy_re(
    r"\b(used to|previously|originally|at first|formerly|back then|at the time|in the past"
    r"|before (that|then|the|he|she|they|we|i|you|it|his|her|their|my|our)\b"
    r"|when (he|she|they|i|we|you) (was|were)\b|as a (kid|child|teenager)|growing up)"
    r"|\bbefore\s*[?.!]?\s*$", re.I)
_BEFORE = lazy_re(r"\b(before|until|prior to|as of|by)\s+$", re.I)
# "before I retire", "before she leaves": an event told by a pronoun and its verb.
_BEFORE_CLAUSE = lazy_re(r"\bbefore\s+(?:he|she|they|we|i|you|it)\s+[^,?.!;]+", re.I)
_PREFERENCE = lazy_re(r"\b(like|likes|prefer\w*|favou?rite|enjoy\w*|love\w*|hate\w*|want\w*)\b",
                      re.I)
_OPEN = lazy_re(r"^\s*(would|might|could)\b|\b(likely|probably|might|would)\b", re.I)
_MULTI = lazy_re(r"\b(both|and|also|as well as|in common|together|each)\b", re.I)
# "What has she painted?", "Where have they camped?": the perfect asks over all occasions.
_EXPERIENTIAL = lazy_re(r"^\s*(what|where|who|which)\s+(has|have)\s+(\w+\s+){1,3}?\w+(ed|en|t)\b",
                        re.I)
# "What's my day off (now)?", "What is the closing time?": the asked thing's noun phrase
# is headed by a time word (one, not a schedule's several), so a time is asked; "What is
# my day rate?" is headed by "rate", and "What's the ale this month?" names a time.
_TIME_HEAD = lazy_re(r"^\s*what(?:['’]s|\s+is|\s+was)\s+(?:the|my|our|your|his|her|their"
                     r"|[\w-]+['’]s)\s+(?:(?!(?:this|that|next|last|every|each|per|a|an)\b)[\w-]+\s+){0,3}?"
                     r"(?:time|date|day|year|month)"
                     r"(?:\s+off)?(?:\s+(?:now|then|these\s+days|again))?\s*[?.!]?\s*$", re.I)
_AUX = AUXILIARIES - {"must"}
_PAST_AUX = lazy_re(r"\b(did|was|were|had|went|gave|got|made|took|saw|bought|ate|told|said|met"
                    r"|began|found|felt|left|won|wrote|brought|thought|came|became)\b"
                    r"|\b\w{3,}ed\b", re.I)
_PRESENT_AUX = lazy_re(r"\b(is|are|am|does|do|should|shall|can|must|has|have|be)\b", re.I)
_PAST_FORM = lazy_re(r"\b(did|was|were|had)\b", re.I)
_FUTURE = lazy_re(r"\b(will|going to|plan\w*|upcoming|next)\b", re.I)
_YEAR = lazy_re(r"^(?:in |during |since |of )?((?:19|20)\d{2})$", re.I)
_NOUN_SKIP = {"kind", "kinds", "type", "types", "sort", "sorts", "of"}


@dataclass(frozen=True)
class Plan:
    operation: str
    shape: str
    needs_complete_set: bool
    needs_endpoints: bool
    current: bool = True
    # A time the question names: [start, end) in epoch seconds, or None.
    window: tuple[float, float] | None = None
    # "before <time>": the view as of that time.
    as_of: float | None = None
    time_text: str = ""
    answer_type: str = "thing"
    # The head noun the question asks for ("what workshop" → "workshop").
    focus: str = ""
    tense: str = "present"  # present | past | future
    # Who asks (``QueryRequest.asker``): whom "I" and "my" in the question mean; empty
    # when not known.
    asker: str = ""
    # A past-tense question that names no time and asks how a thing ended ("What day did
    # the jabs end up on?", "Which one did she settle on?"): the newest telling.
    settled: bool = False

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @property
    def wants_newest(self) -> bool:
        """Whether revisions of one state should be read newest first: an explicit 'now',
        or a present/future-tense question about a state in the current view ("When is my
        pickup?", "Where does she work?"); a past-tense one asks about an event."""
        return self.operation == "current_state" or (
            self.current and (self.tense in ("present", "future") or self.settled)
            and self.operation in ("fact", "temporal_lookup")
            and self.answer_type not in ("yesno", "reason"))


def _answer_type(q: str, operation: str) -> str:
    ql = q.lower().strip()
    if operation == "temporal_arithmetic":
        return "duration"
    if operation == "temporal_lookup":
        return "date"
    if operation == "count":
        return "number"
    if re.match(r"^(where|in which (city|country|place|town|state))\b", ql):
        return "place"
    if re.match(r"^(who|whom|whose)\b", ql):
        return "person"
    if re.match(r"^why\b|\bwhat (made|motivated|inspired|caused|led)\b", ql):
        return "reason"
    if re.match(r"^how (do|does|did|is|was|are|were|has|have|can|could|would)\b", ql):
        return "manner"
    if ql.split(" ", 1)[0] in _AUX:
        return "yesno"
    return "thing"


def _focus(q: str) -> str:
    """The noun after 'what'/'which' ("What kind of music" → "music"), else ''."""
    m = re.match(r"^\s*(?:what|which)\s+((?:\w+\s+){0,4}?)(?:" + "|".join(sorted(_AUX)) + r")\b", q, re.I)
    if not m:
        return ""
    nouns = [w for w in m.group(1).lower().split() if w not in _NOUN_SKIP]
    return nouns[-1] if nouns else ""


def _tense(q: str) -> str:
    if _FUTURE.search(q):
        return "future"
    if _PRESENT_AUX.search(q) and not _PAST_FORM.search(q):
        return "present"  # "When should it be watered?", "What has she painted?"
    return "past" if _PAST_AUX.search(q) else "present"


def _granularity(expr: str) -> str:
    e = expr.lower()
    if _YEAR.match(e.strip()) or re.search(r"\byears?\b", e):
        return "year"
    if re.search(r"\bmonths?\b", e):
        return "month"
    if re.search(r"\bweeks?\b|weekend", e):
        return "week"
    has_day = re.search(rf"\b{DAY_NUMBER}\b", e) or any(d in e for d in WEEKDAYS) or \
        re.search(r"yesterday|today|tomorrow|tonight|days? ago", e)
    if not has_day and any(built(rf"\b{m[:3]}").search(e) for m in MONTHS):
        return "month"
    return "day"


def period_window(when: float, granularity: str) -> tuple[float, float]:
    """[start, end) of the day/week/month/year containing ``when`` (UTC)."""
    t = _time.gmtime(when)
    if granularity == "year":
        return (_epoch(t.tm_year, 1, 1), _epoch(t.tm_year + 1, 1, 1))
    if granularity == "month":
        y, m = (t.tm_year + 1, 1) if t.tm_mon == 12 else (t.tm_year, t.tm_mon + 1)
        return (_epoch(t.tm_year, t.tm_mon, 1), _epoch(y, m, 1))
    day0 = _epoch(t.tm_year, t.tm_mon, t.tm_mday)
    if granularity == "week":
        start = day0 - t.tm_wday * 86400.0
        return (start, start + 7 * 86400.0)
    return (day0, day0 + 86400.0)


def _epoch(year: int, month: int, day: int) -> float:
    import calendar

    return float(calendar.timegm((year, month, day, 0, 0, 0, 0, 0, 0)))


def named_time(question: str, reference_time: float) -> tuple[str, tuple[float, float] | None,
                                                               float | None]:
    """The time ``question`` names: (phrase, window, as_of); empty phrase when none."""
    season = _season(question, reference_time)
    if season is not None:
        expr, window, start = season
        if window[0] > reference_time or forward_at(question, start):
            return expr, None, None  # "Where are we going this summer?": the thing's time
        if re.match(r"(?:before|until|by)\b", expr, re.I):
            return expr, None, window[0]
        return expr, window, None
    day = _calendar_day(question, reference_time)
    if day is not None and day[1][0] <= reference_time:
        expr, window, start = day
        if _BEFORE.search(question[:start]):
            return expr, None, window[0]
        return expr, window, None
    for m in find_candidates(question):
        expr = m.group(0).strip()
        if is_holiday(expr) and not _TIME_BEFORE.search(question[:m.start()]):
            continue  # "Where are we having Christmas Day?": the day is the thing asked of
        if _WEEKDAY.match(expr) and _OWNED_BEFORE.search(question[:m.start()]):
            continue  # "the Monday evening spin class", "Jo's Friday lesson": its slot names
            # the thing, as "on Wednesdays" does; it is no time to look back at
        if _WEEKDAY.match(expr) and re.match(r"s\b", question[m.end():]):
            continue  # "What hours do I work on Saturdays?": every Saturday, a slot of the
            # thing, not the last one
        forward = forward_at(question, m.start())
        # A weekday or a month named without a year, in a present or future question
        # ("Where are we going in May?"), is the coming one.
        # A holiday is a day of every year: named without one, the coming one too.
        ahead = (_one_day(question, m) or bool(_MONTH_ONLY.fullmatch(expr))
                 or bool(_MONTH_DAY.fullmatch(expr)) or is_holiday(expr)) and forward
        when = resolve_expression(expr, reference_time, ahead)
        if when is None:
            continue
        window = period_window(when, _granularity(expr))
        if _BEFORE.search(question[: m.start()]):
            return expr, None, window[0]
        if (ahead or forward and window[0] > reference_time) and window[1] > reference_time:
            # "How many are on for Saturday?" asked on a Friday, "Which piece are we
            # singing in May?", "What are my hours from next week?": the plan for a time
            # still to come as it stands now, said before it; the time is part of the thing.
            return expr, None, None
        return expr, window, None
    return "", None, None


# "the first Friday of October", "the last Sunday in May": one day of a month; "the
# week of the 13th (of September)": the week that day falls in.
_NTH_WEEKDAY = lazy_re(rf"\b(?P<nth>first|second|third|fourth|last)\s+"
                       rf"(?P<day>{WEEKDAY_NAMES})\s+(?:of|in)\s+"
                       rf"(?P<month>{MONTH_NAMES})\b", re.I)
_WEEK_OF = lazy_re(rf"\bweek\s+of\s+(?P<day>(?:the\s+)?{DAY_NUMBER}"
                   r"(?:\s+of\s+[a-z]+)?)", re.I)
_NTH = ("first", "second", "third", "fourth")


def _calendar_day(question: str, reference_time: float
                  ) -> tuple[str, tuple[float, float], int] | None:
    """A day or week the question names by the calendar, which the time expressions do
    not read whole: (phrase, window, where the phrase starts), or None. A month named
    without a year is the latest one that begins by ``reference_time``."""
    import calendar

    m = _NTH_WEEKDAY.search(question)
    if m is not None:
        now = _time.gmtime(reference_time)
        month = MONTHS.index(m.group("month").lower()) + 1
        year = now.tm_year - (month > now.tm_mon)
        weekday = WEEKDAYS.index(m.group("day").lower())
        days = [d for d in range(1, calendar.monthrange(year, month)[1] + 1)
                if calendar.weekday(year, month, d) == weekday]
        nth = m.group("nth").lower()
        day0 = _epoch(year, month, days[-1 if nth == "last" else _NTH.index(nth)])
        return m.group(0), (day0, day0 + 86400.0), m.start()
    m = _WEEK_OF.search(question)
    if m is not None:
        when = resolve_expression(m.group("day"), reference_time, False)
        if when is not None:
            return m.group(0), period_window(when, "week"), m.start()
    return None


# A season named as a time ("over the summer", "last winter"): three months, the
# northern year's (winter runs from December).
_SEASON = lazy_re(r"\b(?:(?:in|over|during|through|for|before|until|by)\s+(?:the\s+)?"
                  r"|(?P<which>this|last|past)\s+)(?P<season>spring|summer|autumn|fall|winter)"
                  r"\b(?!\s+(?:term|semester|menu|range|collection|fair|fete|holidays?|"
                  r"league|timetable|schedule)\b|\s*,?\s*(?:of\s+)?\d{4})", re.I)
_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def _season(question: str, reference_time: float
            ) -> tuple[str, tuple[float, float], int] | None:
    """A season the question names as a time: (phrase, window, where it starts), or None.
    Without "last" it is the latest one begun by ``reference_time``; "last summer" is
    the latest one over by then."""
    m = _SEASON.search(question)
    if m is None:
        return None
    month = _SEASON_START[m.group("season").lower()]
    year = _time.gmtime(reference_time).tm_year + 1
    while True:
        start = _epoch(year, month, 1)
        end = _epoch(year + (month + 3 > 12), (month + 2) % 12 + 1, 1)
        over = (m.group("which") or "").lower() in ("last", "past")
        if (end if over else start) <= reference_time:
            return m.group(0), (start, end), m.start()
        year -= 1


_TIME_BEFORE = lazy_re(r"\b(?:on|at|for|over|during|since|until|till|by|before|after|"
                       r"from|in)\s+$", re.I)
_WEEKDAY = lazy_re(rf"(?:{WEEKDAY_NAMES})", re.I)
# An article or an owner right before a weekday makes it part of a name.
_OWNED_BEFORE = lazy_re(r"(?:\b(?:the|my|our|your|his|her|their)|'s)\s+$", re.I)
# A month's name, whole or short.
_MONTH_NAME = rf"(?:{MONTH_WORDS})"
# A month alone ("in May", "in early June"): no day, no year.
_MONTH_ONLY = lazy_re(r"(?:(?:in|during|by)\s+)?(?:(?:early|mid|late)[-\s]+)?" + _MONTH_NAME,
                      re.I)
# A day of the month without a year ("the 21st", "3rd of November", "November 3rd"): a
# day of every month, as a weekday is of every week; asked of in a present or future
# question, the coming one.
_MONTH_DAY = lazy_re(rf"(?:the\s+)?{ORDINAL}(?:\s+(?:of\s+)?{_MONTH_NAME})?"
                     rf"|(?:the\s+)?\d{{1,2}}\s+{_MONTH_NAME}"
                     rf"|{_MONTH_NAME}\s+(?:the\s+)?{DAY_NUMBER}", re.I)
_DAY_BEFORE = lazy_re(r"\b(?:on|for|this|next|by|until|till)\s+$", re.I)


def _one_day(question: str, m: re.Match[str]) -> bool:
    """A single weekday the question names as a time ("on for Saturday", "on Friday"):
    which one the grammar decides. Not a weekly slot ("on Wednesdays", "the Thursday
    school run")."""
    expr = m.group(0).strip()
    start = m.start() + m.group(0).index(expr)
    tail = question[start:]
    day = _WEEKDAY.match(tail)
    return day is not None and day.end() == len(expr) \
        and not tail[day.end():day.end() + 1].isalpha() \
        and bool(_DAY_BEFORE.search(question[:start]))


def plan_question(question: str, reference_time: float | None = None) -> Plan:
    """The plan for ``question``; ``reference_time`` (epoch s) resolves relative times
    it names ("last week"), default now."""
    # A fronted clause ("Before it got moved around, when was …?") frames the question;
    # the question proper after it says what is asked.
    fronted = _FRONTED.match(question)
    main = question[fronted.end():] if fronted else question
    operation = next((op for op, rx in _RULES if rx.search(main)), "fact")
    explicit_now = bool(_NOW.search(question))
    if operation in ("fact", "current_state") and _TIME_HEAD.match(main):
        operation = "temporal_lookup"  # "What's my day off now?": a day is asked
    if operation == "fact" and explicit_now:
        operation = "current_state"
    ref = _time.time() if reference_time is None else reference_time
    time_text, window, as_of = named_time(question, ref)
    past_view = bool(_PAST_VIEW.search(without_coming(question)))
    if past_view and not time_text:
        time_text = _PAST_VIEW.search(question).group(0)  # type: ignore[union-attr]
    current = explicit_now or not ((time_text and (window or as_of)) or past_view
                                   or operation == "history")
    answer_type = _answer_type(main, operation)
    focus = _focus(main)
    if operation == "fact" and ((focus and _plural(focus) and focus.lower() not in _SLOTS)
                                or _EXPERIENTIAL.search(question)):
        operation = "list"
    if operation.startswith("temporal"):
        shape = "temporal"
    elif answer_type == "yesno" and _OPEN.match(question):  # a hypothetical: inference
        shape = "open"
    elif _PREFERENCE.search(question):
        shape = "preference"
    elif _OPEN.search(question):
        shape = "open"
    elif _MULTI.search(question):
        shape = "multi_hop"
    else:
        shape = "factual"
    return Plan(operation, shape,
                needs_complete_set=operation in ("count", "list"),
                needs_endpoints=operation == "temporal_arithmetic",
                current=current, window=window, as_of=as_of, time_text=time_text,
                answer_type=answer_type, focus=focus, tense=_tense(question),
                settled=current and not time_text and settled(question))


# What a past question asks of a thing as it ended: its outcome ("ended up", "in the end",
# "settled on", "did we go with?"), the aspect of a final state, not an event among others.
_OUTCOME = lazy_re(r"\b(?:end(?:ed)?\s+up|in\s+the\s+end|eventually|finally|wound\s+up"
                   r"|settled?\s+(?:on|for|upon)|decided?\s+(?:on|upon))\b"
                   # "Which caterer did we go with?": the preposition left at the end
                   r"|\b(?:go|went)\s+with\s*[?.!]?\s*$", re.I)
# A time the question dates its past by, without naming one: no ending asked.
_DATED = lazy_re(r"\b(?:before|after|until|till|since|while|whilst|during|first|originally"
                 r"|initially|used\s+to|previously|earlier|then|ago|start|beginning)\b"
                 r"|.\bwhen\b", re.I)


def settled(question: str) -> bool:
    """Whether a past-tense question that names no time asks the thing as it was
    settled (see ``Plan.settled``: "What day did the jabs end up on?"), not an event
    among others ("Which company did John sign with?") nor a state dated by an event
    ("What was it before the move?")."""
    return _tense(question) == "past" and not _DATED.search(question) \
        and bool(_OUTCOME.search(question))


def untimed_past(question: str, plan: Plan) -> bool:
    """Whether a past-tense question asks the time of one thing and names no time, no
    event it is dated by and no earlier version ("When was my GP appointment?", "What
    time did the Vilnius flight leave?"): a thing's time is one value a rearrangement
    replaces (a thing done, "Which pack did I order?", may be one of several, and is left
    as it was). Told the robot, such a question asks what was last settled
    (``Plan.settled``), while "When was it first booked for?", "Where was it before the
    move?" or "… in May?" still read the older record. Whether the robot was told is the
    caller's to check (``current.told_the_robot``): between people a past tense tells of
    one event among others."""
    return plan.current and plan.tense == "past" and not plan.settled \
        and not plan.time_text and plan.window is None and plan.as_of is None \
        and plan.operation == "temporal_lookup" \
        and not _DATED.search(question) and not _PAST_VIEW.search(question) \
        and not _USE_TO.search(question)


# "Where did it use to be?": a past habit asked with "did", an earlier version.
_USE_TO = lazy_re(r"\buse\s+to\b", re.I)


def without_coming(question: str) -> str:
    """``question`` without a "before" clause that tells of an event still to come: in a
    question not in the past tense, its own verb not in the past either ("When is my last
    shift before I retire?" asks the plan as it stands, not what held before an event;
    "… before it moved?" and "… before the fire?" keep theirs)."""
    if _tense(question) == "past":
        return question
    return _BEFORE_CLAUSE.sub(
        lambda m: "" if tense(m.group(0).split(None, 1)[1]) != "past" else m.group(0),
        question)


def without_named_time(question: str, plan: Plan) -> str:
    """``question`` without the past time its plan looks back at ("What was Mum's laundry
    day in early October?" -> "What was Mum's laundry day"): when the view ends then
    (``as_of``: "before <time>", or the moment a question about what held names), the
    records are chosen by when they were said, so the time's words ("early", "October",
    "the week of the 13th") say nothing of the thing asked and must not count as the
    thing's words. A time that is no view's end is part of the thing ("Which piece are we
    singing in May?", "What time is swimming on Fridays?") and stays."""
    if plan.as_of is None or not plan.time_text or plan.time_text not in question:
        return question
    if plan.window is not None and not any(
            years_before(plan.window[0], k) <= plan.as_of <= years_before(plan.window[1], k)
            for k in range(_YEARS_BACK + 1)):
        # The view ends elsewhere ("Where were we going in July before the owner
        # emailed?", in May): the month is when the thing is, a word of it.
        return question
    start = question.find(plan.time_text)
    end = start + len(plan.time_text)
    if _PAST_VIEW.fullmatch(plan.time_text):
        return question  # "before the frost": the event dates it, its words find it
    if not re.match(r"(?:in|on|at|of|during|before|by|until|till|the|back)\b", plan.time_text,
                    re.I) and not _TIME_BEFORE.search(re.sub(r"\bthe\s+$", "", question[:start])):
        return question  # "my usual Friday order": a weekday that names the thing
    # The part of the period it names, said just before it ("at the start of March").
    for m in PART_OF.finditer(question[:end]):
        if m.end() >= start - _PART_GAP:
            start = min(start, m.start())
    # "the first Friday of October", "the week of the 13th": read whole by the calendar.
    for rx in (_NTH_WEEKDAY, _WEEK_OF):
        for m in rx.finditer(question):
            if m.start() < end and m.end() > start:
                start, end = min(start, m.start()), max(end, m.end())
    return question[:start] + " " * (end - start) + question[end:]


_YEARS_BACK = 3  # as held_time looks back for a month named without a year
_PART_GAP = 6  # "early ", "start of the ": what lies between a part and its period


# Plural nouns of a schedule ("Which days am I in?", "What hours is my shift?"): one
# state that holds several times, revised as a whole, not a set of separate facts.
_SLOTS = frozenset({"days", "nights", "evenings", "mornings", "afternoons", "hours", "times",
                    "weekdays", "weekends", "shifts"})


def _plural(noun: str) -> bool:
    return len(noun) > 3 and noun.endswith("s") and not noun.endswith("ss") and stem(noun) != noun \
        and not noun.endswith("ous")
