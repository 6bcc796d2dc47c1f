"""The validity rules of DESIGN §3, applied to stored facts inside a write transaction.

Used by the projector (after linking) and by ``forget`` (for the neighbours of deleted
facts); ``trace_ros.state`` re-exports ``recompute_validity``. The rules read and write
only through the engine's transaction statements (``graph_of(conn)``, the contract's
``GraphStatements``), so one implementation serves every engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..facts import Fact
from .contract import Tx
from .statements import graph_of


def recompute_validity(conn: Tx, fact_ids: Iterable[str],
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
    graph = graph_of(conn)
    first = graph.fact_edges(conn, list(ids), ("contradicts",))
    ids |= {e.src for e in first} | {e.dst for e in first}
    facts = {f.fact_id: f for f in graph.facts_by_ids(conn, list(ids))}
    contra = graph.fact_edges(conn, list(facts), ("contradicts",)) if first else []
    ups = graph.fact_edges(conn, list(facts), ("updates",), "in")
    sup_facts = {f.fact_id: f for f in graph.facts_by_ids(conn, [e.src for e in ups])}
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
    others = {f.fact_id: f for f in graph.facts_by_ids(
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
        graph.set_edges_invalidated(conn, fid, ("causes", "prevents"),
                                         st[1] if st[3] == "superseded" else None, generation)
    graph.set_fact_state(conn, [tuple(s) for s in state.values()], generation)
    # Causal dependents of these facts (and these facts as dependents).
    deps = {e.dst for e in graph.fact_edges(conn, list(facts), ("causes", "enables"), "out")}
    _dependent_validity(conn, deps | set(facts), generation)


def _dependent_validity(conn: Tx, fact_ids: set[str], generation: int) -> None:
    graph = graph_of(conn)
    facts = [f for f in graph.facts_by_ids(conn, list(fact_ids)) if f.status != "superseded"]
    if not facts:
        return
    causes = graph.fact_edges(conn, [f.fact_id for f in facts], ("causes", "enables"), "in")
    cause_facts = {f.fact_id: f for f in graph.facts_by_ids(conn, [e.src for e in causes])}
    weak = {e.dst for e in causes if e.src in cause_facts
            and cause_facts[e.src].status == "superseded"}
    graph.set_fact_state(conn, [(f.fact_id, f.valid_to, f.known_to, f.status,
                                      0.5 if f.fact_id in weak else 1.0) for f in facts],
                              generation)
