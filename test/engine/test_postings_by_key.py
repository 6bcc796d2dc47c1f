"""postings.by_key (the capture writer's index, a search's tail) gives the entries the
per-key construction gave: the same keys, the same entries in ascending seq."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from trace_ros.storage import postings
from trace_ros.storage.lexical import terms_of

WORDS = ["water", "plants", "keys", "sink", "the", "my", "Alice", "bob", "red mug", "6", ""]


def _reference(rows: list[tuple[int, str, str, str]]) -> dict[tuple[str, str], np.ndarray]:
    """by_key as it was: one array per key, each put in seq order."""
    out: dict[tuple[str, str], list[tuple[int, int, int, int]]] = {}
    for (seq, subject, speaker, text), said in zip(rows, terms_of([r[3] for r in rows]),
                                                   strict=True):
        for stem, entry in postings.entries_of(int(seq), subject, speaker, text, said).items():
            out.setdefault((subject, stem), []).append(entry)
    return {k: postings.in_seq_order(np.array(v, dtype=postings.ENTRY))
            for k, v in out.items()}


rows_st = st.lists(st.tuples(st.integers(1, 10_000), st.sampled_from(["s1", "s2", "s3"]),
                             st.sampled_from(WORDS),
                             st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)),
                   max_size=40, unique_by=lambda r: r[0])


@settings(max_examples=200, deadline=None)
@given(rows=rows_st, ascending=st.booleans())
def test_by_key_is_the_per_key_construction(rows: list[tuple[int, str, str, str]],
                                            ascending: bool) -> None:
    if ascending:
        rows = sorted(rows)
    got, want = postings.by_key(rows), _reference(rows)
    assert list(got) == list(want)  # the same keys, first seen first
    for key, entries in want.items():
        assert got[key].tolist() == entries.tolist(), key
        assert bool((np.diff(got[key]["seq"]) > 0).all())


def test_speakers_and_subjects_are_split_once_per_rows(monkeypatch) -> None:  # noqa: ANN001
    calls: list[str] = []
    real = postings.lexical_terms

    def counted(text: str) -> list[str]:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(postings, "lexical_terms", counted)
    postings.by_key([(i, "alice", "Alice", f"turn number {i}") for i in range(1, 65)])
    assert sorted(calls) == ["Alice", "alice"]
