"""Loading and running the local Qwen causal LM, shared by the reader and the LLM extractor.

Weights come from local files only (a folder, or a hub cache name resolved
without network); 4-bit NF4 through bitsandbytes when asked. Heavy libraries
are imported lazily, so importing this module costs nothing.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from .errors import ModelUnavailableError

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


def resolve_device(device: str) -> str:
    """'auto' → 'cuda:0' when a GPU is present, else 'cpu'; other names unchanged."""
    if device != "auto":
        return device
    import torch

    return "cuda:0" if torch.cuda.is_available() else "cpu"


def load_causal_lm(model_dir: Path, device: str, load_in_4bit: bool) -> tuple[Any, Any]:
    """(model, tokenizer) on ``device``, NF4-quantised when ``load_in_4bit``.
    Raises ``ModelUnavailableError`` when the files cannot be loaded."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig

    on_gpu = device.startswith("cuda")
    compute = torch.bfloat16 if on_gpu else torch.float32
    kwargs: dict[str, Any] = {"local_files_only": True, "dtype": compute, "device_map": device}
    if load_in_4bit:
        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4",
            bnb_4bit_compute_dtype=compute, bnb_4bit_use_double_quant=True)
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(str(model_dir), **kwargs)
    except Exception as exc:  # noqa: BLE001
        raise ModelUnavailableError(f"could not load {model_dir}: {exc}") from exc
    model.eval()
    return model, tokenizer


def chat_prompt(tokenizer: Any, system: str, user: str) -> str:
    """The tokenizer's chat template when it has one, else plain text."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(
            [{"role": "system", "content": system}, {"role": "user", "content": user}],
            tokenize=False, add_generation_prompt=True)
    return f"{system}\n\n{user}\n"


def generate(model: Any, tokenizer: Any, prompt: str, max_new_tokens: int,
             lock: threading.Lock | None = None) -> str:
    """Greedy continuation of ``prompt`` (only the new text)."""
    import torch

    inputs = tokenizer(prompt, return_tensors="pt").to(model.device)
    pad = tokenizer.pad_token_id
    if pad is None:
        pad = tokenizer.eos_token_id
    lock = lock or threading.Lock()
    with lock, torch.inference_mode():
        out = model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False,
                             pad_token_id=pad)
    return tokenizer.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
