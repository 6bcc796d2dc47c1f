"""The parallel path of the ONNX encoder (``embed.workers``): a large batch is spread
over several sessions, one text per run, and every vector is the one the serial path
gives, to the bit; a question or a few words stay on the caller's thread."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trace_ros.capture import Event, ingest
from trace_ros.config import CaptureConfig, ConsolidationConfig, EmbedConfig, MemoryConfig
from trace_ros.consolidation.worker import Consolidator
from trace_ros.embed import (
    AUTO_WORKERS_MAX,
    PARALLEL_MIN_TEXTS,
    OnnxMiniLMEncoder,
    encode_workers,
)
from trace_ros.ledger import Ledger, Scope

WORDS = ("support group painting lake beagle adoption career counselling camping pottery "
         "sunrise marathon violin garden").split()


def _texts(n: int) -> list[str]:
    """Texts of very different lengths (a short one beside long ones is where a shared
    activation scale would show), with some repeated."""
    out = [f"Speaker{i % 3}: " + " ".join(WORDS[(i + k) % len(WORDS)] for k in range(1 + i * 7 % 60))
           for i in range(n)]
    return [*out, out[0], "ok", out[5]]


class _Counting:
    """A session that counts its runs (so a test knows both workers ran)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.runs = inner, 0

    def run(self, *args: Any) -> Any:
        self.runs += 1
        return self.inner.run(*args)


@pytest.fixture(scope="module")
def serial() -> OnnxMiniLMEncoder:
    enc = OnnxMiniLMEncoder(EmbedConfig(workers=1))
    enc.load()
    return enc


@pytest.fixture(scope="module")
def parallel() -> OnnxMiniLMEncoder:
    enc = OnnxMiniLMEncoder(EmbedConfig(workers=3))
    enc.load()
    return enc


def test_parallel_vectors_equal_serial_ones_bit_for_bit(serial: OnnxMiniLMEncoder,
                                                        parallel: OnnxMiniLMEncoder) -> None:
    texts = _texts(3 * PARALLEL_MIN_TEXTS)
    parallel.encode(texts[:PARALLEL_MIN_TEXTS])  # makes the worker sessions
    parallel._sessions = [_Counting(s) for s in parallel._sessions]
    got = parallel.encode(texts)
    runs = [s.runs for s in parallel._sessions]
    assert len(runs) == 3 and min(runs) > 0, runs  # every worker encoded some
    assert sum(runs) == len(set(texts))  # a repeated text is run once
    want = serial.encode(texts)
    assert serial._pool is None  # workers=1: never the parallel path
    assert got.dtype == np.float32 and got.shape == (len(texts), 384)
    np.testing.assert_array_equal(got, want)
    # ... and each equals the text encoded alone, as a question is.
    for i in (0, 1, len(texts) - 2):
        np.testing.assert_array_equal(got[i], serial.encode([texts[i]])[0])


def test_a_few_texts_stay_on_the_callers_thread() -> None:
    enc = OnnxMiniLMEncoder(EmbedConfig(workers=2))
    enc.encode(["What does she study?"])
    enc.encode(_texts(PARALLEL_MIN_TEXTS - 4)[:PARALLEL_MIN_TEXTS - 1])
    assert enc._pool is None and enc._sessions == []  # no worker session was made


def test_workers_setting() -> None:
    assert encode_workers(EmbedConfig(workers=5)) == 5
    auto = encode_workers(EmbedConfig())
    assert 1 <= auto <= AUTO_WORKERS_MAX
    assert encode_workers(EmbedConfig(threads=64)) == 1  # a session's threads fill the CPUs
    assert MemoryConfig.from_flat({"embed.workers": "2"}).embed.workers == 2
    with pytest.raises(Exception, match="embed.workers"):
        MemoryConfig.from_flat({"embed.workers": -1})


def _consolidated(tmp_path: Path, name: str, encoder: OnnxMiniLMEncoder) -> dict[tuple, bytes]:
    ledger = Ledger(tmp_path / f"{name}.db")
    try:
        scope = Scope("s1", "", "morning")
        turns = [t.partition(": ") for t in _texts(40)]
        ingest(ledger, [Event("dialogue", scope, text or who, who if text else "Sam",
                              stamp=1_700_000_000 + i, source_id=f"t{i}")
                        for i, (who, _, text) in enumerate(turns)], CaptureConfig())
        Consolidator(ledger, encoder, ConsolidationConfig(batch_size=32)).drain()
        rows = ledger.query("SELECT owner_kind, owner_id, vec FROM vectors "
                            "WHERE owner_kind IN ('source', 'window')")
        return {(r[0], r[1]): bytes(r[2]) for r in rows}
    finally:
        ledger.close()


def test_consolidation_stores_the_same_vectors_either_way(
        tmp_path: Path, serial: OnnxMiniLMEncoder, parallel: OnnxMiniLMEncoder) -> None:
    one = _consolidated(tmp_path, "serial", serial)
    many = _consolidated(tmp_path, "parallel", parallel)
    assert len(one) == 2 * 43 and one == many
