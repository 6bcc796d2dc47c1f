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
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .facts import Fact


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
