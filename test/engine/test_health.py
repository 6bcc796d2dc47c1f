"""Diagnostics levels from thresholds."""

from trace_ros.health import ERROR, OK, WARN, capture_health, consolidation_health, query_health


def test_capture_levels() -> None:
    assert capture_health(0, 1000, 0, 0.5, 0.9) == (OK, "ok")
    assert capture_health(600, 1000, 0, 0.5, 0.9)[0] == WARN
    level, why = capture_health(950, 1000, 3, 0.5, 0.9)
    assert level == ERROR and "950/1000" in why and "lost" not in why
    level, why = capture_health(0, 1000, 3, 0.5, 0.9)
    assert level == WARN and "3 event(s) lost" in why


def test_consolidation_and_query_levels() -> None:
    assert consolidation_health(10, 0, 1000, 10000) == (OK, "ok")
    assert consolidation_health(1000, 0, 1000, 10000)[0] == WARN
    assert consolidation_health(20000, 2, 1000, 10000)[0] == ERROR
    assert consolidation_health(0, 2, 1000, 10000) == (WARN, "2 job(s) failed")
    assert query_health("extractive", "extractive", False, 0) == (OK, "ok")
    assert query_health("auto", "extractive", True, 0)[0] == WARN
    assert query_health("qwen", "qwen", False, 1)[0] == ERROR
