"""Encoders: the int8 ONNX MiniLM (default) against sentence-transformers, export cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from trace_ros.config import ConfigError, EmbedConfig, MemoryConfig
from trace_ros.embed import (
    MiniLMEncoder,
    OnnxMiniLMEncoder,
    TorchMiniLMEncoder,
    export_int8,
    model_folder,
)
from trace_ros.errors import ModelUnavailableError

TEXTS = ["Caroline: I went to a support group yesterday.",
         "What does she study?",
         "Melanie: I painted a sunrise over the lake with my kids last weekend, it was lovely.",
         "ok"]


@pytest.fixture(scope="module")
def torch_encoder() -> TorchMiniLMEncoder:
    enc = TorchMiniLMEncoder(EmbedConfig(backend="torch"))
    enc.load()
    return enc


def test_default_backend_is_int8_onnx_under_its_own_model_name(encoder) -> None:  # noqa: ANN001
    assert isinstance(encoder, OnnxMiniLMEncoder)
    assert encoder.name == "all-MiniLM-L6-v2-int8" and encoder.dim == 384
    assert isinstance(MiniLMEncoder(EmbedConfig(backend="torch")), TorchMiniLMEncoder)
    assert MiniLMEncoder(EmbedConfig(backend="torch")).name == "all-MiniLM-L6-v2"


def test_int8_vectors_are_normalised_and_close_to_fp32(encoder, torch_encoder) -> None:  # noqa: ANN001
    q = encoder.encode(TEXTS)
    ref = torch_encoder.encode(TEXTS)
    assert q.shape == (len(TEXTS), 384) and q.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-5)
    cos = (q * ref).sum(axis=1)
    assert cos.min() >= 0.96 and cos.mean() >= 0.985, cos  # a 1-word text drifts most
    # Each text's nearest other text is the one the fp32 model finds.
    sims_q, sims_ref = q @ q.T - 2 * np.eye(len(TEXTS)), ref @ ref.T - 2 * np.eye(len(TEXTS))
    assert np.array_equal(sims_q.argmax(axis=1), sims_ref.argmax(axis=1))


def test_batch_and_single_encodings_agree(encoder) -> None:  # noqa: ANN001
    batch = encoder.encode(TEXTS)
    single = np.stack([encoder.encode([t])[0] for t in TEXTS])
    np.testing.assert_array_equal(batch, single)  # a vector never depends on its batch
    assert encoder.encode([]).shape == (0, 384)


def test_long_text_is_truncated_not_rejected(encoder) -> None:  # noqa: ANN001
    vec = encoder.encode(["word " * 2000])
    assert vec.shape == (1, 384) and np.isfinite(vec).all()


def test_bad_backend_and_missing_weights_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="embed.backend"):
        MemoryConfig.from_flat({"embed.backend": "tensorrt"})
    with pytest.raises(ModelUnavailableError, match="does not exist"):
        OnnxMiniLMEncoder(EmbedConfig(model_path=str(tmp_path / "nowhere"))).load()


@pytest.mark.slow
def test_export_is_cached_and_reused(tmp_path: Path) -> None:
    cfg = EmbedConfig(cache_dir=str(tmp_path))
    enc = OnnxMiniLMEncoder(cfg)
    path = enc.cache_path()
    assert path.parent.parent == tmp_path and not path.exists()
    enc.load()
    assert path.is_file() and not list(path.parent.glob(".*.onnx"))  # no temporaries left
    mtime = path.stat().st_mtime_ns
    export_int8(model_folder(cfg), path)  # already there: nothing happens
    again = OnnxMiniLMEncoder(cfg)
    again.load()
    assert path.stat().st_mtime_ns == mtime
    np.testing.assert_allclose(again.encode(TEXTS), enc.encode(TEXTS), atol=1e-6)
