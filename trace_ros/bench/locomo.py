"""``trace-ros bench locomo``: LoCoMo through the real engine, baselines in the same run.

    trace-ros bench locomo --data PATH --out DIR [--samples K] [--questions N]
                           [--ablate graph,hierarchy,update_seeds,lexical,dense]
                           [--question-encoders static]

1. A fresh ledger (``DIR/locomo.db``) captures every conversation as its own
   subject, then consolidates it as the consolidation node does (embeddings,
   facts, links, hierarchy).
2. Every category 1-4 question goes through ``QueryEngine.ask`` and, on the same
   ledger and vectors, through the dense / bm25 / hybrid baselines.
3. Each ablated component adds one row; a component the engine does not have is
   reported as not applicable, never measured. Each ``--question-encoders`` value
   adds a row too: the system with that ``recall.question_encoder`` (the dense
   routes' question vector) instead of the configured one.
4. Writes ``DIR/report.json`` (keys documented in ``report.py``), ``report.md``,
   ``questions.jsonl`` and two PNG plots, and prints the summary table.

Nothing here is tuned on the benchmark: it only reads questions to ask them and
gold answers / evidence to score them.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..capture import ingest
from ..cliargs import ArgParser, add_ledger_url, ledger_file, positive_int
from ..config import MemoryConfig, load_config
from ..consolidation.project import build_projection
from ..consolidation.worker import Consolidator
from ..embed import MiniLMEncoder
from ..errors import ConfigError, TraceError
from ..formats import locomo_events, read_locomo
from ..language import timeanchor
from ..language.lazyre import compile_all
from ..ledger import Ledger, Scope
from ..query import answer as answer_mod
from ..query.answer import QueryEngine
from ..query.readers import Reader, make_reader
from ..storage import LedgerURL, open_ledger, parse_ledger_url
from ..storage.url import POSTGRESQL
from .baselines import Baselines
from .dataset import Question, evidence_problems, load_questions, turn_ids
from .evaluate import SharedEncoder, render_tokens, run_ablation, run_questions
from .metrics import TOP_K
from .plots import plot_categories, plot_latency_cdf
from .progress import bar
from .report import build_report, summary_table, write_report
from .resources import db_mb, peak_rss_mb, remove_db

# Components DESIGN.md names; one the engine does not have yet is "not applicable".
DESIGN_COMPONENTS = ("graph", "hierarchy", "update_seeds", "lexical", "dense")
# What --question-encoders may name (recall.question_encoder).
QUESTION_ENCODERS = ("minilm", "static", "cascade")
WARM_UP = ("warm-up sentence one", "a second warm-up sentence", "and a third")


def engine_components() -> tuple[str, ...]:
    """What ``QueryEngine`` can run without (its ``COMPONENTS``, else its recall routes)."""
    return tuple(getattr(QueryEngine, "COMPONENTS", answer_mod.ROUTES))


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = ArgParser(prog="trace-ros bench locomo", description=__doc__,
                  formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="locomo10.json")
    p.add_argument("--out", required=True, help="output folder (report, plots, ledger)")
    p.add_argument("--samples", type=positive_int, default=None, help="only the first K conversations")
    p.add_argument("--questions", type=positive_int, default=None,
                   help="at most N questions per conversation (file order, categories 1-4)")
    p.add_argument("--ablate", default="", help="comma-separated components to remove, one row each")
    p.add_argument("--question-encoders", default="",
                   help="comma-separated recall.question_encoder values (minilm, static, cascade), "
                   "one row each")
    p.add_argument("--params", default=None, help="ROS parameter file (config/memory.yaml format)")
    p.add_argument("--reader", choices=("extractive", "qwen", "auto"), default=None,
                   help="reader (default: reader.kind of --params, else extractive)")
    p.add_argument("--db", default=None, help="ledger file (default DIR/locomo.db; recreated); "
                   "or --ledger-url postgresql://… (an empty database)")
    p.add_argument("--reuse-db", action="store_true",
                   help="ask again on the SQLite ledger a former run left (same --data, "
                   "--samples): no capture, no consolidation; built as usual when absent")
    add_ledger_url(p)
    args = p.parse_args(list(argv))
    args.pg_url = _postgresql_url(p, args)
    if args.pg_url is None:
        ledger_file(p, args)
    elif args.reuse_db:
        p.error("--reuse-db: only for a SQLite ledger")
    for name in ("samples", "questions"):
        value = getattr(args, name)
        if value is not None and value < 1:
            p.error(f"--{name} must be at least 1")
    args.ablate = [a.strip() for a in args.ablate.split(",") if a.strip()]
    args.question_encoders = [e.strip() for e in args.question_encoders.split(",") if e.strip()]
    wrong = [e for e in args.question_encoders if e not in QUESTION_ENCODERS]
    if wrong:
        p.error(f"--question-encoders: unknown {', '.join(wrong)}; known: "
                f"{', '.join(QUESTION_ENCODERS)}")
    unknown = [a for a in args.ablate if a not in DESIGN_COMPONENTS + engine_components()]
    if unknown:
        p.error(f"--ablate: unknown component(s) {', '.join(unknown)}; "
                f"known: {', '.join(dict.fromkeys(DESIGN_COMPONENTS + engine_components()))}")
    return args


def _postgresql_url(p: argparse.ArgumentParser, args: argparse.Namespace) -> LedgerURL | None:
    """The PostgreSQL ledger ``--ledger-url`` names (an empty database: the benchmark
    never wipes one), or None for a SQLite file (``--db`` or a sqlite: URL)."""
    if not args.ledger_url:
        return None
    try:
        url = parse_ledger_url(args.ledger_url, "--ledger-url")
    except ConfigError as exc:
        p.error(str(exc))
    if url.engine != POSTGRESQL:
        return None
    if args.db:
        p.error("--ledger-url: give --db or --ledger-url, not both")
    return url


def _open(args: argparse.Namespace, db_path: Path, cfg: MemoryConfig) -> Ledger:
    """A fresh SQLite file, or the (empty) PostgreSQL ledger of ``--ledger-url``."""
    if args.pg_url is None:
        remove_db(db_path)
        return Ledger(db_path, cfg.ledger)
    ledger = open_ledger(args.pg_url, cfg.ledger, field="--ledger-url")
    if ledger.count_sources():
        ledger.close()
        raise TraceError(f"--ledger-url: {args.pg_url} is not empty; the benchmark needs an "
                         "empty database (it never deletes one)")
    return ledger


def reused(ledger: Ledger, samples: list[dict[str, Any]]) -> dict[str, Any]:
    """The ingest figures of a kept ledger (nothing captured or consolidated now).
    Raises ``TraceError`` when it is not the consolidated ledger of ``samples``."""
    events = sum(1 for s in samples for _ in locomo_events(s))
    pending = ledger.job_counts().get("pending", 0)
    subjects = {str(s["sample_id"]) for s in samples}
    held = {sid for sid in subjects if ledger.count_sources(sid)}
    if pending or held != subjects:
        raise TraceError(f"--reuse-db: {ledger.path} is not the consolidated ledger of these "
                         f"conversations ({pending} jobs pending, {len(held)} of "
                         f"{len(subjects)} subjects); run once without --reuse-db")
    return {"events": events, "accepted": None, "rejected": None, "capture_s": None,
            "events_per_s": None, "consolidated": 0, "model_load_s": None,
            "consolidation_s": None, "reused_db": True}


def capture_and_consolidate(ledger: Ledger, samples: list[dict[str, Any]], cfg: MemoryConfig,
                            encoder: MiniLMEncoder) -> dict[str, Any]:
    events = [e for s in samples for e in locomo_events(s)]
    t = time.perf_counter()
    with bar(len(events), "capture", "ev") as b:
        results = ingest(ledger, events, cfg.capture, progress=b.update)
    capture_s = time.perf_counter() - t
    t = time.perf_counter()
    encoder.load()
    load_s = time.perf_counter() - t
    t = time.perf_counter()
    # The same consolidation the node runs: embeddings, facts, links, hierarchy.
    projector, gate = build_projection(ledger, cfg)
    try:
        with bar(ledger.job_counts()["pending"], "consolidate", "src") as b:
            done = Consolidator(ledger, encoder, cfg.consolidation, projector=projector,
                                gate=gate).drain(progress=b.update)
    finally:
        gate.close()
    consolidation_s = time.perf_counter() - t
    return {"events": len(events), "accepted": sum(r.status == "accepted" for r in results),
            "rejected": sum(r.status == "rejected" for r in results), "capture_s": capture_s,
            "events_per_s": len(events) / capture_s if capture_s > 0 else None,
            "consolidated": done, "model_load_s": load_s, "consolidation_s": consolidation_s}


def ablate(ledger: Ledger, encoder: SharedEncoder, reader: Reader, cfg: MemoryConfig,
           names: list[str], questions: list[Question],
           question_encoders: Sequence[str] = ()) -> dict[str, Any]:
    """One row per ablated component, then one per question encoder (``<value>``: the
    system with ``recall.question_encoder`` set to it). A question encoder's row encodes
    its questions again (no vector replayed from the system's run): its latency is what
    that encoder costs."""
    have = engine_components()
    out: dict[str, Any] = {}
    for value in question_encoders:
        recall = dataclasses.replace(cfg.recall, question_encoder=value)
        engine = QueryEngine(ledger, SharedEncoder(encoder.inner), reader, recall, audit=False)
        with bar(len(questions), f"question encoder {value}", "q") as b:
            out[f"question_encoder={value}"] = run_ablation(engine, questions, progress=b.update)
        engine.close()
    for name in names:
        if name not in have:
            out[name] = "not a query component of this build"
            continue
        engine = QueryEngine(ledger, encoder.replaying(), reader, cfg.recall, ablate={name},
                             audit=False)
        with bar(len(questions), f"ablate {name}", "q") as b:
            out[name] = run_ablation(engine, questions, progress=b.update)
    return out


def run(args: argparse.Namespace) -> int:
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    db_path = Path(args.db) if args.db else out_dir / "locomo.db"
    overrides: dict[str, Any] = {"ledger.db_path": str(db_path)}
    if args.reader:
        overrides["reader.kind"] = args.reader
    cfg = load_config(args.params, None, overrides)
    samples = read_locomo(args.data, args.samples)
    questions = load_questions(samples, args.questions)
    encoder = MiniLMEncoder(cfg.embed)
    reader = make_reader(cfg.reader)
    reuse = args.reuse_db and db_path.is_file()
    with (Ledger(db_path, cfg.ledger) if reuse else _open(args, db_path, cfg)) as ledger:
        if reuse:
            ingest_stats = reused(ledger, samples)
            encoder.load()
        else:
            ingest_stats = capture_and_consolidate(ledger, samples, cfg, encoder)
        for text in WARM_UP:  # first single-sentence calls are slow; keep them out of timings
            encoder.encode([text])
        # dateparser's first use (~0.3-0.5 s), which a node does at configure
        # (``QueryEngine.warm``), kept out of the first dated question's time likewise.
        timeanchor.warm()
        compile_all()  # the query pipeline's patterns likewise (``QueryEngine.warm``)
        # What is loaded now (model, ledger caches) lives for the whole run: kept out of the
        # collector's sight, as the memory node does at activation, a full collection walks
        # only what the questions made, not every cached text and vector again.
        gc.collect()
        gc.freeze()
        shared = SharedEncoder(encoder)
        engine = QueryEngine(ledger, shared, reader, cfg.recall, audit=False)
        baselines = Baselines(ledger, encoder.name, cfg.recall.dense_k, cfg.recall.rrf_k)
        with bar(len(questions), "questions", "q") as b:
            runs = run_questions(ledger, engine, shared, reader, baselines, questions, b.update)
        ablations = ablate(ledger, shared, reader, cfg, args.ablate, questions,
                           args.question_encoders)
        full_tokens = {str(s["sample_id"]): render_tokens(ledger.sources_in_scope(
            Scope(str(s["sample_id"])))) for s in samples}
        sources = ledger.count_sources()
        graph = ledger.graph_counts()
        size_mb = (db_mb(db_path) if args.pg_url is None
                   else round(ledger.stats()["db_bytes"] / 1e6, 1))
    gc.unfreeze()
    invalid, excluded = evidence_problems(questions)
    data = {"file": str(args.data), "conversations": len(samples),
            "sample_ids": [str(s["sample_id"]) for s in samples],
            "turns": sum(len(turn_ids(s)) for s in samples), "sources": sources,
            "questions": len(questions), "scorable": sum(q.scorable for q in questions),
            "questions_per_conversation_cap": args.questions,
            "invalid_evidence": invalid, "excluded": excluded}
    config = {"reader": reader.name, "embed_model": encoder.name, "k": TOP_K,
              "components": list(engine_components()), "recall": asdict(cfg.recall),
              "baseline_k": cfg.recall.dense_k, "ablate": args.ablate,
              "question_encoders": args.question_encoders,
              "ledger": "sqlite" if args.pg_url is None else POSTGRESQL}
    memory = {"peak_rss_mb": peak_rss_mb(), "db_mb": size_mb}
    report = build_report(runs, ablations, data=data, config=config, ingest=ingest_stats,
                          memory=memory, full_tokens=full_tokens, graph=graph)
    write_report(out_dir, report, runs)
    latencies = {"trace_ros": [r.system.latency_ms for r in runs]}
    latencies.update({n: [r.baselines[n].latency_ms for r in runs] for n in report["baselines"]})
    plot_categories(report, out_dir / "metrics_by_category.png")
    plot_latency_cdf(latencies, out_dir / "latency_cdf.png")
    print("\n".join(summary_table(report)))
    print(f"report: {out_dir / 'report.json'}, {out_dir / 'report.md'}, plots in {out_dir}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return run(args)
    except (TraceError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
