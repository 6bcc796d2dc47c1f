"""Optional fact extraction with the reader's Qwen model (NF4), behind the ``Extractor`` interface.

``LlmExtractor`` prompts the model with a chunk of numbered records and asks
for ONE strict JSON object of facts (type, participants, entity, relation,
value, polarity, description, time expression) and edges between them. The
output is parsed defensively (code fences and prose around the object are
tolerated; a wrong type, a missing description, a record number out of range are
not): malformed output makes the whole chunk fall back to the CPU extractor, and
the fallback is counted and noted on the chunk's jobs. A bad edge (unknown type,
an index out of range) costs only that edge: it is dropped, counted and noted.

The edges the model proposes are not taken on trust: the selector hands them to
the projector as ``proposed.ProposedEdge`` (ends mapped to fact IDs by source and
draft index, ``project.fact_id_for``), which applies each one when the later of
its sources is projected, under the rules' own checks (``proposed.py``), with the
confidence ``consolidation.llm_edge_confidence``. Drops are counted
(``llm_edges_dropped`` in ``state()``) and noted on the job.

``ExtractorSelector`` is what the consolidation worker and the projector see:
an ``Extractor`` (facts for one record) and a ``BatchGate`` (runs before each
batch, outside the write transaction). ``consolidation.extractor`` picks
``cpu`` (rules only), ``llm`` or ``auto``. The model is loaded once, on first
need, on ``consolidation.llm_device``; on a GPU it must be admitted first
(``admission.py``). Refused: with ``auto`` the batch uses the CPU extractor;
with ``llm`` it is deferred (``llm_when_refused: defer``, retried after
``llm_defer_s``) or uses the CPU extractor (``cpu``). Admission is asked again
at most every ``llm_defer_s``. Nothing here is keyed to any dataset.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..admission import Admission
from ..config import ConsolidationConfig, MemoryConfig
from ..errors import ConfigError, ModelUnavailableError
from ..facts import FACT_EDGE_TYPES, FACT_TYPES, RELATIONS, FactDraft, norm
from ..ledger import Job, SourceRecord
from .extract import ExtractContext, Extractor
from .project import fact_id_for
from .proposed import ProposedEdge, ProposedEnd

ROLE = "consolidation_llm"
SYSTEM_PROMPT = (
    "You turn a robot's memory records into facts. Reply with ONE JSON object and nothing else, "
    'of the form {"facts": [...], "edges": [...]}. Each fact: {"record": record number, '
    '"type": one of ' + ", ".join(FACT_TYPES) + ', "participants": [names], "entity": what the '
    'fact is about, "relation": one of ' + ", ".join(RELATIONS) + ' or "", "value": the '
    'attribute\'s value or "", "polarity": 1 if stated, 0 if denied ("no longer"), '
    '"description": one short sentence, "time": the time expression as written or ""}. '
    '"I", "me", "my" mean the record\'s speaker; "you" means its addressee. Give entity, relation '
    "and value only when the record sets an attribute (where someone lives or works, what they "
    "like, plan or own, where a thing is, its status). Each edge: {\"type\": one of "
    + ", ".join(FACT_EDGE_TYPES) + ', "from": fact index, "to": fact index, "why": short reason}, '
    "indices counting the facts above from 0; an edge says that fact 'from' updates, "
    "contradicts, causes, enables, prevents or happens before fact 'to'. "
    'If a record states nothing lasting, give it no fact. Empty: {"facts": [], "edges": []}.'
)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_FIRST_PERSON = {"i", "me", "my", "myself", "we", "us", "our"}
_SECOND_PERSON = {"you", "your", "yourself"}


class MalformedOutput(ValueError):
    """The model's reply is not the JSON object asked for; ``reason`` says what is wrong."""


@dataclass(frozen=True)
class LlmEdge:
    """An edge the model proposed: (record index, fact index within that record)
    for both ends, the type and its stated reason."""

    type: str
    src: tuple[int, int]
    dst: tuple[int, int]
    why: str = ""


@dataclass(frozen=True)
class ChunkResult:
    drafts: list[list[FactDraft]]  # aligned with the chunk's sources
    edges: list[LlmEdge]
    dropped_edges: tuple[str, ...] = ()  # why each bad edge was left out (lenient parse)


def render_records(sources: Sequence[SourceRecord], contexts: Sequence[ExtractContext]) -> str:
    lines = []
    for i, (src, ctx) in enumerate(zip(sources, contexts, strict=True), start=1):
        when = datetime.fromtimestamp(src.source_time, tz=UTC).strftime("%Y-%m-%d %H:%M %A")
        who = src.speaker or ("perception" if src.modality == "perception" else "unknown")
        to = f" to {ctx.addressee}" if ctx.addressee else ""
        lines.append(f"{i}. [{when}] {who}{to}: {src.text}")
    return "Records:\n" + "\n".join(lines) + "\nJSON:"


def _json_object(text: str) -> dict[str, Any]:
    """The first JSON object with a "facts" key in ``text`` (fences and prose tolerated)."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for cand in candidates:
        for m in re.finditer(r"\{", cand):
            try:
                obj, _end = decoder.raw_decode(cand, m.start())
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict) and "facts" in obj:
                return obj
    raise MalformedOutput("no JSON object with a 'facts' list")


def _text(value: Any, field: str) -> str:
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise MalformedOutput(f"{field}: expected a string, got {type(value).__name__}")
    return value.strip()


def _resolve_time(expr: str, source: SourceRecord) -> tuple[float, str, bool]:
    """(anchor time, expression, fell back) against the record's own time."""
    if expr:
        try:
            from ..language.timeanchor import is_future, resolve, resolve_expression
        except ImportError:  # pragma: no cover - the time module ships with the package
            return source.source_time, "", True
        anchor = resolve(expr, source.source_time)
        if not anchor.fallback:
            return anchor.time, anchor.text, False
        when = resolve_expression(expr, source.source_time, is_future(source.text))
        if when is not None:
            return when, expr, False
    return source.source_time, "", True


def _participants(raw: Any, source: SourceRecord, ctx: ExtractContext) -> tuple[str, ...]:
    if raw is None:
        raw = []
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        raise MalformedOutput("participants: expected a list of names")
    out: list[str] = []
    for p in raw:
        name = p.strip()
        low = name.lower()
        if low in _FIRST_PERSON and source.speaker:
            name = source.speaker
        elif low in _SECOND_PERSON and ctx.addressee:
            name = ctx.addressee
        if name and name not in out:
            out.append(name)
    return tuple(out)


def _draft(obj: Any, source: SourceRecord, ctx: ExtractContext) -> FactDraft:
    if not isinstance(obj, dict):
        raise MalformedOutput("a fact is not an object")
    ftype = _text(obj.get("type"), "type").lower()
    if ftype not in FACT_TYPES:
        raise MalformedOutput(f"type: {ftype!r} is not one of {', '.join(FACT_TYPES)}")
    description = _text(obj.get("description"), "description")
    if not description:
        raise MalformedOutput("description: empty")
    entity = norm(_text(obj.get("entity"), "entity"))
    relation = re.sub(r"\s+", "_", _text(obj.get("relation"), "relation").lower())
    value = norm(_text(obj.get("value"), "value"))
    if not (entity and relation):
        entity = relation = ""
    polarity = obj.get("polarity", 1)
    if isinstance(polarity, bool):
        polarity = int(polarity)
    if polarity not in (0, 1):
        raise MalformedOutput(f"polarity: {polarity!r} is not 0 or 1")
    anchor, anchor_text, fallback = _resolve_time(_text(obj.get("time"), "time"), source)
    return FactDraft(type=ftype, description=description, anchor_time=anchor,
                     participants=_participants(obj.get("participants"), source, ctx),
                     entity=entity, relation=relation, value=value, polarity=int(polarity),
                     anchor_text=anchor_text, anchor_fallback=fallback, confidence=0.9)


def parse_output(text: str, sources: Sequence[SourceRecord],
                 contexts: Sequence[ExtractContext],
                 dropped: list[str] | None = None) -> ChunkResult:
    """Parse the model's reply for a chunk of ``sources``; raises ``MalformedOutput``.

    With a ``dropped`` list, a bad edge is left out and its reason appended there
    (and to the result's ``dropped_edges``) instead of failing the whole reply."""
    obj = _json_object(text)
    facts = obj.get("facts")
    edges = obj.get("edges", [])
    if not isinstance(facts, list):
        raise MalformedOutput("facts: expected a list")
    if not isinstance(edges, list):
        raise MalformedOutput("edges: expected a list")
    drafts: list[list[FactDraft]] = [[] for _ in sources]
    where: list[tuple[int, int]] = []  # fact index -> (record index, index within record)
    for fact in facts:
        record = fact.get("record", 1 if len(sources) == 1 else None) if isinstance(fact, dict) \
            else None
        if isinstance(record, bool) or not isinstance(record, int) \
                or not 1 <= record <= len(sources):
            raise MalformedOutput(f"record: {record!r} is not a record number 1..{len(sources)}")
        i = record - 1
        drafts[i].append(_draft(fact, sources[i], contexts[i]))
        where.append((i, len(drafts[i]) - 1))
    out_edges: list[LlmEdge] = []
    bad: list[str] = []
    for edge in edges:
        try:
            out_edges.append(_edge(edge, where))
        except MalformedOutput as exc:
            if dropped is None:
                raise
            bad.append(str(exc))
    if dropped is not None:
        dropped.extend(bad)
    return ChunkResult(drafts, out_edges, tuple(bad))


def _edge(edge: Any, where: list[tuple[int, int]]) -> LlmEdge:
    if not isinstance(edge, dict):
        raise MalformedOutput("an edge is not an object")
    etype = _text(edge.get("type"), "edge type").lower()
    if etype not in FACT_EDGE_TYPES:
        raise MalformedOutput(f"edge type: {etype!r} is not one of {', '.join(FACT_EDGE_TYPES)}")
    ends = [edge.get("from"), edge.get("to")]
    if not all(isinstance(e, int) and not isinstance(e, bool) and 0 <= e < len(where)
               for e in ends) or ends[0] == ends[1]:
        raise MalformedOutput(f"edge {ends!r}: indices must name two different facts")
    return LlmEdge(etype, where[ends[0]], where[ends[1]], _text(edge.get("why"), "why"))


class LlmExtractor:
    """Facts from the Qwen model; malformed output falls back to ``fallback``."""

    name = "qwen-nf4-llm"

    def __init__(self, model_dir: Path, device: str, fallback: Extractor, *,
                 load_in_4bit: bool = True, max_new_tokens: int = 512,
                 model: Any = None, tokenizer: Any = None) -> None:
        from ..qwen_model import load_causal_lm

        self.model_dir = Path(model_dir)
        self.device = device
        self.fallback = fallback
        self.max_new_tokens = max_new_tokens
        if model is None:
            model, tokenizer = load_causal_lm(self.model_dir, device, load_in_4bit)
        self.model, self.tokenizer = model, tokenizer
        self._lock = threading.Lock()
        self.chunks = 0
        self.fallbacks = 0
        self.last_fallback = ""

    def generate(self, prompt: str) -> str:
        from ..qwen_model import generate

        return generate(self.model, self.tokenizer, prompt, self.max_new_tokens, self._lock)

    def prompt(self, sources: Sequence[SourceRecord], contexts: Sequence[ExtractContext]) -> str:
        from ..qwen_model import chat_prompt

        return chat_prompt(self.tokenizer, SYSTEM_PROMPT, render_records(sources, contexts))

    def extract_chunk(self, sources: Sequence[SourceRecord], contexts: Sequence[ExtractContext]
                      ) -> tuple[ChunkResult | None, str]:
        """(parsed result, "") or (None, why it was malformed); the caller falls back.
        Bad edges alone do not make a reply malformed (``ChunkResult.dropped_edges``)."""
        self.chunks += 1
        text = self.generate(self.prompt(sources, contexts))
        try:
            return parse_output(text, sources, contexts, []), ""
        except MalformedOutput as exc:
            self.fallbacks += 1
            self.last_fallback = str(exc)
            return None, str(exc)

    def extract(self, source: SourceRecord, context: ExtractContext) -> list[FactDraft]:
        result, _why = self.extract_chunk([source], [context])
        if result is None:
            return list(self.fallback.extract(source, context))
        return result.drafts[0]


def batch_contexts(sources: Sequence[SourceRecord]) -> list[ExtractContext]:
    """Contexts a batch alone can give: the addressee is the previous other speaker
    of the same conversation within the batch."""
    last: dict[tuple[str, str, str], str] = {}
    out: list[ExtractContext] = []
    for s in sources:
        key = (s.subject_id, s.robot_id, s.session_id)
        prev = last.get(key, "")
        out.append(ExtractContext(addressee=prev if prev != s.speaker else ""))
        if s.speaker and s.modality == "dialogue":
            last[key] = s.speaker
    return out


LlmFactory = Callable[[str], LlmExtractor]  # device -> loaded extractor


class ExtractorSelector:
    """Chooses the extractor per batch (cpu | llm | auto) under GPU admission.

    Used as the projector's ``Extractor`` and as the worker's ``BatchGate``: the
    LLM runs in ``before_batch`` (outside the write transaction) and its drafts
    are served from a cache by ``extract``; records it could not handle go to
    the CPU extractor with the projector's own context.

    It is also the projector's ``proposed.EdgeProposer``: the model's edges wait,
    keyed by the source that completes them, until the projector checks them.
    What the projector drops is noted on the job through the dict ``notes()``
    handed to the worker for this batch (the worker records it after projecting).
    """

    def __init__(self, config: ConsolidationConfig, cpu: Extractor, *, model_path: str = "",
                 load_in_4bit: bool = True, admission: Admission | None = None,
                 llm_factory: LlmFactory | None = None) -> None:
        from ..qwen_model import estimate_need_bytes, resolve_model_dir

        self.config = config
        self.cpu = cpu
        self.admission = admission
        self.reason = ""
        self.llm: LlmExtractor | None = None
        self.device = ""
        self.deferred_batches = 0
        self._cache: dict[int, list[FactDraft]] = {}
        self.edges: dict[int, list[LlmEdge]] = {}  # by source seq, this batch's LLM edges
        self._proposals: dict[int, list[ProposedEdge]] = {}  # by the seq that completes them
        self._job_of: dict[int, int] = {}  # source seq -> job ID, this batch
        self.edges_added = 0
        self.edges_dropped = 0
        self._notes: dict[int, str] = {}
        self._handed: dict[int, str] | None = None  # this batch's notes, once handed out
        self._next_try = 0.0
        self._unavailable = ""
        self.model_dir: Path | None = None
        self.need_bytes = 0
        if config.extractor not in {"cpu", "llm", "auto"}:
            raise ConfigError(
                f"consolidation.extractor: {config.extractor!r} is not cpu, llm or auto")
        if config.extractor != "cpu" and llm_factory is None:
            try:
                self.model_dir = resolve_model_dir(model_path)
            except ModelUnavailableError as exc:
                if config.extractor == "llm":
                    raise
                self._unavailable = str(exc)
            if self.model_dir is not None:
                self.need_bytes = estimate_need_bytes(self.model_dir, load_in_4bit)
                model_dir = self.model_dir

                def llm_factory(device: str) -> LlmExtractor:
                    return LlmExtractor(model_dir, device, cpu, load_in_4bit=load_in_4bit,
                                        max_new_tokens=config.llm_max_new_tokens)
        self._factory = llm_factory

    @property
    def name(self) -> str:
        return self.llm.name if self.llm is not None else self.cpu.name

    def _ensure_llm(self) -> LlmExtractor | None:
        if self.llm is not None:
            return self.llm
        if self._unavailable:
            self.reason = f"llm extractor unavailable: {self._unavailable}"
            return None
        now = time.time()
        if now < self._next_try:
            return None  # keep the last refusal's reason until admission is asked again
        from ..qwen_model import resolve_device

        device = resolve_device(self.config.llm_device)
        on_gpu = device.startswith("cuda")
        if on_gpu and self.admission is not None:
            decision = self.admission.request(ROLE, self.need_bytes, device)
            if not decision.admitted:
                self.reason = f"GPU admission refused: {decision.reason}"
                self._next_try = now + self.config.llm_defer_s
                return None
        assert self._factory is not None
        try:
            self.llm = self._factory(device)
        except ModelUnavailableError as exc:
            if on_gpu and self.admission is not None:
                self.admission.release(ROLE)
            if self.config.extractor == "llm":
                raise
            self._unavailable = str(exc)
            self.reason = f"llm extractor unavailable: {exc}"
            return None
        if on_gpu and self.admission is not None:
            self.admission.mark_loaded(ROLE)
        self.device = device
        self.reason = ""
        return self.llm

    def before_batch(self, jobs: list[Job]) -> float | None:
        self._cache.clear()
        self.edges.clear()
        # Proposals the last batch never reached (a fenced job, a source left without facts).
        self.edges_dropped += sum(len(v) for v in self._proposals.values())
        self._proposals.clear()
        self._job_of = {j.source.seq: j.job_id for j in jobs}
        self._notes.clear()
        self._handed = None
        if self.config.extractor == "cpu":
            return None
        llm = self._ensure_llm()
        if llm is None:
            if self._unavailable and self.config.extractor == "auto":
                return None  # no local weights: auto means the CPU rules (state() says why)
            if self.config.extractor == "llm" and self.config.llm_when_refused == "defer":
                self.deferred_batches += 1
                return self.config.llm_defer_s
            self._notes.update((j.job_id, f"cpu extractor: {self.reason}") for j in jobs)
            return None
        size = max(1, self.config.llm_chunk)
        for start in range(0, len(jobs), size):
            chunk = jobs[start:start + size]
            sources = [j.source for j in chunk]
            result, why = llm.extract_chunk(sources, batch_contexts(sources))
            if result is None:
                self._notes.update((j.job_id, f"llm output malformed ({why}); cpu extractor used")
                                   for j in chunk)
                continue
            for i, j in enumerate(chunk):
                self._cache[j.source.seq] = result.drafts[i]
            for edge in result.edges:
                self.edges.setdefault(chunk[edge.src[0]].source.seq, []).append(edge)
                p = _proposal(edge, sources, result.drafts)
                self._proposals.setdefault(p.due_seq, []).append(p)
            if result.dropped_edges:
                self.settle(chunk[0].source.seq, 0, list(result.dropped_edges))
        return None

    def notes(self) -> dict[int, str]:
        out, self._notes = self._notes, {}
        self._handed = out
        return out

    def proposals_for(self, seq: int) -> list[ProposedEdge]:
        return self._proposals.pop(seq, [])

    def settle(self, seq: int, added: int, dropped: list[str]) -> None:
        self.edges_added += added
        self.edges_dropped += len(dropped)
        job = self._job_of.get(seq)
        if not dropped or job is None:
            return
        notes = self._handed if self._handed is not None else self._notes
        note = f"llm edges dropped ({len(dropped)}): " + "; ".join(dropped)
        notes[job] = f"{notes[job]}; {note}" if notes.get(job) else note

    def extract(self, source: SourceRecord, context: ExtractContext) -> list[FactDraft]:
        cached = self._cache.get(source.seq)
        if cached is not None:
            return list(cached)
        return self.cpu.extract(source, context)

    def close(self) -> None:
        if self.llm is not None and self.admission is not None and self.device.startswith("cuda"):
            self.admission.release(ROLE)
        self.llm = None

    def state(self) -> dict[str, Any]:
        """Flat values for /diagnostics."""
        out: dict[str, Any] = {
            "extractor_mode": self.config.extractor, "extractor": self.name,
            "llm_device": self.device or "-", "llm_deferred_batches": self.deferred_batches,
            "llm_fallback_chunks": self.llm.fallbacks if self.llm is not None else 0,
            "llm_edges_added": self.edges_added, "llm_edges_dropped": self.edges_dropped,
            "extractor_reason": self.reason or "-"}
        if self.admission is not None:
            out.update(self.admission.state())
        return out


def _proposal(edge: LlmEdge, sources: Sequence[SourceRecord],
              drafts: Sequence[Sequence[FactDraft]]) -> ProposedEdge:
    """An edge of the model with its ends named as the projector will store them."""
    def end(at: tuple[int, int]) -> ProposedEnd:
        src = sources[at[0]]
        return ProposedEnd(src.subject_id, src.seq, fact_id_for(src.source_id, at[1]),
                           drafts[at[0]][at[1]].description)

    return ProposedEdge(edge.type, end(edge.src), end(edge.dst), edge.why)


def make_selector(config: MemoryConfig, cpu: Extractor) -> ExtractorSelector:
    """The selector a node or command uses: the reader's model and NF4 setting, the
    GPU lease table beside the ledger, the reader's reserve. Raises
    ``ModelUnavailableError`` for ``extractor: llm`` without local weights."""
    from ..admission import lease_file_for

    admission = None
    if config.consolidation.extractor != "cpu":
        admission = Admission(lease_file_for(config.db_path), config.reader.gpu_reserve_mb << 20)
    return ExtractorSelector(config.consolidation, cpu, model_path=config.reader.model_path,
                             load_in_4bit=config.reader.load_in_4bit, admission=admission)
