"""The ``trace-ros`` command line: the engine without ROS, plus bring-up, demo and benchmarks.

Subcommands: up, demo, ingest, consolidate, query, graph, stats, forget, rebuild, bench, explore.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Sequence
from typing import Any

from .config import MemoryConfig, load_config
from .errors import TraceError, ValidationError
from .ledger import Ledger, Scope


def _config(args: argparse.Namespace) -> MemoryConfig:
    overrides: dict[str, Any] = {}
    if getattr(args, "db", None):
        overrides["ledger.db_path"] = args.db
    return load_config(getattr(args, "params", None), None, overrides)


def _open(cfg: MemoryConfig, create: bool = False) -> Ledger:
    """The configured ledger; only commands that store (ingest) create a new one."""
    return Ledger(cfg.db_path, cfg.ledger, create=create)


def _progress(total: int | None, desc: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="ev", disable=not sys.stderr.isatty() and total is None,
                file=sys.stderr)


def cmd_ingest(args: argparse.Namespace) -> int:
    """Store every good record; report each rejected one (line or source ID, field,
    reason) on stderr; exit 1 when any record was rejected."""
    from .capture import ingest
    from .formats import EventError, locomo_events, read_jsonl_lines, read_locomo

    cfg = _config(args)
    with _open(cfg, create=True) as ledger:
        if args.format == "locomo":
            items: list[tuple[str, Any]] = [("", e) for s in read_locomo(args.path, args.samples)
                                            for e in locomo_events(s)]
        else:
            items = list(read_jsonl_lines(args.path))
        errors = [e for _, e in items if isinstance(e, EventError)]
        good = [(where, e) for where, e in items if not isinstance(e, EventError)]
        with _progress(len(good), "capture") as bar:
            results = ingest(ledger, [e for _, e in good], cfg.capture, progress=bar.update)
        counts = {s: sum(r.status == s for r in results) for s in ("accepted", "duplicate",
                                                                    "rejected")}
        counts["rejected"] += len(errors)
        rejects = [(err.where, err.error.field, err.error.reason) for err in errors]
        rejects += [(where or r.source_id or "(no id)", r.field, r.reason)
                    for (where, _), r in zip(good, results, strict=True) if r.status == "rejected"]
        for where, field, reason in sorted(rejects, key=lambda x: _line_no(x[0])):
            print(f"rejected {where}: {field}: {reason}", file=sys.stderr)
        if not args.no_consolidate:
            counts["consolidated"] = _consolidate(ledger, cfg)
        print(json.dumps(counts))
    return 0 if counts["rejected"] == 0 else 1


def _line_no(where: str) -> int:
    number = where.removeprefix("line ")
    return int(number) if number.isdigit() else 0


def _consolidate(ledger: Ledger, cfg: MemoryConfig) -> int:
    """Project pending jobs into the evidence graph (embeddings, facts, edges,
    hierarchy) until none is due, with a progress bar: what the node does on its timer."""
    from .consolidation.project import build_projection
    from .consolidation.worker import Consolidator
    from .embed import MiniLMEncoder

    pending = ledger.job_counts()["pending"]
    if not pending:
        return 0
    projector, selector = build_projection(ledger, cfg)
    worker = Consolidator(ledger, MiniLMEncoder(cfg.embed), cfg.consolidation,
                          projector=projector, gate=selector)
    try:
        with _progress(pending, "consolidate") as bar:
            return worker.drain(progress=bar.update)
    finally:
        selector.close()


def cmd_consolidate(args: argparse.Namespace) -> int:
    cfg = _config(args)
    with _open(cfg) as ledger:
        print(json.dumps({"consolidated": _consolidate(ledger, cfg)}))
    return 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    cfg = _config(args)
    with _open(cfg) as ledger:
        # Derived state goes (vectors, FTS, facts, edges, topics); projecting every
        # source again in sequence order recreates the same graph.
        requeued = ledger.reset_derived()
        ledger.clear_graph()
        print(json.dumps({"requeued": requeued, "consolidated": _consolidate(ledger, cfg)}))
    return 0


def cmd_graph(args: argparse.Namespace) -> int:
    from .state import update_chains

    cfg = _config(args)
    with _open(cfg) as ledger, ledger.read():
        counts = ledger.graph_counts(args.subject)
        chains = update_chains(ledger, args.subject, entity=args.entity)
    if args.json:
        print(json.dumps({"subject": args.subject, "counts": counts,
                          "chains": [c.to_dict() for c in chains]}))
        return 0
    print(f"subject {args.subject}: {counts['facts']} facts, {counts['sessions']} sessions, "
          f"{counts['topics']} topics")
    for name in ("facts_by_type", "facts_by_status", "edges_by_type"):
        items = ", ".join(f"{k} {v}" for k, v in counts[name].items()) or "-"
        print(f"  {name.replace('_', ' ')}: {items}")
    print(f"update chains ({len(chains)}):")
    for chain in chains:
        print(f"  {chain.entity} {chain.relation}")
        for f in chain.revisions:
            until = _when(f.valid_to) if f.valid_to is not None else "now"
            value = ("not " if f.polarity == 0 else "") + (f.value or "-")
            print(f"    {value:<28} {_when(f.valid_from)} → {until:<16} {f.status:<10} "
                  f"{', '.join(f.source_ids)}")
    return 0


def _when(t: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M")


def cmd_query(args: argparse.Namespace) -> int:
    from .embed import MiniLMEncoder
    from .query.answer import QueryEngine, QueryRequest
    from .query.readers import make_reader

    cfg = _config(args)
    with _open(cfg) as ledger:
        engine = QueryEngine(ledger, MiniLMEncoder(cfg.embed), make_reader(cfg.reader), cfg.recall)
        req = QueryRequest(Scope(args.subject, args.robot, args.session), " ".join(args.question),
                           as_of_valid=args.as_of_valid, as_of_known=args.as_of_known,
                           token_budget=args.budget)
        result = engine.ask(req)
        out = result.to_dict()
        if args.json:
            print(json.dumps(out))
        else:
            print(f"[{out['status']}] {out['answer'] or '(no answer)'}")
            print(f"  sources: {', '.join(out['source_ids']) or '-'}  reader: {out['reader']}")
            for ev in out["evidence"]:
                mark = "*" if ev["source_id"] in out["source_ids"] else " "
                print(f" {mark} [{ev['source_id']}] {ev['speaker']}: {ev['text']}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    cfg = _config(args)
    with _open(cfg) as ledger:
        print(json.dumps(ledger.stats(), indent=2))
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    cfg = _config(args)
    scope = Scope(args.subject, args.robot, args.session) if args.subject else None
    with _open(cfg) as ledger:
        removed = ledger.forget(scope, args.source_id or [], args.allow_reingest)
        print(json.dumps({"removed": len(removed), "source_ids": removed}))
    return 0


def _delegate(module: str, argv: list[str]) -> int:
    import importlib

    return int(importlib.import_module(module).main(argv) or 0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trace-ros", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def with_db(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--db", help="ledger file (default: ledger.db_path of --params)")
        p.add_argument("--params", help="ROS parameter file (config/memory.yaml format)")
        return p

    sub.add_parser("up", help="start the three nodes (bring-up without the launch system)",
                   add_help=False)
    sub.add_parser("demo", help="bring up the nodes, stream a demo conversation, ask questions",
                   add_help=False)
    sub.add_parser("bench", help="benchmarks: capture | locomo | scale | updates | faults | load",
                   add_help=False)
    sub.add_parser("explore", help="read-only web explorer of a ledger", add_help=False)

    p = with_db(sub.add_parser("ingest", help="capture a JSONL or LoCoMo file"))
    p.add_argument("--format", choices=("jsonl", "locomo"), required=True)
    p.add_argument("--samples", type=int, default=None, help="locomo: only the first K")
    p.add_argument("--no-consolidate", action="store_true",
                   help="only capture; leave the projection jobs pending")
    p.add_argument("path")
    p.set_defaults(func=cmd_ingest)

    p = with_db(sub.add_parser("consolidate", help="run pending projection jobs"))
    p.set_defaults(func=cmd_consolidate)

    p = with_db(sub.add_parser("rebuild", help="recreate vectors, FTS, facts and edges from sources"))
    p.set_defaults(func=cmd_rebuild)

    p = with_db(sub.add_parser("graph", help="evidence graph counts and update chains"))
    p.add_argument("--subject", required=True)
    p.add_argument("--entity", default=None, help="only the chains of this entity")
    p.add_argument("--json", action="store_true", help="one JSON object on the last line")
    p.set_defaults(func=cmd_graph)

    p = with_db(sub.add_parser("query", help="ask a question within a scope"))
    p.add_argument("--subject", required=True)
    p.add_argument("--robot", default="")
    p.add_argument("--session", default="")
    p.add_argument("--as-of-valid", type=float, default=None, help="epoch seconds")
    p.add_argument("--as-of-known", type=float, default=None, help="epoch seconds")
    p.add_argument("--budget", type=int, default=0, help="evidence token budget")
    p.add_argument("--json", action="store_true", help="one JSON object on the last line")
    p.add_argument("question", nargs="+")
    p.set_defaults(func=cmd_query)

    p = with_db(sub.add_parser("stats", help="what the ledger holds"))
    p.set_defaults(func=cmd_stats)

    p = with_db(sub.add_parser("forget", help="remove a subject's or sources' records"))
    p.add_argument("--subject", default="")
    p.add_argument("--robot", default="")
    p.add_argument("--session", default="")
    p.add_argument("--source-id", action="append")
    p.add_argument("--allow-reingest", action="store_true")
    p.set_defaults(func=cmd_forget)
    return parser


DELEGATED = {
    "up": "trace_ros.nodes.bringup",
    "demo": "trace_ros.demo",
    "explore": "trace_ros.explore.app",
    "bench capture": "trace_ros.bench.capture",
    "bench locomo": "trace_ros.bench.locomo",
    "bench scale": "trace_ros.bench.scale",
    "bench updates": "trace_ros.bench.updates",
    "bench faults": "trace_ros.bench.faults",
    "bench load": "trace_ros.bench.load",
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("up", "demo", "explore"):
        return _delegate(DELEGATED[argv[0]], argv[1:])
    if argv and argv[0] == "bench":
        key = " ".join(argv[:2])
        if key not in DELEGATED:
            names = ",".join(k.split()[1] for k in DELEGATED if k.startswith("bench "))
            print(f"usage: trace-ros bench {{{names}}} [options]", file=sys.stderr)
            return 2
        return _delegate(DELEGATED[key], argv[2:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ValidationError as exc:
        print(f"error: {exc.field}: {exc.reason}", file=sys.stderr)
        return 2
    except (TraceError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:  # e.g. the disk filled up: one line, no traceback
        print(f"error: ledger: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())


