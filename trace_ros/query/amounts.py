"""Numbers and amounts: number words and what a phrase states comparably across wordings
("7:00" and "seven"), an amount against the change that brings it ("down to 27",
not "four more"), the unit a bare figure is said in, and the records that state one
value in different words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..language.lazyre import lazy_re
from ..language.text import STOPWORDS, stem, stems
from ..language.timeanchor import find_candidates, ordinal_value
from ..language.vocab import TENS, UNITS
from .readout import Scored
from .spans import money, number_head

NUMBER_VALUES = {w: str(n) for w, n in (UNITS | TENS).items() if n <= 50}
NUMBER_VALUES.update({"tenner": "10", "fiver": "5", "noon": "12", "midday": "12",
                       "midnight": "12", "half": "30", "quarter": "15"})


def _plural_number(word: str) -> str:
    """The number a number word in the plural stands for ("tens", "twenties"), else ""."""
    for end, back in (("ies", "y"), ("es", ""), ("s", "")):
        single = word[: -len(end)] + back if word.endswith(end) else ""
        if single in UNITS or single in TENS:
            return NUMBER_VALUES.get(single, "")
    return ""


@lru_cache(maxsize=65536)  # the same shown records are read for every candidate value
def value_tokens(text: str) -> frozenset[str]:
    """What a phrase states, comparable across wordings: its numbers (digits, number
    words) and the stems of its other content words ("7:00" and "seven" share "7")."""
    out = {d.lstrip("0") for d in re.findall(r"\d+", text) if d.strip("0")}
    for w in re.findall(r"[^\W_]+(?:-[^\W_]+)*", text.lower()):  # "twenty-ninth" is one word
        if w in NUMBER_VALUES:
            out.add(NUMBER_VALUES[w])
        elif _plural_number(w):
            out.add(_plural_number(w))  # "boots are still tens"
        elif ordinal_value(w):
            out.add(str(ordinal_value(w)))
        elif not w.isdigit() and not re.search(r"\d", w):
            out |= stems(w)
    return frozenset(out)
# What a change comes to ("down to 27", "that makes thirty-five", "a total of 40"), and a
# number said as the change itself ("four more", "another two", "knock one off").
RESULT = lazy_re(r"\b(?:(?:down|up|back)\s+to|makes?|making|that['’]s|total(?:\s+of)?)\s+$",
                  re.I)
_CHANGE_AFTER = lazy_re(r"\s+(?:more|fewer|less|extra|off)\b", re.I)
_CHANGE_BEFORE = lazy_re(r"\b(?:another|an\s+extra|additional)\s+$", re.I)


def bare_sentence(text: str) -> str:
    """A sentence's words alone, lower-cased ("Fourteen." → "fourteen")."""
    return " ".join(re.findall(r"[\w'’-]+", text)).lower()


# Words that only settle on a figure ("Four, then.", "Call it forty-four.", "So, 36 now.",
# "Eight it is."): a sentence of them and a figure says nothing but the figure.
_SETTLING = frozenset("then so now it is it's that that's call make say okay ok right well"
                      .split())


def settled(sentence: str, phrase: str) -> bool:
    """Whether ``sentence`` says nothing beside the figure ``phrase`` but words that settle
    on it ("Four, then.", "Call it £530."): the amount the rest of a record works out to."""
    said, figure = bare_sentence(sentence).split(), bare_sentence(phrase).split()
    at = next((i for i in range(len(said) - len(figure) + 1)
               if figure and said[i:i + len(figure)] == figure), None)
    if at is None:
        return False
    return all(w.replace("’", "'") in _SETTLING for w in said[:at] + said[at + len(figure):])


def change_amount(text: str, found: tuple[int, str]) -> bool:
    """Whether the number at ``found`` (offset, phrase) is said as a change of an amount
    ("four more", "another two"), not as the amount."""
    at, phrase = found
    head = number_head(phrase)
    return bool(_CHANGE_AFTER.match(text, at + len(head)) or _CHANGE_BEFORE.search(text[:at]))


# A figure with its unit: "35p", "10 milligram", "2.5 kg", "1,200 calories".
FIGURE_UNIT = lazy_re(r"(?<![\w.])(\d[\d.,]*)\s*([a-z%]+)\b", re.I)
# A figure written plain: digits, and a decimal part ("10", "2.5"); no "1,200".
_PLAIN_FIGURE = lazy_re(r"\d+(?:\.\d+)?")
_BARE_NUMBER = lazy_re(rf"(?:down\s+to\s+|up\s+to\s+|on\s+)?({_PLAIN_FIGURE.pattern})")


def with_unit(amount: str, found: Sequence[tuple[Scored, str, float]]) -> str:
    """``amount`` said bare ("down to 10 now") with the unit the other records about the
    same measure give it ("20 milligrams", "15mg"): as a record says that very figure
    ("10mg"), else in the one unit they all use. The speaker leaves the unit unsaid
    because it was said before; the answer says it."""
    m = _BARE_NUMBER.fullmatch(amount.strip())
    if m is None:
        return amount
    # (a plain figure, a unit all letters: not "1,200 mg")
    said = [u for u in (FIGURE_UNIT.fullmatch(f[1].strip()) for f in found)
            if u and _PLAIN_FIGURE.fullmatch(u.group(1)) and u.group(2).isalpha()
            and u.group(2).lower() not in STOPWORDS]
    same = [u.group(0) for u in said if u.group(1) == m.group(1)]
    if same:
        return amount.strip()[:m.start(1)] + same[0]
    units = {u.group(2).lower() for u in said}
    return f"{amount} {said[0].group(2)}" if len(units) == 1 else amount


def revisions_of(found: Sequence[tuple[Any, str, float]], share: float,
                 overlap_share: float) -> list[tuple[Any, str, float]]:
    """Of the records that state a value (scored item, value, how much of what is asked it
    covers), those that say one state in different words: each covers at least ``share``
    of the most any covers and matches the question's words at least ``overlap_share`` of
    the best match. When none passes both (the one that covers most matches few of the
    question's words, the best match covers little), those that cover most are the
    revisions: never none."""
    top = max(f[2] for f in found)
    match = max(f[0].overlap for f in found)
    both = [f for f in found if f[2] >= share * top
            and (f[0].overlap <= 0 or f[0].overlap >= overlap_share * match)]
    return both or [f for f in found if f[2] >= top]


# A verb and the particle that ends its phrase ("pick the twins up").
_PHRASAL = lazy_re(r"\b([a-z]+)\s+(?:[\w'’]+\s+){0,2}?(up|off|out|over)\b", re.I)


def _joined(question: str) -> set[str]:
    """The nouns a question's phrasal verbs make when joined ("pick the twins up" ->
    pickup, "drop off" -> dropoff): a record says "the pickup is at 5.30"."""
    return {stem(m.group(1).lower() + m.group(2).lower()) for m in _PHRASAL.finditer(question)
            if m.group(1).lower() not in STOPWORDS}


# A figure with the unit it is measured in ("5.1 kilos", "2.9 kg", "twelve stone").
WITH_UNIT = lazy_re(rf"(?:\d[\d.,]*|(?:{'|'.join(NUMBER_VALUES)})\b)\s*[a-z]", re.I)


# What joins the first day of a range of dates to the day with its month ("18 and 19
# October", "3rd to 5th May").
_RANGE_JOIN = lazy_re(r"\s*(?:and|to|till|until|through|-|\u2013)\s*", re.I)


def not_counted(text: str, found: tuple[int, str], counted: str) -> bool:
    """Whether the number ``found`` (offset, phrase) in ``text`` counts no things at all:
    a sum of money ("forty quid a year for members" for "How many members …?") or the
    first day of a range of dates ("the weekend of 18 and 19 October" for "How many
    films …?"). A count in money's own unit ("How many pounds …?", ``counted``) keeps
    its sums."""
    start, phrase = found
    if money(phrase) and not (counted and money(f"2 {counted}")):
        return True
    join = _RANGE_JOIN.match(text, start + len(phrase))
    return bool(join) and any(m.start() == join.end() for m in find_candidates(text))
