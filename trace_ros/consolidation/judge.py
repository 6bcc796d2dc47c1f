"""Does a later statement of a speaker update an earlier one? A fitted judgement.

``supersede.py``'s rule relates two statements of one speaker when their vectors are
close (``CLOSE``), they share a salient word, and one specific value (a weekday, a
number, a place) gave way to another in the sentences naming it. Everyday changes often
miss one of the three ("Mr Lowe's obs are down to four-hourly now" after "Mr Lowe in bed
3 is on two-hourly obs": "four-hourly" is no value of a kind the rule knows).
``probability`` weighs what the rule tests one at a time — the cosine, the words the two
share and how rare they are for the speaker, values replaced, added, given up or kept, a
change or a continuation marked, another holder named, a negated shared word, how far
apart they were said, their lengths, whether the later speaks of another holder or
another instance or event (``elsewhere``), whether either speaks to the listener
("you"), the holders' names and three-letter words both name and the speaker seldom
says, whether it is the closest of those weighed, whether a seldom-said word ties them,
whether the later is the statement the earlier is most like of all the speaker said,
how the later is told (``telling.py``: as news, opening on what happened or in the
present perfect, with a reason, from a time), whether a value of one kind gave
way to another anywhere in the two (``revision.replaces``, ``revision.contrasts``) —
with weights fitted by logistic regression on the build halves of ``bench updates
--natural`` (``tools/fit_update_judge.py``). Only statements that share a word the
speaker seldom uses (a content word, a holder's name, a three-letter word) are weighed,
or of the speaker's own, any at least ``UNTIED_CLOSE`` (whether it was tied so, and
whether the later statement is the one the earlier is most like, are signals too),
and none that restates (``continues`` without ``marks_change``); ``elsewhere`` rules out
only another speaker's statement. No word, name or phrase of those histories is a
signal: only the closed-class words of ``language/revision.py`` and the negations below.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..language.revision import (
    KIN,
    about_another,
    continues,
    contrasts,
    denies_change,
    holders,
    holders_stems,
    introduces,
    keys,
    marks_change,
    other_event,
    owners,
    replaces,
    same_holder,
    terms,
    values,
)
from ..language.text import sentences, stem
from . import telling
from .judge_weights import INTERCEPT, THRESHOLD, WEIGHTS
from .things import other_kind

# An earlier statement is weighed when its cosine to the later one is at least this
# and the two share a content word.
FLOOR = 0.35
# The speaker's own earlier statement sharing no word they seldom say is weighed when at
# least this close ("I'm vegetarian. Eggs and cheese are fine" … "I'm going fully vegan.
# No eggs, no dairy": a change told in other words; ``tied`` weighs the lack). Fitted
# with ``nearest``, over the histories' build halves (three folds by author), at the
# threshold 0.75 it found 364 changes to the 333 the tied pairs alone found at 0.7, with
# as many look-alikes joined (17); at 0.7 it found 421 but joined 25 (from 0.5: 420, 30).
UNTIED_CLOSE = 0.6
_NEGATION = re.compile(r"\b(?:no|not|never|nothing|none|nobody|anymore|longer)\b|n't\b",
                       re.I)
_WORDS = re.compile(r"[^\W_]+")
# The listener addressed: a turn that speaks to them ("Congrats, I'm so proud of you")
# tells of them or of the talk, seldom revises what the speaker said of their own state.
_ADDRESS = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)

FEATURES = (
    "cos", "shared_salient", "shared", "overlap", "replaced", "new_values",
    "old_values", "same_values", "marks_change", "continues", "other_holder",
    "negates_shared", "distance", "short_new",
    "long_new", "long_old", "another_holder", "another_thing", "addresses_new",
    "addresses_old", "shared_name", "shared_short", "perfect_new", "reason_new", "start_new",
    "past_opening", "replaces", "contrasts",
    "closest", "tied", "nearest",
)


def _count(n: int, cap: int = 3) -> float:
    return min(cap, n) / cap


def shared_names(old: str, new: str) -> frozenset[str]:
    """The holders both name, people, pets or places ("Pickle goes in on the 12th" …
    "Pickle's been brought forward to the 10th"): of the annotated changes of the
    histories' build halves that shared no content word, most shared one of these. Not
    a name either names only as a relative's ("Tadeo's brother has been moved"): that
    tells of the relative."""
    return (holders_stems(old) & holders_stems(new)) - _relatives_of(old) - _relatives_of(new)


_RELATIVE_OF = re.compile(r"\b([^\W\d_]+)['’]s\s+(" + "|".join(sorted(KIN)) + r")\b", re.I)


@lru_cache(maxsize=8192)  # asked of every earlier statement for every later one
def _relatives_of(text: str) -> frozenset[str]:
    """The stems of the names ``text`` names as a relative's owner ("Tadeo's brother")."""
    return frozenset(stem(m.group(1).lower()) for m in _RELATIVE_OF.finditer(text))


def _shared_content(old: str, new: str) -> frozenset[str]:
    """The content words both name, not a person's or holder's."""
    return _content(old) & _content(new)


@lru_cache(maxsize=8192)
def _tie_words(text: str) -> frozenset[str]:
    """Every word that may tie ``text`` to another (``shared_ties``): its content words
    and its holders' names."""
    return _content(text) | holders_stems(text)


@lru_cache(maxsize=8192)
def _content(text: str) -> frozenset[str]:
    """The content words ``text`` names, not a person's or holder's."""
    return terms(text) - holders_stems(text)


def _by_length(content: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """``content`` split into its words longer than three letters and its three-letter ones."""
    return (frozenset(t for t in content if len(t) > 3),
            frozenset(t for t in content if len(t) == 3))


def shared_short(old: str, new: str) -> frozenset[str]:
    """The three-letter content words both name ("the van", "the kit"), which
    ``shared_terms`` leaves out."""
    return _by_length(_shared_content(old, new))[1]


def shared_terms(old: str, new: str) -> frozenset[str]:
    """The content words both name, not a person's or holder's (longer than 3)."""
    return _by_length(_shared_content(old, new))[0]


def shared_ties(old: str, new: str
                ) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """What ties the pair: ``shared_terms``, ``shared_names``, ``shared_short``."""
    longer, short = _by_length(_shared_content(old, new))
    return longer, shared_names(old, new), short


@dataclass(frozen=True)
class Pair:
    """An earlier (``old``) and a later (``new``) statement of one speaker."""

    old: str
    new: str
    cos: float
    between: int  # the speaker's statements said between them
    lookback: int  # how many the speaker's statements the comparison reaches back

    def signals(self, salient: Callable[[str], bool],
                speaker: frozenset[str] = frozenset(),
                ties: tuple[frozenset[str], frozenset[str], frozenset[str]] | None = None,
                teller: str = "") -> list[float]:
        """The signals in ``FEATURES`` order (less the last three, ``weigh``'s); ``ties``: the pair's
        ``shared_ties`` when the caller has them already; ``teller``: who said ``old``
        when another than ``new``'s speaker (``another_holder``)."""
        old, new = self.old, self.new
        shared, names, short = ties or shared_ties(old, new)
        rare = frozenset(t for t in shared if salient(t))
        t_old, t_new = terms(old), terms(new)
        v_old, v_new = values(old), values(new)
        about_old = [s for s in sentences(old) or [old] if keys(s) & shared]
        about_new = [s for s in sentences(new) or [new] if keys(s) & shared]
        n_old, n_new = _word_count(old), _word_count(new)
        return [
            self.cos,
            _count(len(rare)),
            _count(len(shared)),
            len(t_old & t_new) / (len(t_old | t_new) or 1),
            float(any(replaces(o, n) for o in about_old for n in about_new)),
            float(bool(v_new - v_old)),
            float(bool(v_old - v_new)),
            float(bool(v_old & v_new)),
            float(marks_change(new)),
            float(continues(new)),
            float(bool(holders(new) - holders(old))),
            float(any(_NEGATION.search(s) for s in about_new)),
            math.log1p(self.between) / math.log1p(max(1, self.lookback)),
            float(n_new <= 6),
            float(n_new > 40),
            float(n_old > 40),
            float(another_holder(new, old, shared, speaker, teller)),
            float(another_thing(old, new, shared)),
            _count(_addresses(new), 2),
            _count(_addresses(old), 2),
            _count(sum(map(salient, names)), 2),
            _count(sum(map(salient, short)), 2),
            *telling.signals(new),
            float(replaces(old, new)),
            float(contrasts(old, new)),
        ]


@lru_cache(maxsize=8192)  # each statement is weighed against many
def _word_count(text: str) -> int:
    return len(_WORDS.findall(text))


@lru_cache(maxsize=8192)
def _addresses(text: str) -> int:
    """How often ``text`` speaks to the listener (``_ADDRESS``)."""
    return len(_ADDRESS.findall(text))


def probability(signals: list[float]) -> float:
    """The fitted probability that the later statement updates the earlier one."""
    z = INTERCEPT + math.fsum(w * x for w, x in zip(WEIGHTS, signals, strict=True))
    return 1.0 / (1.0 + math.exp(-z))


def fitted() -> bool:
    return any(WEIGHTS)


def updates(signals: list[float]) -> float | None:
    """The probability when it reaches ``THRESHOLD``, else None."""
    p = probability(signals)
    return p if fitted() and p >= THRESHOLD else None


def another_thing(old: str, new: str, shared: frozenset[str]) -> bool:
    """Whether ``new`` brings in what it shares with ``old`` as another instance ("an
    upcoming show in Boston") or names an event the other does not ("the piano lesson")."""
    return introduces(new, shared) or other_event(old, new) or other_event(new, old)


def another_holder(new: str, old: str, shared: frozenset[str], speaker: frozenset[str],
                   teller: str = "") -> bool:
    """Whether ``new`` tells of another holder's thing than ``old`` ("my sister's
    appointment") or is someone else's news. ``teller``: who said ``old``, when another
    than ``new``'s speaker; what they told of their own ("My driving test is on the
    27th") has them as its holder, so news of it by their name ("Mireille's test got
    bumped to the 2nd") tells of the same holder's thing (``revision.owners``)."""
    held = holders(old) | (owners(old, teller) if teller else frozenset())
    return not same_holder(new, frozenset(), held, shared) or about_another(new, held | speaker)


def elsewhere(old: str, new: str, shared: frozenset[str], speaker: frozenset[str],
              teller: str = "") -> bool:
    """Whether ``new`` speaks of another instance, event or holder of what it shares
    with ``old`` ("an upcoming show in Boston", "the piano lesson", "my sister's
    appointment"), or is someone else's news: then it revises nothing ``old`` said.
    ``teller``: who said ``old``, when another (``another_holder``)."""
    return another_thing(old, new, shared) or another_holder(new, old, shared, speaker, teller)


def weigh(new: str, earlier: Sequence[str], sims: Sequence[float],
          salient: Callable[[str], bool], speaker: frozenset[str] = frozenset(),
          strict: bool = False, units: np.ndarray | None = None, teller: str = ""
          ) -> list[tuple[int, list[float]]]:
    """The signals of each earlier statement worth weighing against ``new`` (by index
    into ``earlier``, oldest first; ``sims``: their cosines to it): one at least
    ``FLOOR`` close that shares a content word the speaker seldom uses (``salient``), or a
    holder's name or three-letter word they seldom use (``shared_names``,
    ``shared_short``: weighed as signals of their own), is
    no question and names no shared word as another kind's ("the chess club" / "the book
    club"; ``things.other_kind``); none when ``new`` marks its value as carrying on and
    not as new (a restatement). Whether ``new`` speaks of another instance, event or holder
    (``another_thing``, ``another_holder``; ``speaker``: the words of the speaker's name)
    is weighed, not a gate: as a gate it turned away a fifth of the speakers' own changes
    ("Took Dad to the GP. She wants the blood pressure one taken at bedtime instead" reads
    as another holder's); with ``strict`` (another speaker's statements) it still is one.
    The speaker's own statement that shares no such word is weighed too when at least
    ``UNTIED_CLOSE`` (not with ``strict``), the lack a signal (``tied``). ``units``: the
    earlier statements' unit vectors (rows in ``earlier``'s order), for ``nearest``;
    ``teller``: who said ``earlier`` when another person (``another_holder``)."""
    n = len(earlier)
    out: list[tuple[int, list[float]]] = []
    if continues(new) and (not marks_change(new) or denies_change(new)):
        return out  # "still the 12th, nothing's changed": a restatement revises nothing
    close = np.asarray(sims, dtype=np.float64)
    if len(close) != n:
        raise ValueError(f"weigh: {len(close)} cosines for {n} statements")
    # A pair can be tied only by a word both name (``_tie_words``) the speaker seldom
    # says: a pair sharing none of ``new``'s salient ones is passed over unread unless
    # close enough to be weighed untied (the same pairs as reading each, fewer read).
    tying = frozenset(t for t in _tie_words(new) if salient(t))
    for j in np.flatnonzero(close >= FLOOR).tolist():
        old, cos = earlier[j], float(close[j])
        if old.rstrip().endswith("?"):
            continue
        if (strict or cos < UNTIED_CLOSE) and tying.isdisjoint(_tie_words(old)):
            continue
        ties = shared_ties(old, new)
        shared = ties[0]
        tied = any(salient(t) for t in ties[0] | ties[1] | ties[2])
        if not (tied or not strict and cos >= UNTIED_CLOSE and not _kin_told(old, new)) \
                or any(other_kind(old, new, t) for t in shared) \
                or strict and elsewhere(old, new, shared, speaker, teller):
            continue  # no word the speaker seldom says, or two things of one kind
        signals = Pair(old, new, cos, n - 1 - j, n).signals(salient, speaker, ties, teller)
        out.append((j, signals + [float(tied), float(_nearest(units, j, cos))]))
    # Whether it is the closest of those weighed: of several earlier statements of the
    # thing, the one the new statement is most like is the one it revises.
    closest = max((s[0] for _, s in out), default=0.0)
    return [(j, [*s[:-2], float(s[0] >= closest), *s[-2:]]) for j, s in out]


def _kin_told(old: str, new: str) -> bool:
    """Whether one names a holder of the other only as a relative's owner ("My cousin
    Tadeo drives the 12" … "Tadeo's brother has been moved to the 47"): it tells of the
    relative, as ``shared_names`` reads it."""
    return bool(_relatives_of(new) & holders_stems(old) or _relatives_of(old) & holders_stems(new))


def _nearest(units: np.ndarray | None, j: int, cos: float) -> bool:
    """Whether the new statement is the one the earlier (row ``j`` of ``units``) is most
    like of all the speaker said up to it: a thing told once and told again changed; a
    look-alike (another person's appointment, a second weekly event) is often nearer a
    statement of its own kind. False without ``units``."""
    if units is None or len(units) < 2:
        return units is not None
    others = units @ units[j]
    others[j] = -1.0
    return cos >= float(others.max())
