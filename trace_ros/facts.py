"""The shared vocabulary of the evidence graph: fact drafts, stored facts, edges.

Road 2 (consolidation) turns sources into ``FactDraft``s and stores them as
``Fact`` rows linked by ``Edge``s; road 3 (query) and the resolver in
``trace_ros.state`` read them back. Nothing here touches SQL or ROS.

A fact that sets an attribute has a *key* ``(entity, relation)`` and a
``value``; two facts with the same key and participants are revisions of one
state. Entities and values are normalised with ``norm`` (lowercase, articles
and possessive first-person words dropped), so the extractor, the resolver and
their callers compare the same strings.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .language.lazyre import lazy_re

FACT_TYPES = ("action", "state_change", "preference", "plan", "observation")
FACT_STATUSES = ("active", "superseded", "revoked", "unresolved")
# Edges between facts (the graph's meaning) and membership/hierarchy edges.
FACT_EDGE_TYPES = ("updates", "contradicts", "causes", "enables", "prevents", "before")
MEMBER_EDGE_TYPES = ("in_session", "in_topic", "mentions")
EDGE_TYPES = FACT_EDGE_TYPES + MEMBER_EDGE_TYPES

# Canonical relations of keyed facts. The extractor maps statements onto these;
# the resolver and benchmarks ask for them. A relation not listed here may be
# used (``owns:car``-style qualified forms included), but these are the ones
# every part agrees on.
RELATIONS: dict[str, str] = {
    "lives_in": "where a person lives (city, country, house)",
    "works_at": "where or for whom a person works",
    "occupation": "what a person does for a living, or studies",
    "located_at": "where a thing (or person) is: 'the mug is in the sink'",
    "scheduled_for": "when an appointment, event or plan happens",
    "prefers": "what a person likes or prefers, qualified by category: prefers:drink",
    "owns": "what a person has or owns, qualified by category: owns:pet",
    "status": "the state of a thing: broken, fixed, on, off, open, closed",
    "plans": "what a person intends to do",
    "relationship": "a person's relation to another: married, single, dating",
}

_ARTICLES = lazy_re(r"^(the|a|an|my|our|your|his|her|their|its)\s+", re.I)
_SPACE = lazy_re(r"\s+")


def norm(text: str) -> str:
    """Normalised entity/value text: lowercase, single spaces, no leading article
    or possessive, no surrounding punctuation."""
    out = _SPACE.sub(" ", text.strip().lower()).strip(" .,;:!?\"'")
    while True:
        stripped = _ARTICLES.sub("", out)
        if stripped == out:
            return out
        out = stripped


@dataclass(frozen=True)
class FactDraft:
    """What an extractor proposes for one source, before linking.

    ``anchor_time`` is when the stated thing holds or happens (epoch seconds),
    resolved against the message's own time; ``anchor_fallback`` is true when no
    time expression was found (or it could not be resolved) and the fallback was
    used: the session's start time where the extractor knows it, else the
    message's own time (DESIGN §3). ``cues`` are the change/causal/negation cue
    words found ("now", "instead", "no longer", "correction", "because" …), for
    the linker.
    """

    type: str
    description: str
    anchor_time: float
    participants: tuple[str, ...] = ()
    entity: str = ""
    relation: str = ""
    value: str = ""
    polarity: int = 1  # 1 asserts the value, 0 denies it ("no longer lives in Boston")
    anchor_text: str = ""
    anchor_fallback: bool = True
    cues: tuple[str, ...] = ()
    confidence: float = 1.0

    @property
    def key(self) -> tuple[str, str] | None:
        return (self.entity, self.relation) if self.entity and self.relation else None


@dataclass(frozen=True)
class Fact:
    """A stored fact (one row of ``facts``) with its provenance."""

    fact_id: str
    subject_id: str
    robot_id: str
    session_id: str
    type: str
    participants: tuple[str, ...]
    entity: str
    relation: str
    value: str
    polarity: int
    description: str
    anchor_time: float
    anchor_text: str
    anchor_fallback: bool
    valid_from: float
    valid_to: float | None
    known_from: float
    known_to: float | None
    status: str
    validity: float
    source_seq: int
    generation: int
    extractor: str
    source_ids: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str] | None:
        return (self.entity, self.relation) if self.entity and self.relation else None

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


FACT_COLUMNS = (
    "fact_id, subject_id, robot_id, session_id, type, participants, entity, relation, value, "
    "polarity, description, anchor_time, anchor_text, anchor_fallback, valid_from, valid_to, "
    "known_from, known_to, status, validity, source_seq, generation, extractor"
)


def fact_from_row(row: tuple[Any, ...], source_ids: tuple[str, ...] = ()) -> Fact:
    """A ``Fact`` from a row selected with ``FACT_COLUMNS``."""
    values = list(row)
    values[5] = tuple(json.loads(values[5] or "[]"))
    values[13] = bool(values[13])
    return Fact(*values, source_ids=source_ids)


# How the justification of an ``updates`` edge made by consolidation's fitted judgement
# begins (``consolidation/judge.py``): the query weighs the record it points to as any
# later record, where it follows a rule's edge (``query/current.py``).
JUDGED_UPDATE = "judged update"


@dataclass(frozen=True)
class Edge:
    edge_id: int
    subject_id: str
    type: str
    src: str
    dst: str
    confidence: float
    justification: str
    created_at: float
    invalidated_at: float | None = None
    generation: int = 0


EDGE_COLUMNS = ("edge_id, subject_id, type, src, dst, confidence, justification, created_at, "
                "invalidated_at, generation")


@dataclass
class EdgeDraft:
    """An edge the linker proposes: ``src`` → ``dst`` (for ``updates``: newer → older)."""

    type: str
    src: str
    dst: str
    confidence: float
    justification: str
    extra: dict[str, Any] = field(default_factory=dict)
