"""A model reader unloaded when idle and loaded again on the next question."""

from __future__ import annotations

from trace_ros.query.idle import IdleUnloadingReader
from trace_ros.query.pack import Pack
from trace_ros.query.plan import plan_question
from trace_ros.query.readers import ReaderOutput


class FakeModelReader:
    name = "fake-model"
    closed = 0

    def __init__(self) -> None:
        self.device = "cpu"

    def read(self, question: str, plan: object, pack: Pack) -> ReaderOutput:
        return ReaderOutput("ok", [], self.name, "")

    def close(self) -> None:
        FakeModelReader.closed += 1


def test_unloads_after_idle_and_reloads_on_use() -> None:
    now = [0.0]
    reader = IdleUnloadingReader(FakeModelReader, clock=lambda: now[0])
    plan, pack = plan_question("what?"), Pack()
    assert reader.read("what?", plan, pack).answer == "ok" and reader.device == "cpu"
    now[0] = 50.0
    assert not reader.unload_if_idle(60.0) and not reader.unload_if_idle(0.0)
    now[0] = 61.0
    assert reader.unload_if_idle(60.0) and reader.inner is None
    assert FakeModelReader.closed == 1 and reader.name == "fake-model" and reader.device is None
    assert reader.read("what?", plan, pack).answer == "ok"
    assert (reader.loads, reader.unloads) == (2, 1)
