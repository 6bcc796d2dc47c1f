"""Recall routes over source records, all scoped before ranking, and their fusion.

Routes that *find* sources: ``lexical`` (FTS5 BM25 over source text), ``dense``
(MiniLM cosine), ``window`` (MiniLM cosine over each turn pooled with the two
before it in its session: a reply such as "Yes, last May" is only findable with
the turn it answers), ``facts`` (FTS5 over extracted facts, mapped to the sources
they came from; only sources the text search missed, since a fact that
restates its source would count the same words twice; off by default, as it
earned nothing by ablation: a route with weight 0 is not run). Routes that
*re-rank* what was found, from the question and the records' place in time and
conversation: ``participants`` (the question names someone who speaks in this
scope: every candidate they said counts more, and their name is left out of the
search words and the question's vector — it matches greetings, not content),
``temporal`` (every candidate inside the time window the question names),
``neighbours`` (a turn next to a strong match in the same session: an answer is
often the reply to the turn that matched), ``sessions`` (turns in the session
of a strong match) and ``recency`` (newer sources first, a little, for an
explicit current-state question; what is current is the resolver's call, not
this).

Fusion is score based and lexical-dominant: each finding route's scores are
normalised per question (BM25 by its best score, cosine by its min-max range)
and added with a weight per route (``RecallConfig``), because the routes are
not equally reliable — plain reciprocal-rank fusion let the weaker dense route
pull the fusion below BM25 alone. That sum is a source's *match*; the
participant and time boosts are priors added to it, and neighbours and sessions
share a source's match, not its priors (a turn next to one the named person
said is not thereby about them). The fused score only orders inspection; it
never decides what is true.
"""

from __future__ import annotations

import heapq
import re
import threading
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter

from ..config import RecallConfig
from ..language.text import STOPWORDS, built, content_terms, tokens, words
from ..ledger import Ledger, Scope, SourceRecord
from ..storage.vectorindex import Hit, Place, SubjectVectors, VectorIndex


@dataclass(slots=True)
class Fused:
    seq: int
    source_id: str
    score: float
    # Route name -> rank of this source in that route (1 = best); boosts record 1.
    ranks: dict[str, int] = field(default_factory=dict)


def fts_match_expression(question: str, drop: Collection[str] = ()) -> str:
    """An FTS5 MATCH expression: the question's content words (minus ``drop``), OR-ed,
    each quoted."""
    terms = [t for t in content_terms(question) if t not in drop]
    return " OR ".join(_quote(t) for t in terms)


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def without_words(text: str, drop: Collection[str]) -> str:
    """``text`` without the whole words in ``drop`` (case-insensitive, with a
    possessive 's); ``text`` itself when nothing would be left."""
    if not drop:
        return text
    rx = built(r"\b(?:" + "|".join(re.escape(w) for w in sorted(drop)) + r")(?:'s)?\b", re.I)
    out = " ".join(rx.sub(" ", text).split())
    return out if any(ch.isalnum() for ch in out) else text


def lexical(ledger: Ledger, scope: Scope, question: str, k: int,
            as_of_valid: float | None = None, as_of_known: float | None = None,
            weights: tuple[float, float] = (1.0, 1.0), drop: Collection[str] = ()) -> list[Hit]:
    """FTS5 BM25 over source text and speaker (weights per column), within the scope."""
    expr = fts_match_expression(question, drop)
    rows = ledger.search_sources(scope, expr, k, as_of_valid, as_of_known, weights)
    return [Hit(seq, sid, score) for seq, sid, score in rows]


def facts(ledger: Ledger, scope: Scope, question: str, k: int,
          as_of_valid: float | None = None, as_of_known: float | None = None,
          drop: Collection[str] = ()) -> list[Hit]:
    """FTS5 BM25 over fact descriptions and values; each hit is a source the fact
    came from (its best fact's score). Empty when nothing was extracted."""
    expr = fts_match_expression(question, drop)
    best: dict[int, Hit] = {}
    for seq, sid, _fact, score, _status in ledger.search_facts(scope, expr, k, as_of_valid,
                                                               as_of_known):
        if seq not in best or score > best[seq].score:
            best[seq] = Hit(seq, sid, score)
    return sorted(best.values(), key=lambda h: (-h.score, h.seq))


# -- participants ---------------------------------------------------------------


class Participants:
    """Who speaks in a subject's dialogue, cached until the ledger's generation moves."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._cache: dict[str, tuple[int, dict[str, str]]] = {}
        self._lock = threading.Lock()

    def of(self, subject_id: str, generation: int | None = None) -> dict[str, str]:
        """Lower-cased name word -> speaker, for every speaker of the subject
        (``generation``: the ledger's, when the caller has just read it)."""
        generation = self.ledger.generation() if generation is None else generation
        with self._lock:
            hit = self._cache.get(subject_id)
            if hit is not None and hit[0] == generation:
                return hit[1]
        names: dict[str, str] = {}
        for speaker in self.ledger.speakers(subject_id):
            for w in words(speaker):
                if len(w) > 1:
                    names.setdefault(w, speaker)
        with self._lock:
            self._cache[subject_id] = (generation, names)
        return names

    def named(self, subject_id: str, question: str, generation: int | None = None
              ) -> tuple[set[str], set[str]]:
        """(speakers the question names, the question words that named them). A name
        that is also a function word ("Will", "May") names its speaker only when the
        question writes it capitalised: "What will Ann cook?" names Ann alone."""
        names = self.of(subject_id, generation)
        used = {w for w in words(question) if w in names}
        common = used & STOPWORDS
        if common:
            capitalised = {t.lower() for t in tokens(question) if t[:1].isupper()}
            used -= common - capitalised
        return {names[w] for w in used}, used


# -- attachments --------------------------------------------------------------------


@dataclass
class _SubjectAttachments:
    watermark: int = 0  # highest sequence number read for this subject
    children: dict[int, list[int]] = field(default_factory=dict)
    parent: dict[int, int] = field(default_factory=dict)
    # Attached records whose source is not stored yet: seq -> that source's ID.
    pending: dict[int, str] = field(default_factory=dict)

    def link(self, child: int, parent: int) -> None:
        if child != parent:
            self.children.setdefault(parent, []).append(child)
            self.parent[child] = parent


class Attachments:
    """Which sources are attached to which (payload ``attached_to``), per subject.

    Read incrementally: only sources stored since the last read are scanned, so
    a question whose caller passes the ledger's last sequence number costs no
    query. A record attached to a source not stored yet waits until it is. A
    forgotten record simply is not fetched any more.
    """

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._subjects: dict[str, _SubjectAttachments] = {}
        self._lock = threading.Lock()

    def refresh(self, subject_id: str, last_seq: int | None = None) -> _SubjectAttachments:
        upto = self.ledger.last_seq() if last_seq is None else last_seq
        with self._lock:
            cur = self._subjects.setdefault(subject_id, _SubjectAttachments())
            if cur.watermark >= upto:
                return cur
            for seq, parent_id, parent in self.ledger.attachments_between(
                    subject_id, cur.watermark, upto):
                if parent is None:
                    cur.pending[seq] = parent_id
                else:
                    cur.link(seq, parent)
            if cur.pending:
                found = self.ledger.seqs_of(sorted(set(cur.pending.values())))
                for seq, parent_id in list(cur.pending.items()):
                    if parent_id in found:
                        cur.link(seq, found[parent_id])
                        del cur.pending[seq]
            cur.watermark = max(cur.watermark, upto)
            return cur

    def units(self, subject_id: str, seqs: Iterable[int],
              last_seq: int | None = None) -> dict[int, tuple[int, ...]]:
        """For each of ``seqs`` that has attachments or is one: its unit, the source
        it belongs to first, then what is attached to that in storage order."""
        cur = self.refresh(subject_id, last_seq)
        out: dict[int, tuple[int, ...]] = {}
        if not cur.children:
            return out
        for seq in seqs:
            root = cur.parent.get(seq, seq)
            kids = cur.children.get(root)
            if kids:
                out[seq] = (root, *sorted(kids))
        return out


class Records:
    """Source records by sequence number, kept for one ledger generation: a stored
    record never changes, and forgetting one bumps the generation.

    A caller that asks for the turn before each record next (the currentness stage, one
    record at a time) has them read in the same statement (``before``): on PostgreSQL that
    was a round trip per record, half the stage's time at 1,000,000 sources. Those are
    kept apart until asked for, so what is kept, and the order a call returns its records
    in (kept ones in the order asked, then the others by seq, as the ledger gives them),
    are what they would be without them."""

    def __init__(self, ledger: Ledger, size: int = 8192) -> None:
        self.ledger = ledger
        self.size = size
        self._generation = -1
        self._cache: dict[int, SourceRecord] = {}
        self._before: dict[int, SourceRecord] = {}
        # seq -> the turn before it in its session (None: none), for ``turn_before``.
        self._prior: dict[int, SourceRecord | None] = {}
        # (seq, limit, subject) -> the subject's records after seq, for ``after``.
        self._after: dict[tuple[int, int, str | None], tuple[int, ...]] = {}
        self._later: dict[int, SourceRecord] = {}
        self._lock = threading.Lock()

    def _fresh(self, generation: int) -> None:
        """Forget what is kept when the generation changed or too much is (lock held)."""
        if generation != self._generation or len(self._cache) > self.size:
            self._cache, self._generation = {}, generation
            self._before, self._prior, self._after, self._later = {}, {}, {}, {}

    def get(self, seqs: Iterable[int], generation: int, before: bool = False
            ) -> dict[int, SourceRecord]:
        """The records of ``seqs`` that exist (``before``: read the record before each of
        those not kept yet as well)."""
        seqs = list(seqs)
        with self._lock:
            self._fresh(generation)
            cache = self._cache
            out = {s: cache[s] for s in seqs if s in cache}
            if len(out) == len(seqs):  # all kept (the turn before, asked again): as is
                return out
            missing = [s for s in seqs if s not in out]
            got = {s: self._before.pop(s) for s in missing if s in self._before}
            # Per missing seq, not a set difference with the kept dicts' keys (that walks
            # every kept record: ~0.6 ms a call at 8,000).
            asked_for = set(missing)
            ahead_kept = self._before
            extra = sorted({s - 1 for s in missing if s - 1 not in asked_for
                            and s - 1 not in cache and s - 1 not in ahead_kept}) if before else []
        need = [s for s in missing if s not in got]
        if need:
            found = self.ledger.get_sources_by_seq(need + extra)
            got.update((s, found[s]) for s in need if s in found)
            ahead = {s: found[s] for s in extra if s in found}
        else:
            ahead = {}
        out.update((s, got[s]) for s in sorted(got))
        with self._lock:
            if generation == self._generation:
                self._cache.update(got)
                if len(self._before) + len(ahead) <= self.size:
                    self._before.update(ahead)
        return out

    def turn_before(self, seq: int, generation: int) -> SourceRecord | None:
        """The record before ``seq`` when it is a turn of the same session, else None;
        kept for the generation as records are: the currentness stage asks it of the
        same records for every question that recalls them."""
        with self._lock:
            if generation == self._generation and seq in self._prior:
                return self._prior[seq]
        got = self.get([seq - 1, seq], generation)
        rec, before = got.get(seq), got.get(seq - 1)
        out = before if before is not None and rec is not None \
            and before.session_id == rec.session_id else None
        with self._lock:
            if generation == self._generation:
                self._prior[seq] = out
        return out

    def after(self, seq: int, limit: int, subject_id: str | None, generation: int
              ) -> tuple[SourceRecord, ...]:
        """Up to ``limit`` records of ``subject_id`` stored after ``seq``, in order
        (``Ledger.sources_after``); kept for the generation, as records are: the chain's
        forward step reads the same 200 later turns for every question whose best match
        is the same record. Kept as sequence numbers over one dict of records (nearby
        anchors' windows overlap), dropped whole past ``4 * size`` records."""
        key = (seq, limit, subject_id)
        with self._lock:
            self._fresh(generation)
            if key in self._after:
                kept = self._later
                return tuple(kept[s] for s in self._after[key])
        out = tuple(self.ledger.sources_after(seq, limit, subject_id))
        with self._lock:
            if generation == self._generation:
                if len(self._later) + len(out) > 4 * self.size:
                    self._after, self._later = {}, {}
                self._later.update((r.seq, r) for r in out)
                self._after[key] = tuple(r.seq for r in out)
        return out


# -- fusion


def reciprocal_rank_fusion(routes: dict[str, list[Hit]], k: int = 60) -> list[Fused]:
    """Fuse ranked lists: score = Σ 1 / (k + rank); ties keep the first route's order."""
    fused: dict[str, Fused] = {}
    for route, hits in routes.items():
        for rank, hit in enumerate(hits, start=1):
            entry = fused.setdefault(hit.source_id, Fused(hit.seq, hit.source_id, 0.0))
            entry.score += 1.0 / (k + rank)
            entry.ranks[route] = rank
    return sorted(fused.values(), key=lambda f: (-f.score, min(f.ranks.values())))


def normalised(route: str, hits: list[Hit]) -> list[float]:
    """Per-question scale: cosine by its min-max range over the hits, BM25-like scores
    by the best one (so a weak best match stays weak relative to a strong one)."""
    if not hits:
        return []
    vals = [float(h.score) for h in hits]  # tens of values: plain Python beats numpy here
    if route in ("dense", "window"):
        lo, hi = min(vals), max(vals)
        return [(v - lo) / (hi - lo) for v in vals] if hi > lo else [1.0] * len(hits)
    top = max(vals)
    return [v / top for v in vals] if top > 0 else [0.0] * len(hits)


def score_fusion(routes: dict[str, list[Hit]], weights: dict[str, float]) -> dict[int, Fused]:
    """Σ weight(route) · normalised score, per source; ``ranks`` records each route's rank."""
    fused: dict[int, Fused] = {}
    for route, hits in routes.items():
        w = weights.get(route, 0.0)
        for rank, (hit, norm) in enumerate(zip(hits, normalised(route, hits), strict=True), 1):
            entry = fused.get(hit.seq)
            if entry is None:  # made once per source, not once per route that found it
                entry = fused[hit.seq] = Fused(hit.seq, hit.source_id, 0.0)
            entry.score += w * norm
            entry.ranks[route] = rank
    return fused


def agreement(lexical: Sequence[Hit], vector_routes: Iterable[Sequence[Hit]], k: int = 10) -> int:
    """How many of the text search's top ``k`` sources are among the vector routes' top
    ``k`` (their hits taken rank by rank, each route's rank ``i`` before any rank ``i + 1``,
    each source once): the cascade's test of a first-stage question vector."""
    lists = [hits for hits in vector_routes if hits]
    top: set[int] = set()
    for i in range(max((len(h) for h in lists), default=0)):
        for hits in lists:
            if i < len(hits) and len(top) < k:
                top.add(hits[i].seq)
        if len(top) >= k:
            break
    return sum(1 for h in lexical[:k] if h.seq in top)


def places(ledger: Ledger, scope: Scope, seqs: Iterable[int], span: int,
           as_of_valid: float | None = None, as_of_known: float | None = None,
           index: VectorIndex | None = None, index_fresh: bool = False
           ) -> tuple[dict[int, Place], dict[int, list[tuple[int, int]]]]:
    """Places of ``seqs`` and of their same-session neighbours, and for each given
    seq those neighbours as (seq, offset in turns): offset -1 is the source just
    before it, +1 the one just after, up to ``span`` each way. Read from the
    in-memory vector index when it holds every seq (``index_fresh``: it was
    refreshed for this question already), else from the ledger."""
    seqs = list(seqs)
    if index is not None:
        sv = index.current(scope.subject_id) if index_fresh else index.refresh(scope.subject_id)
        found = _places_in_memory(sv, scope, seqs, span, as_of_valid, as_of_known)
        if found is not None:
            return found
    rows = ledger.sources_near(scope, seqs, span, as_of_valid, as_of_known)
    info = {r[0]: Place(r[0], r[1], (r[2], r[3]), r[4], r[5]) for r in rows}
    by_session: dict[tuple[str, str], list[int]] = defaultdict(list)
    for r in rows:
        by_session[(r[2], r[3])].append(r[0])
    near: dict[int, list[tuple[int, int]]] = {}
    for seq in seqs:
        p = info.get(seq)
        if p is None or not p.session[1]:  # no session: no conversation to follow
            near[seq] = []
            continue
        order = by_session[p.session]
        i = order.index(seq)
        near[seq] = [(order[j], j - i) for j in range(max(0, i - span), min(len(order), i + span + 1))
                     if j != i]
    return info, near


def spread_to_neighbours(fused: dict[int, Fused], info: dict[int, Place],
                         near: dict[int, list[tuple[int, int]]], before_w: float,
                         after_w: float, base: dict[int, float] | None = None) -> set[int]:
    """Give each source a share of its strongest same-session neighbours' scores
    (``base``: what is shared, by default the fused scores): ``before_w`` × the
    best preceding one (the source may answer what matched), plus ``after_w`` ×
    the best following one; a neighbour ``d`` turns away counts 1/d. Neighbours
    that were not candidates join. Returns the sources that gained."""
    if base is None:
        base = {seq: f.score for seq, f in fused.items()}
    from_before: dict[int, float] = {}
    from_after: dict[int, float] = {}
    for seq, neighbours in near.items():
        score = base.get(seq, 0.0)
        if score <= 0:
            continue
        for n, offset in neighbours:
            if offset > 0:  # n follows seq: seq precedes n
                share = score / offset
                if share > from_before.get(n, 0.0):
                    from_before[n] = share
            else:
                share = score / -offset
                if share > from_after.get(n, 0.0):
                    from_after[n] = share
    touched = set()
    for seq in from_before.keys() | from_after.keys():
        gain = before_w * from_before.get(seq, 0.0) + after_w * from_after.get(seq, 0.0)
        if gain <= 0:
            continue
        p = info.get(seq)
        if p is None:
            continue
        entry = fused.get(seq)
        if entry is None:
            entry = fused[seq] = Fused(seq, p.source_id, 0.0)
        entry.score += gain
        if "neighbours" not in entry.ranks:
            entry.ranks["neighbours"] = 1
        touched.add(seq)
    return touched


def session_prior(fused: dict[int, Fused], info: dict[int, Place], weight: float,
                  top_n: int, base: dict[int, float] | None = None) -> set[int]:
    """Add ``weight`` × (the session's summed top-``top_n`` scores / the best session's);
    ``base``: the scores summed (by default the fused ones)."""
    per: dict[tuple[str, str], list[float]] = {}
    # Each candidate with a session, in order: the second pass does not look them up again.
    kept: list[tuple[int, Fused, tuple[str, str]]] = []
    for seq, f in fused.items():
        p = info.get(seq)
        if p is not None and p.session[1]:
            session = p.session
            kept.append((seq, f, session))
            score = f.score if base is None else base.get(seq, 0.0)
            scores = per.get(session)
            if scores is None:
                per[session] = [score]
            else:
                scores.append(score)
    if not per:
        return set()
    strength = {k: sum(heapq.nlargest(top_n, v)) for k, v in per.items()}
    best = max(strength.values())
    if best <= 0:
        return set()
    gain = {k: weight * v / best for k, v in strength.items()}
    for _, f, session in kept:
        f.score += gain[session]
    return {seq for seq, _, _ in kept}


def boost_where(fused: dict[int, Fused], seqs: Iterable[int], weight: float,
                route: str) -> set[int]:
    touched = set()
    for seq in seqs:
        f = fused.get(seq)
        if f is not None:
            f.score += weight
            f.ranks.setdefault(route, 1)
            touched.add(seq)
    return touched


def in_window(info: dict[int, Place], window: tuple[float, float]) -> list[int]:
    start, end = window
    return [seq for seq, p in info.items() if start <= p.source_time < end]


def recency(fused: dict[int, Fused], info: dict[int, Place], weight: float) -> set[int]:
    """Add up to ``weight`` by source time, newest of the candidates highest."""
    times = {seq: info[seq].source_time for seq in fused if seq in info}
    if not times:
        return set()
    lo, hi = min(times.values()), max(times.values())
    if hi <= lo:
        return set()
    for seq, t in times.items():
        fused[seq].score += weight * (t - lo) / (hi - lo)
        fused[seq].ranks.setdefault("recency", 1)
    return set(times)


def ranked(fused: dict[int, Fused], k: int | None = None) -> list[Fused]:
    """Best first (the best ``k`` only, when given); ties keep storage order. Sorted by
    seq, then stably by score, highest first: the order of ``(-score, seq)`` without a
    key tuple made per candidate (a third of the fuse stage's time)."""
    out = sorted(fused.values(), key=_BY_SEQ)
    out.sort(key=_BY_SCORE, reverse=True)  # (reverse keeps equal scores in seq order)
    return out[:k] if k is not None and k < len(out) else out


_BY_SEQ = attrgetter("seq")
_BY_SCORE = attrgetter("score")


def route_weights(cfg: RecallConfig) -> dict[str, float]:
    return {"lexical": cfg.lexical_weight, "dense": cfg.dense_weight, "facts": cfg.facts_weight,
            "window": cfg.window_weight}


def _places_in_memory(sv: SubjectVectors, scope: Scope, seqs: list[int], span: int,
                      as_of_valid: float | None, as_of_known: float | None
                      ) -> tuple[dict[int, Place], dict[int, list[tuple[int, int]]]] | None:
    order = sv.order()
    at = order.positions(seqs)
    if at is None:
        return None  # a source not embedded yet: ask the ledger
    pos = dict(zip(seqs, at, strict=True))
    place, known = order.place, order.known
    if span <= 0:  # places only (the seqs come from routes already scoped)
        return {seq: place(pos[seq]) for seq in seqs}, {seq: [] for seq in seqs}

    everything = (not scope.robot_id and not scope.session_id and as_of_valid is None
                  and as_of_known is None)

    def visible(j: int) -> bool:
        if everything:
            return True
        p = place(j)
        return ((not scope.robot_id or p.session[0] == scope.robot_id)
                and (not scope.session_id or p.session[1] == scope.session_id)
                and (as_of_valid is None or p.source_time <= as_of_valid)
                and (as_of_known is None or known(j) <= as_of_known))

    info: dict[int, Place] = {}
    near: dict[int, list[tuple[int, int]]] = {}
    n = order.n
    for seq in seqs:
        i = pos[seq]
        me = info.get(seq)
        if me is None:
            me = info[seq] = place(i)
        found: list[tuple[int, int]] = []
        session = me.session
        if session[1]:
            for step in (-1, 1):
                # Within 2 × span turns of ``i`` and inside the order.
                j, k, stop = i + step, 0, (max(-1, i - 2 * span - 1) if step < 0
                                           else min(n, i + 2 * span + 1))
                while j != stop and k < span:
                    other = place(j)
                    if other.session == session and (everything or visible(j)):
                        k += 1
                        if other.seq not in info:
                            info[other.seq] = other
                        found.append((other.seq, step * k))
                    j += step
        near[seq] = found
    return info, near
