"""Linking: typed edges between a new fact and what the memory already holds.

Every candidate comes from an indexed lookup — never all pairs:

- **keyed revisions** (same subject, entity and relation; the ``facts_key``
  index): the new fact is placed in the key's revision order (valid time, then
  the order the robot was told) and compared with its neighbours there. The key
  is a tighter gate than a topic, so keyed revisions link across sessions
  whatever the topics (a move is news in any conversation);
- **restatements** of unkeyed facts: FTS5 over fact descriptions, best few;
- **``before``**: the nearest facts in valid time with resolved anchors (the
  ``facts_scope_time`` index), only those related to the new fact;
- **causal** edges: other facts of the same message, else of the previous turn.

Unkeyed candidates from another session pass the cross-session gate: shared
participants (Jaccard ≥ ``link_jaccard``) or a shared entity, AND the same or a
neighbouring topic (``Hierarchy.gate``).

Rules (every edge carries a confidence and a justification naming its rule):

- ``updates`` (newer → older): the newer revision of a single-valued key changes
  the value and is ordered after the older one (strictly later valid time, or
  the same time with a change cue: "moved", "now", "instead", "actually" …; a
  repair cue — "no,", "I meant", "scratch that" — only from the speaker who said
  the older value, or correcting the robot); or
  it withdraws the value with a change cue ("no longer", "not anymore"); for a
  multi-valued key (``prefers``, ``owns``, ``plans``) only a withdrawal or a new
  value with a change cue updates. An unkeyed near-paraphrase with a changed
  value (a number, day, month or time word differs) or a flipped polarity
  updates under the same ordering — for state-bearing facts (plans, state
  changes, preferences) or with a change cue only: actions and observations are
  events that recur ("three dogs" after "two dogs" is another picture).
- ``contradicts``: a changed value with no order (same valid time, or a later
  utterance of the same conversation, with no change cue — sensor readings and
  resolved anchors do order), or a denial of the current value without a change
  cue ("I don't live in Boston" after "I live in Boston": the robot cannot tell a
  change from an error, so it stays an open conflict).
- ``causes``/``enables``/``prevents``: a causal cue ("because", "so", "since",
  "that's why" …) links the facts of one message, or the previous turn's facts to
  a message with one fact. Direction from the extractor's ``cause``/``effect``
  side markers where given, else by fact type (a state enables a plan; an action
  causes a state change), then clause order; ``prevents`` when the effect is
  negated or a blocking cue ("can't", "prevents") is present; ``enables`` when
  the effect is a plan or the cue says so. At most two causes per effect.
- Facts of one source never revise each other ("not in Oslo anymore; a place in
  Dublin" are one statement; their order in the message is the resolver's tie-break).
- A single-valued update also ends the earlier revisions still live (restatements
  of the old value, the sides of a conflict it settles).
- ``before``: between facts with resolved anchors, to the nearest related fact
  earlier and later in valid time (at most one each).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..config import ConsolidationConfig
from ..facts import Fact, FactDraft, norm
from ..language.monthday import MONTH_NAMES, SUFFIX, WEEKDAY_NAMES
from ..language.vocab import is_robot
from ..ledger import SourceRecord
from ..state import is_multi_valued, order_key
from ..storage import Tx, graph_of
from .hierarchy import Hierarchy

CHANGE_CUES = frozenset({
    "moved", "move", "now", "instead", "no longer", "rescheduled", "actually", "anymore",
    "not anymore", "any more", "changed", "change", "switched", "switch", "postponed",
    "new", "nowadays", "these days", "since then", "used to", "correction", "updated",
    "turns out", "replaced", "quit", "left", "stopped", "cancelled", "scratch that",
})
_REPAIR_CUES = frozenset({"correction", "scratch that", "actually"})
# Causal cue names (the CPU extractor's vocabulary, plus plain words for other
# extractors); "cause"/"effect" mark the side of the connective a fact lies on.
CAUSAL_CUES = frozenset({
    "because", "since", "so", "therefore", "thus", "hence", "as a result", "due to",
    "that's why", "so that", "in order to", "thanks to", "led to", "caused", "because of",
    "which is why", "that is why", "causes", "enables", "prevents",
})
BLOCK_CUES = frozenset({"can't", "cannot", "couldn't", "unable", "prevent", "prevented",
                        "prevents", "stopped me", "kept me from", "won't be able"})
_BECAUSE = frozenset({"because", "since", "due to", "because of", "thanks to", "as"})

_WORD = re.compile(r"[a-z0-9']+")
_STOP = frozenset("""a an the and or but if of to in on at for with by from is are was were be been
being am i you he she it we they me my your his her its our their this that these those do does did
have has had will would can could should may might must just so very really also too not no yes
about into than then there here what which who whom when where why how all any some more most other
such only own same s t don't i'm it's that's""".split())
_VALUE_WORD = re.compile(
    rf"^(\d+(?:{SUFFIX}|am|pm|s)?|{WEEKDAY_NAMES}|{MONTH_NAMES}|"
    r"morning|afternoon|evening|night|noon|midnight|tomorrow|today|tonight|"
    r"yesterday|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)$")
STATE_TYPES = frozenset({"plan", "state_change", "preference"})
_TYPE_RANK = {"observation": 0, "state_change": 0, "preference": 0, "action": 1, "plan": 2}


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower())
            if w not in _STOP and (len(w) > 1 or w.isdigit())}


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def same_value(a: str, b: str) -> bool:
    """Equal values, or one refines the other (its words contain the other's)."""
    if a == b:
        return True
    wa, wb = set(_WORD.findall(a)), set(_WORD.findall(b))
    return bool(wa and wb) and (wa <= wb or wb <= wa)


TIME_VALUED = frozenset({"scheduled_for"})


def same_state(a: Fact, b: Fact) -> bool:
    """Same value; for a time-valued key also the same resolved day ("Saturday" and
    "25 January" said of one appointment in one week name one date)."""
    if same_value(a.value, b.value):
        return True
    if a.relation.split(":", 1)[0] in TIME_VALUED and not (a.anchor_fallback or b.anchor_fallback):
        day = 86400.0
        return int(a.anchor_time // day) == int(b.anchor_time // day)
    return False


def people(f: Fact | FactDraft) -> set[str]:
    return {norm(p) for p in f.participants}


def _cues(draft: FactDraft) -> set[str]:
    return {c.lower().strip() for c in draft.cues}


@dataclass
class LinkResult:
    edges: list[tuple[str, str, str, float, str, float]]
    revised: bool  # an updates/contradicts edge touches the new facts
    affected: set[str]  # facts whose stored state must be recomputed


class Linker:
    """Links one source's new facts (inside the batch transaction)."""

    def __init__(self, conn: Tx, config: ConsolidationConfig,
                 hierarchy: Hierarchy) -> None:
        self.conn = conn
        self.graph = graph_of(conn)
        self.cfg = config
        self.hierarchy = hierarchy

    def link(self, source: SourceRecord, facts: Sequence[Fact], drafts: Sequence[FactDraft],
             prev_seq: int | None) -> LinkResult:
        out = LinkResult([], False, set())
        for i, (f, d) in enumerate(zip(facts, drafts, strict=True)):
            if f.key:
                self._keyed(f, d, out)
            elif f.description:
                self._paraphrase(source, f, d, out)
            self._causal(f, d, facts[:i], drafts[:i], facts[i + 1:], drafts[i + 1:], prev_seq,
                         out)
            if not f.anchor_fallback:
                self._before(source, f, out)
        return out

    # -- keyed revisions ------------------------------------------------------------

    def _keyed(self, f: Fact, d: FactDraft, out: LinkResult) -> None:
        mine = people(f)
        cands = [c for c in self.graph.facts_by_key(self.conn, f.subject_id, f.entity, f.relation)
                 if c.fact_id != f.fact_id
                 and (not mine or not c.participants or mine & people(c) or f.entity in mine)]
        if not cands:
            return
        cands.sort(key=order_key)
        key = order_key(f)
        older = [c for c in cands if order_key(c) < key]
        newer = [c for c in cands if order_key(c) > key]
        cues = _cues(d) & CHANGE_CUES
        if is_multi_valued(f.relation):
            self._multi(f, cues, older, out)
            return
        if older:
            self._relate(f, older[-1], self._repair_cues(f, older[-1], cues), out, "key")
            self._supersede_restatements(f, older, out)
        if newer:
            self._relate(newer[0], f, set(), out, "key")

    def _supersede_restatements(self, f: Fact, older: list[Fact], out: LinkResult) -> None:
        """When ``f`` updated its predecessor, it also ends the other earlier revisions
        still live (a single-valued key holds one value at a time): restatements of
        the old state (Boston, Boston again, then Seattle: both Boston revisions
        end) and the sides of an open conflict it settles. At most ``link_fanout``."""
        if not out.edges or out.edges[-1][:3] != ("updates", f.fact_id, older[-1].fact_id):
            return
        conf, why = out.edges[-1][3], out.edges[-1][4]
        for c in list(reversed(older[:-1]))[:self.cfg.link_fanout]:
            if c.status != "superseded" and c.polarity == 1 and not same_state(c, f):
                self._add(out, "updates", f, c, conf, why + " (an earlier live revision)",
                          revision=True)

    def _multi(self, f: Fact, cues: set[str], older: list[Fact], out: LinkResult) -> None:
        """Multi-valued keys accumulate; only withdrawals and cued replacements link."""
        same = [c for c in older if same_value(c.value, f.value)]
        if f.polarity == 0:  # a withdrawal answers every live assertion of the value
            targets = [c for c in reversed(same) if c.polarity == 1 and c.status != "superseded"]
            for target in targets[:self.cfg.link_fanout]:
                self._relate(f, target, cues, out, "key")
            return
        if same and same[-1].polarity == 0:
            self._relate(f, same[-1], cues, out, "key")
            return
        if cues:
            live = [c for c in older if not same_value(c.value, f.value) and c.polarity == 1
                    and c.status != "superseded"]
            if live:
                self._add(out, "updates", f, live[-1], 0.7,
                          f"key-multi: {f.relation} value {live[-1].value!r} → {f.value!r} "
                          f"with change cue {sorted(cues)[0]!r}", revision=True)

    def _relate(self, newer: Fact, older: Fact, cues: set[str], out: LinkResult,
                rule: str) -> None:
        """Compare two revisions of one key (``newer`` after ``older`` in order)."""
        if newer.source_seq == older.source_seq:
            return  # parts of one statement ("not in Oslo anymore; a place in Dublin")
        if same_state(newer, older) and newer.polarity == older.polarity:
            return  # a restatement (or a refinement: "engineer" / "automotive engineer")
        later = newer.valid_from > older.valid_from
        ordered = bool(cues) or (later and self._ordered_in_time(newer, older))
        cue = f" cue {sorted(cues)[0]!r}" if cues else ""
        what = f"{newer.entity} {newer.relation}"
        fallback = newer.anchor_fallback or older.anchor_fallback
        if newer.polarity == 1 and older.polarity == 1:
            if ordered:
                conf = (0.9 if cues else 0.8) - (0.1 if fallback and not cues else 0.0)
                self._add(out, "updates", newer, older, conf,
                          f"{rule}-update: {what} {older.value!r} → {newer.value!r} "
                          f"({'later valid time' if later else 'same time'}{cue})",
                          revision=True)
            else:
                self._add(out, "contradicts", newer, older, 0.7,
                          f"{rule}-conflict: {what} {older.value!r} vs {newer.value!r} "
                          "at the same time, no change cue", revision=True)
        elif newer.polarity == 0 and older.polarity == 1:
            if not same_value(newer.value, older.value):
                return  # denies another value: consistent
            if cues:
                self._add(out, "updates", newer, older, 0.85,
                          f"{rule}-withdraw: {what} no longer {older.value!r}{cue}",
                          revision=True)
            else:
                self._add(out, "contradicts", newer, older, 0.7,
                          f"{rule}-denial: {what} {older.value!r} denied without a change cue",
                          revision=True)
        elif newer.polarity == 1 and older.polarity == 0:
            if ordered:
                self._add(out, "updates", newer, older, 0.8,
                          f"{rule}-update: {what} now {newer.value!r} after "
                          f"'not {older.value}'{cue}", revision=True)
            elif same_value(newer.value, older.value):
                self._add(out, "contradicts", newer, older, 0.7,
                          f"{rule}-conflict: {what} {newer.value!r} asserted and denied "
                          "at the same time", revision=True)

    def _repair_cues(self, newer: Fact, older: Fact, cues: set[str]) -> set[str]:
        """A repair cue ("no,", "scratch that", "I meant") orders a self-repair: the same
        speaker correcting themselves, or a person correcting the robot. One person
        contradicting another ("No, it's on Friday, I'm sure") stays a disagreement."""
        repair = cues & _REPAIR_CUES
        if not repair:
            return cues
        origin = self.graph.origins(self.conn, [newer.source_seq, older.source_seq])
        new_o, old_o = origin.get(newer.source_seq), origin.get(older.source_seq)
        if not new_o or not old_o or "dialogue" not in (new_o[0], old_o[0]) \
                or new_o[1] == old_o[1] or is_robot(old_o[1], older.robot_id):
            return cues
        return cues - repair

    def _ordered_in_time(self, newer: Fact, older: Fact) -> bool:
        """Does a later valid time order two revisions without a change cue? Across
        sessions, for sensor readings and for resolved anchors, yes. Within one
        conversation, different values minutes apart with nobody saying it changed
        are a disagreement — an open conflict."""
        if (newer.session_id != older.session_id or newer.robot_id != older.robot_id
                or not newer.session_id):
            return True
        if (not newer.anchor_fallback and newer.valid_from == newer.anchor_time
                and newer.anchor_time > older.valid_from):
            return True  # "last week we moved": a resolved time the change happened
        # Not even for one speaker: "My neighbour says the 8th … the letter says the
        # 11th" is a conflict; a self-repair says so ("no", "I meant", "correction"),
        # and that cue orders it. Without any cue, showing both sides beats a guess.
        origin = self.graph.origins(self.conn, [newer.source_seq, older.source_seq])
        return {m for m, _ in origin.values()} == {"perception"}

    # -- unkeyed restatements ----------------------------------------------------------------

    def _paraphrase(self, source: SourceRecord, f: Fact, d: FactDraft, out: LinkResult) -> None:
        words = content_words(f.description)
        cues = _cues(d) & CHANGE_CUES
        valueish = {w for w in words if _VALUE_WORD.match(w)}
        # Events (actions, observations) recur: "two dogs" after "three dogs" is another
        # picture, not a revision. Only state-bearing facts, or a stated change, revise.
        stateful = f.type in STATE_TYPES
        if not words or not (stateful or cues) or not (cues or valueish or f.polarity == 0):
            return
        # The longest (rarest, usually) words only: bounded posting lists per fact.
        terms = sorted(words - valueish or words, key=lambda w: (-len(w), w))[:5]
        query = " OR ".join(f'"{w}"' for w in terms)
        cands = self.graph.facts_matching_text(self.conn, f.subject_id, query,
                                               self.cfg.link_fanout, source.seq)
        best: tuple[float, Fact] | None = None
        for c in cands:
            if c.key or c.fact_id == f.fact_id or not (cues or c.type in STATE_TYPES):
                continue
            if not self._gate(source, f, c):
                continue
            cw = content_words(c.description)
            sim = jaccard(words - valueish, cw - {w for w in cw if _VALUE_WORD.match(w)})
            changed = (valueish ^ {w for w in cw if _VALUE_WORD.match(w)}) and valueish
            if sim < self.cfg.paraphrase_jaccard or not (changed or c.polarity != f.polarity):
                continue
            if best is None or sim > best[0]:
                best = (sim, c)
        if best is None:
            return
        sim, c = best
        ordered = f.valid_from > c.valid_from or bool(cues)
        cue = f", cue {sorted(cues)[0]!r}" if cues else ""
        if f.polarity == 0 and c.polarity == 1 and not cues:
            self._add(out, "contradicts", f, c, 0.5,
                      f"paraphrase-denial: restates {c.fact_id} negated without a change cue "
                      f"(word overlap {sim:.2f})", revision=True)
        elif ordered:
            self._add(out, "updates", f, c, 0.6,
                      f"paraphrase-update: restates {c.fact_id} with a changed value "
                      f"(word overlap {sim:.2f}{cue})", revision=True)
        else:
            self._add(out, "contradicts", f, c, 0.5,
                      f"paraphrase-conflict: restates {c.fact_id} with another value at the "
                      f"same time (word overlap {sim:.2f})", revision=True)

    # -- causal ---------------------------------------------------------------------------------

    def _causal(self, f: Fact, d: FactDraft, before: Sequence[Fact], before_d: Sequence[FactDraft],
                after: Sequence[Fact], after_d: Sequence[FactDraft], prev_seq: int | None,
                out: LinkResult) -> None:
        """Edges into ``f`` when ``f`` is the effect of a causal cue. An extractor may
        say on which side of the connective a fact lies (cue ``cause``/``effect``);
        otherwise the side follows fact types (a state enables a plan, an action
        causes a state change), then clause order ('because' puts the cause after)."""
        cues = _cues(d)
        causal = cues & CAUSAL_CUES
        if not causal or "cause" in cues:
            return
        rank = _TYPE_RANK.get(f.type, 1)
        backwards = bool(cues & _BECAUSE)
        sided = "effect" in cues
        causes: list[tuple[Fact, float, str]] = []
        others = [(g, gd, False) for g, gd in zip(before, before_d, strict=True)] + \
                 [(g, gd, True) for g, gd in zip(after, after_d, strict=True)]
        for g, gd, is_after in others:
            g_cues = _cues(gd)
            if sided:
                if "cause" in g_cues:
                    causes.append((g, 0.7, "same message, the clause on the cause side"))
                continue
            gr = _TYPE_RANK.get(g.type, 1)
            if gr < rank:
                causes.append((g, 0.6, "same message, cause by fact type"))
            elif gr == rank and is_after == backwards and "effect" not in g_cues:
                causes.append((g, 0.5, "same message, cause by clause order"))
        if not causes and prev_seq is not None and not others:
            for g in self.graph.facts_of_seq(self.conn, prev_seq):
                if g.subject_id == f.subject_id and _TYPE_RANK.get(g.type, 1) <= rank:
                    causes.append((g, 0.5, "previous turn"))
        word = sorted(causal)[0]
        for g, conf, why in causes[:2]:
            if f.polarity == 0 or cues & BLOCK_CUES:
                etype = "prevents"
            elif "enables" in cues or f.type == "plan" or f.relation.startswith("plans"):
                etype = "enables"
            else:
                etype = "causes"
            self._add(out, etype, g, f, conf, f"causal-cue {word!r}: {why}")
            out.affected.add(f.fact_id)

    # -- before ------------------------------------------------------------------------------------

    def _before(self, source: SourceRecord, f: Fact, out: LinkResult) -> None:
        for later in (False, True):
            for c in self.graph.facts_near_time(self.conn, f.subject_id, f.valid_from, later,
                                                self.cfg.link_fanout, source.seq):
                if not self._related(f, c) or not self._gate(source, f, c):
                    continue
                a, b = (f, c) if later else (c, f)
                self._add(out, "before", a, b, 0.9,
                          f"anchor-order: {a.anchor_text or 'resolved time'} precedes "
                          f"{b.anchor_text or 'resolved time'} (related facts)")
                break

    # -- helpers ---------------------------------------------------------------------------------------

    def _related(self, f: Fact, c: Fact) -> bool:
        if f.entity and f.entity in ({c.entity} | people(c)):
            return True
        if c.entity and c.entity in people(f):
            return True
        return jaccard(people(f), people(c)) >= self.cfg.link_jaccard and bool(people(f))

    def _gate(self, source: SourceRecord, f: Fact, c: Fact) -> bool:
        """Cross-session candidates: shared participants or entity, and topic gate."""
        if c.subject_id != f.subject_id:
            return False
        if c.session_id == f.session_id and c.robot_id == f.robot_id:
            return True
        if not self._related(f, c):
            return False
        return self.hierarchy.gate(f.subject_id, (f.subject_id, f.robot_id, f.session_id),
                                   source.seq, (c.subject_id, c.robot_id, c.session_id))

    @staticmethod
    def _add(out: LinkResult, etype: str, src: Fact, dst: Fact, conf: float, why: str,
             revision: bool = False) -> None:
        at = max(src.known_from, dst.known_from)
        out.edges.append((etype, src.fact_id, dst.fact_id, round(conf, 3), why, at))
        if revision:
            out.revised = True
            out.affected.update((src.fact_id, dst.fact_id))
