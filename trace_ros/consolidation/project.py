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
previous dialogue turn of the session; the session's start time; the people seen
in the subject so far), extract, store facts (deterministic IDs from the source
ID and the draft's index), add membership edges (fact → session ``in_session``,
fact → entity ``mentions``), link (``link.Linker``), then apply validity
(``state.recompute_validity``). The hierarchy (``hierarchy.Hierarchy``) closes
sessions as the source order crosses them and refreshes topics at batch end.

Time fields: ``valid_from`` is the draft's resolved anchor when it lies at or
before the message time (what was said holds from then: "we moved last week"),
else the message's own time. A future anchor ("the pickup is next Tuesday") is
the *value* of a plan or appointment, which holds from the moment it is made —
using it as ``valid_from`` would hide a reschedule until the appointment itself.
An anchor that fell back to the session time (no time expression) says nothing
about when within the session: the message time orders revisions ("mug on the
table" at 10:00, "mug in the sink" at 10:30 of one patrol). ``anchor_time`` keeps
what the extractor resolved. ``known_from`` is the source's ``known_time`` (when
the robot stored it).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from typing import Any

from ..config import ConsolidationConfig, MemoryConfig
from ..facts import FACT_STATUSES, FACT_TYPES, Fact, FactDraft, norm
from ..graphstore import GraphStore, entity_vertex, session_vertex
from ..ledger import Job, Ledger, SourceRecord
from ..state import recompute_validity
from .extract import ExtractContext, Extractor
from .hierarchy import Hierarchy
from .link import Linker

VALUE_ENTITY_RELATIONS = ("lives_in", "works_at", "located_at")


def fact_id_for(source_id: str, index: int) -> str:
    """Deterministic fact ID: the same source and draft index give the same ID."""
    return "f:" + hashlib.sha1(f"{source_id}\x00{index}".encode()).hexdigest()[:20]


class GraphProjector:
    """Projector that builds the evidence graph (see the module docstring)."""

    def __init__(self, ledger: Ledger, extractor: Extractor,
                 config: ConsolidationConfig | None = None) -> None:
        self.ledger = ledger
        self.extractor = extractor
        self.config = config or ConsolidationConfig()

    def project(self, conn: sqlite3.Connection, jobs: list[Job]) -> list[str]:
        generation = GraphStore.generation_now(conn) + 1
        hierarchy = Hierarchy(conn, self.config, generation)
        linker = Linker(conn, self.config, hierarchy)
        contexts = _ContextCache(conn)
        outcomes: dict[int, str] = {}
        for job in sorted(jobs, key=lambda j: j.source.seq):
            outcomes[job.job_id] = self._one(conn, job.source, generation, hierarchy, linker,
                                             contexts)
        hierarchy.finish()
        return [outcomes[j.job_id] for j in jobs]

    def _one(self, conn: sqlite3.Connection, source: SourceRecord, generation: int,
             hierarchy: Hierarchy, linker: Linker, contexts: _ContextCache) -> str:
        old = GraphStore.facts_of_sources(conn, [source.source_id])
        affected: set[str] = GraphStore.delete_facts(conn, old) if old else set()
        hierarchy.enter(source)
        context, prev_seq = contexts.get(source)
        drafts = [d for d in self.extractor.extract(source, context) if _usable(d)]
        if not drafts:
            recompute_validity(conn, affected, generation)
            return "noop"
        facts = [self._fact(source, i, d, generation) for i, d in enumerate(drafts)]
        GraphStore.insert_facts(conn, facts)
        GraphStore.insert_edges(conn, source.subject_id, _membership(source, facts),
                                generation)
        result = linker.link(source, facts, drafts, prev_seq)
        GraphStore.insert_edges(conn, source.subject_id, result.edges, generation)
        recompute_validity(conn, affected | result.affected, generation)
        return "revise" if result.revised else "add"

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


class _ContextCache:
    """Extractor context per source, from one query per session and subject per batch."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._turns: dict[tuple[str, str, str], list[tuple[int, str]]] = {}
        self._turn_max: dict[tuple[str, str, str], int] = {}
        self._speakers: dict[str, dict[str, int]] = {}
        self._starts: dict[tuple[str, str, str], float | None] = {}

    def get(self, s: SourceRecord) -> tuple[ExtractContext, int | None]:
        key = (s.subject_id, s.robot_id, s.session_id)
        if self._turn_max.get(key, -1) < s.seq:
            self._turns[key] = self._prior_sources(key, s.seq + 4096)
            self._turn_max[key] = s.seq + 4096
        turns = self._turns[key]
        addressee = ""
        prev_seq = None
        dialogue = [(q, spk, m) for q, spk, m in turns if q < s.seq]
        if dialogue:
            prev_seq = dialogue[-1][0]
        for _q, spk, modality in reversed(dialogue):
            if modality == "dialogue" and spk and spk != s.speaker:
                addressee = spk
                break
        if s.subject_id not in self._speakers:
            self._speakers[s.subject_id] = GraphStore.speakers_first_seen(self.conn, s.subject_id)
        seen = frozenset(p for p, q in self._speakers[s.subject_id].items() if q <= s.seq)
        if key not in self._starts:
            row = self.conn.execute(
                "SELECT start_time FROM sessions WHERE subject_id = ? AND robot_id = ? "
                "AND session_id = ?", key).fetchone()
            self._starts[key] = None if row is None else float(row[0])
        return ExtractContext(addressee=addressee, session_time=self._starts[key],
                              people=seen), prev_seq

    def _prior_sources(self, key: tuple[str, str, str], max_seq: int
                       ) -> list[tuple[int, str, str]]:
        return [(int(r[0]), r[1], r[2]) for r in self.conn.execute(
            "SELECT seq, speaker, modality FROM sources WHERE subject_id = ? AND robot_id = ? "
            "AND session_id = ? AND seq <= ? ORDER BY seq", (*key, max_seq))]
