"""Where a question's CPU goes, stage by stage: the first time its records are read, then again.

    PYTHONPATH=. python tools/query_stages.py LEDGER --data locomo10.json [--samples K]
        [--passes N] [--read-records] [--json]

Asks the LoCoMo questions (categories 1-4) on a kept, consolidated ledger (``bench
locomo``'s ``locomo.db``, copied: opening it may write) in this fresh process, ``N`` times
over (default 2). The engine's stage clock reads the asking thread's CPU time
(``time.thread_time``) instead of the wall while this runs, so the figures hold on a
loaded machine, where wall stages move with the other work. The first pass reads every
record's text for the first time (what a restarted query node does); the second reads
them from the readings' caches (``language/caches.py``) and asks the same questions, so its
question-keyed caches are warm too: the gap between the passes bounds what keeping
readings can save. ``--read-records`` first reads every record of the asked subjects with
each cached per-text reading of the package (every module-level ``functools`` cache whose
one parameter is ``text``): the first pass then shows what readings kept per source (in
the ledger, say) would save at most. Prints p50 per stage and pass (ms of CPU) and
whether every pass showed and answered the same.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import inspect
import json
import sys
import time
import types
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

# The stages printed, in pipeline order (``QueryEngine.ask``'s ``timings_ms``).
STAGES = ("plan", "recall_lexical", "fuse", "graph", "currentness", "pack", "read", "total")


@contextlib.contextmanager
def cpu_clock() -> Iterator[None]:
    """The engine's stage timings in the calling thread's CPU time while inside."""
    from trace_ros.query import answer

    wall = answer.time
    answer.time = types.SimpleNamespace(perf_counter=time.thread_time, time=time.time)
    try:
        yield
    finally:
        answer.time = wall


def text_readings() -> list[Callable[[str], Any]]:
    """Every module-level ``functools`` cache of ``trace_ros`` (of the modules imported
    so far: the engine's) that reads one ``text``."""
    found = []
    for name, module in sorted(sys.modules.items()):
        if module is None or not name.startswith("trace_ros."):
            continue
        for obj in vars(module).values():
            if not (hasattr(obj, "cache_info") and getattr(obj, "__module__", "") == name):
                continue
            try:
                params = list(inspect.signature(obj).parameters)
            except (TypeError, ValueError):
                continue
            if params == ["text"]:
                found.append(obj)
    return found


def read_records(ledger: Any, subjects: Sequence[str]) -> dict[str, float]:
    """Read every record of ``subjects`` with each ``text_readings`` function; how many
    records, readings and CPU seconds that took."""
    from trace_ros.ledger import Scope

    texts = [r.text for s in subjects for r in ledger.sources_in_scope(Scope(s))]
    readings = text_readings()
    started = time.thread_time()
    for reading in readings:
        for text in texts:
            reading(text)
    return {"records": len(texts), "readings": len(readings),
            "cpu_s": round(time.thread_time() - started, 2)}


def p50(values: Sequence[float]) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def warmed(db: Path, data: Path, samples: int | None, encoder: Any = None
           ) -> tuple[Any, list[Any], Any]:
    """The config on ``db``, the LoCoMo questions of ``data`` and an encoder (loaded here
    when none is given) warmed on ``bench locomo``'s warm-up texts."""
    from trace_ros.bench.dataset import load_questions
    from trace_ros.bench.locomo import WARM_UP
    from trace_ros.config import load_config
    from trace_ros.embed import MiniLMEncoder
    from trace_ros.formats import read_locomo

    cfg = load_config(None, None, {"ledger.db_path": str(db)})
    questions = load_questions(read_locomo(str(data), samples), None)
    if encoder is None:
        encoder = MiniLMEncoder(cfg.embed)
        encoder.load()
    for text in WARM_UP:
        encoder.encode([text])
    return cfg, questions, encoder


def stages(db: Path, data: Path, samples: int | None = None, passes: int = 2,
           records: bool = False, encoder: Any = None) -> dict[str, Any]:
    """Per pass, p50 CPU ms of every stage (a stage over the questions that ran it) and
    their count; ``same``: whether every pass showed and answered alike."""
    from trace_ros.bench.evaluate import SharedEncoder, ask_system
    from trace_ros.ledger import Ledger
    from trace_ros.query.answer import QueryEngine
    from trace_ros.query.readers import make_reader

    cfg, questions, encoder = warmed(db, data, samples, encoder)
    out: dict[str, Any] = {"questions": len(questions), "passes": []}
    shown: list[list[tuple[Any, ...]]] = []
    with Ledger(db, cfg.ledger) as ledger:
        if records:
            out["read_records"] = read_records(ledger, sorted({q.sample_id for q in questions}))
        gc.collect()
        engine = QueryEngine(ledger, SharedEncoder(encoder), make_reader(cfg.reader), cfg.recall,
                             audit=False)
        try:
            for _ in range(passes):
                with cpu_clock():
                    runs = [ask_system(engine, q) for q in questions]
                shown.append([(tuple(r.source_ids), r.answer, r.status) for r in runs])
                out["passes"].append({
                    name: {"p50": round(p50(vals), 3), "n": len(vals)}
                    for name in STAGES
                    for vals in [[r.stages[name] for r in runs if name in r.stages]]})
        finally:
            engine.close()
    out["same"] = all(s == shown[0] for s in shown)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ledger", type=Path, help="a consolidated LoCoMo ledger (a copy)")
    parser.add_argument("--data", type=Path, required=True, help="locomo10.json")
    parser.add_argument("--samples", type=int, help="only the first K conversations")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--read-records", action="store_true",
                        help="read every record with each cached per-text reading first")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    if not args.ledger.is_file():
        print(f"error: no ledger at {args.ledger}", file=sys.stderr)
        return 2
    got = stages(args.ledger, args.data, args.samples, max(1, args.passes), args.read_records)
    if args.json:
        print(json.dumps(got))
        return 0
    if "read_records" in got:
        print("read records first: " + ", ".join(f"{k} {v}" for k, v in got["read_records"].items()))
    print(f"{'stage':15s}" + "".join(f" {'pass ' + str(i + 1):>9s}" for i in range(len(got["passes"]))))
    for name in STAGES:
        print(f"{name:15s}" + "".join(f" {p[name]['p50']:9.3f}" for p in got["passes"]))
    print(f"ms of CPU, p50; {got['questions']} questions; every pass the same: {got['same']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
