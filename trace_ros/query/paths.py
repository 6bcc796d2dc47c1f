"""The graph stage of a query: support paths and the resolver's verdict (DESIGN §4.3–4.8).

Between fusion and packing, ``GraphStage.run``:

1. collects the seeds (``seeds.collect``: facts of the recalled sources, entity
   seeds, one hop along ``updates``/``contradicts``);
2. walks the evidence graph from them — both edge directions, at most
   ``graph_max_hops`` edges, at most ``graph_fanout`` edges per fact — under the
   three pruning rules: never cross an edge invalidated in the view; reject a
   path that runs backwards in time (an edge whose endpoints contradict its
   meaning — a newer revision dated before the one it updates, an effect before
   its cause — or a walk whose times go forth and back); drop a path with two
   consecutive ``contradicts``;
3. scores each path ``S = w_ns·NS + w_pc·PC + w_tc·TC + w_uv·UV``: NS the mean
   similarity of its facts to the question (the recall score of their sources, or
   the share of the question's stems they repeat), PC the product of edge
   confidences × a discount per relation × a penalty per ``contradicts``, TC how
   well the facts are placed in time (resolved anchors count fully, fallbacks
   half), UV the lowest validity of its facts in the view;
4. when the question asks about one state key (``seeds.target_key``) and the plan
   can be answered by a state, asks the resolver (``state.resolve``) in the
   request's view — or as of the time the question names. The resolver, never
   similarity or recency, decides what is current: its revision's sources lead
   the evidence, the superseded ones follow (marked by their path line), and its
   *missing*/*conflict* become the response status. A question about a thing that
   no record in the view mentions at all is *missing* too (``absent``), unless a record
   near the question in meaning names it in other words.

Facts and edges come from ``factcache.FactCache`` (each subject's, per ledger
generation), not from SQL per question; only the paths kept are rendered.

``arrange`` puts the lead group first for packing, ``add_lines`` fills the
budget left with rendered paths, ``finish`` sets the status and, after the
reader, traces the paths for the final answer (those touching the cited sources
first) into ``QueryResult.paths``.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..config import RecallConfig
from ..embed import Encoder
from ..facts import FACT_EDGE_TYPES, Edge, Fact, norm
from ..language.clauses import clauses
from ..language.lazyre import lazy_re
from ..language.revision import opening_person
from ..language.text import (
    ELIDED_AFTER,
    STOPWORDS,
    possessors,
    sentence_pieces,
    stem,
    stems,
    words,
)
from ..language.timeanchor import find_candidates, tense
from ..language.vocab import EVENT_NOUNS, is_robot
from ..ledger import Ledger, Scope
from ..state import Resolution, is_multi_valued, resolve
from .current import before_clause
from .factcache import FactCache, SubjectFacts
from .pack import EvidenceGroup, EvidenceItem, Pack
from .plan import Plan
from .recall import Fused, Participants
from .result import QueryResult
from .seeds import (
    ALL_CUE_STEMS,
    CUE_STEMS,
    CUE_WORDS,
    FIRST_PERSON,
    FRAME_WORDS,
    PERSON_RELATIONS,
    Seeds,
    Target,
    View,
    answerable_by_state,
    categorised,
    collect,
    cue_words,
    cued_relations,
    first_person_means,
    fits_qualifier,
    in_scope,
    named_category,
    people_asked_about,
    person_seeds,
    possessed_words,
    question_entities,
    residual,
    target_key,
)

# PC: how much one edge of each type vouches for the connection it makes.
RELATION_DISCOUNT = {"updates": 1.0, "contradicts": 0.9, "causes": 0.85, "enables": 0.85,
                     "prevents": 0.85, "before": 0.7}
CONTRADICTION_PENALTY = 0.5
# An uncategorised value ("prefers:jazz") belongs to the category it is nearest to
# only when at least this similar (MiniLM cosine: jazz–music 0.54, camping–book 0.16).
CATEGORY_MIN_SIMILARITY = 0.33
# Walk order: the edges that carry currentness first when a fact has too many.
_EDGE_PRIORITY = {"updates": 0, "contradicts": 1, "causes": 2, "enables": 2, "prevents": 2,
                  "before": 3}
_TRACE_LINES = 8
# How far down the dense ranking a statement of the one asked about may stand to answer
# against the "never recorded" verdict (``_told_by_them``).
_OWN_NEAR = 5
# "Where is …", "When are …", "What day is …" (what something is), and "Where did
# you / can I …" (where the robot or its user saw or left a thing).
_COPULAR = lazy_re(r"^\s*(?:(?:where|when|what|which)(?:\s+\w+)?\s*(?:is|are|'s|was|were)\b"
                   r"|where\s+(?:did|do|have|has|can|could)\s+(?:you|i|we)\b)", re.I)
_SECOND = frozenset({"you", "your", "yours", "yourself"})
_FIRST_SUBJECT = frozenset({"i", "we"})
# Relations whose values are proper names (a city, an employer).
_NAMED_VALUES = frozenset({"lives_in", "works_at"})
_CAPITALISED = lazy_re(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]*")


@dataclass
class SupportPath:
    facts: tuple[Fact, ...]
    edges: tuple[Edge, ...]
    ns: float = 0.0
    pc: float = 0.0
    tc: float = 0.0
    uv: float = 0.0
    score: float = 0.0
    line: str = ""

    @property
    def source_ids(self) -> set[str]:
        return {s for f in self.facts for s in f.source_ids}


@dataclass
class GraphOutcome:
    seeds: Seeds = field(default_factory=Seeds)
    paths: list[SupportPath] = field(default_factory=list)
    target: Target | None = None
    resolution: Resolution | None = None
    # What the reader is given (None: read the text); superseded cleared for a pinned view.
    reader_resolution: Resolution | None = None
    # Source IDs shown first (the resolver's revisions, the one asked about first) and
    # those of superseded revisions among them.
    lead: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    # The turn the current record carries on (``current.Chain.carried``), or "".
    carried: str = ""
    # Later records the chain found to be another holder's, instance or thing
    # (``current.chain``'s ``lookalikes``): marked ``other``, none is the current record.
    others: list[str] = field(default_factory=list)
    status: str = ""  # "" | missing | conflict
    message: str = ""
    status_sources: list[str] = field(default_factory=list)
    # Whom the "never recorded" verdict (``GraphStage.unrecorded``) is of; empty otherwise.
    unrecorded: frozenset[str] = frozenset()
    # The stems of what the question asks of them, kept with ``unrecorded``: a later record
    # of theirs withholds their statement only where it speaks of that (``_told_by_them``).
    unrecorded_terms: frozenset[str] = frozenset()
    # The words of the thing the "nothing mentions it" verdict (``GraphStage.absent``)
    # found unsaid, in the question's order; empty otherwise.
    absent: tuple[str, ...] = ()

    def lines(self, n: int) -> list[str]:
        """The best ``n`` rendered paths, those touching the lead sources first."""
        lead = set(self.lead)
        order = sorted(self.paths, key=lambda p: (-len(p.source_ids & lead), -p.score))
        return [p.line for p in order[:n]]

    def trace(self, cited: Sequence[str], n: int = _TRACE_LINES) -> list[str]:
        """Answer-aware: paths touching the cited sources first, then the lead, then S."""
        cited_set, lead = set(cited), set(self.lead)
        order = sorted(self.paths, key=lambda p: (-len(p.source_ids & cited_set),
                                                  -len(p.source_ids & lead), -p.score))
        return [p.line for p in order[:n]]


# Words of a question that tell what a thing does rather than name it.
_PARTICIPLE = lazy_re(r"\w{3,}(?:ing|ed)$")
# The verb after "where do we", "where did you": what the one asked about does there.
_DONE_BY = lazy_re(r"^\s*where\s+(?:did|do|does|can|could)\s+(?:you|i|we|they)\s+(\w+)",
                   re.I)
_PARTICLES = frozenset({"back", "up", "down", "out", "off", "over", "away", "in", "on"})
# An -ing word after an owner or an article names a thing ("Amy's wedding", "the meeting").
_NOUN_BEFORE = lazy_re(r"^(?:s|the|a|an|my|your|our|his|her|their|its|this|next)$")
# "What temperature is incubator 3 set to?": the noun after "what"/"which" is the kind of
# value asked for, which a record states without naming ("set to 37"), not the thing.
_KIND_ASKED = lazy_re(r"^\s*(?:what|which)\s+(\w+)\s+(?:is|are|'s|was|were)\b", re.I)
# A time of day or a period a thing recurs in ("my break on nights", "the weekly fire
# alarm test") says when, as a date does, not what.
_WHEN_WORD = lazy_re(r"(?:morning|afternoon|evening|night)s?|nightly|daily|weekly"
                     r"|fortnightly|monthly|yearly", re.I)
# A part of a period named before it: "the start of" March, "the end of" the month.
_PART_OF = lazy_re(r"\bthe\s+\w+\s+(?:of\s+)?$", re.I)
# ``absent``: the words naming a thing may be said over this many turns either side of
# one another in a session, read from this many matches of each word.
_TOGETHER_TURNS = 1
_TOGETHER_HITS = 50
# ``absent`` asks for the thing's words; a record whose vector is this near the question's
# (MiniLM cosine) and says one of them names the thing, the rest in other words ("half day
# is 380" for "the half day price"): it is recorded.
SAID_OTHERWISE = 0.5
# A thing the question does not give an owner ("my hair appointment", "the holiday in
# May") may be named in other words altogether ("booked in at the salon", "a cottage for
# the second week of May"): a record this near the question in meaning that says another
# word of it ("appointment", "May") speaks of it. Not one it gives an owner ("Amy's
# wedding"): the owner alone brings a record this near ("Amy's a bridesmaid at Georgie's
# wedding").
NAMED_OTHERWISE = 0.4
# "Amy's", "the kitten's", "my grandson's": an owner before the thing; not the "is" of
# "When's", "Where's", "it's".
_OWNER = lazy_re(r"\b(?!(?:what|when|where|who|how|why|which|it|that|there|here|he|she)"
                 r"['’]s\b)\w+['’]s\s+[a-z]", re.I)


class GraphStage:
    def __init__(self, ledger: Ledger, config: RecallConfig, participants: Participants,
                 encoder: Encoder | None = None) -> None:
        self.ledger = ledger
        self.config = config
        self.participants = participants
        self.encoder = encoder
        self._vectors: dict[str, np.ndarray] = {}
        self._turn_cache: dict[str, tuple[int, dict[str, int]]] = {}
        self._lock = threading.Lock()  # the caches above; queries may run on several threads
        self.facts = FactCache(ledger)  # each subject's facts and edges, per generation

    # -- the stage --------------------------------------------------------------------

    def run(self, scope: Scope, question: str, plan: Plan, ranked: Sequence[Fused],
            speakers: set[str], as_of_valid: float | None, as_of_known: float | None, *,
            update_seeds: bool = True,
            near: Sequence[tuple[int, float]] = ()) -> GraphOutcome:
        """``near``: (sequence number, cosine) of the records the question's vector
        recalled, for ``absent`` (``SAID_OTHERWISE``, ``NAMED_OTHERWISE``)."""
        cfg = self.config
        view = View(as_of_valid, as_of_known)
        people = {n for n in (_norm_name(s) for s in
                              set(self.participants.of(scope.subject_id).values())) if n}
        graph = self.facts.subject(scope.subject_id)
        seeds = collect(graph, scope, view, ranked, question_entities(question, speakers),
                        n_sources=cfg.graph_seed_sources, per_entity=cfg.graph_entity_facts,
                        update_hop=update_seeds)
        # Who "I" means, when the question says it.
        me = (first_person_means(people, self._turns(scope.subject_id), scope.robot_id)
              if FIRST_PERSON & set(words(question)) else None)
        if update_seeds and answerable_by_state(plan):
            person_seeds(self.ledger, scope, view, question, plan, people, seeds, me)
        out = GraphOutcome(seeds=seeds)
        out.paths = self.walk(scope, view, question, seeds, graph)
        if update_seeds:
            out.target = target_key(question, plan, seeds, people,
                                    lambda: self._turns(scope.subject_id), me)
            if out.target is not None:
                self._resolve(out, scope, plan, view)
        if not out.status and out.resolution is None:
            absent = self.absent(scope, view, question, plan)
            if absent and self._said_otherwise(question, absent, near):
                absent = ""
            out.absent = tuple(absent.split())
            if not absent and update_seeds:
                absent = self.unrecorded(scope, view, question, plan, seeds, people, ranked,
                                         me)
                if absent:
                    out.unrecorded = frozenset(people_asked_about(question, people, me))
                    out.unrecorded_terms = stems(question) - {
                        stem(w) for p in out.unrecorded for w in words(p)}
            if absent:
                out.status = "missing"
                out.message = f"nothing in memory records {absent}"
        return out

    def _resolve(self, out: GraphOutcome, scope: Scope, plan: Plan, view: View) -> None:
        target = out.target
        assert target is not None
        valid, pinned = view.valid, view.valid is not None or view.known is not None
        if plan.as_of is not None:
            valid, pinned = plan.as_of if valid is None else min(valid, plan.as_of), True
        elif plan.window is not None and not plan.current:
            end = plan.window[1]
            valid, pinned = end if valid is None else min(valid, end), True
        res = resolve(self.ledger, scope, target.entity, target.relation,
                      as_of_valid=valid, as_of_known=view.known)
        if target.qualifier:
            narrowed = self._narrow(res, scope, target, valid, view.known)
            if narrowed is None:  # nothing of that category: read the text instead
                out.target = None
                return
            res = narrowed
        out.resolution = res
        sources = [s for f in res.facts for s in f.source_ids]
        older = [s for f in res.superseded for s in f.source_ids]
        if res.status == "answer":
            if pinned or plan.current or not older:
                out.lead = list(dict.fromkeys(sources + older))
            else:  # a question about the past: the revision before the current one first
                first = [s for s in res.superseded[0].source_ids]
                out.lead = list(dict.fromkeys(first + sources + older))
            out.superseded = [s for s in dict.fromkeys(older) if s not in sources]
            out.reader_resolution = dataclasses.replace(res, superseded=[]) if pinned else res
            return
        out.status = res.status
        out.message = res.reason
        out.lead = list(dict.fromkeys(sources))
        out.status_sources = list(out.lead)

    def _narrow(self, res: Resolution, scope: Scope, target: Target, valid: float | None,
                known: float | None) -> Resolution | None:
        """A multi-valued answer restricted to the category the question names; a
        conflict elsewhere in the relation is resolved again within the category.
        None when no revision is of that category."""
        q = target.qualifier
        if res.status == "conflict" and not any(fits_qualifier(f, q) for f in res.facts):
            res = resolve(self.ledger, scope, target.entity, f"{target.relation}:{q}",
                          as_of_valid=valid, as_of_known=known)
        cats = _categories(res.facts + res.superseded, q)
        facts = self._of_category(res.facts, q, cats)
        older = self._of_category(res.superseded, q, cats)
        if not facts:
            return None
        value = facts[0].value if facts and res.status == "answer" else res.value
        sources = list(dict.fromkeys(s for f in facts for s in f.source_ids))
        return dataclasses.replace(res, value=value, facts=facts, superseded=older,
                                   source_ids=sources)

    def _of_category(self, facts: Sequence[Fact], q: str, cats: set[str]) -> list[Fact]:
        """The revisions of a multi-valued relation that are of the category ``q``
        (``cats``: the categories they may be told apart from); a value that names
        the category ("Hawaiian pizza" for pizza) is of it whatever it was filed under."""
        q_stem = stem(q)
        return [f for f in facts if q_stem in stems(f.value) or (
            fits_qualifier(f, q) and (categorised(f) or self._category(f.value, cats) == q))]

    def _turns(self, subject_id: str) -> dict[str, int]:
        """Dialogue turns per (normalised) speaker, cached until the ledger moves on."""
        generation = self.ledger.generation()
        with self._lock:
            hit = self._turn_cache.get(subject_id)
        if hit is None or hit[0] != generation:
            turns: dict[str, int] = {}
            for speaker, n in self.ledger.speaker_turns(subject_id).items():
                key = _norm_name(speaker)
                turns[key] = turns.get(key, 0) + n
            hit = (generation, turns)
            with self._lock:
                self._turn_cache[subject_id] = hit
        return hit[1]

    def _category(self, value: str, categories: set[str]) -> str:
        """The category an uncategorised value is nearest to in the embedding space
        ("opera" → music rather than food); '' when it cannot be told."""
        if self.encoder is None:
            return next(iter(categories)) if len(categories) == 1 else ""
        names = sorted(categories)
        vecs = self._embed([value, *names])
        sims = vecs[1:] @ vecs[0]
        best = int(np.argmax(sims))
        return names[best] if sims[best] >= CATEGORY_MIN_SIMILARITY else ""

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of short texts (values, category words), cached."""
        with self._lock:
            known = {t: self._vectors[t] for t in texts if t in self._vectors}
        todo = [t for t in dict.fromkeys(texts) if t not in known]
        if todo:
            assert self.encoder is not None
            for t, v in zip(todo, self.encoder.encode(todo), strict=True):
                v = np.asarray(v, dtype=np.float64)
                known[t] = v / (float(np.linalg.norm(v)) or 1.0)
            with self._lock:
                if len(self._vectors) > 4096:
                    self._vectors.clear()
                self._vectors.update((t, known[t]) for t in todo)
        return np.stack([known[t] for t in texts])

    # -- a thing no record mentions ------------------------------------------------------

    def absent(self, scope: Scope, view: View, question: str, plan: Plan) -> str:
        """The words naming the thing a question asks the state of ("Where is X?",
        "What day is X?": a copular question about a thing's place, time or state),
        when no source in the scope and view contains them all; '' when something
        does, or for any other question (about events, a person's own state …: the
        readers and ``unrecorded`` decide those)."""
        if not answerable_by_state(plan) or not _COPULAR.match(question) \
                or not set(cued_relations(question, plan)) - set(PERSON_RELATIONS):
            return ""
        # What dates the state ("before the Harcourt job", "at the start of March") says
        # when, not what: only the thing's own words must be recorded.
        clause = before_clause(question)
        text = question.replace(clause, " ") if clause else question
        for m in reversed(find_candidates(text)):
            start = m.start()
            part = _PART_OF.search(text, 0, start)
            if part is not None and part.end() == start \
                    and (" of " in part.group(0)) != text.startswith("of ", start):
                start = part.start()
            text = text[:start] + " " + text[m.end():]
        names = set(self.participants.of(scope.subject_id))
        kind = _KIND_ASKED.match(question)
        target = [w for w in words(text)
                  if len(w) > 1 and w not in STOPWORDS and w not in names
                  and w not in FRAME_WORDS and w not in EVENT_NOUNS
                  and stem(w) not in ALL_CUE_STEMS and not w.isdigit()
                  and not _WHEN_WORD.fullmatch(w)
                  and not (kind is not None and w == kind.group(1).lower())]
        # What the thing does ("coming back", "expected", "visiting") a record may say in
        # other words ("stuck out there till Friday"): the words that name it must be said.
        if len(target) > 3:
            return ""  # a long description: the readers judge it
        said = words(text)
        before: dict[str, str] = {}  # each word -> the word before its first use
        for i, w in enumerate(said):
            before.setdefault(w, said[i - 1] if i else "")
        done = _DONE_BY.match(question)  # "Where do we play D&D?": playing is what we do
        # ("Where is bingo held?": a past form, regular or not, is what is done with it.)
        doing = [w for w in target if w in _PARTICLES or (_PARTICIPLE.search(w)
                                                          or tense(w) == "past")
                 and not _NOUN_BEFORE.search(before.get(w, ""))
                 or done is not None and w == done.group(1).lower()]
        lenient = len(target) >= 3  # of three words, two are enough (a paraphrase)
        if doing:  # only what it does: nothing names the thing to look for
            target = [w for w in target if w not in doing]
            lenient = lenient and len(target) >= 2
        if not target:
            return ""
        quoted = ['"' + w.replace('"', '""') + '"' for w in target]
        # All the words in one record, or all but one.
        groups = [quoted] if not lenient else [
            [q for j, q in enumerate(quoted) if j != i] for i in range(len(quoted))]
        match = " OR ".join("(" + " AND ".join(g) + ")" for g in groups)
        hits = self.ledger.search_sources(scope, match, 1, view.valid, view.known)
        if not hits:
            # "Theo's is with Miss Grant at 6:20": the owner's thing with its noun left
            # out, as people say it once the thing is known ("What time's Theo's slot?").
            owners = [p.lower() for p in possessors(question) if p.lower() in target]
            elided = " OR ".join(f'"{o} s {verb}"' for o in owners for verb in ELIDED_AFTER)
            if elided:
                hits = self.ledger.search_sources(scope, elided, 1, view.valid, view.known)
        owned = {p.lower() for p in possessors(question)} & set(target)
        if not hits and len(quoted) > 1 and not owned \
                and self._said_together(scope, view, quoted):
            # (Not "Amy's wedding" over "Amy's a bridesmaid" - "Georgie's wedding in
            # June": whose it is is said with the thing.)
            return ""
        return "" if hits else " ".join(target)

    def _said_otherwise(self, question: str, named: str,
                        near: Sequence[tuple[int, float]]) -> bool:
        """Whether the thing ``absent`` found unsaid (``named``) is said in other words by
        a record near the question in meaning: one at least ``SAID_OTHERWISE`` near that
        says a word of the thing itself ("half day is 380" for "the half day price") -
        whose the thing is does not count ("Amy's a bridesmaid" does not tell of "Amy's
        wedding"), as ``absent`` asks it said with the thing; or, when the question gives
        the thing no owner, one at least ``NAMED_OTHERWISE`` near that says any other
        word of the question ("your appointment is now Friday" for "my hair
        appointment")."""
        owners = {p.lower() for p in possessors(question)}
        if self._near_says({stem(w) for w in named.split() if w not in owners},
                           [seq for seq, cos in near if cos >= SAID_OTHERWISE]):
            return True
        return not _OWNER.search(question) and self._near_says(
            {stem(w) for w in words(question) if len(w) > 1 and w not in STOPWORDS},
            [seq for seq, cos in near if cos >= NAMED_OTHERWISE])

    def _near_says(self, wanted: set[str], seqs: Sequence[int]) -> bool:
        """Whether one of the records ``seqs`` says a word of ``wanted`` (stems)."""
        return bool(wanted and seqs) and any(
            wanted & stems(rec.text) for rec in self.ledger.get_sources_by_seq(list(seqs)).values())

    def _said_together(self, scope: Scope, view: View, quoted: Sequence[str]) -> bool:
        """Whether turns next to each other in one session say every one of the words
        between them ("Karim's cousin is getting married …" - "Wedding in Leeds, 28 June."
        records the cousin's wedding): a thing is named over a turn and the reply to it."""
        found = [{seq for seq, _, _ in self.ledger.search_sources(
            scope, q, _TOGETHER_HITS, view.valid, view.known)} for q in quoted]
        if not all(found):
            return False
        rare = min(found, key=len)
        near = {s + d for s in rare for d in range(-_TOGETHER_TURNS, _TOGETHER_TURNS + 1)}
        records = self.ledger.get_sources_by_seq(sorted(near))
        for seq in rare:
            rec = records.get(seq)
            if rec is None:
                continue
            around = {s for s, r in records.items() if abs(s - seq) <= _TOGETHER_TURNS
                      and r.session_id == rec.session_id and r.subject_id == rec.subject_id}
            if all(seqs & around for seqs in found):
                return True
        return False

    def unrecorded(self, scope: Scope, view: View, question: str, plan: Plan, seeds: Seeds,
                   people: set[str], ranked: Sequence[Fused],
                   me: set[str] | None = None) -> str:
        """"<person> <relation>" when a state question asks about a person's key that
        the memory never recorded: the subject has a graph, the resolver knows no
        revision for anyone the question may mean (of the category it names, for a
        many-valued relation: "favourite drink"), and no recalled record that speaks
        of the relation went unextracted (its words were said but no fact of that
        relation came from it — then the readers read the text). '' otherwise."""
        if not answerable_by_state(plan) or not any(f.key for f in seeds.facts.values()):
            return ""
        rels = [r for r in cued_relations(question, plan) if r in PERSON_RELATIONS]
        who = people_asked_about(question, people, me)
        if not rels or not who:
            return ""
        left = residual(question, names=set(self.participants.of(scope.subject_id)))
        # "What is Ana's favourite food?": of a many-valued relation, the category asked
        # about; revisions of other categories do not record it.
        qualifier = named_category(left, possessed_words(question)) if any(
            is_multi_valued(r) for r in rels) else ""
        if qualifier:
            rels, left = [r for r in rels if is_multi_valued(r)], []
        if left:
            return ""
        for person in who:
            for rel in rels:
                facts = self.ledger.facts_for_key(scope.subject_id, person, rel + ":")
                if qualifier:
                    facts = self._of_category(facts, qualifier, _categories(facts, qualifier))
                if facts:
                    return ""
        top = [f.seq for f in ranked[:self.config.evidence_k]]
        # A record that gave a fact of the relation was read (of another category, it
        # does not state this one).
        extracted = {s for f in seeds.facts.values()
                     if f.relation.partition(":")[0] in rels for s in f.source_ids}
        names = {w for p in who for w in words(p)}
        for rec in self.ledger.get_sources_by_seq(top).values():
            if rec.source_id not in extracted and any(
                    _states(sentence, rels, _norm_name(rec.speaker) in who, names)
                    for sentence in sentence_pieces(rec.text)):
                return ""
        rel_words = " / ".join(r.replace("_", " ") for r in rels)
        return f"{' or '.join(sorted(who))} {rel_words}" + (f" {qualifier}" if qualifier else "")

    # -- paths --------------------------------------------------------------------------

    def walk(self, scope: Scope, view: View, question: str, seeds: Seeds,
             graph: SubjectFacts | None = None) -> list[SupportPath]:
        """Support paths from the seeds (see the module docstring), best S first;
        ``graph``: the subject's facts (default: as the ledger holds them now)."""
        cfg = self.config
        if not seeds.facts or cfg.graph_max_hops <= 0:
            return []
        if graph is None:
            graph = self.facts.subject(scope.subject_id)
        facts = dict(seeds.facts)
        adj: dict[str, list[Edge]] = {}
        seen_edges: set[int] = set()
        frontier = set(facts)
        for _hop in range(cfg.graph_max_hops):
            if not frontier:
                break
            new: set[str] = set()
            for e in graph.edges_among(frontier, FACT_EDGE_TYPES):
                if e.edge_id in seen_edges or not _crossable(e, view):
                    continue
                seen_edges.add(e.edge_id)
                adj.setdefault(e.src, []).append(e)
                adj.setdefault(e.dst, []).append(e)
                new.update(x for x in (e.src, e.dst) if x not in facts)
            for f in graph.with_ids(new):
                if in_scope(scope, f) and view.sees(f):
                    facts[f.fact_id] = f
            frontier = {x for x in new if x in facts}
        for edges in adj.values():
            edges.sort(key=lambda e: (_EDGE_PRIORITY.get(e.type, 9), -e.confidence, e.edge_id))
            del edges[cfg.graph_fanout:]
        q_stems = stems(question)
        # Each fact's closeness to the question, worked out for the facts on a path only
        # (most facts reached are on none: a walk reaches hundreds).
        ns: dict[str, float] = {}

        def closeness(f: Fact) -> float:
            got = ns.get(f.fact_id)
            if got is None:
                got = ns[f.fact_id] = max(seeds.weight.get(f.fact_id, 0.0), _overlap(f, q_stems))
            return got

        found: dict[frozenset[int], SupportPath] = {}

        def extend(path: list[str], edges: list[Edge]) -> None:
            if edges:
                key = frozenset(e.edge_id for e in edges)
                if key not in found:
                    found[key] = self._score(path, edges, facts, closeness, view)
            if len(edges) >= cfg.graph_max_hops:
                return
            here = path[-1]
            for e in adj.get(here, []):
                nxt = e.dst if e.src == here else e.src
                if nxt in path or nxt not in facts:
                    continue
                if edges and e.type == "contradicts" and edges[-1].type == "contradicts":
                    continue
                if not _in_order(e, facts) or not _monotone(path + [nxt], facts):
                    continue
                extend(path + [nxt], edges + [e])

        for fid in sorted(seeds.facts, key=lambda x: -seeds.weight.get(x, 0.0)):
            extend([fid], [])
        # Only the paths kept are rendered: every path scoring above the last one kept,
        # and those tied with it (their lines break the tie).
        keep = cfg.graph_max_paths
        paths = sorted(found.values(), key=lambda p: -p.score)
        if 0 < keep < len(paths):
            last = paths[keep - 1].score
            paths = [p for p in paths if p.score >= last]
        for p in paths:
            p.line = render(p.facts, p.edges, facts, view)
        paths.sort(key=lambda p: (-p.score, p.line))
        return paths[:keep]

    def _score(self, path: list[str], edges: list[Edge], facts: dict[str, Fact],
               closeness: Callable[[Fact], float], view: View) -> SupportPath:
        cfg = self.config
        fs = tuple(facts[x] for x in path)
        pc = 1.0
        for e in edges:
            pc *= max(0.0, min(1.0, e.confidence)) * RELATION_DISCOUNT.get(e.type, 0.5)
            if e.type == "contradicts":
                pc *= CONTRADICTION_PENALTY
        tc = sum(1.0 if not f.anchor_fallback else 0.5 for f in fs) / len(fs)
        uv = min(_validity(f, view) for f in fs)
        nsv = sum(closeness(f) for f in fs) / len(fs)
        score = (cfg.path_weight_ns * nsv + cfg.path_weight_pc * pc + cfg.path_weight_tc * tc
                 + cfg.path_weight_uv * uv)
        return SupportPath(fs, tuple(edges), nsv, pc, tc, uv, score)

    # -- packing ---------------------------------------------------------------------------

    def arrange(self, out: GraphOutcome, candidates: list[EvidenceItem],
                as_of_valid: float | None, as_of_known: float | None
                ) -> list[EvidenceItem | EvidenceGroup]:
        """The lead group (the resolver's revisions with the support lines that say
        which is superseded) first, then the other candidates in their order."""
        if not out.lead:
            return list(candidates)
        have = {c.source_id: c for c in candidates}
        missing = [s for s in out.lead if s not in have]
        for rec in self.ledger.get_sources(missing) if missing else []:
            have[rec.source_id] = EvidenceItem(rec, 0.0, {})
        lead: list[EvidenceItem] = []
        for rank, sid in enumerate(out.lead, 1):
            item = have.get(sid)
            if item is None or not _record_in_view(item, as_of_valid, as_of_known):
                continue
            routes = dict(item.routes)
            routes["graph"] = rank
            if sid in out.superseded:
                routes["superseded"] = 1
            if sid == out.carried:
                routes["carried"] = 1
            lead.append(dataclasses.replace(item, routes=routes))
        if not lead:
            return list(candidates)
        shown = {i.source_id for i in lead}
        lines = tuple(line for line in out.lines(self.config.graph_path_lines)
                      if _line_sources(line) & shown)[:2]
        # The older revisions stay where the question ranked them, marked superseded.
        rest = [dataclasses.replace(c, routes={**c.routes, "superseded": 1})
                if c.source_id in out.superseded else c
                for c in candidates if c.source_id not in shown]
        return [EvidenceGroup(tuple(lead), lines), *rest]

    def add_lines(self, out: GraphOutcome, packed: Pack) -> None:
        packed.add_paths(out.lines(self.config.graph_path_lines))

    def finish(self, out: GraphOutcome, result: QueryResult) -> None:
        """The resolver's missing/conflict (or a thing nothing mentions) becomes the
        status; the support paths for the final answer go to ``result.paths``."""
        if out.status and result.status in ("answered", "abstained", "missing") \
                and not (out.unrecorded and result.status == "answered"
                         and _told_by_them(result, out.unrecorded, out.unrecorded_terms)) \
                and not (out.absent and result.status == "answered"
                         and _names_it(result, out.absent)):
            result.status = out.status
            result.answer = ""
            shown = {e.source_id for e in result.evidence}
            result.source_ids = [s for s in out.status_sources if s in shown]
            result.message = out.message
        # Support for what was answered (or for the verdict); nothing for no answer.
        cited = set(result.source_ids)
        result.paths = [line for line in out.trace(result.source_ids)
                        if _line_sources(line) & cited] if cited else []


# -- helpers ---------------------------------------------------------------------------


def _categories(facts: Sequence[Fact], qualifier: str) -> set[str]:
    """``qualifier`` and the categories the revisions name."""
    return {qualifier} | {f.relation.partition(":")[2] for f in facts if categorised(f)}


def _names_it(result: QueryResult, thing: Sequence[str]) -> bool:
    """Whether the answer read cites a record that says the head word of the thing the
    "nothing mentions it" verdict found unsaid (its last word): people name a thing once
    it is known without the words before it ("Dog food lives in the metal bin" for
    "Biscuit's food", "Kit's in the blue bag" for "my football kit"). Not the words
    before the head alone ("The caterers need dietary requirements by Friday" for "the
    caterers' deadline for payment"), nor the owner in the record nearest in meaning
    ("Amy's a bridesmaid" for "Amy's wedding"): measured, that answered never-stated
    questions. A shown record the answer does not cite does not count."""
    head = stem(thing[-1])
    return any(e.source_id in result.source_ids and head in stems(e.record.text)
               for e in result.evidence)


def _told_by_them(result: QueryResult, who: frozenset[str],
                  asked: frozenset[str] = frozenset()) -> bool:
    """Whether the answer read cites first a statement of the one asked about, among the
    records nearest the question in meaning ("I start at the vet's on Castle Street", Mo
    said, for "Where is Mo working now?"): their own words say what extraction missed, so
    the verdict that no fact of their relation was recorded does not withhold it. Not
    where they tell another's state, nor where a later shown record is theirs or names them
    and is as near the question in meaning, or speaks of what is asked (``_news_since``)."""
    near = [e for e in result.evidence if 0 < e.routes.get("dense", 0) <= _OWN_NEAR]
    first = next((e for e in near if result.source_ids
                  and e.source_id == result.source_ids[0]), None)
    if first is None or _norm_name(first.record.speaker) not in who \
            or any(opening_person(c) for c in clauses(first.record.text)
                   if len(c.split()) >= 3):
        return False  # their words of another's state ("My brother works at the harbour")
    # Nor where a later shown record is theirs or speaks of them: it may tell their news
    # since ("Mo's left the vet's"), and the verdict stands for the reader's choice.
    told = (first.record.source_time, first.record.seq)
    # What is asked, and what their statement says of it, the names of those asked aside.
    about = (asked | stems(first.record.text)) - {stem(w) for p in who for w in words(p)}
    return not any((e.record.source_time, e.record.seq) > told
                   and not is_robot(e.record.speaker, e.record.robot_id)
                   and (_norm_name(e.record.speaker) in who
                        or any(set(words(p)) <= set(words(e.record.text.lower())) for p in who))
                   and _news_since(e.record.text, about, result.answer,
                                   0 < e.routes.get("dense", 0) <= _OWN_NEAR)
                   for e in result.evidence)


def _news_since(text: str, about: frozenset[str], answer: str, near: bool) -> bool:
    """Whether a later record of the one asked about may tell their news of what is asked
    since their statement read: one that does not say the value read again ("I only do
    peppermint tea" after "peppermint tea for me" restates it) and is ``near`` the
    question in meaning, or says a word of the question or of that statement (``about``,
    stems; none kept: any may). "Vet's was short-lived" after "I start at the vet's" may;
    "Which means I can make evening rehearsals", far down the ranking, after "I'm on the
    children's ward from next month" tells nothing of the ward."""
    said = stems(text)
    value = stems(answer)
    if value and value <= said:
        return False
    return near or not about or bool(about & said)


def _norm_name(speaker: str) -> str:
    return norm(speaker)


def _states(sentence: str, rels: Sequence[str], by_them: bool, names: set[str]) -> bool:
    """Whether a sentence may state one of ``rels`` for the people asked about: it uses
    a word of the relation, its subject is them ("I …" said by them, their name, or
    "you …" said to them), and — a home or employer being a name ("in Boston", "at
    Acme") — it names one, or says where with a phrase ("at the city hospital")."""
    # Stems here (any inflection may state it: "relationships"); noun uses still excluded.
    said_stems = {stem(w) for w in cue_words(sentence)}
    said = [r for r in rels if CUE_STEMS[r] & said_stems]
    if not said:
        return False
    sw = set(words(sentence))
    if not ((by_them and _FIRST_SUBJECT & sw) or names & sw or _SECOND & sw):
        return False  # "My brother works at the harbour": someone else's
    if set(said) <= _NAMED_VALUES and not _has_name(sentence, names):
        cues = "|".join(sorted({w for r in said for w in CUE_WORDS[r]}))
        return bool(re.search(rf"\b(?:{cues})\b(?:\s+[\w'’]+){{0,4}}?\s+(?:at|in|for|with)\s+"
                              r"(?:the|a|an)\s+\w+", sentence, re.I))
    return True


def _has_name(text: str, skip: set[str]) -> bool:
    """Whether ``text`` has a capitalised word other than at a sentence start, "I" or
    one of ``skip`` (lower-case names)."""
    return any(m.group(0) != "I" and m.group(0).lower() not in skip
               for m in _CAPITALISED.finditer(text.strip()))


def _crossable(e: Edge, view: View) -> bool:
    """Never cross an edge invalidated in the view (at or before its valid time)."""
    return e.invalidated_at is None or (view.valid is not None and e.invalidated_at > view.valid)


def _time(f: Fact, e: Edge) -> float:
    return f.anchor_time if e.type == "before" else f.valid_from


def _in_order(e: Edge, facts: dict[str, Fact]) -> bool:
    """Whether the edge's endpoints are in the time order its type says."""
    a, b = facts.get(e.src), facts.get(e.dst)
    if a is None or b is None or e.type == "contradicts":
        return True
    if e.type == "updates":  # newer → older
        return _time(a, e) >= _time(b, e)
    return _time(a, e) <= _time(b, e)  # causes/enables/prevents/before: earlier → later


def _monotone(path: list[str], facts: dict[str, Fact]) -> bool:
    """A walk goes one way in time (ties allowed), not forth and back."""
    signs = set()
    for x, y in zip(path, path[1:], strict=False):
        d = facts[y].valid_from - facts[x].valid_from
        if d:
            signs.add(d > 0)
    return len(signs) <= 1


def _validity(f: Fact, view: View) -> float:
    """Validity in the view: a revision superseded only after the view still holds in it."""
    if f.status != "superseded":
        return f.validity
    later_valid = view.valid is not None and f.valid_to is not None and f.valid_to > view.valid
    later_known = view.known is not None and f.known_to is not None and f.known_to > view.known
    return 1.0 if later_valid or later_known else f.validity


def _overlap(f: Fact, q_stems: set[str]) -> float:
    if not q_stems:
        return 0.0
    return len(q_stems & stems(f"{f.description} {f.entity} {f.value}")) / len(q_stems)


def _sid(f: Fact) -> str:
    return f.source_ids[0] if f.source_ids else f.fact_id


def _label(f: Fact) -> str:
    if f.key:
        neg = "not " if f.polarity == 0 else ""
        return f"{f.entity} {f.relation.replace('_', ' ')} {neg}{f.value}".strip()
    text = f.description.strip()
    return text if len(text) <= 60 else text[:57].rstrip() + "…"


def _day(t: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(t))


def render(fs: tuple[Fact, ...], edges: tuple[Edge, ...], facts: dict[str, Fact],
           view: View) -> str:
    """One line per path: each edge as "[src] (what) type [dst] (what)" with the
    validity marker of what it points at."""
    parts = []
    for e in edges:
        a, b = facts[e.src], facts[e.dst]
        text = f"[{_sid(a)}] ({_label(a)}) {e.type} [{_sid(b)}] ({_label(b)})"
        if e.type == "updates" and _validity(b, view) == 0.0:
            when = b.valid_to if b.valid_to is not None else a.valid_from
            text += f" — superseded on {_day(when)}"
        elif e.type == "contradicts":
            text += " — unresolved conflict"
        elif e.type in ("causes", "enables") and b.validity < 1.0 and b.status != "superseded":
            text += " — weakened: its cause was superseded"
        parts.append(text)
    return "; ".join(parts)


_LINE_SOURCE = lazy_re(r"\[([^\]]+)\]")


def _line_sources(line: str) -> set[str]:
    return set(_LINE_SOURCE.findall(line))


def _record_in_view(item: EvidenceItem, as_of_valid: float | None,
                    as_of_known: float | None) -> bool:
    rec = item.record
    return (as_of_valid is None or rec.source_time <= as_of_valid) and \
        (as_of_known is None or rec.known_time <= as_of_known)
