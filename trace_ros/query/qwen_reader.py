"""The Qwen reader: a causal LM loaded 4-bit NF4 with bitsandbytes, from local files only.

The model folder (or a hub cache name, resolved without network) comes from
``reader.model_path``. On a GPU, loading is a job that must be admitted (see
``admission.py``); when it is refused the reader either loads on the CPU
(``reader.cpu_fallback``) or is unavailable, and ``make_reader('auto')`` then
answers extractively. The model is asked to cite the bracketed source IDs it
used; the pipeline's checks drop any citation that was not shown.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from ..admission import Admission, Decision
from ..config import ReaderConfig
from ..errors import ModelUnavailableError
from .pack import Pack
from .plan import Plan
from .readers import ReaderOutput

SYSTEM_PROMPT = (
    "You answer questions about a robot's memory using only the numbered evidence records. "
    "Each record starts with its ID in square brackets. Answer briefly, then cite every record "
    "you used by writing its ID in square brackets. If the evidence does not answer the "
    "question, reply exactly: UNKNOWN"
)
_CITATION = re.compile(r"\[([^\[\]\n]{1,200})\]")
# Overhead beyond the weights for activations and the KV cache of short prompts.
RUNTIME_OVERHEAD_BYTES = 512 << 20


def resolve_model_dir(model_path: str) -> Path:
    """A local model folder from a path or a hub cache name; never downloads."""
    if not model_path:
        raise ModelUnavailableError("reader.model_path is empty: name a local Qwen folder or cache")
    path = Path(model_path).expanduser()
    if path.is_dir():
        if not (path / "config.json").exists():
            raise ModelUnavailableError(f"{path} has no config.json")
        return path
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model_path, local_files_only=True))
    except Exception as exc:  # noqa: BLE001 - any miss means "not on disk"
        raise ModelUnavailableError(
            f"reader model {model_path!r} is neither a folder nor in the local cache") from exc


def estimate_need_bytes(model_dir: Path, load_in_4bit: bool) -> int:
    """Device memory the model will take: NF4 keeps about 0.3 of 16-bit weight bytes
    (embeddings and head stay 16-bit), plus a fixed runtime overhead."""
    weights = sum(p.stat().st_size for p in model_dir.glob("*.safetensors"))
    weights = weights or sum(p.stat().st_size for p in model_dir.glob("*.bin"))
    return int(weights * (0.3 if load_in_4bit else 1.0)) + RUNTIME_OVERHEAD_BYTES


def parse_citations(text: str, shown: list[str]) -> tuple[str, list[str]]:
    """Split a generation into (answer without citations, cited IDs that were shown)."""
    shown_set = set(shown)
    cited: list[str] = []
    for raw in _CITATION.findall(text):
        for part in re.split(r"[,;]\s*", raw):
            part = part.strip()
            if part in shown_set and part not in cited:
                cited.append(part)
    answer = _CITATION.sub("", text)
    answer = re.sub(r"\s+([.,;:!?])", r"\1", answer)
    return re.sub(r"\s{2,}", " ", answer).strip(), cited


class QwenReader:
    name = "qwen-nf4"

    def __init__(self, config: ReaderConfig, admission: Admission | None = None,
                 holder: str = "query_node") -> None:
        self.config = config
        self.model_dir = resolve_model_dir(config.model_path)
        self.admission = admission
        self.holder = holder
        self.decision: Decision | None = None
        self._lock = threading.Lock()
        self.device = self._admit()
        self.model, self.tokenizer = self._load()

    def _admit(self) -> str:
        import torch

        device = self.config.device
        if device == "auto":
            device = "cuda:0" if torch.cuda.is_available() else "cpu"
        if not device.startswith("cuda"):
            return "cpu"
        if self.admission is None:
            return device
        need = estimate_need_bytes(self.model_dir, self.config.load_in_4bit)
        self.decision = self.admission.request(self.holder, need, device)
        if self.decision.admitted:
            return device
        if self.config.cpu_fallback:
            return "cpu"
        raise ModelUnavailableError(f"GPU admission refused: {self.decision.reason}")

    def _load(self) -> tuple[Any, Any]:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig

        on_gpu = self.device.startswith("cuda")
        compute = torch.bfloat16 if on_gpu else torch.float32
        kwargs: dict[str, Any] = {"local_files_only": True, "dtype": compute,
                                  "device_map": self.device}
        if self.config.load_in_4bit:
            kwargs["quantization_config"] = BitsAndBytesConfig(
                load_in_4bit=True, bnb_4bit_quant_type="nf4",
                bnb_4bit_compute_dtype=compute, bnb_4bit_use_double_quant=True)
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(self.model_dir), local_files_only=True)
            model = AutoModelForCausalLM.from_pretrained(str(self.model_dir), **kwargs)
        except Exception as exc:  # noqa: BLE001
            if self.admission is not None and on_gpu:
                self.admission.release(self.holder)
            raise ModelUnavailableError(f"could not load {self.model_dir}: {exc}") from exc
        model.eval()
        if self.admission is not None and on_gpu:
            self.admission.mark_loaded(self.holder)
        return model, tokenizer

    def close(self) -> None:
        if self.admission is not None and self.device.startswith("cuda"):
            self.admission.release(self.holder)

    def prompt(self, question: str, plan: Plan, pack: Pack) -> str:
        user = (f"Evidence:\n{pack.render()}\n\nQuestion type: {plan.operation} ({plan.shape}).\n"
                f"Question: {question}\nAnswer with citations:")
        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            return tok.apply_chat_template(
                [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}],
                tokenize=False, add_generation_prompt=True)
        return f"{SYSTEM_PROMPT}\n\n{user}\n"

    def generate(self, prompt: str) -> str:
        import torch

        inputs = self.tokenizer(prompt, return_tensors="pt").to(self.model.device)
        pad = self.tokenizer.pad_token_id
        if pad is None:
            pad = self.tokenizer.eos_token_id
        with self._lock, torch.inference_mode():
            out = self.model.generate(**inputs, max_new_tokens=self.config.max_new_tokens,
                                      do_sample=False, pad_token_id=pad)
        new_tokens = out[0, inputs["input_ids"].shape[1]:]
        return self.tokenizer.decode(new_tokens, skip_special_tokens=True)

    def read(self, question: str, plan: Plan, pack: Pack) -> ReaderOutput:
        if not pack.items:
            return ReaderOutput("", [], self.name, "no evidence was shown")
        text = self.generate(self.prompt(question, plan, pack))
        if text.strip().upper().startswith("UNKNOWN"):
            return ReaderOutput("", [], self.name, "the reader found no answer in the evidence")
        answer, cited = parse_citations(text, pack.source_ids)
        return ReaderOutput(answer, cited, self.name,
                            "" if cited else "the reader's answer cited no shown source")
