"""``trace-ros bench scale``: how capture, query latency, memory and disk grow with the memory.

    trace-ros bench scale [--sources 10000,100000[,1000000]] [--out DIR]
                          [--embed | --synthetic-vectors]
                          [--ledger-url postgresql://… | --engine postgresql]

For each size a fresh ledger is filled with the seeded synthetic memory
(``synth.py``) through ``capture.ingest``, then the same fixed question set is
asked through ``QueryEngine``. Each size runs in its own child process, so its
peak RSS is its own. Embedding a million sources on a CPU takes hours, so by
default nothing is consolidated and queries use lexical recall only (labelled
``lexical-only`` in the output); ``--embed`` consolidates with MiniLM and
queries the full pipeline. ``--synthetic-vectors`` makes the dense routes live without
MiniLM (``synthvec.py``): every source gets a seeded unit vector of the encoder's
dimension (and a 'window' one) through the ledger's vector API, and questions are
embedded the same way — the cost of both routes at any size, not their recall (labelled
``lexical+dense (synthetic vectors)``; on ``--reuse-db`` they are written only when
missing, timed as ``vectors_s``). The first question about each subject loads that
subject's vectors, facts and graph view into memory (a running node pays this once
per subject); it is timed apart (``cold_ms``) and the question set is timed after
(``query_ms``, with per-stage ``stages_ms``; ``query_cpu_ms``: the process's CPU time
a question, all its threads: on a machine others load, the question's own work).
``--keep-db`` keeps each size's ledger
and ``--reuse-db`` measures the queries again on a kept one (no capture, no
consolidation). Writes ``DIR/scale.json`` and ``DIR/scale.png`` and prints a table.

On PostgreSQL: ``--ledger-url postgresql://…`` names an empty database (one size only:
the benchmark never empties a database; ``--reuse-db`` measures a filled one again), and
``--engine postgresql`` without it starts a server of its own with ``pgserver`` in a
temporary folder, one fresh database per size, removed at the end. The figures are the
same as on SQLite; ``db_mb`` is ``pg_database_size``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import platform
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ..cliargs import ArgParser, non_negative_int, positive_int
from .engines import add_engine_options, own_server, postgresql_target
from .progress import bar

CHUNK = 10_000


def measure_size(size: int, seed: int, subjects: int, n_questions: int, embed: bool,
                 db_path: str, keep_db: bool, params: str | None,
                 reuse_db: bool = False, pg_url: str | None = None,
                 synthetic_vectors: bool = False) -> dict[str, Any]:
    """Fill a fresh ledger with ``size`` synthetic sources and time capture and queries
    (``reuse_db``: a kept ledger of this size, queries only). ``pg_url``: an empty
    PostgreSQL database instead of the SQLite file ``db_path`` (filled: only with
    ``reuse_db``)."""
    from ..config import load_config
    from ..consolidation.worker import Consolidator
    from ..embed import MiniLMEncoder
    from ..ledger import Scope
    from ..query.answer import QueryEngine, QueryRequest
    from ..query.readers import ExtractiveReader
    from .metrics import latency_summary, status_counts
    from .resources import db_mb, peak_rss_mb, remove_db
    from .synth import questions
    from .synthvec import SeededEncoder, missing, write_vectors

    cfg = load_config(params)
    ledger, reuse = _open(cfg, db_path, pg_url, reuse_db)
    row: dict[str, Any] = {"sources": size, "query_mode": query_mode(embed, synthetic_vectors),
                           "engine": "postgresql" if pg_url else "sqlite", "reused_db": reuse}
    with ledger:
        row.update(accepted=None, capture_s=None, events_per_s=None, consolidation_s=None,
                   vectors_s=None)
        if not reuse:
            row.update(fill(ledger, size, seed, subjects, cfg))
        encoder: Any = None
        if synthetic_vectors:
            encoder = SeededEncoder(seed)
            row["vectors"] = {"kind": "synthetic", "model": encoder.name, "dim": encoder.dim,
                              "seed": seed, "owner_kinds": ["source", "window"]}
            if missing(ledger, encoder):
                t = time.perf_counter()
                with bar(ledger.count_sources(), "synthetic vectors", "src") as b:
                    write_vectors(ledger, encoder, progress=b.update)
                row["vectors_s"] = time.perf_counter() - t
        if embed:
            encoder = MiniLMEncoder(cfg.embed)
            encoder.load()
            if not reuse:
                t = time.perf_counter()
                with bar(size, f"consolidate {size:,}", "src") as b:
                    Consolidator(ledger, encoder, cfg.consolidation).drain(progress=b.update)
                row["consolidation_s"] = time.perf_counter() - t
        engine = QueryEngine(ledger, encoder, ExtractiveReader(), cfg.recall, audit=False)
        asked = questions(n_questions, seed, subjects)
        load_before = os.getloadavg()  # other work on these cores shapes every figure
        cold = []
        for subject in dict.fromkeys(q.subject_id for q in asked):
            t = time.perf_counter()
            engine.ask(QueryRequest(Scope(subject), "warm-up question"))
            cold.append((time.perf_counter() - t) * 1000.0)
        latencies, cpu, statuses = [], [], []
        stages: dict[str, list[float]] = defaultdict(list)
        for q in asked:
            t, c = time.perf_counter(), time.process_time()
            result = engine.ask(QueryRequest(Scope(q.subject_id), q.question))
            latencies.append((time.perf_counter() - t) * 1000.0)
            cpu.append((time.process_time() - c) * 1000.0)
            statuses.append(result.status)
            for stage, ms in result.timings_ms.items():
                stages[stage].append(ms)
        size_mb = db_mb(db_path) if pg_url is None \
            else ledger.stats()["db_bytes"] / (1024.0 * 1024.0)
    row["load_avg"] = {"before": [round(x, 2) for x in load_before],
                       "after": [round(x, 2) for x in os.getloadavg()]}
    row.update(query_ms=latency_summary(latencies), query_cpu_ms=latency_summary(cpu),
               cold_ms=latency_summary(cold),
               stages_ms={k: latency_summary(v) for k, v in sorted(stages.items())},
               status=status_counts(statuses), peak_rss_mb=peak_rss_mb(), db_mb=size_mb)
    if pg_url is None and not keep_db and not reuse_db:
        remove_db(db_path)
    return row


def query_mode(embed: bool, synthetic_vectors: bool) -> str:
    if synthetic_vectors:
        return "lexical+dense (synthetic vectors)"
    return "lexical+dense" if embed else "lexical-only"


def _open(cfg: Any, db_path: str, pg_url: str | None, reuse_db: bool) -> tuple[Any, bool]:
    """The ledger to fill (a fresh SQLite file, or an empty PostgreSQL database) or, with
    ``reuse_db``, a filled one; and whether it is reused. Raises ``TraceError`` for a
    filled PostgreSQL database without ``reuse_db``."""
    from ..errors import TraceError
    from ..ledger import Ledger
    from ..storage import open_ledger, parse_ledger_url
    from .resources import remove_db

    if pg_url is None:
        reuse = reuse_db and Path(db_path).is_file()
        if not reuse:
            remove_db(db_path)
        return Ledger(db_path, cfg.ledger), reuse
    ledger = open_ledger(parse_ledger_url(pg_url, "--ledger-url"), cfg.ledger,
                         field="--ledger-url")
    filled = ledger.count_sources() > 0
    if filled and not reuse_db:
        ledger.close()
        raise TraceError(f"--ledger-url: {pg_url} is not empty; the benchmark needs an empty "
                         "database (it never deletes one), or --reuse-db to measure it again")
    return ledger, filled


def fill(ledger: Any, size: int, seed: int, subjects: int, cfg: Any) -> dict[str, Any]:
    """Capture ``size`` synthetic sources; the capture figures."""
    from ..capture import ingest
    from .synth import generate

    events = generate(size, seed, subjects)
    accepted = 0
    t = time.perf_counter()
    with bar(size, f"capture {size:,}", "ev") as b:
        while chunk := list(itertools.islice(events, CHUNK)):
            results = ingest(ledger, chunk, cfg.capture, progress=b.update)
            accepted += sum(r.status == "accepted" for r in results)
    capture_s = time.perf_counter() - t
    return {"accepted": accepted, "capture_s": capture_s, "events_per_s": size / capture_s}


def run_isolated(**kwargs: Any) -> dict[str, Any]:
    """``measure_size`` in a fresh child process (its own peak RSS, nothing cached)."""
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
        return pool.submit(measure_size, **kwargs).result()


def table(rows: Sequence[dict[str, Any]]) -> str:
    header = ["sources", "capture ev/s", "consolidation s", "query mode", "p50 ms", "p95 ms",
              "p99 ms", "first per subject ms", "peak RSS MB", "DB MB"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        q = r["query_ms"]
        cons = "–" if r["consolidation_s"] is None else f"{r['consolidation_s']:.1f}"
        rate = "(reused)" if r["events_per_s"] is None else f"{r['events_per_s']:,.0f}"
        lines.append(f"| {r['sources']:,} | {rate} | {cons} | {r['query_mode']} | "
                     f"{q['p50']:.2f} | {q['p95']:.2f} | {q['p99']:.2f} | "
                     f"{r['cold_ms']['p50']:.1f} | {r['peak_rss_mb']:.0f} | {r['db_mb']:.1f} |")
    return "\n".join(lines)


def plot(rows: Sequence[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [r["sources"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for key in ("p50", "p95", "p99"):
        left.plot(xs, [r["query_ms"][key] for r in rows], marker="o", label=f"query {key}")
    left.set(xscale="log", yscale="log", xlabel="sources in the ledger", ylabel="ms",
             title=f"query latency ({rows[0]['query_mode']})")
    left.legend()
    left.grid(alpha=0.3, which="both")
    right.plot(xs, [r["db_mb"] for r in rows], marker="o", color="tab:green", label="ledger MB")
    right.plot(xs, [r["peak_rss_mb"] for r in rows], marker="s", color="tab:red",
               label="peak RSS MB")
    right.set(xscale="log", yscale="log", xlabel="sources in the ledger", ylabel="MB",
              title="disk and memory")
    twin = right.twinx()
    twin.plot(xs, [r["events_per_s"] for r in rows], marker="^", color="tab:blue", ls="--",
              label="capture events/s")
    twin.set_ylabel("capture events/s")
    right.legend(loc="upper left")
    twin.legend(loc="lower right")
    right.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = ArgParser(prog="trace-ros bench scale", description=__doc__,
                  formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sources", default="10000,100000", help="comma-separated sizes")
    p.add_argument("--out", default="bench-out/scale", help="output folder")
    p.add_argument("--seed", type=non_negative_int, default=7)
    p.add_argument("--subjects", type=positive_int, default=8)
    p.add_argument("--questions", type=positive_int, default=100, help="questions asked per size")
    vectors = p.add_mutually_exclusive_group()
    vectors.add_argument("--embed", action="store_true",
                         help="consolidate with MiniLM and query the full pipeline (slow on CPU)")
    vectors.add_argument("--synthetic-vectors", action="store_true",
                         help="seeded unit vectors (MiniLM's dimension) for every source and "
                              "question: the dense routes live at any size, without MiniLM")
    p.add_argument("--keep-db", action="store_true", help="keep DIR/scale-<size>.db")
    p.add_argument("--reuse-db", action="store_true",
                   help="measure queries on a kept DIR/scale-<size>.db (no capture/consolidation)")
    p.add_argument("--params", default=None, help="ROS parameter file (config/memory.yaml format)")
    add_engine_options(p)
    args = p.parse_args(list(argv))
    try:
        args.sizes = [int(s.replace("_", "")) for s in args.sources.split(",") if s.strip()]
    except ValueError:
        p.error("--sources: comma-separated integers, e.g. 10000,100000")
    if not args.sizes or min(args.sizes) < 1 or args.subjects < 1 or args.questions < 1:
        p.error("--sources, --subjects and --questions must be positive")
    url = postgresql_target(p, args)
    if url is not None and len(args.sizes) != 1:
        p.error("--ledger-url: one size per database (--sources N), or --engine "
                "postgresql for a server of its own")
    args.pg_url = None if url is None else str(url)
    return args


def _fresh_database(admin: Any, name: str) -> str:
    """A new database ``name`` on the server of ``admin``; its URL."""
    from ..storage.postgresql.admin import fresh_database

    return str(fresh_database(admin, name))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    server = admin = None
    if args.engine == "postgresql" and args.pg_url is None:
        server, admin = own_server(Path(tempfile.mkdtemp(prefix="trace_ros_scale_pg_")),
                                   "bench scale")
    try:
        for size in args.sizes:
            pg_url = args.pg_url
            if admin is not None:
                pg_url = _fresh_database(admin, f"scale_{size}")
            rows.append(run_isolated(size=size, seed=args.seed, subjects=args.subjects,
                                     n_questions=args.questions, embed=args.embed,
                                     db_path=str(out / f"scale-{size}.db"),
                                     keep_db=args.keep_db, params=args.params,
                                     reuse_db=args.reuse_db, pg_url=pg_url,
                                     synthetic_vectors=args.synthetic_vectors))
    finally:
        if server is not None:
            server.cleanup()
    report = {"schema_version": 1, "engine": rows[0]["engine"], "seed": args.seed, "subjects": args.subjects,
              "questions": args.questions, "query_mode": rows[0]["query_mode"],
              "vectors": rows[0].get("vectors"),
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                          "platform": platform.platform()},
              "sizes": rows}
    (out / "scale.json").write_text(json.dumps(report, indent=2) + "\n")
    plot(rows, out / "scale.png")
    print(table(rows))
    for r in rows:
        c = r.get("query_cpu_ms") or {}
        if c.get("p50") is not None:
            print(f"{r['sources']:,} sources, CPU ms a question p50/p95: "
                  f"{c['p50']:.2f}/{c['p95']:.2f}; load {r['load_avg']['before'][0]:.1f} -> "
                  f"{r['load_avg']['after'][0]:.1f}")
        slow = sorted(r["stages_ms"].items(), key=lambda kv: -(kv[1]["p50"] or 0))[:6]
        print(f"{r['sources']:,} sources, stage p50/p95 ms: " + ", ".join(
            f"{k} {v['p50']:.2f}/{v['p95']:.2f}" for k, v in slow))
    print(f"report: {out / 'scale.json'}, plot: {out / 'scale.png'}")
    return 0
