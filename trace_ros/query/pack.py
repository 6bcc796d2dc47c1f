"""Packing: original source records, verbatim with IDs, under a token budget.

A record goes in whole or not at all; duplicates are dropped; what did not fit
is recorded so the audit row can say what the reader did not see.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..ledger import SourceRecord
from .text import estimate_tokens


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
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(r.source_time))
        who = r.speaker or ("perception" if r.modality == "perception" else "unknown")
        return f"[{r.source_id}] ({when}, {who}) {r.text}"


@dataclass
class Pack:
    items: list[EvidenceItem] = field(default_factory=list)
    tokens: int = 0
    left_out: list[str] = field(default_factory=list)

    @property
    def source_ids(self) -> list[str]:
        return [i.source_id for i in self.items]

    def render(self) -> str:
        return "\n".join(i.render() for i in self.items)


def pack(candidates: list[EvidenceItem], token_budget: int, max_items: int) -> Pack:
    out = Pack()
    seen: set[str] = set()
    for item in candidates:
        if item.source_id in seen:
            continue
        seen.add(item.source_id)
        cost = estimate_tokens(item.render())
        if len(out.items) >= max_items or out.tokens + cost > token_budget:
            out.left_out.append(item.source_id)
            continue
        out.items.append(item)
        out.tokens += cost
    return out
