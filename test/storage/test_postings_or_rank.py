"""An OR of one-stem phrases is ranked from each stem's kept terms (``postings._ranked_any``)
and the top k cut before sorting (``lexrank.best``): the same rows, doubles and order as
the general road (``matching`` + ``lexrank.rank``) and as sorting every row."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from trace_ros.storage import postings
from trace_ros.storage.lexical import parse_match
from trace_ros.storage.lexrank import Stats, best, matching, rank

STEMS = ("garden", "water", "soil", "basil", "tomato")

entries = st.lists(st.tuples(st.integers(1, 300), st.integers(1, 9), st.integers(0, 3),
                             st.integers(0, 2)), max_size=60)


def _subject(by_stem: dict[str, list[tuple[int, int, int, int]]]) -> postings.SubjectPostings:
    sp = postings.SubjectPostings("sam")
    sizes: dict[int, int] = {}
    blobs = {}
    for stem, rows in by_stem.items():
        kept = {}
        for seq, size, text, speaker in rows:
            size = sizes.setdefault(seq, size)  # a row has one size whichever stem
            kept[seq] = (seq, size, text, speaker)
        got = np.array(sorted(kept.values()), dtype=postings.ENTRY)
        blobs[stem] = [postings.encode(got)]
    sp.add(blobs, (*STEMS, "absent"))  # read, and stands in no row
    return sp


@settings(max_examples=150, deadline=None)
@given(by_stem=st.fixed_dictionaries({s: entries for s in STEMS}),
       words=st.lists(st.sampled_from(STEMS + ("absent",)), min_size=1, max_size=7),
       weights=st.sampled_from(((1.0, 1.0), (1.0, 0.5), (0.3, 0.0))),
       k=st.integers(1, 40))
def test_or_ranking_equals_the_general_road(by_stem, words, weights, k) -> None:
    sp = _subject(by_stem)
    expr = parse_match(" OR ".join(f'"{w}"' for w in words))  # repeats kept
    stats = Stats(n_docs=400, n_tokens=2100)
    rows, scores = postings.ranked(sp, expr, weights, stats)
    hits, all_rows, sizes = sp.hits(expr, weights)
    found = matching(expr, hits)
    expected = rank(hits, postings.sized(all_rows, sizes, found), found, stats)
    assert rows.tolist() == found.tolist()
    assert scores.tobytes() == expected.tobytes()
    assert best(rows, scores, k) == _best_by_sorting_all(rows, scores, k)


def _best_by_sorting_all(rows: np.ndarray, scores: np.ndarray, k: int) -> list:
    order = np.lexsort((rows, -scores))[:k]
    return list(zip(rows[order].tolist(), scores[order].tolist(), strict=True))


@given(scores=st.lists(st.sampled_from((0.5, 1.0, 1.0, 2.0, 3.5)), max_size=50),
       k=st.integers(0, 60))
def test_best_keeps_every_tie_at_the_cut(scores: list[float], k: int) -> None:
    rows = np.arange(100, 100 + len(scores), dtype=np.int64)[::-1].copy()
    got = np.array(scores, dtype=np.float64)
    assert best(rows, got, k) == _best_by_sorting_all(rows, got, k)
