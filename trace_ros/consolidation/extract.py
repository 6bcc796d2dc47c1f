"""Fact extraction: one source record → state-bearing fact drafts.

The extractor is an interface (``Extractor``) so a model-based one can replace
the default rule-based CPU extractor. Extractors never see other subjects'
records; ``ExtractContext`` carries what a single record cannot tell (who the
addressee is, the session's time).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..facts import FactDraft
from ..ledger import SourceRecord


@dataclass(frozen=True)
class ExtractContext:
    """What the extractor may know beyond the record itself.

    ``addressee``: the other party of a dialogue turn where known (the previous
    turn's speaker in a two-party conversation; for the robot's own turns the person
    it talks to), so "you" can be resolved.
    ``session_time``: the session's start, the fallback anchor when a time
    expression cannot be resolved. ``people``: speakers seen in this scope.
    ``recent``: (entity, relation) keys of thing facts (``scheduled_for``,
    ``located_at``, ``status``) from the preceding turns of the same session,
    oldest first, so "Actually, it's Thursday" or "No, Friday." can be keyed on
    what the conversation was about; empty when unknown (then such a turn stays
    unkeyed). ``recent_times``: for each of ``recent``, the resolved time of that
    key's latest value (None when it fell back), so "No, Friday." after "Wednesday
    the 8th" means the Friday of that week.
    """

    addressee: str = ""
    session_time: float | None = None
    people: frozenset[str] = frozenset()
    recent: tuple[tuple[str, str], ...] = ()
    recent_times: tuple[float | None, ...] = ()




class Extractor(Protocol):
    name: str

    def extract(self, source: SourceRecord, context: ExtractContext) -> list[FactDraft]: ...
