"""The ONNX encoder optimises its graph once: later sessions load the saved graph with
optimisation off, and their vectors are bit for bit those of a default session."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trace_ros.config import EmbedConfig
from trace_ros.embed import OnnxMiniLMEncoder

TEXTS = ["Caroline: I went to a support group yesterday.", "What does she study?",
         "Melanie: I painted a sunrise over the lake with my kids last weekend.", "ok",
         "word " * 400]


@pytest.fixture
def cache(tmp_path: Path, encoder: Any) -> EmbedConfig:  # noqa: ANN401
    """A cache folder of its own holding the export the shared encoder uses (no export
    to wait for)."""
    cfg = EmbedConfig(cache_dir=str(tmp_path))
    target = OnnxMiniLMEncoder(cfg).cache_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(encoder.cache_path(), target)
    return cfg


def default_vectors(export: Path) -> np.ndarray:
    """The vectors of a session made as before: onnxruntime's default optimisation."""
    import onnxruntime as ort

    enc = OnnxMiniLMEncoder(EmbedConfig())
    enc.load()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    enc._session = ort.InferenceSession(str(export), opts, providers=["CPUExecutionProvider"])
    return enc.encode(TEXTS)


def saved_graphs(export: Path) -> list[Path]:
    return sorted(export.parent.glob(f"{export.stem}.ort-*.onnx"))


def test_the_first_session_saves_its_graph_and_later_ones_load_it(
        cache: EmbedConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    import onnxruntime as ort

    first = OnnxMiniLMEncoder(cache)
    export = first.cache_path()
    first.load()
    (saved,) = saved_graphs(export)
    assert not list(export.parent.glob(".*.onnx"))  # no temporaries left
    loaded: list[str] = []
    real = ort.InferenceSession
    monkeypatch.setattr(ort, "InferenceSession",
                        lambda path, *a, **k: loaded.append(path) or real(path, *a, **k))
    second = OnnxMiniLMEncoder(cache)
    second.load()
    assert loaded == [str(saved)]
    want = default_vectors(export)
    assert np.array_equal(first.encode(TEXTS), want)
    assert np.array_equal(second.encode(TEXTS), want)


def test_a_damaged_saved_graph_is_passed_over_and_replaced(cache: EmbedConfig) -> None:
    first = OnnxMiniLMEncoder(cache)
    export = first.cache_path()
    first.load()
    (saved,) = saved_graphs(export)
    saved.write_bytes(b"not an onnx graph")
    again = OnnxMiniLMEncoder(cache)
    again.load()
    assert np.array_equal(again.encode(TEXTS), default_vectors(export))
    assert saved.stat().st_size > 1_000_000  # written again, whole
