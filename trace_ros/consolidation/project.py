"""The graph projector: claimed jobs → facts, edges, validity and hierarchy.

``GraphProjector`` implements the worker's ``Projector`` protocol: it runs inside
the batch's write transaction and returns one outcome per job — ``add`` (new
facts that revise nothing), ``revise`` (a new fact updates or contradicts
another) or ``noop`` (no fact). Sources are projected one at a time in sequence
order, each seeing what the ones before it produced, so the result does not
depend on how sources were cut into batches: consolidating session by session
gives the same facts and edges as one full rebuild.

Per source: remove what it derived before (a retried or requeued job is
idempotent), build the extractor's context (addressee = the other party of the
previous dialogue turn of the session, or for the robot's own turns the person it
speaks to; the session's start time; the people seen in the subject so far; the
keys of thing facts of the session's last few turns, for bare corrections like
"No, Friday."), extract, store facts (deterministic IDs from the source ID and
the draft's index), add membership edges (fact → session ``in_session``,
fact → entity ``mentions``), link (``link.Linker``), then apply validity
(``state.recompute_validity``). The hierarchy (``hierarchy.Hierarchy``) closes a
robot's sessions as the source order crosses them (one timeline per robot) and gives
open sessions provisional topics at batch end.

Time fields: ``valid_from`` is the draft's resolved anchor when it lies at or
before the message time (what was said holds from then: "we moved last week"),
else the message's own time. A future anchor ("the pickup is next Tuesday") is
the *value* of a plan or appointment, which holds from the moment it is made —
using it as ``valid_from`` would hide a reschedule until the appointment itself.
An anchor that fell back to the session time (no time expression) says nothing
about when within the session: the message time orders revisions ("mug on the
table" at 10:00, "mug in the sink" at 10:30 of one patrol). ``anchor_time`` keeps
what the extractor resolved. ``known_from`` is the source's ``known_time`` (when
the robot stored it). A change dated only vaguely ("we moved last week") that
would fall before the last telling of the old state keeps the message time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Sequence
from typing import Any

from ..config import ConsolidationConfig, MemoryConfig
from ..facts import FACT_STATUSES, FACT_TYPES, Fact, FactDraft, norm
from ..graphstore import entity_vertex, session_vertex
from ..language.monthday import WEEKDAY_WORD
from ..language.vocab import is_robot
from ..ledger import Job, Ledger, SourceRecord
from ..state import recompute_validity
from ..storage import Tx, graph_of
from .extract import ExtractContext, Extractor
from .hierarchy import Hierarchy
from .link import Linker, LinkResult
from .proposed import EdgeProposer, apply_proposals
from .supersede import Supersession

VALUE_ENTITY_RELATIONS = ("lives_in", "works_at", "located_at")


def fact_id_for(source_id: str, index: int) -> str:
    """Deterministic fact ID: the same source and draft index give the same ID. The
    index is its tail, so the facts of one message sort in the order they were said
    (the resolver's last tie-break: "I don't live in Oslo anymore; I found a place in
    Dublin" ends on Dublin)."""
    return "f:" + hashlib.sha1(source_id.encode()).hexdigest()[:16] + f"{index:04d}"


class GraphProjector:
    """Projector that builds the evidence graph (see the module docstring)."""

    def __init__(self, ledger: Ledger, extractor: Extractor,
                 config: ConsolidationConfig | None = None) -> None:
        self.ledger = ledger
        self.extractor = extractor
        self.config = config or ConsolidationConfig()

    def project(self, conn: Tx, jobs: list[Job]) -> list[str]:
        generation = self.ledger.graph.generation_now(conn) + 1
        hierarchy = Hierarchy(conn, self.config, generation)
        linker = Linker(conn, self.config, hierarchy)
        linker.same_thing = Supersession(conn, self.config.same_thing_cosine)
        contexts = _ContextCache(conn)
        outcomes: dict[int, str] = {}
        for job in sorted(jobs, key=lambda j: j.source.seq):
            outcomes[job.job_id] = self._one(conn, job.source, generation, hierarchy, linker,
                                             contexts)
        hierarchy.finish()
        return [outcomes[j.job_id] for j in jobs]

    def _one(self, conn: Tx, source: SourceRecord, generation: int,
             hierarchy: Hierarchy, linker: Linker, contexts: _ContextCache) -> str:
        graph = self.ledger.graph
        old = graph.facts_of_sources(conn, [source.source_id])
        affected: set[str] = graph.delete_facts(conn, old) if old else set()
        hierarchy.enter(source)
        context, prev_seq = contexts.get(source)
        drafts = [d for d in self.extractor.extract(source, context) if _usable(d)]
        if not drafts:
            linker.same_thing.note(source)
            recompute_validity(conn, affected, generation)
            return "noop"
        facts = [_after_told(conn, self._fact(source, i, d, generation), source.source_time)
                 for i, d in enumerate(drafts)]
        graph.insert_facts(conn, facts)
        graph.insert_edges(conn, source.subject_id, _membership(source, facts), generation)
        result = linker.link(source, facts, drafts, prev_seq)
        if not any(e[0] == "updates" for e in result.edges):
            linker.same_thing.link(source, facts, result)
        else:
            linker.same_thing.note(source)
        graph.insert_edges(conn, source.subject_id, result.edges, generation)
        self._proposed_edges(conn, source, generation, result)
        recompute_validity(conn, affected | result.affected, generation)
        return "revise" if result.revised else "add"

    def _proposed_edges(self, conn: Tx, source: SourceRecord, generation: int,
                        result: LinkResult) -> None:
        """Edges the extractor proposed (the LLM's) that this source completes, checked
        like the rules' (``proposed.py``); the facts they touch join ``result``."""
        if isinstance(self.extractor, EdgeProposer):
            apply_proposals(conn, source, self.extractor, self.config.llm_edge_confidence,
                            generation, result)

    def _fact(self, source: SourceRecord, index: int, d: FactDraft, generation: int) -> Fact:
        anchor = float(d.anchor_time)
        if d.anchor_fallback or anchor > source.source_time:
            valid_from = source.source_time
        else:
            valid_from = anchor
        participants = tuple(dict.fromkeys(p.strip() for p in d.participants if p.strip()))
        return Fact(
            fact_id=fact_id_for(source.source_id, index), subject_id=source.subject_id,
            robot_id=source.robot_id, session_id=source.session_id, type=d.type,
            participants=participants, entity=norm(d.entity) if d.relation else "",
            relation=d.relation.strip().lower() if d.entity else "",
            value=norm(d.value), polarity=1 if d.polarity else 0,
            description=d.description.strip(), anchor_time=anchor, anchor_text=d.anchor_text,
            anchor_fallback=bool(d.anchor_fallback), valid_from=valid_from, valid_to=None,
            known_from=source.known_time, known_to=None, status=FACT_STATUSES[0],
            validity=1.0, source_seq=source.seq, generation=generation,
            extractor=getattr(self.extractor, "name", type(self.extractor).__name__),
            source_ids=(source.source_id,))


# How far a vague past anchor may lie from the truth: "last week" is any day of it.
_VAGUE = ((re.compile(r"\b(?:yesterday|last\s+night)\b", re.I), 86400.0),
          (re.compile(rf"\b{WEEKDAY_WORD}\b", re.I), 7 * 86400.0),
          (re.compile(r"\b(?:days?\s+ago|the\s+other\s+day|weekend)\b", re.I), 4 * 86400.0),
          (re.compile(r"\bweeks?\b", re.I), 8 * 86400.0),
          (re.compile(r"\bmonths?\b", re.I), 31 * 86400.0))


def _after_told(conn: Tx, f: Fact, said_at: float) -> Fact:
    """A change dated vaguely ("we moved last week", "started on Monday") that would
    fall before the robot was last told the earlier state still held ("our house in
    Dublin …" on Wednesday) contradicts that telling within the anchor's vagueness:
    the only safe order is the telling's, so ``valid_from`` is the message time."""
    if not f.key or f.anchor_fallback or f.valid_from != f.anchor_time or f.polarity != 1 \
            or f.type != "state_change":
        return f
    slack = next((w for rx, w in _VAGUE if rx.search(f.anchor_text)), 0.0)
    if not slack:
        return f
    told = [c.valid_from for c in graph_of(conn).facts_by_key(conn, f.subject_id, f.entity,
                                                              f.relation)
            if c.source_seq < f.source_seq and c.polarity == 1 and c.value != f.value
            and f.valid_from < c.valid_from <= f.known_from
            and c.valid_from - f.valid_from <= slack]
    if not told:
        return f
    return dataclasses.replace(f, valid_from=max(said_at, max(told) + 1.0))


def build_projection(ledger: Ledger, config: MemoryConfig) -> tuple[GraphProjector, Any]:
    """The projector and batch gate a node, a command or a benchmark hands the
    ``Consolidator``: the CPU extractor behind the extractor selector (which adds
    the LLM extractor when ``consolidation.extractor`` asks for it). Call the
    gate's ``close()`` when done."""
    from .cpu import CpuExtractor
    from .llm_extract import make_selector

    selector = make_selector(config, CpuExtractor())
    return GraphProjector(ledger, selector, config.consolidation), selector


def _usable(d: FactDraft) -> bool:
    return d.type in FACT_TYPES and bool(d.description.strip() or d.key)


def _membership(source: SourceRecord, facts: Sequence[Fact]
                ) -> list[tuple[str, str, str, float, str, float]]:
    rows: list[tuple[str, str, str, float, str, float]] = []
    subject = source.subject_id
    for f in facts:
        at = f.known_from
        if source.session_id:
            rows.append(("in_session", f.fact_id,
                         session_vertex(subject, source.robot_id, source.session_id), 1.0,
                         "provenance: the source's session", at))
        names = {norm(p) for p in f.participants}
        if f.entity:
            names.add(f.entity)
        if f.value and f.relation in VALUE_ENTITY_RELATIONS:
            names.add(f.value)
        for name in sorted(n for n in names if n):
            rows.append(("mentions", f.fact_id, entity_vertex(subject, name), 1.0,
                         "mentions: participant, key entity or place value", at))
    return rows


_THING_RELATIONS = ("scheduled_for", "located_at", "status")
_RECENT_TURNS = 6  # how far back a bare correction ("No, Friday.") may reach


class _ContextCache:
    """Extractor context per source, from one query per session and subject per batch.

    Everything comes from sources (and their facts) earlier in sequence order, so
    a source gets the same context whether it is projected in a full rebuild or
    incrementally."""

    def __init__(self, conn: Tx) -> None:
        self.conn = conn
        self.graph = graph_of(conn)
        self._turns: dict[tuple[str, str, str], list[tuple[int, str, str, str]]] = {}
        self._turn_max: dict[tuple[str, str, str], int] = {}
        self._speakers: dict[str, dict[str, int]] = {}
        self._starts: dict[tuple[str, str, str], float | None] = {}
        self._keys: dict[int, list[tuple[str, str, float | None]]] = {}

    def get(self, s: SourceRecord) -> tuple[ExtractContext, int | None]:
        key = (s.subject_id, s.robot_id, s.session_id)
        if self._turn_max.get(key, -1) < s.seq:
            self._turns[key] = self._prior_sources(key, s.seq + 4096)
            self._turn_max[key] = s.seq + 4096
        turns = self._turns[key]
        prior = [t for t in turns if t[0] < s.seq]
        prev_seq = prior[-1][0] if prior else None
        if is_robot(s.speaker, s.robot_id):
            addressee = ""  # set below, once the people seen are known
        else:
            addressee = next((spk for _q, spk, modality, _t in reversed(prior)
                              if modality == "dialogue" and spk and spk != s.speaker), "")
        if s.subject_id not in self._speakers:
            self._speakers[s.subject_id] = self.graph.speakers_first_seen(self.conn, s.subject_id)
        seen = frozenset(p for p, q in self._speakers[s.subject_id].items() if q <= s.seq)
        if is_robot(s.speaker, s.robot_id):
            addressee = _robot_addressee(s, prior, seen)
        if key not in self._starts:
            start = self.graph.session_field(self.conn, key, "start_time")
            self._starts[key] = None if start is None else float(start)
        recent: dict[tuple[str, str], float | None] = {}
        for q, *_ in prior[-_RECENT_TURNS:] if s.session_id else ():
            for ent, rel, when in self._thing_keys(q):
                recent.pop((ent, rel), None)  # re-insert: the latest mention last
                recent[(ent, rel)] = when
        return ExtractContext(addressee=addressee, session_time=self._starts[key],
                              people=seen, recent=tuple(recent),
                              recent_times=tuple(recent.values())), prev_seq

    def _thing_keys(self, seq: int) -> list[tuple[str, str, float | None]]:
        """Keys of the thing facts a source produced (already projected: earlier seq)."""
        if seq not in self._keys:
            self._keys[seq] = [(f.entity, f.relation,
                                None if f.anchor_fallback else f.anchor_time)
                               for f in self.graph.facts_of_seq(self.conn, seq)
                               if f.entity and f.relation in _THING_RELATIONS]
        return self._keys[seq]

    def _prior_sources(self, key: tuple[str, str, str], max_seq: int
                       ) -> list[tuple[int, str, str, str]]:
        return self.graph.session_turns(self.conn, key, max_seq)


def _robot_addressee(s: SourceRecord, prior: list[tuple[int, str, str, str]],
                     people: frozenset[str]) -> str:
    """Whom the robot's own turn speaks to: a person it names ("Good morning, Maya");
    else the author of the recent turn it responds to (of the last four human turns,
    the one sharing most content words with it, the latest on ties); else the person
    it last named in this session; else the one person who has spoken; else the one
    who has spoken most (earliest first on ties)."""
    humans = [(spk, text) for _q, spk, modality, text in prior
              if modality == "dialogue" and spk and not is_robot(spk, s.robot_id)]
    known = [p for p in people if p and not is_robot(p, s.robot_id)]
    named = _named(s.text or "", known)
    if named:
        return named
    mine = _content(s.text or "")
    best, best_n = "", 0
    for spk, text in humans[-4:]:
        n = len(mine & _content(text))
        if n >= best_n and n:
            best, best_n = spk, n
    if best:
        return best
    for _q, spk, modality, text in reversed(prior):
        if modality == "dialogue" and is_robot(spk, s.robot_id):
            named = _named(text, known)
            if named:
                return named
    counts: dict[str, int] = {}
    for spk, _ in humans:
        counts[spk] = counts.get(spk, 0) + 1
    return max(counts, key=lambda n: counts[n]) if counts else ""


# A vocative: "Good morning, Owen!", "Welcome back, Owen.", "Sure, Maya, …".
_VOCATIVE = re.compile(r"(?:^|[.!?]\s+)(?:good\s+(?:morning|afternoon|evening|night)|hi|hello|hey|"
                       r"welcome(?:\s+back|\s+home)?|thanks|thank\s+you|sorry|okay|ok|sure|"
                       r"of\s+course|yes|no|bye|goodbye|see\s+you),?\s+(?-i:([A-Z][a-z]+))\b"
                       r"(?=\s*[,.!?]|$)", re.I)


def _named(text: str, names: list[str]) -> str:
    """The person a text addresses: a known name in it, else a vocative."""
    hits = [(m.start(), n) for n in names for m in re.finditer(rf"\b{re.escape(n)}\b", text)]
    if hits:
        return min(hits)[1]
    m = _VOCATIVE.search(text)
    return m.group(1) if m else ""


_WORD = re.compile(r"[A-Za-z][a-z'-]{3,}")
_FILLER = frozenset({"that", "this", "with", "have", "your", "yours", "just", "will", "what",
                     "okay", "noted", "understood", "thanks", "there", "here", "about", "from",
                     "keep", "mind", "saved", "sure", "good", "great", "know", "like", "they",
                     "them", "then", "than", "when", "were", "been", "also", "into", "some"})


def _content(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)} - _FILLER
