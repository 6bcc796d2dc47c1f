"""Scores for the benchmarks: retrieval over LoCoMo turns, answer F1 / BLEU-1, percentiles.

Pure functions on plain values, each unit-tested on hand-made data.

Retrieval is scored on the ranked *distinct* turn IDs a method shows, first
``TOP_K`` of them: Hit@10 (any gold turn shown), P@10 (gold shown / 10),
MRR@10 (1 / rank of the first gold turn, 0 if none), Recall@5 macro (mean over
questions of gold-in-top-5 / gold) and micro (summed hits / summed gold).

Answers use LoCoMo's token F1 as its official evaluation script computes it:
drop commas, lower-case, drop punctuation, drop the words ``a``, ``an``,
``the`` and ``and``, split on whitespace, stem each token with nltk's default
``PorterStemmer()``, count overlapping tokens; no overlap scores 0. For
multi-hop questions (category 1) both answers are split on commas and each gold
part takes its best-matching predicted part (mean over gold parts); for
open-domain ones (category 3) the gold answer is the part before the first
``;``. BLEU-1 is clipped unigram precision times the brevity penalty, on the
same normalised (unstemmed) tokens.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from nltk.stem import PorterStemmer

TOP_K = 10
RECALL_K = 5
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
STATUSES = ("answered", "missing", "conflict", "abstained")
RETRIEVAL_KEYS = ("hit@10", "p@10", "mrr@10", "recall@5_macro", "recall@5_micro")


def distinct(ids: Iterable[str], limit: int | None = None) -> list[str]:
    """``ids`` without repeats, first occurrence kept, at most ``limit`` of them."""
    out: dict[str, None] = {}
    for i in ids:
        if limit is not None and len(out) >= limit:
            break
        out.setdefault(i, None)
    return list(out)


@dataclass(frozen=True)
class RetrievalScore:
    hit: float
    precision: float
    reciprocal_rank: float
    recall_hits: int
    gold: int

    @property
    def recall(self) -> float:
        return self.recall_hits / self.gold


def score_retrieval(ranked: Sequence[str], gold: Collection[str], k: int = TOP_K,
                    recall_k: int = RECALL_K) -> RetrievalScore:
    """Score one question's ranked turn IDs against its gold turns.

    Raises ``ValueError`` when ``gold`` is empty (such a question is not scorable).
    """
    gold_set = set(gold)
    if not gold_set:
        raise ValueError("a question without gold evidence cannot be scored")
    top = distinct(ranked, k)
    rank = next((i for i, t in enumerate(top, start=1) if t in gold_set), 0)
    return RetrievalScore(
        hit=1.0 if rank else 0.0,
        precision=sum(t in gold_set for t in top) / k,
        reciprocal_rank=1.0 / rank if rank else 0.0,
        recall_hits=sum(t in gold_set for t in top[:recall_k]),
        gold=len(gold_set),
    )


def aggregate_retrieval(scores: Sequence[RetrievalScore]) -> dict[str, float | None]:
    """Means over questions (macro), plus micro Recall@5; ``None`` when there are none."""
    n = len(scores)
    if not n:
        return dict.fromkeys(RETRIEVAL_KEYS)
    return {
        "hit@10": sum(s.hit for s in scores) / n,
        "p@10": sum(s.precision for s in scores) / n,
        "mrr@10": sum(s.reciprocal_rank for s in scores) / n,
        "recall@5_macro": sum(s.recall for s in scores) / n,
        "recall@5_micro": sum(s.recall_hits for s in scores) / sum(s.gold for s in scores),
    }


# LoCoMo drops these words (its "articles" include "and").
_DROPPED = re.compile(r"\b(a|an|the|and)\b")
_PUNCT = str.maketrans("", "", string.punctuation)
# The official script's stemmer: nltk's PorterStemmer() in its default mode.
_STEMMER = PorterStemmer()


def normalize_answer(text: object) -> str:
    """LoCoMo's normalisation: no commas, lower-case, no punctuation, no a/an/the/and,
    single spaces (ints become text)."""
    s = str(text).replace(",", "").lower().translate(_PUNCT)
    return " ".join(_DROPPED.sub(" ", s).split())


def answer_tokens(text: object, stem: bool = True) -> list[str]:
    toks = normalize_answer(text).split()
    return [_STEMMER.stem(t) for t in toks] if stem else toks


def token_f1(prediction: object, gold: object) -> float:
    """Harmonic mean of token precision and recall after normalising and stemming;
    0 when no token is shared (two empty answers included, as in LoCoMo's script)."""
    pred, ref = answer_tokens(prediction), answer_tokens(gold)
    common = sum((Counter(pred) & Counter(ref)).values())
    if not common:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def locomo_f1(prediction: object, gold: object, category: int) -> float:
    """LoCoMo's per-category answer F1 (see the module docstring)."""
    pred, ref = str(prediction), str(gold)
    if category == 3:
        ref = ref.split(";")[0].strip()
    if category != 1:
        return token_f1(pred, ref)
    # As the official script: every comma-separated part counts, empty ones included.
    parts = [p.strip() for p in ref.split(",")]
    guesses = [p.strip() for p in pred.split(",")]
    return sum(max(token_f1(g, p) for g in guesses) for p in parts) / len(parts)


def bleu1(prediction: object, gold: object) -> float:
    """Clipped unigram precision × brevity penalty, on normalised (unstemmed) tokens."""
    pred, ref = answer_tokens(prediction, stem=False), answer_tokens(gold, stem=False)
    if not pred or not ref:
        return 0.0
    clipped = sum((Counter(pred) & Counter(ref)).values())
    penalty = 1.0 if len(pred) > len(ref) else math.exp(1 - len(ref) / len(pred))
    return penalty * clipped / len(pred)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0-100), linear interpolation between closest ranks."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def latency_summary(values: Sequence[float]) -> dict[str, float | int | None]:
    return {"p50": percentile(values, 50), "p95": percentile(values, 95),
            "p99": percentile(values, 99),
            "mean": sum(values) / len(values) if values else None, "n": len(values)}


def status_counts(statuses: Iterable[str]) -> dict[str, int]:
    """Counts of every answer status (the four known ones always present)."""
    counts = dict.fromkeys(STATUSES, 0)
    for s in statuses:
        counts[s] = counts.get(s, 0) + 1
    return counts


@dataclass(frozen=True)
class QuestionScore:
    """One question's scores; ``retrieval`` is None when it has no valid gold turn."""

    category: int
    retrieval: RetrievalScore | None
    f1: float
    bleu1: float


def summarise(rows: Sequence[QuestionScore]) -> dict[str, float | int | None]:
    """Retrieval metrics over the scorable rows; F1 / BLEU-1 over all rows."""
    scored = [r.retrieval for r in rows if r.retrieval is not None]
    out: dict[str, float | int | None] = dict(aggregate_retrieval(scored))
    out["f1"] = sum(r.f1 for r in rows) / len(rows) if rows else None
    out["bleu1"] = sum(r.bleu1 for r in rows) / len(rows) if rows else None
    out["n"] = len(scored)
    out["n_answers"] = len(rows)
    return out


def summarise_by_category(rows: Sequence[QuestionScore]) -> dict[str, object]:
    """``{"overall": {...}, "by_category": {"1": {...}, ...}}``; every category is present."""
    by_cat = {}
    for cat, name in CATEGORY_NAMES.items():
        entry = summarise([r for r in rows if r.category == cat])
        entry["name"] = name
        by_cat[str(cat)] = entry
    return {"overall": summarise(rows), "by_category": by_cat}
