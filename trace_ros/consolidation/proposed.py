"""Edges proposed outside the rules (the LLM extractor's), checked like the rules' own.

An extractor that reads several records at once may propose typed edges between
their facts. The projector cannot take them on trust: it applies each proposal
when the later of its two sources is projected (both ends are stored by then, in
source order) and keeps it only if it obeys what the linker's rules obey
(``link.py``, DESIGN §3):

- both ends are stored facts of the subject being projected (the fact ID the
  proposer derived from source and draft index, with the draft's description:
  the fact is the one the proposer numbered), never across subjects;
- ``updates`` and ``contradicts`` never join two facts of one source (parts of
  one statement); ``updates`` runs newer → older in the ledger's revision order
  (``state.order_key``); ``contradicts`` is stored newer → older, as the rules do;
- ``before`` runs earlier → later in that order; a cause (``causes``, ``enables``,
  ``prevents``) is not valid later than its effect;
- a pair the graph already relates with an edge of the same family (revision,
  causal, ``before``; either direction) gets no second one: the rules' edge stands.

A kept edge carries the configured confidence and a justification naming its origin
("llm-extractor: <why>"); the facts it touches join the source's ``LinkResult``,
so validity is recomputed for them exactly as for rule edges. A proposal that fails
a check is dropped with its reason and reported back to the proposer (which counts
it and notes it on the job); it never fails the batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..facts import FACT_EDGE_TYPES, Fact
from ..ledger import SourceRecord
from ..state import order_key
from ..storage import Tx, graph_of
from .link import LinkResult

REVISION = ("updates", "contradicts")
CAUSAL = ("causes", "enables", "prevents")


@dataclass(frozen=True)
class ProposedEnd:
    """One end of a proposal: the fact the proposer means, and where it comes from."""

    subject_id: str
    seq: int  # the source's sequence number
    fact_id: str  # as the projector derives it (``project.fact_id_for``)
    description: str  # the draft's, to confirm the stored fact is that draft


@dataclass(frozen=True)
class ProposedEdge:
    type: str
    src: ProposedEnd
    dst: ProposedEnd
    why: str = ""
    origin: str = "llm-extractor"

    @property
    def due_seq(self) -> int:
        """The source whose projection completes both ends."""
        return max(self.src.seq, self.dst.seq)

    def label(self) -> str:
        return f"{self.type} {self.src.fact_id} -> {self.dst.fact_id}"


@runtime_checkable
class EdgeProposer(Protocol):
    """What the projector asks of an extractor that proposes edges."""

    def proposals_for(self, seq: int) -> list[ProposedEdge]:
        """The proposals due when source ``seq`` is projected (handed out once)."""
        ...

    def settle(self, seq: int, added: int, dropped: list[str]) -> None:
        """How the proposals due at ``seq`` ended: edges added, reasons for the drops."""
        ...


def apply_proposals(conn: Tx, source: SourceRecord, proposer: EdgeProposer,
                    confidence: float, generation: int, result: LinkResult) -> None:
    """Check and store the proposals due at ``source`` (inside the batch transaction);
    what they touch is added to ``result`` (``affected``, ``revised``)."""
    proposals = proposer.proposals_for(source.seq)
    if not proposals:
        return
    added, dropped = 0, []
    for p in proposals:
        why_not, edge = _check(conn, source, p)
        if edge is None:
            dropped.append(f"{p.type}: {why_not}")
            continue
        etype, src, dst = edge
        row = (etype, src.fact_id, dst.fact_id, round(float(confidence), 3),
               f"{p.origin}: {p.why or 'proposed by the model'}",
               max(src.known_from, dst.known_from))
        if not graph_of(conn).insert_edges(conn, source.subject_id, [row], generation):
            dropped.append(f"{p.type}: already in the graph")
            continue
        added += 1
        if etype in REVISION:
            result.revised = True
            result.affected.update((src.fact_id, dst.fact_id))
        elif etype in CAUSAL:
            result.affected.add(dst.fact_id)
    proposer.settle(source.seq, added, dropped)


def _check(conn: Tx, source: SourceRecord, p: ProposedEdge
           ) -> tuple[str, tuple[str, Fact, Fact] | None]:
    """("", (type, src, dst)) for a valid proposal, else (why it is not, None)."""
    if p.type not in FACT_EDGE_TYPES:
        return f"not a fact edge type ({p.type!r})", None
    if {p.src.subject_id, p.dst.subject_id} != {source.subject_id}:
        return "its facts belong to different subjects", None
    if p.src.fact_id == p.dst.fact_id:
        return "both ends are one fact", None
    if p.type in REVISION and p.src.seq == p.dst.seq:
        return "both facts come from one source", None
    stored = {f.fact_id: f for f in graph_of(conn).facts_by_ids(conn, [p.src.fact_id,
                                                                     p.dst.fact_id])}
    ends: list[Fact] = []
    for end in (p.src, p.dst):
        f = stored.get(end.fact_id)
        if f is None or f.subject_id != end.subject_id or f.source_seq != end.seq \
                or f.description != end.description.strip():
            return f"no stored fact {end.fact_id} for the proposed end", None
        ends.append(f)
    src, dst = ends
    etype = p.type
    if etype == "updates" and not order_key(src) > order_key(dst):
        return "the updated fact is not older in revision order", None
    if etype == "contradicts" and order_key(src) < order_key(dst):
        src, dst = dst, src  # stored newer -> older, as the rules store it
    if etype == "before" and not order_key(src) < order_key(dst):
        return "the earlier fact is not earlier in revision order", None
    if etype in CAUSAL and src.valid_from > dst.valid_from:
        return "the cause is valid only after its effect", None
    family = REVISION if etype in REVISION else CAUSAL if etype in CAUSAL else (etype,)
    for e in graph_of(conn).fact_edges(conn, [src.fact_id], family):
        if {e.src, e.dst} == {src.fact_id, dst.fact_id}:
            return f"the graph already has {e.type} between them", None
    return "", (etype, src, dst)
