"""How a statement is told: its tense and aspect, a reason given, a time a state starts.

Signals of ``judge.py`` that need no word of the thing: a change is most often told as
news — opening on what happened, or in the present perfect ("The hall double-booked us.
The church room is free", "Sam's taken the key home"), with its reason ("the pool's shut
for repairs, so swimming is at the lake"), or with the time the new state holds from
("from next week the van comes Wednesdays", "starting May the gate opens at six") —
while a look-alike or a second thing is most often told as the first was. Only
closed-class words (auxiliaries, connectives, prepositions, the calendar's names) and
``timeanchor.tense``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from ..language.clauses import clauses
from ..language.monthday import MONTHS, WEEKDAYS
from ..language.timeanchor import tense

_ADVERB = r"(?:just\s+|now\s+|finally\s+|already\s+)?"
_PARTICIPLE = r"[a-z]+(?:ed|en|wn|ne|ught|ken|ten)\b"
# The present perfect, active or passive: "has moved", "'ve brought", "'s been cancelled".
_PERFECT = re.compile(rf"\b(?:has|have|had)\s+{_ADVERB}(?:been\s+)?(?:{_PARTICIPLE}|[a-z]+t\b)"
                      rf"|['’](?:ve|s)\s+{_ADVERB}(?:been\s+)?{_PARTICIPLE}", re.I)
# A reason or consequence joined to the state ("…, so we're at thirteen", "because …").
_REASON = re.compile(r",?\s+so\s+|,\s+which\s+means\s+|\b(?:because|cos|cause)\b|\bdue\s+to\b",
                     re.I)
# The time a state holds from or until ("from next week", "starting November", "come
# October", "as of the 3rd").
_START = re.compile(r"\b(?:from|starting|come|as\s+of|beginning|effective|until)\s+"
                    r"(?:now\s+on|next|this|tomorrow|tonight|today|the\s+\d|\d|"
                    + "|".join(MONTHS + WEEKDAYS) + r")", re.I)


class Telling(NamedTuple):
    """How one statement is told."""

    perfect: bool
    reason: bool
    start: bool
    past_opening: bool  # its first clause told in the past (``timeanchor.tense``)


@lru_cache(maxsize=16384)
def telling(text: str) -> Telling:
    """How ``text`` is told (cached: a statement is weighed against many)."""
    first = clauses(text)[:1]
    return Telling(bool(_PERFECT.search(text)), bool(_REASON.search(text)),
                   bool(_START.search(text)), bool(first) and tense(first[0]) == "past")


def signals(new: str) -> list[float]:
    """``judge.FEATURES``' "perfect_new" … "past_opening": the later told in the present
    perfect, with a reason, with a time it holds from, opening on what happened ("They
    rescheduled my eye exam: it's on the 20th instead"). Not the past anywhere in it:
    "Priya's birthday is on the 15th, we booked the Thai place" tells its state first,
    and the past clause after it of another thing."""
    n = telling(new)
    return [float(n.perfect), float(n.reason), float(n.start), float(n.past_opening)]
