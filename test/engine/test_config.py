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
    assert "dialogue_topic" in read_params_file(PARAMS, "memory_node")
    assert "dialogue_topic" not in read_params_file(PARAMS, "query_node")


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
    with pytest.raises(ConfigError, match="reader.kind"):
        load_config(None, None, {"reader.kind": "oracle"})
    with pytest.raises(ConfigError, match="must not be negative"):
        load_config(None, None, {"capture.group_commit_ms": -1})


def test_round_trip_flat() -> None:
    cfg = MemoryConfig()
    assert MemoryConfig.from_flat(cfg.to_flat()) == cfg
