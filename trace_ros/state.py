"""The resolver: what holds now, or held at any time, and what the robot knew when.

Written by road 2 (facts and edges), read by road 3 and the benchmarks. The
resolver decides currentness from ``updates``/``contradicts`` edges and the
bitemporal fields of facts — never from similarity or recency alone.

API (stable; other modules and helpers code against it):

    resolve(ledger, scope, entity, relation, *, as_of_valid=None, as_of_known=None,
            participants=None) -> Resolution

``Resolution.status`` is ``answer`` (one supported active revision), ``missing``
(no fact with that key in scope and time view) or ``conflict`` (incompatible
unresolved revisions); ``facts`` are the revisions that support the status
(for ``conflict`` every side), ``superseded`` the older revisions of that key
in the same view (newest first), ``source_ids`` the provenance of ``facts``.
Entity matching is by ``trace_ros.facts.norm``; a relation ``prefers`` also
matches qualified forms (``prefers:drink``).

Time views: a fact is visible when ``known_from <= as_of_known`` (the robot had
been told) and ``valid_from <= as_of_valid`` (it had started to hold). A
revision counts as superseded in a view only if a superseding fact is visible
in that same view, so "as of June" sees Boston even though Seattle (July)
superseded it later. The stored ``status``/``valid_to`` are the view at "now".

Also here: ``update_chains`` (for the CLI and the query), and, re-exported from
``trace_ros.storage.validity``, ``recompute_validity`` (the DESIGN §3 validity
rules, applied inside the projector's and forget's transactions).

Multi-valued relations (``prefers``, ``owns``, ``plans`` and their qualified
forms) accumulate values: their ``answer`` lists every live value in ``facts``
(newest first) and ``value`` is the newest one; a value caught in an open
contradiction is withheld (named in ``reason``), and the status is ``conflict``
only when no clear value remains.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .facts import Edge, Fact, norm
from .storage.validity import recompute_validity

if TYPE_CHECKING:
    from .storage.records import Scope
    from .storage.sqlite.ledger import Ledger

__all__ = ["Chain", "Resolution", "is_multi_valued", "order_key", "recompute_validity",
           "resolve", "update_chains"]

MULTI_VALUED = ("prefers", "owns", "plans")


def is_multi_valued(relation: str) -> bool:
    return relation.split(":", 1)[0] in MULTI_VALUED


def order_key(f: Fact) -> tuple[float, int, str]:
    """Revision order: valid time, then the order the robot was told, then index."""
    return (f.valid_from, f.source_seq, f.fact_id)


@dataclass
class Resolution:
    status: str  # answer | missing | conflict
    entity: str
    relation: str
    value: str = ""
    facts: list[Fact] = field(default_factory=list)
    superseded: list[Fact] = field(default_factory=list)
    source_ids: list[str] = field(default_factory=list)
    reason: str = ""


def _sources(facts: Iterable[Fact]) -> list[str]:
    return list(dict.fromkeys(s for f in facts for s in f.source_ids))


def resolve(ledger: Ledger, scope: Scope, entity: str, relation: str, *,
            as_of_valid: float | None = None, as_of_known: float | None = None,
            participants: Sequence[str] | None = None) -> Resolution:
    """Three-valued state of ``(entity, relation)`` in ``scope`` for one time view."""
    scope.check()
    ent = norm(entity)
    rel = relation.strip().lower()
    query_rel = rel if ":" in rel else rel + ":"
    facts = ledger.facts_for_key(scope.subject_id, ent, query_rel)
    facts = [f for f in facts
             if (not scope.robot_id or f.robot_id == scope.robot_id)
             and (not scope.session_id or f.session_id == scope.session_id)
             and (as_of_known is None or f.known_from <= as_of_known)
             and (as_of_valid is None or f.valid_from <= as_of_valid)]
    if participants:
        wanted = {norm(p) for p in participants}
        facts = [f for f in facts if not f.participants
                 or wanted & {norm(p) for p in f.participants}]
    out = Resolution("missing", ent, rel)
    if not facts:
        out.reason = "no fact with this key in scope and time view"
        return out
    by_id = {f.fact_id: f for f in facts}
    edges = [e for e in ledger.edges_among(list(by_id), ("updates", "contradicts"))
             if e.src in by_id and e.dst in by_id]
    superseded = {e.dst for e in edges if e.type == "updates"}
    contra: dict[str, set[str]] = {}
    for e in edges:
        if e.type == "contradicts":
            contra.setdefault(e.src, set()).add(e.dst)
            contra.setdefault(e.dst, set()).add(e.src)
    live = sorted((f for f in facts if f.fact_id not in superseded), key=order_key, reverse=True)
    out.superseded = sorted((by_id[i] for i in superseded), key=order_key, reverse=True)
    if not live:
        out.reason = "every revision is superseded"
        return out
    newest = live[0]
    live_ids = {f.fact_id for f in live}
    if is_multi_valued(rel):
        # Values accumulate; a value caught in an open contradiction is withheld, and
        # the key is a conflict only when nothing clear remains.
        conflict = [f for f in live if contra.get(f.fact_id, set()) & live_ids]
        disputed = {f.value for f in conflict}
        values: dict[str, Fact] = {}
        for f in live:
            if f.polarity == 1 and f.value not in values and f.value not in disputed:
                values[f.value] = f
        if conflict and not values:
            return _conflict(out, conflict)
        if conflict:
            out.reason = "unresolved: " + ", ".join(sorted(disputed))
        if not values:
            out.facts = [newest]
            out.source_ids = _sources(out.facts)
            out.reason = f"the latest revisions deny {newest.value!r}"
            return out
        out.status, out.facts = "answer", list(values.values())
        out.value = out.facts[0].value
        out.source_ids = _sources(out.facts)
        return out
    # Single-valued: the newest live revision, unless it is in an unresolved conflict.
    group, todo = {newest.fact_id}, [newest.fact_id]
    while todo:
        for other in contra.get(todo.pop(), set()) & live_ids:
            if other not in group:
                group.add(other)
                todo.append(other)
    if len(group) > 1:
        return _conflict(out, [f for f in live if f.fact_id in group])
    if newest.polarity == 0:
        out.facts = [newest]
        out.source_ids = _sources(out.facts)
        out.reason = f"the latest revision denies {newest.value!r}"
        return out
    support = [f for f in live if f.polarity == 1 and f.value == newest.value]
    out.status, out.value, out.facts = "answer", newest.value, support
    out.source_ids = _sources(support)
    return out


def _conflict(out: Resolution, sides: list[Fact]) -> Resolution:
    out.status = "conflict"
    out.facts = sides
    out.source_ids = _sources(sides)
    out.reason = "unresolved contradiction: " + " vs ".join(
        f"{'not ' if f.polarity == 0 else ''}{f.value!r}" for f in sides)
    return out


# -- update chains ----------------------------------------------------------------------


@dataclass
class Chain:
    """The revisions of one key (oldest first) and the edges between them."""

    entity: str
    relation: str
    revisions: list[Fact]
    edges: list[Edge]

    def to_dict(self) -> dict[str, Any]:
        return {"entity": self.entity, "relation": self.relation,
                "revisions": [{"fact_id": f.fact_id, "value": f.value, "polarity": f.polarity,
                               "valid_from": f.valid_from, "valid_to": f.valid_to,
                               "status": f.status, "validity": f.validity,
                               "source_ids": list(f.source_ids)} for f in self.revisions],
                "edges": [{"type": e.type, "src": e.src, "dst": e.dst,
                           "confidence": e.confidence, "justification": e.justification}
                          for e in self.edges]}


def update_chains(ledger: Ledger, subject_id: str, *, entity: str | None = None,
                  only_changed: bool = True) -> list[Chain]:
    """Every key of a subject with its revisions; with ``only_changed`` only keys
    that an ``updates`` or ``contradicts`` edge touches."""
    facts = ledger.keyed_facts(subject_id)
    if entity is not None:
        facts = [f for f in facts if f.entity == norm(entity)]
    groups: dict[tuple[str, str], list[Fact]] = {}
    for f in facts:
        groups.setdefault((f.entity, f.relation), []).append(f)
    edges = ledger.edges_among([f.fact_id for f in facts], ("updates", "contradicts"))
    by_fact: dict[str, list[Edge]] = {}
    for e in edges:
        by_fact.setdefault(e.src, []).append(e)
    chains = []
    for (ent, rel), revs in sorted(groups.items()):
        revs.sort(key=order_key)
        chain_edges = [e for f in revs for e in by_fact.get(f.fact_id, [])]
        if only_changed and not chain_edges:
            continue
        chains.append(Chain(ent, rel, revs, chain_edges))
    return chains
