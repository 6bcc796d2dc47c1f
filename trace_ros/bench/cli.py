"""``trace-ros bench cli``: the wall time of ``trace-ros query``, as a person or a script pays it.

    trace-ros bench cli [--sources 40000] [--questions 20] [--db PATH] [--rebuild] [--json]

Each question is one ``trace-ros query`` child process (a new interpreter, as from a
shell), timed from spawn to exit, first with no node running (``local``: the command
answers in its own process) and then with a query node serving the ledger (``node``: the
command reads the node's presence record and asks it on its Unix socket, or over ROS
where it has none: ``trace_ros.nodeask``). Both runs use the default
``--via auto``, so they measure what the decision costs too; the path each call took is
checked, and so is that both runs gave the same answers (status, answer, cited IDs).

The ledger is the seeded synthetic memory of ``bench scale`` (``synth.py``: 8 subjects
by default), captured and then consolidated in full (vectors, facts, edges, hierarchy), so
that a question loads what it would load on a real robot's ledger. Consolidation is the
slow part (17.8 sources/s measured on a busy 2-core machine: 37 minutes for 40,000), so
the ledger is built once, with a progress bar, and kept (``--db``, default
``bench-out/cli/cli-<sources>.db``): a later run reuses it when it holds at least
``--sources`` sources and no pending job, and an interrupted build resumes where it stopped
(capture is skipped once the sources are there; consolidation drains what is left).
``--rebuild`` starts afresh.

Before the calls the package's bytecode is brought up to date (``compileall``), as an
installed package has it: in a working tree that others edit, with
``PYTHONDONTWRITEBYTECODE=1`` in the environment, every call would otherwise compile the
changed modules again (0.1-0.3 s a call measured), which no user pays.

With ``--json`` the last line is ``{"local": {"p50", "p95"}, "node": {"p50", "p95"}, ...}``
in seconds (numpy percentiles over the questions), with the ledger's size, the number of
questions, whether the answers matched and the load average at the start.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..cliargs import ArgParser, non_negative_int, positive_int
from .progress import bar

NODE_TIMEOUT_S = 180.0
CALL_TIMEOUT_S = 120.0


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = ArgParser(prog="trace-ros bench cli", description=__doc__,
                  formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sources", type=positive_int, default=40_000,
                   help="sources in the ledger (default 40000)")
    p.add_argument("--questions", type=positive_int, default=20,
                   help="questions asked each way (default 20)")
    p.add_argument("--seed", type=non_negative_int, default=7)
    p.add_argument("--subjects", type=positive_int, default=8)
    p.add_argument("--db", default=None,
                   help="the ledger to build or reuse (default bench-out/cli/cli-<sources>.db)")
    p.add_argument("--rebuild", action="store_true", help="build the ledger afresh")
    p.add_argument("--params", default=None, help="ROS parameter file (config/memory.yaml format)")
    p.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = p.parse_args(list(argv))
    args.db = Path(args.db or f"bench-out/cli/cli-{args.sources}.db").expanduser().resolve()
    return args


def build_ledger(db: Path, sources: int, seed: int, subjects: int, params: str | None,
                 rebuild: bool) -> dict[str, Any]:
    """Make ``db`` hold ``sources`` synthetic sources, all consolidated (see the module
    docstring); what was done and how long it took."""
    from ..config import load_config
    from ..consolidation.project import build_projection
    from ..consolidation.worker import Consolidator
    from ..embed import MiniLMEncoder
    from ..errors import TraceError
    from ..ledger import Ledger
    from .resources import remove_db
    from .scale import fill

    if rebuild:
        remove_db(str(db))
    db.parent.mkdir(parents=True, exist_ok=True)
    cfg = load_config(params)
    out: dict[str, Any] = {"captured_s": None, "consolidated_s": None}
    with Ledger(db, cfg.ledger) as ledger:
        have = ledger.count_sources()
        if have == 0:
            t = time.perf_counter()
            fill(ledger, sources, seed, subjects, cfg)
            out["captured_s"] = round(time.perf_counter() - t, 1)
        elif have < sources:
            raise TraceError(f"bench cli: {db} holds {have:,} sources, fewer than "
                             f"--sources {sources:,}; use --rebuild or another --db")
        pending = ledger.job_counts()["pending"]
        if pending:
            projector, selector = build_projection(ledger, cfg)
            worker = Consolidator(ledger, MiniLMEncoder(cfg.embed), cfg.consolidation,
                                  projector=projector, gate=selector)
            t = time.perf_counter()
            try:
                with bar(pending, f"consolidate {pending:,}", "src") as b:
                    worker.drain(progress=b.update)
            finally:
                selector.close()
            out["consolidated_s"] = round(time.perf_counter() - t, 1)
        out["sources"] = ledger.count_sources()
    return out


def ask(db: Path, subject: str, question: str, env: dict[str, str],
        params: str | None) -> tuple[float, dict[str, Any]]:
    """One ``trace-ros query`` call: (wall seconds from spawn to exit, its JSON answer)."""
    cmd = [sys.executable, "-P", "-m", "trace_ros.cli", "query", "--db", str(db), "--subject",
           subject, "--json", *(["--params", params] if params else []), question]
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=CALL_TIMEOUT_S)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"trace-ros query failed ({done.returncode}): {done.stderr.strip()}")
    return wall, json.loads(done.stdout.strip().splitlines()[-1])


def run_questions(db: Path, asked: Sequence[Any], env: dict[str, str], params: str | None,
                  path: str | tuple[str, ...], label: str
                  ) -> tuple[list[float], list[dict[str, Any]]]:
    """Wall seconds and answers of every question; each call's path must start with
    ``path`` (or one of them)."""
    walls, answers = [], []
    with bar(len(asked), f"trace-ros query ({label})", "q") as b:
        for q in asked:
            wall, out = ask(db, q.subject_id, q.question, env, params)
            if not out["path"].startswith(path):
                raise RuntimeError(f"expected the {path} path, the call took {out['path']!r}")
            walls.append(wall)
            answers.append(out)
            b.update(1)
    return walls, answers


def start_node(db: Path, params: str | None, namespace: str) -> list[Any]:
    """A query node serving ``db``, once its presence record is live (or raises)."""
    from ..nodes import bringup
    from ..presence import live_nodes
    from ..storage.url import sqlite_url

    params_file = Path(params) if params else bringup.default_params_file()
    procs = bringup.start(("query_node",), params_file, bringup.overrides_for(str(db), []),
                          log_level="warn", namespace=namespace)
    deadline = time.monotonic() + NODE_TIMEOUT_S
    url = sqlite_url(db)
    while not any(r.namespace == "/" + namespace for r in live_nodes(url)):
        if procs[0].poll() is not None:
            raise RuntimeError(f"query_node exited with status {procs[0].returncode}")
        if time.monotonic() > deadline:
            bringup.stop(procs)
            raise TimeoutError(f"query_node did not announce itself in {NODE_TIMEOUT_S:.0f} s")
        time.sleep(0.1)
    return procs


def fresh_bytecode() -> None:
    """Compile what is stale in the ``trace_ros`` package (see the module docstring)."""
    import compileall

    compileall.compile_dir(str(Path(__file__).resolve().parents[1]), quiet=2)
    compileall.compile_dir(str(Path(__file__).parents[1]), quiet=2)


def summary(walls: Sequence[float]) -> dict[str, float]:
    import numpy as np

    p50, p95 = np.percentile(np.asarray(walls, dtype=float), [50, 95])
    return {"p50": round(float(p50), 3), "p95": round(float(p95), 3)}


def same_answer(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return (a["status"], a["answer"], a["source_ids"]) == (b["status"], b["answer"],
                                                            b["source_ids"])


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from ..nodes.bringup import child_env
    from .synth import questions

    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    built = build_ledger(args.db, args.sources, args.seed, args.subjects, args.params,
                         args.rebuild)
    asked = questions(args.questions, args.seed, args.subjects)
    fresh_bytecode()
    env = child_env()
    load = os.getloadavg()[0]
    local, local_answers = run_questions(args.db, asked, env, args.params, "local", "no node")
    namespace = f"bench_cli_{os.getpid()}"
    from ..nodes import bringup

    procs = start_node(args.db, args.params, namespace)
    try:
        node, node_answers = run_questions(args.db, asked, env, args.params, ("node", "ros"),
                                           "query node running")
    finally:
        bringup.stop(procs)
    matched = sum(same_answer(a, b) for a, b in zip(local_answers, node_answers, strict=True))
    # The answering alone (the engine's timings_ms.total, in ms): what is left of the wall
    # time is the command's start, its imports, ROS and its exit.
    inside = {name: summary([a["timings_ms"].get("total", 0.0) for a in answers])
              for name, answers in (("local", local_answers), ("node", node_answers))}
    report = {"local": summary(local), "node": summary(node), "sources": built["sources"],
              "questions": len(asked), "answers_matched": matched, "answer_ms": inside,
              "load_avg_1m": round(load, 2), "cores": os.cpu_count(), "ledger": str(args.db),
              "built": {k: v for k, v in built.items() if k != "sources"}}
    print(f"trace-ros query wall time over {len(asked)} questions on {built['sources']:,} "
          f"sources (seconds, spawn to exit; load average {load:.2f} on {os.cpu_count()} cores)")
    for name, walls in (("local", local), ("node", node)):
        s = report[name]
        print(f"  {name:<6} p50 {s['p50']:.2f}  p95 {s['p95']:.2f}  max {max(walls):.2f}   "
              f"(answering alone: p50 {inside[name]['p50'] / 1000:.2f}, "
              f"p95 {inside[name]['p95'] / 1000:.2f})")
    print(f"  the same answer both ways for {matched} of {len(asked)} questions")
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
