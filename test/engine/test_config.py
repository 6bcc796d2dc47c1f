"""Typed config from the shipped parameter file, dotted overrides, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from trace_ros.config import MemoryConfig, load_config, read_params_file
from trace_ros.errors import ConfigError

PARAMS = Path(__file__).resolve().parents[2] / "config" / "memory.yaml"


def test_shipped_params_file_builds_every_node_config() -> None:
    for node in ("memory_node", "consolidation_node", "query_node"):
        cfg = load_config(PARAMS, node)
        assert cfg.ledger.synchronous == "FULL"
        assert str(cfg.db_path).endswith("memory.db") and "~" not in str(cfg.db_path)
    assert load_config(PARAMS, "memory_node").capture.group_commit_ms == 4.0
    assert "qos_depth" in read_params_file(PARAMS, "memory_node")
    assert "qos_depth" not in read_params_file(PARAMS, "query_node")


def test_shipped_file_holds_the_dataclass_defaults() -> None:
    """One source of defaults: every engine value in memory.yaml equals config.py's default,
    and the file names every ledger, capture and reader setting of the nodes that use them
    (reader.gpu_reserve_mb, reader.cpu_fallback, ...); tuning knobs may be left out."""
    from trace_ros.paramspec import NODE_SECTIONS, engine_params

    defaults = MemoryConfig().to_flat()
    for node, sections in NODE_SECTIONS.items():
        values = {k: v for k, v in read_params_file(PARAMS, node).items() if "." in k}
        assert values == {k: defaults.get(k, "<not a setting>") for k in values}, node
        required = {k for k in engine_params(sections)
                    if k.partition(".")[0] in ("ledger", "capture", "reader")}
        assert required <= set(values), (node, required - set(values))


def test_sections_apply_under_a_namespace(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "/**:\n  ros__parameters: {recall: {rrf_k: 1, dense_k: 1}}\n"
        "/**/query_node:\n  ros__parameters: {recall: {rrf_k: 2, lexical_k: 2}}\n"
        "/robot1/query_node:\n  ros__parameters: {recall: {rrf_k: 3}}\n")
    root = read_params_file(path, "query_node")
    robot1 = read_params_file(path, "query_node", "/robot1")
    robot2 = read_params_file(path, "query_node", "robot2")
    assert (root["recall.rrf_k"], root["recall.lexical_k"], root["recall.dense_k"]) == (2, 2, 1)
    assert (robot1["recall.rrf_k"], robot1["recall.lexical_k"]) == (3, 2)
    assert robot2["recall.rrf_k"] == 2


def test_every_engine_key_in_the_file_is_known() -> None:
    known = set(MemoryConfig().to_flat())
    for node in ("memory_node", "consolidation_node", "query_node"):
        dotted = {k for k in read_params_file(PARAMS, node) if "." in k}
        assert dotted <= known, dotted - known


def test_overrides_and_errors() -> None:
    cfg = load_config(PARAMS, "query_node", {"recall.evidence_k": "7", "reader.load_in_4bit": "false"})
    assert cfg.recall.evidence_k == 7 and cfg.reader.load_in_4bit is False
    with pytest.raises(ConfigError, match="unknown parameter 'recall.nope'"):
        load_config(None, None, {"recall.nope": 1})
    with pytest.raises(ConfigError, match="recall.lexical_k"):
        load_config(None, None, {"recall.lexical_k": "many"})
    with pytest.raises(ConfigError, match="reader.cpu_fallback: .*not a boolean"):
        load_config(None, None, {"reader.cpu_fallback": "maybe"})
    assert load_config(None, None, {"reader.cpu_fallback": "false"}).reader.cpu_fallback is False
    with pytest.raises(ConfigError, match="reader.kind"):
        load_config(None, None, {"reader.kind": "oracle"})
    with pytest.raises(ConfigError, match="must not be negative"):
        load_config(None, None, {"capture.group_commit_ms": -1})


def test_round_trip_flat() -> None:
    cfg = MemoryConfig()
    assert MemoryConfig.from_flat(cfg.to_flat()) == cfg
