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

Also here: ``recompute_validity`` (the DESIGN §3 validity rules, applied by the
projector and by forget) and ``update_chains`` (for the CLI and the query).

Multi-valued relations (``prefers``, ``owns``, ``plans`` and their qualified
forms) accumulate values: their ``answer`` lists every live value in ``facts``
(newest first) and ``value`` is the newest one; a value caught in an open
contradiction is withheld (named in ``reason``), and the status is ``conflict``
only when no clear value remains.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .facts import Edge, Fact, norm
from .graphstore import GraphStore

if TYPE_CHECKING:
    from .ledger import Ledger, Scope

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


# -- validity (DESIGN §3) ------------------------------------------------------------------


def recompute_validity(conn: sqlite3.Connection, fact_ids: Iterable[str],
                       generation: int) -> None:
    """Derive the stored state of facts from their edges (inside a transaction).

    A fact with an incoming ``updates`` edge is superseded: ``valid_to`` = the
    earliest superseder's ``valid_from``, ``known_to`` = its ``known_from``,
    validity 0, and its outgoing ``causes``/``prevents`` edges are invalidated
    at ``valid_to``. A fact that depends (``causes``/``enables`` into it) on a
    superseded fact gets validity 0.5. A fact in a ``contradicts`` edge with a
    live fact is ``unresolved`` (validity unchanged). Otherwise ``active``, 1.0.
    Contradiction neighbours and causal dependents are recomputed too.
    """
    ids = set(fact_ids)
    if not ids:
        return
    first = GraphStore.fact_edges(conn, list(ids), ("contradicts",))
    ids |= {e.src for e in first} | {e.dst for e in first}
    facts = {f.fact_id: f for f in GraphStore.facts_by_ids(conn, list(ids))}
    contra = GraphStore.fact_edges(conn, list(facts), ("contradicts",)) if first else []
    ups = GraphStore.fact_edges(conn, list(facts), ("updates",), "in")
    sup_facts = {f.fact_id: f for f in GraphStore.facts_by_ids(conn, [e.src for e in ups])}
    supers: dict[str, list[Fact]] = {}
    for e in ups:
        if e.src in sup_facts:
            supers.setdefault(e.dst, []).append(sup_facts[e.src])
    state: dict[str, list[Any]] = {}
    for fid in facts:
        newer = supers.get(fid)
        if newer:
            state[fid] = [fid, min(n.valid_from for n in newer), min(n.known_from for n in newer),
                          "superseded", 0.0]
        else:
            state[fid] = [fid, None, None, "active", 1.0]
    others = {f.fact_id: f for f in GraphStore.facts_by_ids(
        conn, [x for e in contra for x in (e.src, e.dst) if x not in facts])}
    for e in contra:
        for a, b in ((e.src, e.dst), (e.dst, e.src)):
            if a not in state or state[a][3] == "superseded":
                continue
            b_live = (state[b][3] != "superseded") if b in state else (
                b in others and others[b].status != "superseded")
            if b_live:
                state[a][3] = "unresolved"
    for fid, st in state.items():
        GraphStore.set_edges_invalidated(conn, fid, ("causes", "prevents"),
                                         st[1] if st[3] == "superseded" else None, generation)
    GraphStore.set_fact_state(conn, [tuple(s) for s in state.values()], generation)
    # Causal dependents of these facts (and these facts as dependents).
    deps = {e.dst for e in GraphStore.fact_edges(conn, list(facts), ("causes", "enables"), "out")}
    _dependent_validity(conn, deps | set(facts), generation)


def _dependent_validity(conn: sqlite3.Connection, fact_ids: set[str], generation: int) -> None:
    facts = [f for f in GraphStore.facts_by_ids(conn, list(fact_ids)) if f.status != "superseded"]
    if not facts:
        return
    causes = GraphStore.fact_edges(conn, [f.fact_id for f in facts], ("causes", "enables"), "in")
    cause_facts = {f.fact_id: f for f in GraphStore.facts_by_ids(conn, [e.src for e in causes])}
    weak = {e.dst for e in causes if e.src in cause_facts
            and cause_facts[e.src].status == "superseded"}
    GraphStore.set_fact_state(conn, [(f.fact_id, f.valid_to, f.known_to, f.status,
                                      0.5 if f.fact_id in weak else 1.0) for f in facts],
                              generation)


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
