"""The facts and fact-to-fact edges of a subject in memory, for the graph stage.

A question's graph stage looks up the facts of its recalled sources, the keyed facts
of the entities it names, and the edges around them for a few hops: a dozen small SQL
reads per question against tables that change only when consolidation commits a
batch. ``FactCache`` keeps each subject's facts and edges as of one ledger generation
and answers those lookups in the same order the SQL reads give (facts by ID, edges
by edge ID, entity facts newest first). When the generation moves on it reads only
what changed (``facts_since``/``edges_since``, as ``graph.EvidenceGraph`` does); a
deletion in the graph tables changes ``graph_epoch`` and forces a full reload.

Lookups return only the subject's own facts; the SQL reads return any, which the
stage then drops as out of scope, so the stage sees the same facts either way.

A subject's first question pays for the load, so the load reads only what the lookups
can return: the fact-to-fact edges (not the far more numerous membership edges), and
each fact's row as read (``Ledger.fact_rows_since``), made into a ``Fact`` the first
time a lookup returns it (``LazyFacts``): a question touches tens of a subject's
thousands of facts.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..facts import FACT_COLUMNS, FACT_EDGE_TYPES, Edge, Fact, fact_from_row
from ..ledger import Ledger
from ..storage.bulkload import bulk_load

_HIERARCHY_PREFIXES = ("session:", "topic:", "entity:")
ENTITY_LIMIT = 500  # entities looked up per question, as ``Ledger.facts_of_entities``


def _entity_order(f: Fact) -> tuple[float, int, str]:
    """Newest first (``Ledger.facts_of_entities``' order)."""
    return (-f.valid_from, -f.source_seq, f.fact_id)


_COLUMN = {name.strip(): i for i, name in enumerate(FACT_COLUMNS.split(","))}
_ID, _ENTITY, _RELATION = _COLUMN["fact_id"], _COLUMN["entity"], _COLUMN["relation"]
# A fact as read: its row of ``FACT_COLUMNS`` and its provenance.
FactRow = tuple[tuple[Any, ...], tuple[str, ...]]


class LazyFacts(Mapping[str, Fact]):
    """Fact ID -> ``Fact``, holding the rows as read and making each into a ``Fact`` on
    first access (the same ``Fact`` that ``Ledger.facts_since`` would have returned)."""

    __slots__ = ("_rows", "_made")

    def __init__(self, rows: dict[str, FactRow] | None = None,
                 made: dict[str, Fact] | None = None) -> None:
        self._rows: dict[str, FactRow] = {} if rows is None else rows
        self._made: dict[str, Fact] = {} if made is None else made

    def __getitem__(self, fact_id: str) -> Fact:
        f = self._made.get(fact_id)
        if f is None:
            row, prov = self._rows[fact_id]
            # Two threads may both make it: equal values, either may stay.
            f = self._made[fact_id] = fact_from_row(row, prov)
        return f

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def copy(self) -> LazyFacts:
        return LazyFacts(dict(self._rows), dict(self._made))


@dataclass
class SubjectFacts:
    """One subject's facts and fact edges as of ``generation``."""

    generation: int = -2
    epoch: str | None = None
    facts: LazyFacts = field(default_factory=LazyFacts)
    edges: dict[int, Edge] = field(default_factory=dict)
    by_source: dict[str, list[str]] = field(default_factory=dict)
    by_entity: dict[str, list[str]] = field(default_factory=dict)
    adjacent: dict[str, set[int]] = field(default_factory=dict)
    _unsorted: set[str] = field(default_factory=set)

    def upsert(self, facts: Iterable[FactRow], edges: Iterable[Edge]) -> None:
        """Facts as read (``Ledger.fact_rows_since``) and edges, new or changed."""
        known, made = self.facts._rows, self.facts._made
        by_source, by_entity = self.by_source, self.by_entity
        for row, prov in facts:
            fact_id = row[_ID]
            if fact_id not in known:  # provenance and entity never change
                for s in prov:
                    by_source.setdefault(s, []).append(fact_id)
                if row[_RELATION]:
                    by_entity.setdefault(row[_ENTITY], []).append(fact_id)
                    self._unsorted.add(row[_ENTITY])
            else:
                made.pop(fact_id, None)  # changed: made again from the new row
            known[fact_id] = (row, prov)
        for e in edges:
            if e.type not in FACT_EDGE_TYPES or e.src.startswith(_HIERARCHY_PREFIXES):
                continue
            if e.edge_id not in self.edges:
                self.adjacent.setdefault(e.src, set()).add(e.edge_id)
                self.adjacent.setdefault(e.dst, set()).add(e.edge_id)
            self.edges[e.edge_id] = e

    def of_sources(self, source_ids: Sequence[str]) -> list[Fact]:
        """Facts whose provenance includes one of ``source_ids``, by fact ID."""
        ids = {fid for s in source_ids for fid in self.by_source.get(s, ())}
        return [self.facts[x] for x in sorted(ids)]

    def with_ids(self, fact_ids: Iterable[str]) -> list[Fact]:
        """The subject's facts among ``fact_ids``, by fact ID."""
        return [self.facts[x] for x in sorted(set(fact_ids)) if x in self.facts]

    def of_entities(self, entities: Sequence[str], limit: int) -> list[Fact]:
        """Keyed facts of each entity, newest first, at most ``limit`` per entity; by entity."""
        out: list[Fact] = []
        if limit <= 0:
            return out
        for ent in sorted(set(list(dict.fromkeys(entities))[:ENTITY_LIMIT])):
            ids = self.by_entity.get(ent)
            if not ids:
                continue
            if ent in self._unsorted:  # a new list: another thread may be reading this one
                ids = sorted(ids, key=lambda x: _entity_order(self.facts[x]))
                self.by_entity[ent] = ids
                self._unsorted.discard(ent)
            out += [self.facts[x] for x in ids[:limit]]
        return out

    def edges_among(self, fact_ids: Iterable[str], types: Sequence[str]) -> list[Edge]:
        """Edges of ``types`` touching any of ``fact_ids``, by edge ID."""
        wanted = set(types)
        ids = {i for x in fact_ids for i in self.adjacent.get(x, ())}
        return [e for e in (self.edges[i] for i in sorted(ids)) if e.type in wanted]


class FactCache:
    """Per-subject ``SubjectFacts``, brought up to the ledger's generation on each use;
    the ``max_subjects`` used last are kept."""

    def __init__(self, ledger: Ledger, max_subjects: int = 64) -> None:
        self.ledger = ledger
        self.max_subjects = max_subjects
        self._subjects: dict[str, SubjectFacts] = {}
        self._lock = threading.Lock()

    def subject(self, subject_id: str) -> SubjectFacts:
        led = self.ledger
        generation, epoch = led.graph_marks()
        with self._lock:
            cur = self._subjects.pop(subject_id, None)
            if cur is not None:
                self._subjects[subject_id] = cur  # most recently used last
        if cur is not None and cur.generation == generation and cur.epoch == epoch:
            return cur
        # The marks are read before the rows: a batch committed in between is read
        # again next time (upserts are idempotent); a deletion changes the epoch.
        if cur is None or cur.epoch != epoch or cur.generation > generation:
            new, since = SubjectFacts(), -1
        else:  # a copy, so a query holding the old one keeps a consistent view
            new, since = _copy(cur), cur.generation
        # Only the edge types kept (``upsert`` drops the rest): most of a subject's edges
        # are memberships (``in_session``, ``mentions``).
        with bulk_load():
            new.upsert(led.fact_rows_since(subject_id, since),
                       led.edges_since(subject_id, since, FACT_EDGE_TYPES))
        new.generation, new.epoch = generation, epoch
        with self._lock:
            self._subjects.pop(subject_id, None)
            self._subjects[subject_id] = new
            while len(self._subjects) > self.max_subjects:
                del self._subjects[next(iter(self._subjects))]
        return new


def _copy(old: SubjectFacts) -> SubjectFacts:
    return SubjectFacts(
        old.generation, old.epoch, old.facts.copy(), dict(old.edges),
        {k: list(v) for k, v in old.by_source.items()},
        {k: list(v) for k, v in old.by_entity.items()},
        {k: set(v) for k, v in old.adjacent.items()}, set(old._unsorted))
