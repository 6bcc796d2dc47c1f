"""LoCoMo questions as the benchmark scores them.

Only categories 1-4 are asked (5 is adversarial). Evidence IDs that name no
turn of the conversation (the public file has a few malformed ones, such as
``"D8:6; D9:17"``) are kept aside: they are listed in the report and ignored
when scoring, never repaired. A question left without a valid gold turn is
still asked and its answer scored, but it is excluded from retrieval metrics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..formats import locomo_sessions
from .metrics import CATEGORY_NAMES


@dataclass(frozen=True)
class Question:
    sample_id: str
    index: int  # position in the sample's ``qa`` list
    question: str
    answer: str
    category: int
    evidence: tuple[str, ...]  # valid gold turn IDs (``D1:3``)
    invalid: tuple[str, ...]  # evidence IDs that name no turn

    @property
    def scorable(self) -> bool:
        return bool(self.evidence)


def turn_ids(sample: dict[str, Any]) -> list[str]:
    """Every dialogue turn ID of a conversation, in session order."""
    return [str(t["dia_id"]) for _, _, turns in locomo_sessions(sample) for t in turns]


def sample_questions(sample: dict[str, Any], limit: int | None = None) -> list[Question]:
    """Category 1-4 questions of one conversation in file order, the first ``limit`` of them."""
    known = set(turn_ids(sample))
    out: list[Question] = []
    for index, qa in enumerate(sample.get("qa", [])):
        category = int(qa.get("category", 0))
        if category not in CATEGORY_NAMES:
            continue
        if limit is not None and len(out) >= limit:
            break
        evidence = [str(e) for e in qa.get("evidence", [])]
        valid = tuple(dict.fromkeys(e for e in evidence if e in known))
        invalid = tuple(e for e in evidence if e not in known)
        out.append(Question(str(sample["sample_id"]), index, str(qa["question"]),
                            str(qa.get("answer", "")), category, valid, invalid))
    return out


def load_questions(samples: list[dict[str, Any]], per_sample: int | None = None) -> list[Question]:
    return [q for s in samples for q in sample_questions(s, per_sample)]


def evidence_problems(questions: list[Question]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(invalid evidence IDs, questions excluded from retrieval scoring), for the report."""
    invalid = [{"sample_id": q.sample_id, "qa_index": q.index, "question": q.question,
                "evidence_id": e} for q in questions for e in q.invalid]
    excluded = [{"sample_id": q.sample_id, "qa_index": q.index, "question": q.question,
                 "category": q.category, "invalid_evidence": list(q.invalid)}
                for q in questions if not q.scorable]
    return invalid, excluded
