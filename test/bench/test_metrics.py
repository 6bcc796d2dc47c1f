"""Every benchmark metric on a hand-made mini dataset whose results are worked out by hand."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from trace_ros.bench.dataset import evidence_problems, load_questions, sample_questions
from trace_ros.bench.evaluate import Shown, shown_source_ids, turns_of
from trace_ros.bench.metrics import (
    QuestionScore,
    aggregate_retrieval,
    answer_tokens,
    bleu1,
    distinct,
    latency_summary,
    locomo_f1,
    normalize_answer,
    percentile,
    score_retrieval,
    status_counts,
    summarise,
    summarise_by_category,
    token_f1,
)

# A two-session conversation; qa covers every category, a category-5 question,
# a malformed evidence ID next to a valid one, and one with only malformed IDs.
MINI = {
    "sample_id": "mini",
    "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bo",
        "session_1_date_time": "1:00 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat named Miso."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely!", "blip_caption": "a cat"},
            {"speaker": "Ann", "dia_id": "D1:3", "text": "I paint and I swim."},
        ],
        "session_2_date_time": "2:00 pm on 9 June, 2023",
        "session_2": [
            {"speaker": "Bo", "dia_id": "D2:1", "text": "I moved to Oslo."},
            {"speaker": "Ann", "dia_id": "D2:2", "text": "I went camping."},
        ],
    },
    "qa": [
        {"question": "What is the cat called?", "answer": "Miso", "evidence": ["D1:1"], "category": 4},
        {"question": "What does Ann do?", "answer": "painting, swimming, camping",
         "evidence": ["D1:3", "D2:2"], "category": 1},
        {"question": "When did Bo move?", "answer": 2023, "evidence": ["D2:1", "D9:99"],
         "category": 2},
        {"question": "Would Ann like a dog?", "answer": "Likely yes; she likes pets",
         "evidence": ["D1:1; D1:3"], "category": 3},
        {"question": "What did Bo adopt?", "adversarial_answer": "a cat", "evidence": ["D1:1"],
         "category": 5},
    ],
}


def test_answer_tokens_use_nltk_porter_in_its_default_mode() -> None:
    # nltk's default mode differs from the 1980 algorithm on these ("dying" → "die", not "dy").
    assert answer_tokens("Dying, lying and generously studied!") == ["die", "lie", "gener", "studi"]
    assert answer_tokens("painting swimming", stem=False) == ["painting", "swimming"]


def test_questions_exclude_category_5_and_list_malformed_evidence() -> None:
    qs = sample_questions(MINI)
    assert [q.category for q in qs] == [4, 1, 2, 3]
    assert qs[2].answer == "2023"  # ints become text
    assert qs[2].evidence == ("D2:1",) and qs[2].invalid == ("D9:99",)
    assert qs[3].evidence == () and not qs[3].scorable
    invalid, excluded = evidence_problems(qs)
    assert [e["evidence_id"] for e in invalid] == ["D9:99", "D1:1; D1:3"]
    assert [e["qa_index"] for e in excluded] == [3]
    assert [q.index for q in load_questions([MINI], per_sample=2)] == [0, 1]


def test_distinct_keeps_first_occurrences_up_to_a_limit() -> None:
    assert distinct(["a", "b", "a", "c", "b", "d"]) == ["a", "b", "c", "d"]
    assert distinct(["a", "a", "b", "c"], 2) == ["a", "b"]


def test_shown_records_map_to_turns_and_windows_count_each_record() -> None:
    @dataclass
    class Rec:
        source_id: str

    @dataclass
    class Item:
        source_id: str

    @dataclass
    class Window:
        records: list[Rec]

    evidence = [Item("mini:D1:2#image"), Window([Rec("mini:D1:2"), Rec("mini:D1:3")]),
                Item("mini:D2:1"), Item("mini:D1:3")]
    shown = shown_source_ids(evidence)
    assert shown == ["mini:D1:2#image", "mini:D1:2", "mini:D1:3", "mini:D2:1"]
    assert turns_of(shown) == ["D1:2", "D1:3", "D2:1"]
    assert len(shown_source_ids([Item(f"s:D1:{i}") for i in range(15)])) == 10
    # The system is scored on its first ten distinct turns, as the baselines are: a turn
    # shown with its image caption takes one of the ten, not two.
    paired = [Item(f"s:D1:{i}{tag}") for i in range(10) for tag in ("", "#image")]
    assert turns_of(shown_source_ids(paired, None)) == [f"D1:{i}" for i in range(10)]


def test_retrieval_scores_for_one_question() -> None:
    ranked = ["D1:1", "D1:2", "D1:1", "D2:5", "D3:3", "D3:1"]
    s = score_retrieval(ranked, {"D2:5", "D3:1"})
    # distinct top: D1:1, D1:2, D2:5, D3:3, D3:1 -> first gold at rank 3; both in top 5.
    assert (s.hit, s.reciprocal_rank, s.precision) == (1.0, pytest.approx(1 / 3), 0.2)
    assert (s.recall_hits, s.gold, s.recall) == (2, 2, 1.0)

    miss = score_retrieval(["D1:1"] * 3, {"D9:9"})
    assert (miss.hit, miss.reciprocal_rank, miss.precision, miss.recall) == (0.0, 0.0, 0.0, 0.0)

    # Gold at distinct rank 6: a hit for Hit@10/MRR@10, not for Recall@5.
    late = score_retrieval([f"D1:{i}" for i in range(1, 12)], {"D1:6", "D1:11"})
    assert (late.hit, late.reciprocal_rank, late.recall_hits, late.precision) == (1.0, 1 / 6, 0, 0.1)

    with pytest.raises(ValueError):
        score_retrieval(["D1:1"], set())


def test_recall_at_5_macro_and_micro_differ_as_expected() -> None:
    a = score_retrieval(["D1:1"], {"D1:1"})  # 1 of 1
    b = score_retrieval(["D1:1", "D1:2"], {"D1:2", "D1:3", "D1:4"})  # 1 of 3
    agg = aggregate_retrieval([a, b])
    assert agg["recall@5_macro"] == pytest.approx((1.0 + 1 / 3) / 2)
    assert agg["recall@5_micro"] == pytest.approx(2 / 4)
    assert agg["hit@10"] == 1.0
    assert agg["mrr@10"] == pytest.approx((1.0 + 0.5) / 2)
    assert agg["p@10"] == pytest.approx((0.1 + 0.1) / 2)
    assert aggregate_retrieval([])["hit@10"] is None


def test_answer_normalisation_and_token_f1() -> None:
    assert normalize_answer("The  Cat, named 'Miso'!") == "cat named miso"
    assert normalize_answer(2023) == "2023"
    # LoCoMo drops "and" with the articles, and commas before anything else.
    assert normalize_answer("Bach and Mozart") == "bach mozart"
    assert normalize_answer("7 May, 2023") == "7 may 2023"
    assert token_f1("Bach, Mozart", "Bach and Mozart") == 1.0
    assert token_f1("", "") == 0.0  # no shared token scores 0, as in LoCoMo's script
    assert token_f1("Miso", "miso.") == 1.0
    # pred: went, camp, at, lake (4); gold: camp (1); overlap 1 -> P 1/4, R 1 -> F1 0.4
    assert token_f1("went camping at a lake", "camping") == pytest.approx(0.4)
    assert token_f1("painted", "painting") == 1.0  # stems match
    assert token_f1("", "cat") == 0.0
    assert token_f1("dog", "cat") == 0.0


def test_locomo_f1_splits_multi_hop_answers_and_cuts_open_domain_at_semicolon() -> None:
    gold = "painting, swimming, camping"
    # gold parts: painting -> best "painting" (1.0); swimming -> 0; camping -> best "went camping" (2/3)
    assert locomo_f1("painting, went camping", gold, 1) == pytest.approx((1 + 0 + 2 / 3) / 3)
    # without the split the same prediction scores differently
    assert locomo_f1("painting, went camping", gold, 4) == pytest.approx(token_f1(
        "painting, went camping", gold))
    assert locomo_f1("likely yes", "Likely yes; she likes pets", 3) == 1.0
    assert locomo_f1("2023", 2023, 2) == 1.0
    # Every comma-separated gold part counts, an empty one included (it can match nothing).
    assert locomo_f1("cat", "cat,", 1) == pytest.approx(0.5)


def test_bleu1_is_clipped_precision_with_brevity_penalty() -> None:
    # reference "cat sat" (article dropped); "cat" clipped to 1 of 3; longer than ref: no penalty
    assert bleu1("cat cat cat", "the cat sat") == pytest.approx(1 / 3)
    assert bleu1("a cat sat on the mat", "cat sat") == pytest.approx(2 / 4)
    assert bleu1("cat", "cat sat") == pytest.approx(math.exp(1 - 2))
    assert bleu1("", "cat") == 0.0


def test_percentiles_interpolate_linearly() -> None:
    values = [float(v) for v in range(10, 0, -1)]  # 1..10, unsorted
    assert percentile(values, 50) == pytest.approx(5.5)
    assert percentile(values, 95) == pytest.approx(9.55)
    assert percentile(values, 99) == pytest.approx(9.91)
    assert percentile([4.0], 99) == 4.0
    assert percentile([], 50) is None
    summary = latency_summary([1.0, 3.0])
    assert summary == {"p50": 2.0, "p95": pytest.approx(2.9), "p99": pytest.approx(2.98),
                       "mean": 2.0, "n": 2}


def test_status_counts_always_name_the_four_statuses() -> None:
    assert status_counts(["answered", "answered", "missing", "abstained"]) == {
        "answered": 2, "missing": 1, "conflict": 0, "abstained": 1}


def test_scoring_the_mini_dataset_end_to_end() -> None:
    qs = sample_questions(MINI)
    shown = [
        Shown([], ["D1:1", "D1:2"], "Miso", "answered", 1.0),  # cat 4: rank 1
        Shown([], ["D1:2", "D2:2", "D1:3"], "painting", "answered", 1.0),  # cat 1: rank 2, 2/2
        Shown([], ["D1:1"], "", "abstained", 1.0),  # cat 2: miss
        Shown([], ["D1:1"], "likely yes", "answered", 1.0),  # cat 3: not scorable
    ]
    rows = [s.score(q) for q, s in zip(qs, shown, strict=True)]
    assert rows[3].retrieval is None
    report = summarise_by_category(rows)
    overall = report["overall"]
    assert overall["n"] == 3 and overall["n_answers"] == 4
    assert overall["hit@10"] == pytest.approx(2 / 3)
    assert overall["mrr@10"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert overall["recall@5_macro"] == pytest.approx((1 + 1 + 0) / 3)
    assert overall["recall@5_micro"] == pytest.approx(3 / 4)
    assert overall["p@10"] == pytest.approx((0.1 + 0.2 + 0) / 3)
    # F1: 1 (Miso) + painting vs 3 gold parts (1/3) + 0 + 1 (cut at ';') over 4 answers
    assert overall["f1"] == pytest.approx((1 + 1 / 3 + 0 + 1) / 4)
    cats = report["by_category"]
    assert cats["3"]["n"] == 0 and cats["3"]["hit@10"] is None and cats["3"]["f1"] == 1.0
    assert cats["1"]["name"] == "multi-hop" and cats["1"]["recall@5_macro"] == 1.0
    assert summarise([])["f1"] is None
    assert isinstance(rows[0], QuestionScore)
