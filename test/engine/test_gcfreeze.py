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


def test_a_bulk_load_is_kept_aside_while_held() -> None:
    from trace_ros.storage.bulkload import bulk_load

    gcfreeze.hold("query")
    before = gc.get_freeze_count()
    with bulk_load(), bulk_load(keep=True):  # nested: kept once the outer load ends
        loaded = [[i] for i in range(5000)]  # a subject's rows, read afresh
        assert gc.get_freeze_count() == before
    assert gc.get_freeze_count() >= before + len(loaded)
    assert gc.isenabled()


def test_a_read_of_what_changed_since_is_not_frozen() -> None:
    from trace_ros.storage.bulkload import bulk_load

    gcfreeze.hold("query")
    before = gc.get_freeze_count()
    with bulk_load():  # a new generation's few rows: a freeze each time would keep
        changed = [[i] for i in range(5000)]  # every garbage cycle of the moment aside
    assert len(changed) == 5000 and gc.get_freeze_count() <= before


def test_a_bulk_load_freezes_nothing_when_no_one_holds() -> None:
    from trace_ros.storage.bulkload import bulk_load

    with bulk_load(keep=True):
        loaded = [[i] for i in range(5000)]
    assert len(loaded) == 5000 and gc.get_freeze_count() == 0
    assert gc.isenabled()
