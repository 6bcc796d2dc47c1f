"""Where a LoCoMo question's CPU goes, function by function, and the collector's share.

    PYTHONPATH=. python tools/query_cpu.py LEDGER --data locomo10.json [--samples K]
        [--fn MODULE:QUALNAME ...] [--json]

Asks the LoCoMo questions (categories 1-4) once on a kept, consolidated ledger (a copy of
``bench locomo``'s ``locomo.db``), set up as ``bench locomo`` sets up its run (the encoder's
warm-up, dateparser's first use, the patterns compiled, then ``gc.freeze``), and reports,
per question, in the asking thread's CPU time (``time.thread_time``, so the figures hold on
a loaded machine):

- ``total``: the engine's own total (``tools/query_stages.py``'s clock);
- each ``--fn`` function's inclusive time (its outermost call only: a recursive or nested
  call is inside it), p50 and mean over the questions, and its calls. ``cProfile`` charges
  its own overhead to every call, so small functions called thousands of times look two
  to three times dearer there than they are; this wraps only the functions named;
- ``gc``: the cyclic collector's pauses inside the questions, p50 and mean, and the
  collections of each generation (a full one walks every object made since the freeze).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from query_stages import cpu_clock, p50, warmed


class Clocks:
    """CPU seconds per key, for the question being asked and in all."""

    def __init__(self) -> None:
        self.now: dict[str, float] = defaultdict(float)
        self.total: dict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()

    def add(self, key: str, seconds: float) -> None:
        self.now[key] += seconds
        self.total[key] += seconds
        self.calls[key] += 1


def _resolve(spec: str) -> tuple[Any, str, str]:
    """(owner, attribute, key) of ``module:name`` or ``module:Class.name``."""
    module_name, _, name = spec.partition(":")
    if not name:
        raise ValueError(f"{spec!r}: expected MODULE:QUALNAME")
    owner: Any = importlib.import_module(module_name)
    *outer, attr = name.split(".")
    for part in outer:
        owner = getattr(owner, part)
    getattr(owner, attr)  # AttributeError where there is none
    return owner, attr, f"{module_name.rsplit('.', 1)[-1]}.{name}"


@contextlib.contextmanager
def timed(specs: Sequence[str], clocks: Clocks) -> Iterator[None]:
    """Inside, each function of ``specs`` adds its inclusive thread CPU time to
    ``clocks`` (its outermost call only); put back as it was on leaving."""
    # (owner, attribute, what it held; None: it was inherited, so it is deleted again)
    restore: list[tuple[Any, str, Any]] = []

    def wrap(fn: Callable[..., Any], key: str) -> Callable[..., Any]:
        depth = [0]

        def timed_call(*args: Any, **kwargs: Any) -> Any:
            if depth[0]:
                return fn(*args, **kwargs)
            depth[0] += 1
            started = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                clocks.add(key, time.thread_time() - started)
                depth[0] -= 1

        return timed_call

    try:
        for spec in specs:
            owner, attr, key = _resolve(spec)
            own = vars(owner).get(attr)
            raw = own if own is not None else getattr(owner, attr)
            fn = raw.__func__ if isinstance(raw, staticmethod | classmethod) else raw
            new: Any = wrap(fn, key)
            if isinstance(raw, staticmethod | classmethod):
                new = type(raw)(new)
            restore.append((owner, attr, own))
            setattr(owner, attr, new)
        yield
    finally:
        for owner, attr, own in reversed(restore):
            if own is None:
                delattr(owner, attr)
            else:
                setattr(owner, attr, own)


@contextlib.contextmanager
def collector(clocks: Clocks) -> Iterator[None]:
    """Inside, every collection's thread CPU time is added to ``clocks`` under ``gc``
    (and counted under ``gc<generation>``)."""
    started = [0.0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.thread_time()
            return
        spent = time.thread_time() - started[0]
        clocks.add("gc", spent)
        clocks.calls[f"gc{info.get('generation', '?')}"] += 1

    gc.callbacks.append(callback)
    try:
        yield
    finally:
        gc.callbacks.remove(callback)


def profile(db: Path, data: Path, specs: Sequence[str], samples: int | None = None,
            encoder: Any = None) -> dict[str, Any]:
    """One pass over the questions; per key p50 and mean ms a question, calls."""
    from trace_ros.bench.evaluate import SharedEncoder, ask_system
    from trace_ros.language import timeanchor
    from trace_ros.language.lazyre import compile_all
    from trace_ros.ledger import Ledger
    from trace_ros.query.answer import QueryEngine
    from trace_ros.query.readers import make_reader

    cfg, questions, encoder = warmed(db, data, samples, encoder)
    timeanchor.warm()
    compile_all()
    clocks = Clocks()
    per: dict[str, list[float]] = defaultdict(list)
    keys = ["total", "gc", *(_resolve(s)[2] for s in specs)]
    with Ledger(db, cfg.ledger) as ledger:
        engine = QueryEngine(ledger, SharedEncoder(encoder), make_reader(cfg.reader), cfg.recall,
                             audit=False)
        gc.collect()
        gc.freeze()  # as ``bench locomo`` does after its warm-up
        try:
            with timed(specs, clocks), collector(clocks), cpu_clock():
                for q in questions:
                    clocks.now.clear()
                    run = ask_system(engine, q)
                    per["total"].append(run.stages.get("total", 0.0))
                    for key in keys[1:]:
                        per[key].append(clocks.now.get(key, 0.0) * 1000.0)
        finally:
            gc.unfreeze()
            engine.close()
    n = len(questions)
    out: dict[str, Any] = {"questions": n, "rows": {}}
    for key in keys:
        vals = per[key]
        out["rows"][key] = {"p50": round(p50(vals), 3),
                            "mean": round(sum(vals) / n, 3) if n else 0.0,
                            "calls": n if key == "total" else clocks.calls[key]}
    out["gc_collections"] = {g: clocks.calls[f"gc{g}"] for g in (0, 1, 2)}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ledger", type=Path, help="a consolidated LoCoMo ledger (a copy)")
    parser.add_argument("--data", type=Path, required=True, help="locomo10.json")
    parser.add_argument("--samples", type=int, help="only the first K conversations")
    parser.add_argument("--fn", action="append", default=[], metavar="MODULE:QUALNAME",
                        help="a function to time (repeatable), e.g. "
                             "trace_ros.query.readers:ExtractiveReader._read")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    if not args.ledger.is_file():
        print(f"error: no ledger at {args.ledger}", file=sys.stderr)
        return 2
    try:
        for spec in args.fn:
            _resolve(spec)
    except (ValueError, ImportError, AttributeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    got = profile(args.ledger, args.data, args.fn, args.samples)
    if args.json:
        print(json.dumps(got))
        return 0
    print(f"{'':45s} {'p50 ms':>8s} {'mean ms':>8s} {'calls':>7s}")
    for key, row in got["rows"].items():
        print(f"{key:45s} {row['p50']:8.3f} {row['mean']:8.3f} {row['calls']:7d}")
    print(f"ms of CPU a question; {got['questions']} questions; collections by generation "
          + ", ".join(f"{g}: {n}" for g, n in got["gc_collections"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
