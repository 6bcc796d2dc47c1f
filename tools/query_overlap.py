"""Whether embedding the question on a worker thread beside the text search pays, here.

    PYTHONPATH=. python tools/query_overlap.py LEDGER --data locomo10.json [--samples K]
        [--reps N] [--json]

Asks the LoCoMo questions (categories 1-4) on a kept, consolidated ledger (``bench
locomo``'s ``locomo.db``, copied: opening it may write) with two engines on one ledger
and encoder, ``recall.overlap_embedding`` on and off, each question by both one after
the other (which goes first alternates), after a pass that reads every record once, so
that the machine's load moves both alike. Per setting: p50 of each question's wall
time, of the asking thread's CPU time and of the engine's (wall) stages; with the
overlap, ``handoff``: from the start of ``begin_recall`` to the worker starting the
embedding (waiting to be scheduled, then for the interpreter lock), and ``wake``: from
the worker's end to the asking thread going on. Then the paired difference (on - off,
ms) and the share of questions the overlap answered sooner, and whether both settings
showed and answered alike (they must: the setting moves time only).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from query_stages import warmed  # (tools/, this script's own folder)

# Stages printed (``QueryEngine.ask``'s ``timings_ms``, wall), in pipeline order.
STAGES = ("plan", "recall_lexical", "embed", "embed_wait", "fuse", "graph", "currentness",
          "pack", "read", "total")
SETTINGS = ("on", "off")


def timed(engine: Any, stamps: dict[str, float]) -> None:
    """Wrap ``engine``'s recall steps (on the instance) to stamp, in ``stamps``, when
    ``begin_recall`` began (``begin``), the embedding started and ended (``start``,
    ``done``) and ``recall`` returned (``woke``)."""
    begin, embed, recall = engine.begin_recall, engine._embed_and_search, engine.recall

    def begin_recall(*args: Any, **kw: Any) -> Any:
        stamps["begin"] = time.perf_counter()
        return begin(*args, **kw)

    def embed_and_search(*args: Any, **kw: Any) -> Any:
        stamps["start"] = time.perf_counter()
        try:
            return embed(*args, **kw)
        finally:
            stamps["done"] = time.perf_counter()

    def recalled(*args: Any, **kw: Any) -> Any:
        try:
            return recall(*args, **kw)
        finally:
            stamps["woke"] = time.perf_counter()

    engine.begin_recall, engine._embed_and_search, engine.recall = \
        begin_recall, embed_and_search, recalled


def _p50(values: Sequence[float]) -> float:
    return round(statistics.median(values), 3) if values else 0.0


def compare(db: Path, data: Path, samples: int | None = None, reps: int = 1,
            encoder: Any = None) -> dict[str, Any]:
    """Per setting, p50s (ms) of ``wall``, ``cpu``, ``handoff``, ``wake`` and each stage;
    ``paired``: the median and mean of on - off per question and the share the overlap
    answered sooner; ``same``: whether both settings showed and answered alike."""
    from trace_ros.ledger import Ledger, Scope
    from trace_ros.query.answer import QueryEngine, QueryRequest
    from trace_ros.query.readers import make_reader

    cfg, questions, encoder = warmed(db, data, samples, encoder)
    rows: dict[str, list[dict[str, float]]] = {s: [] for s in SETTINGS}
    shown: dict[str, list[tuple[Any, ...]]] = {s: [] for s in SETTINGS}
    with Ledger(db, cfg.ledger) as ledger:
        engines, stamps = {}, {}
        for setting in SETTINGS:
            recall = dataclasses.replace(cfg.recall, overlap_embedding=setting == "on")
            engines[setting] = QueryEngine(ledger, encoder, make_reader(cfg.reader), recall,
                                           audit=False)
            stamps[setting] = {}
            timed(engines[setting], stamps[setting])
        try:
            for q in questions:  # every record read once: both settings find them read
                engines["off"].ask(QueryRequest(Scope(q.sample_id), q.question))
            gc.collect()
            for rep in range(reps):
                for i, q in enumerate(questions):
                    for setting in SETTINGS if (i + rep) % 2 == 0 else SETTINGS[::-1]:
                        engine, st = engines[setting], stamps[setting]
                        engine._vectors.clear()  # the question's vector is made again
                        wall, cpu = time.perf_counter(), time.thread_time()
                        result = engine.ask(QueryRequest(Scope(q.sample_id), q.question))
                        row = {"wall": (time.perf_counter() - wall) * 1e3,
                               "cpu": (time.thread_time() - cpu) * 1e3, **result.timings_ms}
                        if setting == "on" and "start" in st:
                            row["handoff"] = (st["start"] - st["begin"]) * 1e3
                            row["wake"] = (st["woke"] - st["done"]) * 1e3
                        st.clear()
                        rows[setting].append(row)
                        if rep == 0:
                            shown[setting].append((tuple(result.source_ids), result.answer,
                                                   result.status))
        finally:
            for engine in engines.values():
                engine.close()
    out: dict[str, Any] = {"questions": len(questions), "reps": reps}
    for setting in SETTINGS:
        out[setting] = {name: _p50([r[name] for r in rows[setting] if name in r])
                        for name in ("wall", "cpu", "handoff", "wake", *STAGES)}
    diff = [a["wall"] - b["wall"] for a, b in zip(rows["on"], rows["off"], strict=True)]
    out["paired"] = {"median": _p50(diff),
                     "mean": round(statistics.mean(diff), 3) if diff else 0.0,
                     "on_sooner": round(sum(d < 0 for d in diff) / max(1, len(diff)), 3)}
    out["same"] = shown["on"] == shown["off"]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ledger", type=Path, help="a consolidated LoCoMo ledger (a copy)")
    parser.add_argument("--data", type=Path, required=True, help="locomo10.json")
    parser.add_argument("--samples", type=int, help="only the first K conversations")
    parser.add_argument("--reps", type=int, default=1, help="times each pair is asked")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    if not args.ledger.is_file():
        print(f"error: no ledger at {args.ledger}", file=sys.stderr)
        return 2
    got = compare(args.ledger, args.data, args.samples, max(1, args.reps))
    if args.json:
        print(json.dumps(got))
        return 0
    names = ("wall", "cpu", "handoff", "wake", *STAGES)
    print(f"{'ms, p50':15s}" + "".join(f" {s:>9s}" for s in SETTINGS))
    for name in names:
        print(f"{name:15s}" + "".join(f" {got[s][name]:9.3f}" for s in SETTINGS))
    p = got["paired"]
    print(f"on - off per question: median {p['median']:.3f} ms, mean {p['mean']:.3f} ms; "
          f"overlap sooner for {p['on_sooner']:.1%} of {got['questions'] * got['reps']}; "
          f"both alike: {got['same']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
