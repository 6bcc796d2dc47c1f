"""Currentness at consolidation: a later statement of the same thing by the same person.

The key rules of ``link.py`` relate revisions the extractor keyed alike ("lives
in Boston" / "lives in Seattle"). People state most changes in words no key
anticipates ("ISP guy came and reset everything. wifi password is sunflower88 now").
``Supersession.link`` relates a new record to the latest earlier record of the same
speaker that states the same thing with a different value, whatever their keys:

- *the same thing*: their sentence vectors are close (``CLOSE``, MiniLM cosine) and
  they share a *salient* content word that is no value or person (``revision.terms``):
  one the speaker has used in few of their earlier statements (``SALIENT``), so
  "wifi" or "standup" ties two statements and "work" or "really" does not; the new one
  names no other holder for it ("my sister's appointment", "her locker") and no other
  event ("the piano lesson" after "the car service"), and is not someone else's news.
  Less close (``THING_CLOSE``: a change told with its reason, "the boiler died, and the
  rehearsal is on Thursdays"), the shared word must head a noun phrase in both and be
  named with no other kind's word before it ("the orchestra rehearsal";
  ``things.py``); sharing no such word, two statements at least that close are of one
  thing when they tell of one person the speaker seldom names and the later marks a
  change (``_same_one``: the holder is the thing's subject, "Dayo has the N279" …
  "Dayo's been moved to the N29");
- *the same one*: the new statement does not bring the shared word in as another
  instance ("an upcoming show in Boston" after "that show in Tokyo");
- *a different value*: a sentence of each that names the shared word, where one
  specific value gave way to another of its kind (``revision.replaces``: a weekday, a
  month, a number, a place), or the later sets a new one against the old named again
  ("Fridays, not Tuesday"; ``revision.contrasts``), or counts the shared thing by
  another number ("fourteen hives" … "Twelve hives now"; ``shapes.recounted``); a
  restatement ("still Monday at 3"), an added detail, or the days of two past events
  ("last Friday" / "last Sunday") are no update;
- only a person's statements, never the robot's or a question; two facts with one
  key are left to the key rules (``link.py``), which know restatements of a key.

The edge (newer fact → older fact, ``updates``; a state fact of each record where
there is one) carries its evidence — the cosine, the shared words, the two values —
and a confidence that grows with the cosine; the resolver
(``state.recompute_validity``) then supersedes the older fact as for any rule-made
update. Where this rule finds nothing, a fitted judgement (``judge.py``) weighs the
speaker's earlier statements that share a word they seldom use, and relates the likeliest
if likely enough (an edge whose justification says it was judged). The query road finds
what both miss over the recalled records (``query/current.py``), with the same
judgements from ``language/revision.py``.

Before all these, *conversational repair*: a statement that takes back a value the
speaker's own turn just before gave (``REPAIR_TURNS``, same session; a robot's echo may
come between), denying it or opening on a short repair marker, with another value of its
kind ("desk 2.07" … "Sorry, 2.09, not 2.07."; "172" … "Oh, scratch that, … 165.";
``revision.repairs``), updates that turn's fact at ``REPAIR_CONFIDENCE``: the speaker's
next breath is about the same thing, whatever words or vector it shares.

Where none of these relates it, a *marked change* of a value: a statement that marks its
state as new ("now", "instead", "moved"; ``revision.marks_change``, no "still") and gives
another value of the kind an earlier statement of the speaker's gave, among their last
``MARKED_WITHIN``, the two at least ``MARKED_CLOSE`` (closer than the same-thing rule
asks, since they need share no word: "Our rota has me on Mondays" … "They've shuffled
the roster, I'm on Wednesdays now"). The later names no one the earlier did not, no
other event, no other kind of a thing both name ("the garage code" / "the food bank
code"), and is no one else's news (``marked_revision``).

Where none of these relates it either, an *elliptical revision* (``ellipsis.py``): a
statement that marks a change (or sends a thing to a value: "Organisers shifted it to the
21st") and gives a value of a kind, naming no subject of its own the earlier does not,
revises the speaker's latest statement among their last ``ELLIPSIS_WITHIN`` that holds a
value of that kind, if that one is of the same thing (not of one thing more, another
holder's, another event's); their vectors and words need not meet ("Race day's the 14th of
September" … "Organisers shifted it to the 21st, some festival in town").

Where none of these relates it either, a *count carried on* (``shapes.counted_on``): a
statement that numbers a thing of the speaker's own by an ordinal ("I won my fourth video
game tournament") updates their latest earlier statement numbering the same thing by a
lower one ("Last week I won my second tournament!"): how many they have had is now the
new number, whatever words or vectors the two share. The same ordinal again, a lower one
looked back on ("since my first tournament"), a plan for the next ("it's gonna be my 4th
one") or a rank not after "my" / "our" ("the 4th quarter") counts nothing on.

A plan gives way to its outcome the same way: where neither finds a revision,
``realised`` relates a statement that tells in the past tense of a thing the speaker
had planned, in one of their recent statements, for a time ahead ("I'm going to a
conference this month" … "I went to an LGBTQ conference two days ago"; "a festival
next month" … "Remember the festival? Had that performance"): their vectors close
(``REALISED_CLOSE``; a time ahead is one ``find_candidates`` reads, or a count of days
or weeks "later" / "from now" in a sentence not told in the past: "a gaming party two
weekends later"), a salient word shared that is no word of the plan's time and
heads a noun phrase ("the festival", "a conference") in one of the two sentences
naming it. A plan with no time ahead ("I'll always remember …"), a question ("are
you coming to the event next month?") or another instance ("another conference")
is no plan realised, nor is an outcome told of a time months from the time planned
(``REALISED_SPAN``: another occasion), nor a plan related once already.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from ..facts import JUDGED_UPDATE, Fact
from ..language.monthday import WEEKDAY_WORD
from ..language.revision import (
    CLOSE,
    about_another,
    adds,
    as_listener,
    continues,
    contrasts,
    denies_change,
    holders,
    holders_stems,
    introduces,
    keys,
    marks_change,
    negated,
    of_listener,
    other_event,
    other_titled,
    owners,
    repair_marked,
    repairs,
    replaces,
    same_holder,
    source_of_change,
    spoken_to,
    state_values,
    terms,
    unowned,
)
from ..language.text import sentences
from ..language.text import stem as _stem
from ..language.timeanchor import find_candidates, forward_at, ordinal_value, tense
from ..language.vocab import is_robot
from ..ledger import SourceRecord
from ..storage import graph_of
from . import judge
from .ellipsis import antecedent, gives_change
from .link import STATE_TYPES, LinkResult
from .shapes import counted_on, numbered, recounted, shaped
from .things import (
    SHORT_STEM,
    TOKEN,
    named_thing,
    naming,
    other_kind,
    phrase_heads,
    thing_terms,
)

# Earlier turns of the same speaker a new one is compared with (among the last
# LOOKBACK * 16 sources of the subject).
LOOKBACK = 400
# A word is salient for a speaker when at most this share of their earlier statements
# (and never more than a couple when they have said little) uses it.
SALIENT = 0.05
_MIN_CONFIDENCE = 0.6
_MAX_CONFIDENCE = 0.85
# A plan and the statement telling its outcome: their cosine at least this, the outcome
# among the speaker's next REALISED_WITHIN statements.
REALISED_CLOSE = 0.5
REALISED_WITHIN = 60
# The outcome is told of a time within this many seconds of the time planned (the
# coarsest plan, "next month", spans a month): months later it is another occasion.
REALISED_SPAN = 35 * 86400.0
# A speaker repairs their own last turn when it is among the REPAIR_TURNS turns before
# the new one in the session (a robot's echo may come between); the edge's confidence.
REPAIR_TURNS = 2
# Two statements less close than ``CLOSE`` (a change told with its reason: "Eli nicked
# his finger … so I've put the kit above the kettle") are of one thing when at least
# this close and the shared word is named as a thing, a noun phrase's head, in both.
THING_CLOSE = 0.45
REPAIR_CONFIDENCE = 0.85
# A marked change of a value (``marked_revision``): the earlier statement among the
# speaker's last MARKED_WITHIN, the two at least MARKED_CLOSE. Over the histories' turns,
# 0.45 made twice as many edges but a fifth of them joined two different things.
MARKED_CLOSE = 0.55
MARKED_WITHIN = 40
# Another person's update is less sure than the speaker's own: its confidence is the
# same-thing rule's less this.
RELAYED_DISCOUNT = 0.1
# Another person's marked change (``_relayed_marked``): their statement among the
# other's last MARKED_WITHIN, the two at least RELAYED_CLOSE. Over the histories' turns
# 0.45 added four edges, two of them joining one person's thing to another's (a
# relative's clinic date to the speaker's own; the carer's rota to the chiropodist's).
RELAYED_CLOSE = MARKED_CLOSE
# An elliptical revision (``ellipsis.py``): the statement revised among the speaker's
# last ELLIPSIS_WITHIN; the edge's confidence (no vector or shared word vouches for it).
ELLIPSIS_WITHIN = 40
ELLIPSIS_CONFIDENCE = _MIN_CONFIDENCE
# A time ahead by a count of days or weeks from now, with no calendar word ("a gaming
# party two weekends later", "three weeks from now"): ``find_candidates`` reads none.
_LATER = re.compile(r"\b(?:a|an|one|two|three|four|five|six|a\s+couple\s+of|a\s+few|\d{1,2})\s+"
                    r"(?:days?|weeks?|weekends?|months?)\s+(?:later|from\s+now)\b", re.I)


class Supersession:
    """Links one source's facts to the record they revise (inside the batch). One per
    batch: each speaker's earlier statements are read once and extended as the
    batch's sources are projected in order — every turn of theirs, those linked no
    further too (``note``), so the judgement weighs the same history in one batch, in
    many, and in the fit (``tools/fit_update_judge.py`` replays all the turns)."""

    def __init__(self, conn: sqlite3.Connection, close: float = CLOSE) -> None:
        self.conn = conn
        self.close = close
        # (subject, speaker) -> (seqs, source IDs, texts, unit vectors), by seq
        self._said: dict[tuple[str, str], tuple[list[int], list[str], list[str], Rows]] = {}
        # (subject, speaker) -> how many of their statements use each term
        self._used: dict[tuple[str, str], Counter[str]] = {}
        # subject -> the people who have spoken in it (not the robot)
        self._speakers: dict[str, set[str]] = {}

    def _unit(self, source: SourceRecord) -> np.ndarray | None:
        """The source's unit vector when it is a person's dialogue turn, else None."""
        if self.close >= 1.0 or source.modality != "dialogue" or not source.speaker \
                or is_robot(source.speaker, source.robot_id):
            return None
        mine = graph_of(self.conn).source_vector(self.conn, source.source_id)
        return None if mine is None else mine / (float(np.linalg.norm(mine)) or 1.0)

    def note(self, source: SourceRecord) -> None:
        """Counts a turn that is linked no further (it gave no facts, or a key rule
        relates it) among the speaker's statements, as a later batch reading them from
        the ledger would: the batch consolidated at once and session by session then
        weigh the same statements at the same distances."""
        unit = self._unit(source)
        if unit is not None:
            self._earlier(source.subject_id, source.speaker, source.seq)
            self._remember(source, unit)

    def link(self, source: SourceRecord, facts: Sequence[Fact], out: LinkResult) -> None:
        unit = self._unit(source)
        if unit is None:
            return
        seqs, ids, texts, vecs = self._earlier(source.subject_id, source.speaker, source.seq)
        used = self._used[(source.subject_id, source.speaker)]
        try:
            if facts and vecs and self._repaired(source, facts, out):
                pass  # the turn just before is what this one takes back
            elif facts and _states(source.text):
                # (with no earlier statement of the speaker's, another's may be revised)
                self._compare(source, facts, unit, seqs, ids, texts, vecs, used, out)
        finally:
            self._remember(source, unit)

    def _remember(self, source: SourceRecord, unit: np.ndarray) -> None:
        """Appends the turn to its speaker's statements read for this batch."""
        seqs, ids, texts, vecs = self._said[(source.subject_id, source.speaker)]
        used = self._used[(source.subject_id, source.speaker)]
        seqs.append(source.seq)
        ids.append(source.source_id)
        texts.append(source.text)
        vecs.append(unit)
        # The counts cover the statements compared with, the last LOOKBACK: the same
        # whatever the batch boundaries, so a rebuild links the same way.
        used.update(terms(source.text))
        if len(texts) > LOOKBACK:
            used.subtract(terms(texts[-LOOKBACK - 1]))
        self._people(source).add(source.speaker)

    def _people(self, source: SourceRecord) -> set[str]:
        """The people who spoke in the source's subject before it (read once a batch,
        then extended as the batch's turns are linked)."""
        if source.subject_id not in self._speakers:
            first = graph_of(self.conn).speakers_first_seen(self.conn, source.subject_id)
            self._speakers[source.subject_id] = {
                s for s, seq in first.items()
                if seq < source.seq and not is_robot(s, source.robot_id)}
        return self._speakers[source.subject_id]

    def _earlier(self, subject: str, speaker: str, seq: int
                 ) -> tuple[list[int], list[str], list[str], Rows]:
        """A speaker's statements before ``seq`` (their last LOOKBACK), read once a
        batch and extended as the batch's turns are linked."""
        key = (subject, speaker)
        if key not in self._said:
            rows = graph_of(self.conn).speaker_statements(
                self.conn, subject, speaker, seq, max(0, seq - LOOKBACK * 16))[-LOOKBACK:]
            self._said[key] = ([r[0] for r in rows], [r[1] for r in rows],
                               [r[2] for r in rows],
                               Rows([v / (float(np.linalg.norm(v)) or 1.0) for *_, v in rows]))
            self._used[key] = Counter(t for r in rows for t in terms(r[2]))  # ≤ LOOKBACK
        return self._said[key]

    def _compare(self, source: SourceRecord, facts: Sequence[Fact], unit: np.ndarray,
                 seqs: list[int], ids: list[str], texts: list[str], vecs: Rows,
                 used: Counter[str], out: LinkResult) -> None:
        n = min(len(vecs), LOOKBACK)
        sims = vecs.last(n) @ unit if n else np.zeros(0, dtype=unit.dtype)
        new_keyed = {(f.entity, f.relation) for f in facts if f.relation}
        speaker = frozenset(w.lower() for w in source.speaker.split())
        salient = salient_in(used, n)
        if source.text.rstrip().endswith("?"):
            # A turn that ends by asking back ("… Had that performance. How about
            # you?") may still tell a plan's outcome; the rules and the judgement weigh
            # only statements.
            self._realised(source, facts, seqs, texts, sims, salient, speaker, new_keyed, out)
            return
        # Only statements at least ``THING_CLOSE`` to this one are read (compared as
        # doubles, as ``float(sims[j]) < close`` would), the latest first; those under
        # ``close`` only where the shared word is named as a thing (``things.named_thing``).
        floor = min(self.close, THING_CLOSE)
        near = np.flatnonzero(~(sims.astype(np.float64) < floor))
        new_terms = terms(source.text) - holders_stems(source.text)
        for j in near[::-1].tolist():  # the latest earlier statement first
            i = len(vecs) - n + j
            cos = float(sims[j])
            text = texts[i]
            if seqs[i] >= source.seq or text.rstrip().endswith("?"):
                continue
            # What both speak of: content words that are neither values nor people, that
            # may name a thing (``thing_terms``), and rare in what the speaker says.
            shared = frozenset(t for t in thing_terms(
                text, source.text, (terms(text) - holders_stems(text)) & new_terms)
                if salient(t))
            if shared and cos < self.close:  # (a short stem only as close as ``close``)
                shared = frozenset(t for t in named_thing(text, source.text, shared)
                                   if not other_kind(text, source.text, t)
                                   and len(t) > SHORT_STEM)
            elif not shared:  # (``_same_one`` asks the later to mark a change)
                shared = _same_one(text, source.text, salient, speaker)
            if not shared or not _replaced(text, source.text, shared) \
                    or judge.elsewhere(text, source.text, shared, speaker):
                continue
            olds = self._revisable(seqs[i], new_keyed)
            if not olds:
                continue
            _add(out, facts, olds, cos, self.close, shared, text, source.text)
            return  # the latest earlier revision; older ones are reached through it
        if self._relayed(source, facts, unit, salient, new_keyed, out) \
                or self._judged(source, facts, seqs, texts, sims, salient, speaker, new_keyed,
                                out, vecs.last(n) if n else None) \
                or self._relayed_judged(source, facts, unit, salient, new_keyed, out) \
                or self._marked(source, facts, seqs, texts, sims, speaker, new_keyed, out) \
                or self._relayed_marked(source, facts, unit, new_keyed, out) \
                or self._counted(source, facts, seqs, texts, speaker, new_keyed, out) \
                or self._elliptical(source, facts, seqs, texts, speaker, new_keyed, out):
            return
        self._realised(source, facts, seqs, texts, sims, salient, speaker, new_keyed, out)

    def _others(self, source: SourceRecord, unit: np.ndarray) -> Iterator[
            tuple[str, list[int], list[str], int, np.ndarray, Callable[[str], bool],
                  frozenset[str]]]:
        """Each other person of ``source``'s subject with earlier statements: (who, their
        seqs, texts, how many of the latest are compared, those statements' cosines to
        ``unit``, whether a term is salient for them, the two speakers' name words)."""
        for other in sorted(self._people(source) - {source.speaker}):
            seqs, _, texts, vecs = self._earlier(source.subject_id, other, source.seq)
            if not vecs:
                continue
            n = min(len(vecs), LOOKBACK)
            names = frozenset(w.lower() for w in f"{source.speaker} {other}".split())
            yield (other, seqs, texts, n, vecs.last(n) @ unit,
                   salient_in(self._used[(source.subject_id, other)], n), names)

    def _relayed(self, source: SourceRecord, facts: Sequence[Fact], unit: np.ndarray,
                 salient: Callable[[str], bool], new_keyed: set[tuple[str, str]],
                 out: LinkResult) -> bool:
        """The same-thing rule across speakers: another person's earlier statement of a
        thing this one gives a new value of (the nurse who moves the patient's physio,
        the daughter passing on that the visit moved, the contractor moving the pool's
        closure). As the rule above, with the shared word salient for both speakers;
        and the thing is the same holder's: whose each statement tells of
        (``revision.owners``) meets, or the earlier tells of a thing no one holds
        (``unowned``). Two people each telling of their own ("I'm on Tuesdays" / "I'm
        on Wednesdays") share no holder. The latest such statement is related (True)."""
        new_terms = terms(source.text) - holders_stems(source.text)
        best: tuple[int, list[Fact], float, frozenset[str], str, str] | None = None
        for other, seqs, texts, n, sims, theirs_salient, names in self._others(source, unit):
            for j in np.flatnonzero(~(sims.astype(np.float64) < self.close))[::-1].tolist():
                i = len(texts) - n + j
                text = texts[i]
                if best is not None and seqs[i] <= best[0]:
                    break  # only the latest of all the others' statements
                if seqs[i] >= source.seq or text.rstrip().endswith("?"):
                    continue
                if not self._holder_met(source, other, text) \
                        or _restates(text, source.text):
                    continue
                shared = frozenset(t for t in thing_terms(
                    text, source.text, (terms(text) - holders_stems(text)) & new_terms)
                    if salient(t) and theirs_salient(t))
                if not shared or not _replaced(text, source.text, shared) \
                        or judge.elsewhere(text, source.text, shared, names):
                    continue
                olds = self._revisable(seqs[i], new_keyed)
                if olds:
                    best = (seqs[i], olds, float(sims[j]), shared, text, other)
                    break
        if best is None:
            return False
        _, olds, cos, shared, text, other = best
        old_v = "/".join(sorted(state_values(text) - state_values(source.text)))
        new_v = "/".join(sorted(state_values(source.text) - state_values(text)))
        _relate(out, facts, olds, round(_confidence(cos, self.close) - RELAYED_DISCOUNT, 3),
                f"relayed update: {source.speaker}'s later statement (cosine {cos:.2f}, shares "
                f"{'/'.join(sorted(shared))}) gives {new_v} where {other}'s gave {old_v}")
        return True

    def _holder_met(self, source: SourceRecord, other: str, text: str,
                    listener: frozenset[str] = frozenset()) -> bool:
        """Whether ``other``'s earlier ``text`` tells of the thing of a holder the new
        statement tells of too (``owners`` meet), or of a thing no one holds
        (``unowned``) while ``other`` takes part in the new statement's session: with
        nobody in common, a stranger's look-alike in another session stays apart (the
        key rules' cross-session gate). ``listener``: the name words of ``other`` when the
        new statement speaks to them by name, who then holds what it tells too ("Agnes,
        the eye doctor's letter came. Drops go down to twice a day")."""
        # (owners are read only here, for the few statements the cosine gate lets by)
        if owners(text, other) & (owners(source.text, source.speaker) | listener):
            return True
        if not unowned(text):
            return False
        key = (source.subject_id, source.robot_id, source.session_id)
        return any(t[0] < source.seq and t[1] == other
                   for t in graph_of(self.conn).session_turns(self.conn, key, source.seq))

    def _relayed_judged(self, source: SourceRecord, facts: Sequence[Fact], unit: np.ndarray,
                        salient: Callable[[str], bool], new_keyed: set[tuple[str, str]],
                        out: LinkResult) -> bool:
        """Where the rule across speakers finds nothing, the fitted judgement
        (``judge.py``) weighs the others' earlier statements of the same holder's thing
        (as ``_relayed`` gates them); the likeliest, if likely enough, is related as
        judged (True), its confidence the probability less ``RELAYED_DISCOUNT``. News
        told to the other by name is weighed in their words (``revision.as_listener``),
        and what they told of their own has them as its holder (``teller``)."""
        best: tuple[float, int, list[Fact], float, str] | None = None
        for other, seqs, texts, n, sims, theirs_salient, names in self._others(source, unit):
            units = self._earlier(source.subject_id, other, source.seq)[3].last(n)
            # News told to ``other`` by name is weighed in their words, as their own
            # statement of it would be ("Irene, your tablet's at lunchtime now": "my
            # tablet's at lunchtime now"): the judgement, fitted on a speaker's own
            # statements, reads "you" as talk with the listener, not of their state.
            listener = _listener(source.text, other)
            new = as_listener(source.text) if listener else source.text
            weighed = judge.weigh(new, texts[-n:], sims,
                                  lambda t, rare=theirs_salient: salient(t) and rare(t), names,
                                  strict=True, units=units, teller=other)
            for j, signals in weighed:
                i = len(texts) - n + j
                p = judge.updates(signals)
                if p is None or seqs[i] >= source.seq or (best is not None and p <= best[0]):
                    continue
                if not self._holder_met(source, other, texts[i], listener) \
                        or _restates(texts[i], source.text):
                    continue
                olds = self._revisable(seqs[i], new_keyed)
                if olds:
                    best = (p, seqs[i], olds, float(sims[j]), other)
        if best is None:
            return False
        p, _, olds, cos, other = best
        _relate(out, facts, olds, round(p - RELAYED_DISCOUNT, 3),
                f"{JUDGED_UPDATE} (p {p:.2f}): relayed: {source.speaker}'s later statement "
                f"(cosine {cos:.2f}) revises {other}'s")
        return True

    def _relayed_marked(self, source: SourceRecord, facts: Sequence[Fact], unit: np.ndarray,
                        new_keyed: set[tuple[str, str]], out: LinkResult) -> bool:
        """A marked change told by someone else in the room ("The vet rang, they've no
        slot on the 12th, so Pickle goes in on the 19th instead" after "Pickle has the
        vet on the 12th"): the latest of another person's recent statements (their last
        ``MARKED_WITHIN``, at least ``RELAYED_CLOSE``) of the same holder's thing
        (``_holder_met``) whose value the new one marks as changed
        (``relayed_revision``), related as updated by it (True) at the marked rule's
        confidence less ``RELAYED_DISCOUNT``. Two people each telling of their own share
        no holder, so "I'm off Tuesdays" does not give way to "I'm off Wednesdays now"."""
        if not marks_change(source.text) or denies_change(source.text):
            return False
        best: tuple[int, list[Fact], float, str, str] | None = None
        for other, seqs, texts, n, sims, _, names in self._others(source, unit):
            reach = max(0, n - MARKED_WITHIN)
            near = np.flatnonzero(~(sims[reach:].astype(np.float64) < RELAYED_CLOSE)) + reach
            for j in near[::-1].tolist():
                i = len(texts) - n + j
                text = texts[i]
                if best is not None and seqs[i] <= best[0]:
                    break  # only the latest of all the others' statements
                if seqs[i] >= source.seq or text.rstrip().endswith("?") \
                        or _restates(text, source.text) \
                        or not relayed_revision(text, source.text, names) \
                        or not self._holder_met(source, other, text,
                                                _listener(source.text, other)):
                    continue
                olds = self._revisable(seqs[i], new_keyed)
                if olds:
                    best = (seqs[i], olds, float(sims[j]), text, other)
                    break
        if best is None:
            return False
        _, olds, cos, text, other = best
        old_v = "/".join(sorted(state_values(text) - state_values(source.text)))
        new_v = "/".join(sorted(state_values(source.text) - state_values(text)))
        _relate(out, facts, olds,
                round(_confidence(cos, RELAYED_CLOSE) - RELAYED_DISCOUNT, 3),
                f"relayed marked change: {source.speaker}'s later statement (cosine "
                f"{cos:.2f}) marks a change and gives {new_v} where {other}'s gave {old_v}")
        return True

    def _repaired(self, source: SourceRecord, facts: Sequence[Fact], out: LinkResult) -> bool:
        """Conversational repair: the speaker's own turn just before (``REPAIR_TURNS``,
        same session) gave a value this one takes back (``revision.repairs``: "desk 2.07"
        … "Sorry, 2.09, not 2.07."; "172" … "Oh, scratch that, 165."). Related as an
        update (True); the turn's vectors and shared words need not be close: the
        speaker's next breath is about the same thing."""
        if not (repair_marked(source.text) or negated(source.text)):
            return False
        key = (source.subject_id, source.robot_id, source.session_id)
        turns = [t for t in graph_of(self.conn).session_turns(self.conn, key, source.seq)
                 if t[0] < source.seq][-REPAIR_TURNS:]
        for seq, speaker, modality, text in reversed(turns):
            if speaker != source.speaker or modality != "dialogue":
                continue
            gone = repairs(text, source.text) if not text.rstrip().endswith("?") \
                else frozenset()
            new_keyed = {(f.entity, f.relation) for f in facts if f.relation}
            olds = self._revisable(seq, new_keyed) if gone else []
            if not olds:
                return False
            _relate(out, facts, olds, REPAIR_CONFIDENCE,
                    f"repair: the speaker's next turn takes back {'/'.join(sorted(gone))} "
                    f"and gives another value of its kind")
            return True
        return False

    def _revisable(self, seq: int, new_keyed: set[tuple[str, str]]) -> list[Fact]:
        """The facts of the statement at ``seq`` a new one may revise: none when it has
        none, or shares a key with the new one (the key rules decide those)."""
        olds = graph_of(self.conn).facts_of_seq(self.conn, seq)
        if not olds or new_keyed & {(f.entity, f.relation) for f in olds if f.relation}:
            return []
        return olds

    def _judged(self, source: SourceRecord, facts: Sequence[Fact], seqs: list[int],
                texts: list[str], sims: np.ndarray, salient: Callable[[str], bool],
                speaker: frozenset[str], new_keyed: set[tuple[str, str]],
                out: LinkResult, units: np.ndarray | None = None) -> bool:
        """Where the rule above finds no revision, the fitted judgement (``judge.py``)
        weighs the speaker's earlier statements (``units``: their unit vectors, the
        ``sims``' rows): the likeliest update, if likely enough, is related as one
        (True)."""
        n = len(sims)
        weighed = judge.weigh(source.text, texts[-n:], sims, salient, speaker,
                              units=units)
        scored = sorted(((p, j) for j, signals in weighed
                         if (p := judge.updates(signals)) is not None), reverse=True)
        for p, j in scored:
            i = len(texts) - n + j
            olds = self._revisable(seqs[i], new_keyed) if seqs[i] < source.seq else []
            if olds:
                shared = "/".join(sorted(judge.shared_terms(texts[i], source.text)))
                _relate(out, facts, olds, round(p, 3),
                        f"{JUDGED_UPDATE} (p {p:.2f}): the speaker's later statement (cosine "
                        f"{float(sims[j]):.2f}, shares {shared}) revises the earlier")
                return True
        return False

    def _marked(self, source: SourceRecord, facts: Sequence[Fact], seqs: list[int],
                texts: list[str], sims: np.ndarray, speaker: frozenset[str],
                new_keyed: set[tuple[str, str]], out: LinkResult) -> bool:
        """The latest of the speaker's recent statements whose value the new one marks
        as changed (``marked_revision``), related as updated by it (True)."""
        if not marks_change(source.text) or denies_change(source.text):
            return False
        n = len(sims)
        reach = max(0, n - MARKED_WITHIN)
        near = np.flatnonzero(~(sims[reach:].astype(np.float64) < MARKED_CLOSE)) + reach
        for j in near[::-1].tolist():
            i = len(texts) - n + j
            if seqs[i] >= source.seq or texts[i].rstrip().endswith("?") \
                    or not marked_revision(texts[i], source.text, speaker):
                continue
            olds = self._revisable(seqs[i], new_keyed)
            if not olds:
                continue
            cos = float(sims[j])
            old_v = "/".join(sorted(state_values(texts[i]) - state_values(source.text)))
            new_v = "/".join(sorted(state_values(source.text) - state_values(texts[i])))
            _relate(out, facts, olds, _confidence(cos, MARKED_CLOSE),
                    f"marked change: the speaker's later statement (cosine {cos:.2f}) marks "
                    f"a change and gives {new_v} where the earlier gave {old_v}")
            return True
        return False

    def _counted(self, source: SourceRecord, facts: Sequence[Fact], seqs: list[int],
                 texts: list[str], speaker: frozenset[str], new_keyed: set[tuple[str, str]],
                 out: LinkResult) -> bool:
        """A count of the speaker's own carried on: the latest of their earlier statements
        that numbers a thing of theirs by a lower ordinal than the new one does ("I won my
        second tournament" … "I won my fourth video game tournament"; ``shapes.counted_on``),
        related as updated by it (True): the number of them had is now the new one. Their
        vectors and salience need not meet; the ordinal after "my" says it is one count."""
        if not numbered(source.text):
            return False
        for i in range(len(texts) - 1, max(0, len(texts) - LOOKBACK) - 1, -1):
            if seqs[i] >= source.seq:
                continue
            counts = counted_on(texts[i], source.text)
            if not counts or about_another(source.text, holders(texts[i]) | speaker):
                continue
            olds = self._revisable(seqs[i], new_keyed)
            if not olds:
                continue
            thing = "/".join(sorted(counts))
            was, now = max(counts.values(), key=lambda c: c[1])
            _relate(out, facts, olds, _MIN_CONFIDENCE,
                    f"count carried on: the speaker's later statement numbers their {thing} "
                    f"{now} where the earlier numbered it {was}")
            return True
        return False

    def _elliptical(self, source: SourceRecord, facts: Sequence[Fact], seqs: list[int],
                    texts: list[str], speaker: frozenset[str],
                    new_keyed: set[tuple[str, str]], out: LinkResult) -> bool:
        """A change told of the thing already between the speakers, in words and a vector
        far from the statement it revises ("Organisers shifted it to the 21st"): the
        latest of the speaker's last ``ELLIPSIS_WITHIN`` statements holding a value of
        the kind the new one gives, if unambiguous (``ellipsis.antecedent``), related as
        updated by it (True) at ``ELLIPSIS_CONFIDENCE``."""
        reach = max(0, len(texts) - ELLIPSIS_WITHIN)
        earlier = [k for k in range(reach, len(texts)) if seqs[k] < source.seq]
        j = antecedent(source.text, [texts[k] for k in earlier], speaker)
        if j is not None:
            return self._relate_elliptical(source, facts, seqs[earlier[j]], texts[earlier[j]],
                                           "", new_keyed, out)
        return self._household_elliptical(source, facts, speaker, new_keyed, out)

    def _household_elliptical(self, source: SourceRecord, facts: Sequence[Fact],
                              speaker: frozenset[str], new_keyed: set[tuple[str, str]],
                              out: LinkResult) -> bool:
        """The elliptical revision of a value another person of the subject gave (whoever
        speaks for the thing: "Martin's taking me out on Saturday" … "Martin rang, he'll
        take you Sunday instead"): the latest of everyone's last ``ELLIPSIS_WITHIN``
        statements holding a value of the kind, if it is another's and of the same
        holder's thing (``_holder_met``), related at ``ELLIPSIS_CONFIDENCE`` less
        ``RELAYED_DISCOUNT``."""
        if not gives_change(source.text):
            return False
        said: list[tuple[int, str, str]] = []
        names = set(speaker)
        for who in self._people(source) | {source.speaker}:
            seqs, _, texts, _ = self._earlier(source.subject_id, who, source.seq)
            said += [(q, who, t) for q, t in zip(seqs[-ELLIPSIS_WITHIN:],
                                                 texts[-ELLIPSIS_WITHIN:], strict=True)
                     if q < source.seq]
            names.update(w.lower() for w in who.split())
        said = sorted(said)[-ELLIPSIS_WITHIN:]
        j = antecedent(source.text, [t for *_, t in said], frozenset(names))
        if j is None or said[j][1] == source.speaker \
                or not self._holder_met(source, said[j][1], said[j][2]):
            return False
        seq, other, text = said[j]
        return self._relate_elliptical(source, facts, seq, text, other, new_keyed, out)

    def _relate_elliptical(self, source: SourceRecord, facts: Sequence[Fact], seq: int,
                           text: str, other: str, new_keyed: set[tuple[str, str]],
                           out: LinkResult) -> bool:
        """The edge of an elliptical revision of the statement ``text`` at ``seq`` (by
        ``other``, or by the speaker when ''), if it has facts to revise (True) and no
        later statement revised them already: then the thread's latest statement is that
        revision, which gave no value of the kind ("the review is in Lyra instead" …
        "it's Wednesday now. Same room though" revises the day, not the room)."""
        olds = self._revisable(seq, new_keyed)
        if not olds or graph_of(self.conn).fact_edges(
                self.conn, [f.fact_id for f in olds], ("updates",), "in"):
            return False
        old_v = "/".join(sorted(state_values(text) - state_values(source.text)))
        new_v = "/".join(sorted(state_values(source.text) - state_values(text)))
        whose = f"{other}'s" if other else "their"
        _relate(out, facts, olds,
                round(ELLIPSIS_CONFIDENCE - (RELAYED_DISCOUNT if other else 0.0), 3),
                f"elliptical revision: {source.speaker}'s later statement marks a change and "
                f"gives {new_v or 'a value'} of the kind {whose} latest such statement gave "
                f"({old_v or 'another'})")
        return True

    def _realised(self, source: SourceRecord, facts: Sequence[Fact], seqs: list[int],
                  texts: list[str], sims: np.ndarray, salient: Callable[[str], bool],
                  speaker: frozenset[str], new_keyed: set[tuple[str, str]],
                  out: LinkResult) -> None:
        """The latest of the speaker's recent plans whose outcome the new statement
        tells (``realised``) is related as updated by it."""
        n = len(sims)
        reach = max(0, n - REALISED_WITHIN)
        near = np.flatnonzero(~(sims[reach:].astype(np.float64) < REALISED_CLOSE)) + reach
        for j in near[::-1].tolist():
            i = len(texts) - n + j
            if seqs[i] >= source.seq:
                continue
            thing = realised(texts[i], source.text, salient, speaker)
            if not thing:
                continue
            olds = self._revisable(seqs[i], new_keyed)
            if not olds or not _in_time(olds, facts):
                continue
            if graph_of(self.conn).fact_edges(self.conn, [f.fact_id for f in olds],
                                              ("updates",), "in"):
                return  # a plan is realised once: this tells of it again
            cos = float(sims[j])
            _relate(out, facts, olds, _confidence(cos, REALISED_CLOSE),
                    f"plan realised: the speaker's later statement (cosine {cos:.2f}, shares "
                    f"{'/'.join(sorted(thing))}) tells in the past what the earlier planned "
                    f"for a time ahead")
            return


def _listener(text: str, other: str) -> frozenset[str]:
    """The name words of ``other`` when ``text`` speaks to them by name of what may be
    theirs (``revision.of_listener``: "Agnes, your drops go down to twice a day"), else
    none: news told to the one who stated the thing is of their thing."""
    if not of_listener(text):
        return frozenset()
    return spoken_to(text) & frozenset(w.lower() for w in other.split())


def salient_in(used: Counter[str], n: int) -> Callable[[str], bool]:
    """Whether a word is *salient* for a speaker whose last ``n`` statements use words
    as ``used`` counts: at most ``SALIENT`` of them (and never more than a couple when
    they have said little) use it."""
    rare = max(2.0, SALIENT * n)
    return lambda t: used[t] <= rare


# The words by which a time expression points back.
_BACK = frozenset("last ago yesterday past previous earlier before".split())
# A time that recurs ("Thursdays at two", "every other Friday", "Thursday mornings"), or
# a state that holds "from now on": a schedule, which an occasion of it does not end.
_RECURS = re.compile(rf"\b(?:every|each|weekly|daily|monthly|{WEEKDAY_WORD}s|"
                     r"mornings|afternoons|evenings|from\s+now\s+on)\b", re.I)


def realised(old: str, new: str, salient: Callable[[str], bool],
             speaker: frozenset[str] = frozenset()) -> frozenset[str]:
    """The words of the thing ``new`` tells the outcome of, where ``old`` planned it for a
    time ahead (empty when it does not): a salient word both name (``salient``), in a
    statement of ``old`` that is no question, no past, and names a time pointing forward
    ("this month", "next week", "on Friday"), and in a past-tense statement of ``new``;
    not a word of that time, and the head of a noun phrase in one of the two. ``new``
    brings in no other instance of it and speaks of no one else (``speaker``: the words
    of the speaker's name). A thing is a common noun, not a name ("the Hendersons"); a
    plan for a time that recurs ("Thursdays at two") is a schedule, not an occasion; a
    statement that marks its value as carrying on ("confirmed, still the 14th") tells
    no outcome."""
    shared = frozenset(t for t in judge.shared_terms(old, new) if salient(t))
    if not shared:
        return frozenset()
    ahead = [s for s in naming(old, shared) if _ahead(s) and not _RECURS.search(s)]
    if not ahead:
        return frozenset()
    shared -= {_stem(w) for s in ahead for c in find_candidates(s)
               for w in TOKEN.findall(s[c.start():c.end()].lower())}
    told = [s for s in naming(new, shared) if tense(s) == "past"]
    thing = frozenset(t for s in (*ahead, *told) for t in phrase_heads(s, shared)) \
        & _common(ahead) & _common(told)
    told = [s for s in told if keys(s) & thing and not (continues(s) and not marks_change(s))]
    if not thing or not told or introduces(new, thing):
        return frozenset()
    plan, outcome = " ".join(ahead), " ".join(told)
    # The outcome may name the planned event by less ("that community mtg"), not another.
    if other_event(plan, outcome) or not same_holder(outcome, frozenset(), holders(plan), thing) \
            or about_another(outcome, holders(plan) | speaker):
        return frozenset()
    return thing


def marked_revision(old: str, new: str, speaker: frozenset[str] = frozenset()) -> bool:
    """Whether ``new``, which marks a change, revises ``old`` though they share no word of
    the thing: a specific value of one kind gave way to another (``revision.replaces``,
    ``revision.contrasts``), and ``new`` names no one ``old`` did not (``speaker``: the
    words of the speaker's name), no other event, no other titled person ("Mrs Lee"
    after "Mr Lee"), no other kind of a thing both name ("the food bank code" after
    "the garage code"), and is no one else's news."""
    if not (replaces(old, new) or contrasts(old, new)):
        return False
    if holders(new) - holders(old) - speaker or other_event(old, new) \
            or other_titled(new, old) or about_another(new, holders(old) | speaker):
        return False
    both = (terms(old) - holders_stems(old)) & (terms(new) - holders_stems(new))
    return not any(other_kind(old, new, t) for t in both)


def relayed_revision(old: str, new: str, names: frozenset[str]) -> bool:
    """Whether ``new``, another person's later statement that marks a change, revises
    ``old`` (``names``: the two speakers' name words): as ``marked_revision``, save that
    a person ``new`` names only as whence the news comes ("Anton rang", "Mrs Cooper
    phoned", "Dr Patel said …") is no holder of a value of their own
    (``revision.about_another`` reads them so). A value it only asks for ("can I swap to
    Thursdays?") is no change told."""
    told = " ".join(s for s in sentences(new) or [new] if not s.rstrip().endswith("?"))
    if not (replaces(old, told) or contrasts(old, told)):
        return False
    thing = terms(old) - holders_stems(old)
    if other_event(old, new) or other_titled(new, old) \
            or about_another(new, holders(old) | names, thing):
        return False
    foreign = holders(new) - holders(old) - names
    if any(not source_of_change(new, h, thing) for h in foreign):
        return False
    both = thing & (terms(new) - holders_stems(new))
    return not any(other_kind(old, new, t) for t in both)


def _same_one(old: str, new: str, salient: Callable[[str], bool],
              speaker: frozenset[str]) -> frozenset[str]:
    """Where two close statements share no word of a thing, the person (or named thing)
    both tell of, when the later marks its state as new ("Hannah's starting on the
    10th" … "Bad news on Hannah, pushed back to the 15th") and names no one the earlier
    did not: a name the speaker seldom says, not their own."""
    if not marks_change(new) or denies_change(new):
        return frozenset()
    # A name the earlier statement gave opens the later one ("Tadeo has moved …"), where
    # ``holders`` cannot tell it from a capitalised first word.
    named = holders_stems(new) | holders_stems(old) & _capitalised(new)
    if named - holders_stems(old) - speaker or other_titled(new, old):
        return frozenset()  # "Tadeo's brother …", "Mrs Lee" after "Mr Lee": another's
    return frozenset(t for t in holders_stems(old) & named
                     if len(t) > 2 and t not in speaker and salient(t))


def _capitalised(text: str) -> frozenset[str]:
    """The stems of the words ``text`` writes with a capital."""
    return frozenset(_stem(w.lower()) for w in TOKEN.findall(text) if w[:1].isupper())


def _in_time(plan: Sequence[Fact], outcome: Sequence[Fact]) -> bool:
    """Whether the outcome's facts are anchored near a time the plan's resolved (any,
    when the plan's facts resolved none)."""
    planned = [f.anchor_time for f in plan if not f.anchor_fallback]
    return not planned or any(abs(f.anchor_time - t) <= REALISED_SPAN
                              for f in outcome for t in planned)


def _states(text: str) -> bool:
    """Whether a sentence of ``text`` is no question."""
    return any(not s.rstrip().endswith("?") for s in sentences(text) or [text])


def _common(sents: Sequence[str]) -> set[str]:
    """The stems of the words ``sents`` write in lower case (common nouns, not names)."""
    return {_stem(w) for s in sents for w in TOKEN.findall(s) if w.islower()}


def _ahead(sentence: str) -> bool:
    """Whether ``sentence`` names a time ahead and is not told in the past."""
    if tense(sentence) == "past":
        return False
    if _LATER.search(sentence):
        return True
    return any(not {w.lower() for w in sentence[c.start():c.end()].split()} & _BACK
               and forward_at(sentence, c.start()) for c in find_candidates(sentence))


def _add(out: LinkResult, facts: Sequence[Fact], olds: Sequence[Fact], cos: float,
         close: float, shared: frozenset[str], old_text: str, new_text: str) -> None:
    """The same-thing rule's edge, its confidence by the cosine (``_confidence``)."""
    conf = _confidence(cos, close)
    # (where the later names the old value again, "Fridays, not Tuesday", it is that one)
    old_v = "/".join(sorted(state_values(old_text) - state_values(new_text)
                            or state_values(old_text)))
    new_v = "/".join(sorted(state_values(new_text) - state_values(old_text)))
    if not new_v:
        old_v, new_v = shaped(old_text, new_text, shared)
    _relate(out, facts, olds, conf,
            f"same-thing update: the speaker's later statement (cosine {cos:.2f}, shares "
            f"{'/'.join(sorted(shared))}) gives {new_v} where the earlier gave {old_v}")


def _confidence(cos: float, floor: float) -> float:
    """A rule's confidence in an edge: it grows with the cosine above the rule's ``floor``."""
    span = (cos - floor) / (1.0 - floor)
    return round(_MIN_CONFIDENCE + (_MAX_CONFIDENCE - _MIN_CONFIDENCE) * min(1.0, span), 3)


def _relate(out: LinkResult, facts: Sequence[Fact], olds: Sequence[Fact], conf: float,
            why: str) -> None:
    """An ``updates`` edge from a state fact of the new record to one of the old (the
    first fact of each where none is a state), unless the key rules related them."""
    newer = next((f for f in facts if _state(f)), facts[0])
    older = next((f for f in olds if _state(f)), olds[0])
    if any(e[0] in ("updates", "contradicts") and e[1] == newer.fact_id
           and e[2] == older.fact_id for e in out.edges):
        return  # the key rules related them already
    out.edges.append(("updates", newer.fact_id, older.fact_id, conf, why,
                      max(newer.known_from, older.known_from)))
    out.revised = True
    out.affected.update((newer.fact_id, older.fact_id))


def _restates(old: str, new: str) -> bool:
    """Whether ``new`` gives only values ``old`` gave ("Physics on the fifteenth of May,
    no excuses" after "Physics paper 1 is the 15th of May"): passing a thing on is no
    change of it."""
    def figures(text: str) -> set[str]:  # "the fifteenth" is the 15
        return {str(ordinal_value(v) or v) for v in state_values(text)}
    said = figures(new)
    return bool(said) and said <= figures(old)


def _state(f: Fact) -> bool:
    return f.type in STATE_TYPES or bool(f.relation)


def _replaced(old: str, new: str, shared: frozenset[str]) -> bool:
    """Whether a sentence of ``new`` that names a ``shared`` word gives another value
    than a sentence of ``old`` that names one: the value changed is the thing's, not
    that of something else told in the same turn."""
    def about(text: str) -> list[str]:
        return [s for s in sentences(text) or [text] if keys(s) & shared]
    if any(replaces(o, n) or contrasts(o, n) for o in about(old) for n in about(new)):
        return True
    # A value read from its shape, whatever the thing (``shapes``): a count ("fourteen
    # hives" … "Twelve hives now"), unless the later marks it as carrying on or as
    # holding of one thing more ("six of those too").
    if continues(new) and (not marks_change(new) or denies_change(new)) or adds(new):
        return False
    return bool(recounted(old, new, shared))



class Rows:
    """A speaker's unit vectors, by seq, in one growing matrix: the latest ``n`` are a
    contiguous view (``last``), not a stack of ``n`` rows made anew for every record
    (a quarter of the comparison's time). The product of the view with a vector is
    that of the stacked rows to the bit (the same rows, in the same layout)."""

    def __init__(self, vectors: Sequence[np.ndarray]) -> None:
        self._rows: np.ndarray | None = np.stack(vectors) if len(vectors) else None
        self._n = len(vectors)

    def __len__(self) -> int:
        return self._n

    def append(self, vector: np.ndarray) -> None:
        if self._rows is None:
            self._rows = np.empty((16, len(vector)), dtype=vector.dtype)
        elif self._n == len(self._rows):
            self._rows = np.concatenate([self._rows, np.empty_like(self._rows)])
        self._rows[self._n] = vector
        self._n += 1

    def last(self, n: int) -> np.ndarray:
        """The latest ``n`` rows (1 <= n <= len)."""
        if self._rows is None or not 0 < n <= self._n:
            raise ValueError(f"last({n}) of {self._n} rows")
        return self._rows[self._n - n:self._n]
