"""Packing: original source records, verbatim with IDs, under a token budget.

The packer takes *groups*: an evidence unit and the support it needs (say, a
fact's source and the source of the update that superseded it). A group goes
in whole or not at all. Duplicates are dropped (a record already packed is not
paid for twice). Records after the view's as-of time (``source_time`` past
``as_of_valid`` or ``known_time`` past ``as_of_known``) are never shown. What
did not go in is recorded with the reason, so the audit row can say what the
reader did not see.

The rendered pack lists the source records first, then the support-path lines
("fact X superseded on 2023-05-08 by [id]") that the graph stage adds with
``Pack.add_paths`` into the budget the sources left (``path_reserve`` keeps
room for them).

The plan is read here: a count or list (``needs_complete_set``) is not cut at
``max_items`` (only the budget limits it) and the pack says whether the set
is complete; a duration (``needs_endpoints``) keeps room for the earliest and
the latest candidate, so both ends are shown.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from ..language.text import estimate_tokens
from ..ledger import SourceRecord

if TYPE_CHECKING:
    from .plan import Plan


@dataclass(frozen=True)
class EvidenceItem:
    record: SourceRecord
    score: float
    routes: dict[str, int]

    @property
    def source_id(self) -> str:
        return self.record.source_id

    def render(self) -> str:
        r = self.record
        return _render(r.source_id, r.source_time, r.speaker, r.modality, r.text)


@lru_cache(maxsize=32768)
def _render(source_id: str, source_time: float, speaker: str, modality: str, text: str) -> str:
    """``EvidenceItem.render``, kept per record: every question packs (and prices) the
    records it recalls again."""
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(source_time))
    who = speaker or ("perception" if modality == "perception" else "unknown")
    return f"[{source_id}] ({when}, {who}) {text}"


@dataclass(frozen=True)
class EvidenceGroup:
    """An atomic closure: ``items[0]`` is the unit, the rest the support it needs;
    ``paths`` are rendered support lines that belong to it."""

    items: tuple[EvidenceItem, ...]
    paths: tuple[str, ...] = ()

    @property
    def source_ids(self) -> list[str]:
        return [i.source_id for i in self.items]


def unit_id(item: EvidenceItem) -> str:
    """The evidence unit a record counts as: the source it is attached to, else itself."""
    return item.record.attached_to or item.source_id


def with_attachments(candidates: Sequence[EvidenceItem | EvidenceGroup],
                     units: dict[str, tuple[EvidenceItem, ...]]
                     ) -> list[EvidenceItem | EvidenceGroup]:
    """Each candidate with the records of its unit (``units``: source ID -> the unit's
    items, the source first): a record and what is attached to it go in together."""
    out: list[EvidenceItem | EvidenceGroup] = []
    for c in candidates:
        items = c.items if isinstance(c, EvidenceGroup) else (c,)
        if not any(i.source_id in units for i in items):
            out.append(c)
            continue
        expanded = {x.source_id: x for i in items for x in units.get(i.source_id, (i,))}
        out.append(EvidenceGroup(tuple(expanded.values()),
                                 c.paths if isinstance(c, EvidenceGroup) else ()))
    return out


@dataclass(frozen=True)
class Omission:
    source_id: str
    reason: str  # budget | max_items | after_as_of | duplicate


@dataclass
class Pack:
    items: list[EvidenceItem] = field(default_factory=list)
    tokens: int = 0
    left_out: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    omissions: list[Omission] = field(default_factory=list)
    budget: int = 0
    # False when a count/list plan had members left out (the set may be incomplete).
    complete: bool = True

    @property
    def source_ids(self) -> list[str]:
        return [i.source_id for i in self.items]

    def render(self) -> str:
        lines = [i.render() for i in self.items]
        if self.paths:
            lines.append("Support paths:")
            lines.extend(f"- {p}" for p in self.paths)
        return "\n".join(lines)

    def add_paths(self, lines: Iterable[str]) -> list[str]:
        """Add rendered support-path lines while the budget lasts; returns those left out."""
        dropped = []
        for line in lines:
            if line in self.paths:
                continue
            cost = estimate_tokens(line)
            if self.budget and self.tokens + cost > self.budget:
                dropped.append(line)
                continue
            self.paths.append(line)
            self.tokens += cost
        return dropped

    def _omit(self, source_id: str, reason: str) -> None:
        self.omissions.append(Omission(source_id, reason))
        if reason != "duplicate" and source_id not in self.left_out:
            self.left_out.append(source_id)


def _in_view(rec: SourceRecord, as_of_valid: float | None, as_of_known: float | None) -> bool:
    if as_of_valid is not None and rec.source_time > as_of_valid:
        return False
    return as_of_known is None or rec.known_time <= as_of_known


def _endpoints_first(groups: list[EvidenceGroup]) -> list[EvidenceGroup]:
    """The best group, then the earliest and the latest, then the rest in order."""
    if len(groups) < 3:
        return groups
    by_time = sorted(range(len(groups)), key=lambda i: groups[i].items[0].record.source_time)
    first = [0, by_time[0], by_time[-1]]
    order = list(dict.fromkeys(first + list(range(len(groups)))))
    return [groups[i] for i in order]


def pack(candidates: Sequence[EvidenceItem | EvidenceGroup], token_budget: int, max_items: int,
         *, as_of_valid: float | None = None, as_of_known: float | None = None,
         plan: Plan | None = None, path_reserve: int = 0, by_unit: bool = True) -> Pack:
    """Pack ``candidates`` (best first) into at most ``token_budget`` tokens.

    ``max_items`` counts evidence units: with ``by_unit`` a record attached to
    another (``unit_id``) counts as that one, so a turn and the image shared with
    it are one item. ``path_reserve`` tokens are kept for ``Pack.add_paths``; the
    group's own path lines count against the sources' budget, as they go in with
    the group.
    """
    out = Pack(budget=token_budget)
    groups = [c if isinstance(c, EvidenceGroup) else EvidenceGroup((c,)) for c in candidates]
    complete_set = plan is not None and plan.needs_complete_set
    if plan is not None and plan.needs_endpoints:
        groups = _endpoints_first(groups)
    source_budget = max(0, token_budget - path_reserve)
    packed: set[str] = set()
    units: set[str] = set()
    for group in groups:
        later = [i for i in group.items if not _in_view(i.record, as_of_valid, as_of_known)]
        for item in later:
            out._omit(item.source_id, "after_as_of")
        if later:
            if later[0].source_id == group.items[0].source_id:
                continue  # the unit itself is outside the view
            # Support outside the view is not shown, and neither are its path lines.
            late = {i.source_id for i in later}
            group = EvidenceGroup(tuple(i for i in group.items if i.source_id not in late))
        new = list({i.source_id: i for i in group.items if i.source_id not in packed}.values())
        if not new:
            for item in group.items:
                out._omit(item.source_id, "duplicate")
            continue
        reason, cost = "", 0
        new_units = {unit_id(i) if by_unit else i.source_id for i in new} - units
        if not complete_set and len(units) + len(new_units) > max_items:
            reason = "max_items"  # priced only when it may go in: most candidates do not
        else:
            cost = sum(estimate_tokens(i.render()) for i in new)
            cost += sum(estimate_tokens(p) for p in group.paths if p not in out.paths)
            if out.tokens + cost > source_budget:
                reason = "budget"
        if reason:
            for item in new:
                out._omit(item.source_id, reason)
            if complete_set:
                out.complete = False
            continue
        out.items.extend(new)
        packed.update(i.source_id for i in new)
        units |= new_units
        out.paths.extend(p for p in group.paths if p not in out.paths)
        out.tokens += cost
    return out
