"""``storage.frozen.fast_init``: the same instances as the frozen dataclass's own ``__init__``."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field

import pytest

from trace_ros.capture import Event
from trace_ros.storage.frozen import fast_init
from trace_ros.storage.records import NewSource, Scope, StoreResult


@dataclass(frozen=True)
class _Plain:
    name: str
    count: int = 0
    note: str | None = None


@fast_init
@dataclass(frozen=True)
class _Fast:
    name: str
    count: int = 0
    note: str | None = None


@pytest.mark.parametrize("args, kwargs", [(("a",), {}), (("a", 2), {}), (("a",), {"note": "n"}),
                                          ((), {"name": "a", "count": 3})])
def test_the_same_fields_and_defaults_as_the_dataclass(args: tuple, kwargs: dict) -> None:
    plain, fast = _Plain(*args, **kwargs), _Fast(*args, **kwargs)
    assert dataclasses.astuple(fast) == dataclasses.astuple(plain)
    assert fast == _Fast(*args, **kwargs) and hash(fast) == hash(_Fast(*args, **kwargs))


def test_still_frozen_and_replaceable() -> None:
    scope = Scope("alice", session_id="s1")
    assert (scope.subject_id, scope.robot_id, scope.session_id) == ("alice", "", "s1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        scope.subject_id = "mallory"  # type: ignore[misc]
    assert dataclasses.replace(scope, robot_id="r") == Scope("alice", "r", "s1")
    assert pickle.loads(pickle.dumps(scope)) == scope
    assert {scope: 1}[Scope("alice", "", "s1")] == 1
    result = StoreResult("id", "accepted", sequence=4)
    assert (result.field, result.reason, result.sequence) == ("", "", 4)
    with pytest.raises(TypeError):
        StoreResult("id")  # type: ignore[call-arg]  # status is required


def test_the_capture_records_use_it() -> None:
    for cls in (Event, Scope, NewSource, StoreResult):
        assert cls.__init__.__code__.co_filename == f"<fast_init of {cls.__name__}>"


@pytest.mark.parametrize("make", [
    lambda: dataclass(type("Mutable", (), {"__annotations__": {"a": "int"}})),
    lambda: dataclass(frozen=True)(type("Factory", (), {
        "__annotations__": {"a": "list"}, "a": field(default_factory=list)})),
    lambda: dataclass(frozen=True)(type("Post", (), {
        "__annotations__": {"a": "int"}, "__post_init__": lambda self: None})),
    lambda: dataclass(frozen=True, slots=True)(type("Slots", (), {"__annotations__": {"a": "int"}})),
])
def test_refuses_what_it_would_not_make_alike(make: object) -> None:
    with pytest.raises(TypeError):
        fast_init(make())  # type: ignore[operator]
