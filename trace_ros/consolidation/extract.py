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
    turn's speaker in a two-party conversation), so "you" can be resolved.
    ``session_time``: the session's start, the fallback anchor when a time
    expression cannot be resolved. ``people``: speakers seen in this scope.
    """

    addressee: str = ""
    session_time: float | None = None
    people: frozenset[str] = frozenset()


class Extractor(Protocol):
    name: str

    def extract(self, source: SourceRecord, context: ExtractContext) -> list[FactDraft]: ...
