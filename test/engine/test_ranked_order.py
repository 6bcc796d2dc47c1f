"""``recall.ranked`` (issue 16): best score first, equal scores in storage (seq) order,
the best ``k`` the first ``k`` of the whole order: the order of the key ``(-score, seq)``,
sorted without a key tuple per candidate."""

from __future__ import annotations

import random

from trace_ros.query.recall import Fused, ranked


def _reference(fused: dict[int, Fused]) -> list[int]:
    return [f.seq for f in sorted(fused.values(), key=lambda f: (-f.score, f.seq))]


def test_equal_scores_keep_seq_order_and_top_k_is_a_prefix() -> None:
    rng = random.Random(7)
    for _ in range(200):
        seqs = rng.sample(range(1, 400), rng.randint(0, 60))
        rng.shuffle(seqs)
        # Few distinct scores: many ties, some zero and negative.
        fused = {s: Fused(s, f"id{s}", rng.choice([0.0, -0.5, 0.25, 0.5, 1.0, 1.5]))
                 for s in seqs}
        want = _reference(fused)
        assert [f.seq for f in ranked(fused)] == want
        for k in (0, 1, 5, 25, 100):
            assert [f.seq for f in ranked(fused, k)] == want[:k]


def test_ties_by_seq_not_by_insertion() -> None:
    fused = {9: Fused(9, "c", 1.0), 2: Fused(2, "a", 1.0), 5: Fused(5, "b", 2.0)}
    assert [f.source_id for f in ranked(fused)] == ["b", "a", "c"]
    assert [f.source_id for f in ranked(fused, 2)] == ["b", "a"]
