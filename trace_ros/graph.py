"""The in-memory evidence graph of one subject (networkx), materialised from the ledger.

Never the authority: it is rebuilt from the ``facts``, ``edges``, ``sessions``
and ``topics`` tables, and refreshed incrementally — facts and edges written or
changed after the generation last seen are upserted; the hierarchy (sessions,
topics and their edges, a few rows per session) is reloaded; a deletion in the
graph tables (forget, rebuild, a re-projected source) changes the ledger's
``graph_epoch`` and forces a full reload.

Vertices: fact IDs (``kind='fact'``, attributes = the ``Fact`` fields),
``session:…`` (``kind='session'``), ``topic:…`` (``kind='topic'``),
``entity:…`` (``kind='entity'``). Edges are keyed by their ledger ``edge_id``
and carry ``type``, ``confidence``, ``justification``, ``invalidated_at``.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import networkx as nx

from .facts import Edge, Fact

if TYPE_CHECKING:
    from .ledger import Ledger

class EvidenceGraph:
    def __init__(self, ledger: Ledger, subject_id: str) -> None:
        self.ledger = ledger
        self.subject_id = subject_id
        self.g: nx.MultiDiGraph = nx.MultiDiGraph()
        self.generation = -1
        self._epoch: str | None = None

    def refresh(self) -> bool:
        """Bring the graph up to the ledger's current generation; True if it changed."""
        led = self.ledger
        with led.read():
            generation = led.generation()
            epoch = led.graph_epoch()
            if epoch == self._epoch and generation == self.generation:
                return False
            full = epoch != self._epoch
            since = -1 if full else self.generation
            facts = led.facts_since(self.subject_id, since)
            edges = led.edges_since(self.subject_id, since)
            sessions = led.sessions_of(self.subject_id)
            topics = led.topics_of(self.subject_id)
            hierarchy_edges = [] if full else led.hierarchy_edges(self.subject_id)
        if full:
            self.g = nx.MultiDiGraph()
        else:
            self._drop_hierarchy()
            seen = {e.edge_id for e in edges}
            edges = edges + [e for e in hierarchy_edges if e.edge_id not in seen]
        for f in facts:
            self._add_fact(f)
        for s in sessions:
            self.g.add_node(s.vertex, kind="session", session_id=s.session_id,
                            robot_id=s.robot_id, start_time=s.start_time, end_time=s.end_time,
                            n_sources=s.n_sources, topic_id=s.topic_id)
        for t in topics:
            self.g.add_node(t.vertex, kind="topic", topic_id=t.topic_id, label=t.label,
                            n_sessions=t.n_sessions)
        for e in edges:
            self._add_edge(e)
        self.generation = generation
        self._epoch = epoch
        return True

    def _drop_hierarchy(self) -> None:
        """Remove session/topic vertices' edges (the hierarchy is reloaded whole)."""
        doomed = [(u, v, k) for u, v, k in self.g.edges(keys=True)
                  if isinstance(u, str) and u.startswith("session:")]
        self.g.remove_edges_from(doomed)
        self.g.remove_nodes_from([n for n, d in list(self.g.nodes(data=True))
                                  if d.get("kind") == "topic"])

    def _add_fact(self, f: Fact) -> None:
        attrs = f.to_dict()
        attrs["kind"] = "fact"
        if self.g.has_node(f.fact_id):
            self.g.nodes[f.fact_id].update(attrs)
        else:
            self.g.add_node(f.fact_id, **attrs)

    def _add_edge(self, e: Edge) -> None:
        for vertex in (e.src, e.dst):
            if not self.g.has_node(vertex):
                kind = vertex.split(":", 1)[0] if ":" in vertex else "fact"
                self.g.add_node(vertex, kind=kind if kind in ("session", "topic", "entity")
                                else "fact")
        self.g.add_edge(e.src, e.dst, key=e.edge_id, type=e.type, confidence=e.confidence,
                        justification=e.justification, invalidated_at=e.invalidated_at,
                        created_at=e.created_at)

    # -- views -----------------------------------------------------------------------------

    def counts(self) -> dict[str, Any]:
        kinds = Counter(d.get("kind") for _, d in self.g.nodes(data=True))
        facts = [d for _, d in self.g.nodes(data=True) if d.get("kind") == "fact"]
        return {
            "vertices": dict(sorted(kinds.items())),
            "facts_by_type": dict(sorted(Counter(d["type"] for d in facts).items())),
            "facts_by_status": dict(sorted(Counter(d["status"] for d in facts).items())),
            "edges_by_type": dict(sorted(Counter(d["type"] for _, _, d in
                                                 self.g.edges(data=True)).items())),
        }

    def signature(self) -> tuple[Any, ...]:
        """Vertices and edges without ledger row IDs (compares two materialisations)."""
        nodes = sorted((n, tuple(sorted((k, str(v)) for k, v in d.items() if k != "generation")))
                       for n, d in self.g.nodes(data=True))
        edges = sorted((u, v, d["type"], d["invalidated_at"] is not None)
                       for u, v, d in self.g.edges(data=True))
        return tuple(nodes), tuple(edges)
