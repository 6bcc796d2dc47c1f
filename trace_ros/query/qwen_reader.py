"""The Qwen reader: a causal LM loaded 4-bit NF4 with bitsandbytes, from local files only.

The model folder (or a hub cache name, resolved without network) comes from
``reader.model_path``. On a GPU, loading is a job that must be admitted (see
``admission.py``) *before* the weights are read; when it is refused the reader
either loads on the CPU (``reader.cpu_fallback``) or is unavailable, and
``make_reader`` then answers extractively and says so in every answer's note.
After ``reader.idle_unload_s`` seconds without a question the model is
unloaded and its GPU lease released; the next question loads it again (and is
admitted again).

Decoding is greedy (deterministic). The output contract is one JSON object,
``{"answer": "...", "sources": ["<id>", ...]}`` (``"answer": "UNKNOWN"`` when
the evidence does not answer); ``parse_reply`` also accepts bracketed IDs in
free text. Cited IDs that were not shown are dropped and reported in the note,
so a reply citing only unshown IDs has no citation and is abstained by the
checks in ``answer.py``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from typing import TYPE_CHECKING, Any

from ..admission import Admission, Decision
from ..config import ReaderConfig
from ..errors import ModelUnavailableError
from ..qwen_model import (  # noqa: F401 - re-exported: the reader's public helpers
    RUNTIME_OVERHEAD_BYTES,
    chat_prompt,
    estimate_need_bytes,
    generate,
    load_causal_lm,
    resolve_device,
    resolve_model_dir,
)
from .pack import Pack
from .plan import Plan
from .readers import ReaderOutput

if TYPE_CHECKING:
    from ..state import Resolution

SYSTEM_PROMPT = (
    "You answer questions about a robot's memory using only the evidence records shown. "
    "Each record starts with its ID in square brackets, then its time and speaker. "
    "Reply with one JSON object and nothing else: "
    '{"answer": "<short answer>", "sources": ["<ID of every record you used>"]}. '
    "Cite only IDs that appear in the evidence. If the evidence does not answer the "
    'question, reply {"answer": "UNKNOWN", "sources": []}.'
)
_CITATION = re.compile(r"\[([^\[\]\n]{1,200})\]")
_JSON = re.compile(r"\{.*?\}", re.S)
UNKNOWN = "UNKNOWN"


def instructions(plan: Plan) -> list[str]:
    """What the reader is told for this plan (one line each)."""
    out = ["Answer in a few words, not a sentence."]
    if plan.shape == "temporal" or plan.answer_type in ("date", "duration"):
        out.append("Give absolute dates (day month year), computed from each record's own time "
                   "for words like 'yesterday' or 'last week'.")
    if plan.current:
        out.append("Answer with the newest state: a later record that changes or cancels an "
                   "earlier one wins; records marked superseded are history.")
    else:
        out.append(f"Answer for the time the question names ({plan.time_text or 'the past'}), "
                   "not the current state.")
    if plan.as_of is not None or plan.window is not None:
        out.append("Use only records inside the time the question names.")
    if plan.needs_complete_set:
        out.append("List every distinct item (comma-separated), each once; for a count, count "
                   "distinct items.")
    if plan.needs_endpoints:
        out.append("Use the records of both ends of the period and compute the difference.")
    if plan.shape == "multi_hop":
        out.append("Chain the records that together answer it and cite each of them.")
    return out


def parse_citations(text: str, shown: list[str]) -> tuple[str, list[str]]:
    """Split free text into (answer without citations, cited IDs that were shown)."""
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


def parse_reply(text: str, shown: list[str]) -> tuple[str, list[str], list[str]]:
    """(answer, cited shown IDs, cited IDs that were not shown) from a generation.

    The JSON object of the contract is preferred; free text with bracketed IDs is
    accepted. ``UNKNOWN`` becomes an empty answer."""
    answer, raw_ids = "", []
    for blob in _JSON.findall(text):
        try:
            obj = json.loads(blob)
        except ValueError:
            continue
        if isinstance(obj, dict) and "answer" in obj:
            answer = str(obj.get("answer") or "").strip()
            sources = obj.get("sources") or obj.get("source_ids") or []
            raw_ids = [str(s).strip().strip("[]") for s in
                       (sources if isinstance(sources, list) else [sources])]
            break
    else:
        answer, _ = parse_citations(text, shown)
        raw_ids = [p.strip() for raw in _CITATION.findall(text) for p in re.split(r"[,;]\s*", raw)]
        answer = answer.strip().strip('"')
    shown_set = set(shown)
    cited = [i for i in dict.fromkeys(raw_ids) if i in shown_set]
    unshown = [i for i in dict.fromkeys(raw_ids) if i and i not in shown_set]
    if answer.upper().startswith(UNKNOWN):
        answer = ""
    return answer, cited, unshown


class QwenReader:
    name = "qwen-nf4"

    def __init__(self, config: ReaderConfig, admission: Admission | None = None,
                 holder: str = "query_node") -> None:
        self.config = config
        self.model_dir = resolve_model_dir(config.model_path)
        self.admission = admission
        self.holder = holder
        self.decision: Decision | None = None
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self.last_used = time.monotonic()
        self.model: Any = None
        self.tokenizer: Any = None
        self.device = "cpu"
        self.load()

    @property
    def loaded(self) -> bool:
        return self.model is not None

    def _admit(self) -> str:
        device = resolve_device(self.config.device)
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

    def load(self) -> None:
        """Admit (on a GPU), then load; raises ``ModelUnavailableError``."""
        with self._lock:
            if self.loaded:
                return
            self.device = self._admit()
            on_gpu = self.device.startswith("cuda")
            try:
                self.model, self.tokenizer = load_causal_lm(self.model_dir, self.device,
                                                            self.config.load_in_4bit)
            except ModelUnavailableError:
                if self.admission is not None and on_gpu:
                    self.admission.release(self.holder)
                raise
            if self.admission is not None and on_gpu:
                self.admission.mark_loaded(self.holder)
            self.last_used = time.monotonic()
            self._arm()

    def unload(self) -> None:
        """Free the model and release the GPU lease (the next question reloads it)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if not self.loaded:
                return
            self.model = None
            if self.device.startswith("cuda"):
                try:
                    import torch

                    torch.cuda.empty_cache()
                except Exception:  # noqa: BLE001 - freeing is best effort
                    pass
                if self.admission is not None:
                    self.admission.release(self.holder)

    def _arm(self) -> None:
        if self.config.idle_unload_s <= 0:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = threading.Timer(self.config.idle_unload_s, self._idle_check)
        self._timer.daemon = True
        self._timer.start()

    def _idle_check(self) -> None:
        with self._lock:
            idle = time.monotonic() - self.last_used
            if idle >= self.config.idle_unload_s:
                self.unload()
            else:
                self._arm()

    def close(self) -> None:
        self.unload()

    def prompt(self, question: str, plan: Plan, pack: Pack,
               resolution: Resolution | None = None) -> str:
        lines = [f"Evidence:\n{pack.render()}", ""]
        if resolution is not None and resolution.status == "answer" and resolution.value:
            lines.append(f"The memory's resolver says the current value is: {resolution.value}.")
        lines.append("Instructions: " + " ".join(instructions(plan)))
        lines.append(f"Question: {question}")
        lines.append("JSON:")
        return chat_prompt(self.tokenizer, SYSTEM_PROMPT, "\n".join(lines))

    def generate(self, prompt: str) -> str:
        return generate(self.model, self.tokenizer, prompt, self.config.max_new_tokens,
                        self._lock)  # type: ignore[arg-type]

    def read(self, question: str, plan: Plan, pack: Pack,
             resolution: Resolution | None = None) -> ReaderOutput:
        if not pack.items:
            return ReaderOutput("", [], self.name, "no evidence was shown")
        with self._lock:
            self.load()
            self.last_used = time.monotonic()
            text = self.generate(self.prompt(question, plan, pack, resolution))
            self.last_used = time.monotonic()
        answer, cited, unshown = parse_reply(text, pack.source_ids)
        notes = []
        if unshown:
            notes.append(f"rejected citations of records not shown: {', '.join(unshown)}")
        if not answer:
            notes.append("the reader found no answer in the evidence")
        elif not cited:
            notes.append("the reader's answer cited no shown source")
        return ReaderOutput(answer, cited if answer else [], self.name, "; ".join(notes))
