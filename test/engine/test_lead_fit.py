"""The lead re-ranking's fitting tool (``tools/fit_lead.py``): the three models learn a
choice the features separate, and the veto keeps the chain's lead inside its margin."""

from __future__ import annotations

import fit_lead  # tools/ is on the path (pytest.ini)
import numpy as np
import pytest

N = len(fit_lead.FEATURES)
COS_Q = fit_lead.FEATURES.index("cos_q")
LEAD0 = fit_lead.FEATURES.index("is_lead0")


def _item(k: int, rng: np.random.Generator, author: str = "a") -> dict:
    """Four candidates; the current one (index ``k``) is the one closest to the question;
    the chain leads with candidate 0."""
    x = rng.normal(0.0, 0.1, (4, N))
    x[:, COS_Q] = 0.2
    x[k, COS_Q] = 0.8
    x[:, LEAD0] = 0.0
    x[0, LEAD0] = 1.0
    ids = [f"s{i}" for i in range(4)]
    rows = [{"id": f"{author}{k}", "kind": "change", "author": author, "split": "build",
             "first": ids[0], "ids": ids, "X": x.tolist(), "current": [ids[k]]}]
    return fit_lead._items(rows)[0]


@pytest.mark.parametrize("fit", ["_pointwise", "_pairwise", "_clogit"])
def test_models_learn_a_separable_choice(fit: str) -> None:
    rng = np.random.default_rng(0)
    train = [_item(int(rng.integers(4)), rng) for _ in range(60)]
    score, _ = getattr(fit_lead, fit)(train, "A", 1.0)
    test = [_item(k, rng) for k in range(4)]
    assert [fit_lead._choose(r, score, "A", None, False) for r in test] == \
        [r["current"][0] for r in test]


def test_veto_keeps_the_chain_lead_within_its_margin() -> None:
    rng = np.random.default_rng(1)
    r = _item(2, rng)
    assert fit_lead._choose(r, lambda x: x[:, COS_Q], "A", 1.0, False) == "s0"
    assert fit_lead._choose(r, lambda x: x[:, COS_Q], "A", 0.1, False) == "s2"
    abstained = dict(r, first=None)
    assert fit_lead._choose(abstained, lambda x: x[:, COS_Q], "A", None, True) is None


def test_veto_on_the_first_cited_source_keeps_it_within_its_margin() -> None:
    rng = np.random.default_rng(2)
    r = dict(_item(2, rng), first="s1")
    by_cos = lambda x: x[:, COS_Q]  # noqa: E731
    assert fit_lead._choose(r, by_cos, "A", 1.0, True, "first") == "s1"
    assert fit_lead._choose(r, by_cos, "A", 0.1, True, "first") == "s2"
    # A first cited source outside the candidates stays; an abstention stays one.
    assert fit_lead._choose(dict(r, first="x9"), by_cos, "A", 0.1, True, "first") == "x9"
    assert fit_lead._choose(dict(r, first=None), by_cos, "A", 0.1, True, "first") is None


def test_clogit_learns_with_questions_of_unequal_size() -> None:
    """The softmax runs over each question's own rows however many it has."""
    rng = np.random.default_rng(3)
    train = []
    for _ in range(80):
        it = _item(int(rng.integers(4)), rng)
        keep = int(rng.integers(2, 5))  # 2-4 candidates, the current one kept
        rows = sorted({*range(keep), it["ids"].index(it["current"][0])})
        train.append(dict(it, A=it["A"][rows], B=it["B"][rows], m=it["m"][rows],
                          ids=[it["ids"][j] for j in rows]))
    score, w = fit_lead._clogit(train, "A", 1.0)
    assert int(np.argmax(np.abs(w))) == COS_Q and w[COS_Q] > 0
    test = [_item(k, rng) for k in range(4)]
    assert [fit_lead._choose(r, score, "A", None, False) for r in test] == \
        [r["current"][0] for r in test]


@pytest.mark.parametrize(("subject", "kind", "fold"), [
    ("am07", "histories", "am"), ("a01", "histories", "a"), ("conv-26", "locomo", "locomo")])
def test_an_items_fold_is_its_authors_letters(subject: str, kind: str, fold: str) -> None:
    item = fit_lead.un.Item(kind, f"{subject}/0", "build", subject, "q?", "change",
                            ("x",), (), ("y",), 0.0)
    assert fit_lead.author(item) == fold
