"""trace_ros.gcfreeze: holders are counted; the last release hands objects back."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from trace_ros import gcfreeze


@pytest.fixture(autouse=True)
def nothing_held() -> Iterator[None]:
    assert not gcfreeze.holders()
    yield
    for holder in gcfreeze.holders():
        gcfreeze.release(holder)
    gc.unfreeze()


def test_hold_keeps_what_exists_out_of_sight_and_release_hands_it_back() -> None:
    kept = [object() for _ in range(10)]
    gcfreeze.hold("a")
    assert gc.get_freeze_count() >= len(kept)
    gcfreeze.release("a")
    assert gc.get_freeze_count() == 0
    assert not gcfreeze.holders()


def test_one_holder_letting_go_leaves_the_others_frozen() -> None:
    gcfreeze.hold("memory")
    gcfreeze.hold("query")
    frozen = gc.get_freeze_count()
    gcfreeze.release("memory")
    assert gc.get_freeze_count() == frozen > 0
    assert gcfreeze.holders() == {"query"}
    gcfreeze.release("query")
    assert gc.get_freeze_count() == 0


def test_a_second_hold_adds_what_came_since() -> None:
    gcfreeze.hold("memory")
    first = gc.get_freeze_count()
    later = [[i] for i in range(1000)]  # lists are tracked by the collector
    gcfreeze.hold("query")
    assert gc.get_freeze_count() >= first + len(later)


def test_holding_twice_under_one_name_counts_once_and_strangers_are_ignored() -> None:
    gcfreeze.hold("query")
    gcfreeze.hold("query")
    gcfreeze.release("nobody")
    assert gc.get_freeze_count() > 0
    gcfreeze.release("query")
    assert gc.get_freeze_count() == 0
