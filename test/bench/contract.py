"""The documented keys of the LoCoMo ``report.json`` (the issue's contract), for the tests."""

from __future__ import annotations

from typing import Any

from trace_ros.facts import EDGE_TYPES

METRIC_KEYS = ("hit@10", "p@10", "mrr@10", "recall@5_macro", "recall@5_micro", "f1", "n")
FRACTIONS = METRIC_KEYS[:-1]
CATEGORIES = ("1", "2", "3", "4")
BASELINES = ("dense", "bm25", "hybrid")
STAGES = ("embed", "recall", "graph", "pack", "read")


def check_metric_block(block: dict[str, Any], where: str) -> None:
    for key in METRIC_KEYS:
        assert key in block, f"{where}.{key} missing"
    assert isinstance(block["n"], int) and block["n"] >= 0, where
    for key in FRACTIONS:
        value = block[key]
        if block["n"] == 0 and key != "f1":
            assert value is None, f"{where}.{key} should be None with n = 0"
        elif value is not None:
            assert 0.0 <= value <= 1.0, f"{where}.{key} = {value} out of [0, 1]"


def check_method(block: dict[str, Any], where: str) -> None:
    check_metric_block(block["overall"], f"{where}.overall")
    assert block["overall"]["n"] > 0, f"{where}: nothing scored"
    for cat in CATEGORIES:
        check_metric_block(block["by_category"][cat], f"{where}.by_category.{cat}")
    assert sum(block["by_category"][c]["n"] for c in CATEGORIES) == block["overall"]["n"]


def check_percentiles(block: dict[str, Any], where: str, allow_empty: bool = False) -> None:
    values = [block[p] for p in ("p50", "p95", "p99")]
    if allow_empty and all(v is None for v in values):
        return
    assert all(isinstance(v, float) and v >= 0 for v in values), f"{where}: {values}"
    assert values[0] <= values[1] <= values[2], f"{where}: percentiles not ordered"


def check_report(report: dict[str, Any], ablated: dict[str, bool]) -> None:
    """Every documented key is present and in range; ``ablated`` says which rows apply."""
    check_method(report["system"], "system")
    for name in BASELINES:
        check_method(report["baselines"][name], f"baselines.{name}")
    check_percentiles(report["latency_ms"]["end_to_end"], "latency_ms.end_to_end")
    for stage in STAGES:
        check_percentiles(report["latency_ms"]["stages"][stage], f"latency_ms.stages.{stage}",
                          allow_empty=True)
    assert report["latency_ms"]["stages"]["read"]["n"] > 0
    assert report["ingest"]["events_per_s"] > 0
    assert report["ingest"]["consolidation_s"] >= 0
    assert report["memory"]["peak_rss_mb"] > 0 and report["memory"]["db_mb"] > 0
    graph = report["graph"]
    assert graph["facts"] > 0 and graph["sessions"] > 0 and graph["topics"] > 0
    assert graph["edges_by_type"]["in_session"] == graph["facts"]
    assert set(graph["edges_by_type"]) <= set(EDGE_TYPES)
    ctx = report["context"]
    assert 0 < ctx["mean_tokens"] < ctx["full_mean_tokens"]
    for name, applicable in ablated.items():
        row = report["ablations"][name]
        assert row["applicable"] is applicable, name
        if applicable:
            check_metric_block(row["overall"], f"ablations.{name}.overall")
        else:
            assert row["reason"] and "overall" not in row
