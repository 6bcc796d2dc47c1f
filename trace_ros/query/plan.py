"""Operation and shape detection: which answer plan a question needs.

Rules are generic English question forms, not tuned to any benchmark.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

OPERATIONS = ("fact", "count", "list", "temporal_lookup", "temporal_arithmetic",
              "current_state", "history")
SHAPES = ("factual", "temporal", "preference", "multi_hop", "open")

_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("temporal_arithmetic", re.compile(
        r"\bhow long\b|\bhow many (days|weeks|months|years|hours|minutes)\b|\bsince when\b", re.I)),
    ("count", re.compile(r"\bhow many\b|\bhow often\b|\bnumber of\b|\bhow much\b", re.I)),
    ("temporal_lookup", re.compile(
        r"^\s*when\b|\bwhat (time|date|day|year|month)\b|\bwhich (day|year|month)\b", re.I)),
    ("current_state", re.compile(r"\b(currently|current|these days|at the moment|latest)\b", re.I)),
    ("history", re.compile(
        r"\b(used to|previously|originally|at first|before (that|then)|changed?|history)\b",
        re.I)),
    ("list", re.compile(r"\b(what|which) (are|were) (all|some)\b|\blist\b|\bwhat (kinds?|types?)\b",
                        re.I)),
]
# Asks about the state as it is now, whatever the operation ("When is X now?").
_CURRENT = re.compile(r"\b(now|currently|current|still|these days|at the moment|latest|anymore)\b"
                      r"|^\s*where (is|are)\b|\blast (seen|saw|see)\b", re.I)
_PREFERENCE = re.compile(r"\b(like|likes|prefer\w*|favou?rite|enjoy\w*|love\w*|hate\w*|want\w*)\b",
                         re.I)
_OPEN = re.compile(r"\b(would|might|likely|could|probably)\b", re.I)


@dataclass(frozen=True)
class Plan:
    operation: str
    shape: str
    needs_complete_set: bool
    needs_endpoints: bool
    current: bool = False

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def plan_question(question: str) -> Plan:
    operation = next((op for op, rx in _RULES if rx.search(question)), "fact")
    current = bool(_CURRENT.search(question))
    if operation == "fact" and current:
        operation = "current_state"
    if operation.startswith("temporal"):
        shape = "temporal"
    elif _PREFERENCE.search(question):
        shape = "preference"
    elif _OPEN.search(question):
        shape = "open"
    else:
        shape = "factual"
    return Plan(operation, shape,
                needs_complete_set=operation in ("count", "list"),
                needs_endpoints=operation == "temporal_arithmetic",
                current=current or operation == "current_state")
