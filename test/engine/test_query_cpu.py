"""Function-level CPU of LoCoMo questions on a kept ledger (``tools/query_cpu.py``, issue
16): the functions named are timed only inside (outermost call, static methods kept
static), the collector's pauses are counted by generation, and one pass reports every
key it was asked for."""

from __future__ import annotations

import gc
import sys
import types
from pathlib import Path

import query_cpu  # (tools/ is on the path: pytest.ini)

from trace_ros.embed import MiniLMEncoder
from trace_ros.query import answer, recall


def test_a_timed_function_is_put_back_and_counts_its_outermost_call() -> None:
    clocks = query_cpu.Clocks()
    plain = recall.ranked
    with query_cpu.timed(["trace_ros.query.recall:ranked"], clocks):
        assert recall.ranked is not plain
        assert recall.ranked({}) == []
        assert recall.ranked({}, 3) == []
    assert recall.ranked is plain  # left as it was
    assert clocks.calls["recall.ranked"] == 2 and clocks.total["recall.ranked"] >= 0.0


def test_a_nested_call_is_inside_the_outer_one(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    probe = types.ModuleType("query_cpu_probe")

    def down(n: int) -> int:  # calls itself through the module: the wrapped one
        return 0 if n == 0 else 1 + probe.down(n - 1)

    probe.down = down  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "query_cpu_probe", probe)
    clocks = query_cpu.Clocks()
    with query_cpu.timed(["query_cpu_probe:down"], clocks):
        assert probe.down(3) == 3
    assert clocks.calls["query_cpu_probe.down"] == 1  # the outermost call only
    assert probe.down is down


def test_a_static_method_stays_static() -> None:
    clocks = query_cpu.Clocks()
    raw = vars(answer.QueryEngine)["route_report"]
    with query_cpu.timed(["trace_ros.query.answer:QueryEngine.route_report"], clocks):
        assert isinstance(vars(answer.QueryEngine)["route_report"], staticmethod)
    assert vars(answer.QueryEngine)["route_report"] is raw


def test_an_inherited_method_is_left_inherited() -> None:
    from trace_ros.query import readers

    assert "_typed" not in vars(readers.ExtractiveReader)  # TypedReading's
    clocks = query_cpu.Clocks()
    with query_cpu.timed(["trace_ros.query.readers:ExtractiveReader._typed"], clocks):
        assert "_typed" in vars(readers.ExtractiveReader)
    assert "_typed" not in vars(readers.ExtractiveReader)


def test_the_collector_is_timed_by_generation_and_let_go() -> None:
    clocks = query_cpu.Clocks()
    before = len(gc.callbacks)
    with query_cpu.collector(clocks):
        gc.collect(2)
    gc.collect(2)  # outside: not counted
    assert clocks.calls["gc2"] == 1 and clocks.calls["gc"] == 1
    assert len(gc.callbacks) == before


def test_a_bad_spec_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    db.write_bytes(b"")
    assert query_cpu.main([str(db), "--data", "x.json", "--fn", "trace_ros.query.recall"]) == 2
    assert query_cpu.main([str(db), "--data", "x.json", "--fn",
                           "trace_ros.query.recall:no_such"]) == 2
    assert query_cpu.main([str(tmp_path / "none.db"), "--data", "x.json"]) == 2


def test_one_pass_reports_every_key(kept_locomo: tuple[Path, Path],
                                    encoder: MiniLMEncoder) -> None:
    db, data = kept_locomo
    got = query_cpu.profile(db, data, ["trace_ros.query.answer:QueryEngine.rank"],
                            encoder=encoder)
    assert got["questions"] == 3
    assert set(got["rows"]) == {"total", "gc", "answer.QueryEngine.rank"}
    assert got["rows"]["answer.QueryEngine.rank"]["calls"] == 3
    assert got["rows"]["total"]["p50"] > 0
    assert not gc.get_freeze_count()  # unfrozen after the pass
