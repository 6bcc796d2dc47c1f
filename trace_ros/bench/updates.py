"""``trace-ros bench updates``: does the memory know what is current, what was, and what it never heard?

    trace-ros bench updates [--seed N] [--subjects K] [--sessions S] [--json] [--out DIR]
    trace-ros bench updates --natural [--locomo FILE] [--json] [--out DIR]
    … [--ledger-url postgresql://… | --engine postgresql]

(``--natural``: the hand-written sets of ``updates_natural.py``.)

The ledger is a fresh SQLite file (DIR/updates.db, or a temporary folder); with
``--ledger-url postgresql://…`` an empty PostgreSQL database, with ``--engine postgresql``
alone a server of its own (``pgserver``) with a fresh database (``engines.py``). Both
engines must give the same figures (``docs/pg-updates.md``).

A seeded history (``histories.py``) in which things change is captured through
``capture.ingest`` into a fresh ledger (DIR/updates.db, or a temporary folder),
consolidated (``GraphProjector`` with the ``CpuExtractor`` when they exist, else
embeddings only, as the notes say), then probed at two levels:

resolver  ``trace_ros.state.resolve`` on each probe's (entity, relation):
          update_precision (of the ``updates`` edges touching a probed
          statement, those joining two revisions of one key, newer → older) /
          update_recall (consecutive revision pairs joined by such an edge),
          current_accuracy (status answer and the current value), as_of_accuracy
          (the value held at a date between two revisions), conflict_recall (an
          open contradiction comes back as conflict citing both sides),
          false_answer_rate (a never-stated key is not *missing*), n (probes).
query     natural-language questions through ``QueryEngine.ask`` (extractive
          reader): current_at1 / superseded_at1 (the first cited source is the
          current / a superseded one), as_of_accuracy (first citation is the
          revision in force at the date, given as ``as_of_valid`` or named in the
          question), false_answer_rate (never-stated: status answered), n.

Prints a summary; with ``--json`` one JSON object on the last line; with
``--out`` also DIR/updates.json. Figures are measured, never asserted.
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from ..cliargs import ArgParser, bounded, non_negative_int, positive_int
from ..facts import norm
from .engines import add_engine_options, engine_name, postgresql_target
from .histories import History, Probe, generate
from .progress import bar

RESOLVER_KEYS = ("update_precision", "update_recall", "current_accuracy", "as_of_accuracy",
                 "conflict_recall", "false_answer_rate", "n")
QUERY_KEYS = ("current_at1", "superseded_at1", "as_of_accuracy", "false_answer_rate", "n")


class ResolutionLike(Protocol):
    status: str
    value: str
    source_ids: list[str]


class AnswerLike(Protocol):
    status: str
    source_ids: list[str]


# (subject_id, entity, relation, as_of_valid) -> Resolution
ResolveFn = Callable[[str, str, str, float | None], ResolutionLike]
# (subject_id, question, as_of_valid) -> QueryResult
AskFn = Callable[[str, str, float | None], AnswerLike]
# An ``updates`` edge as the provenance of its two facts: (newer's sources, older's sources).
SourceEdge = tuple[frozenset[str], frozenset[str]]


def value_matches(got: str, aliases: Iterable[str]) -> bool:
    """Whether a resolver value names the expected one: any alias appears in it as whole
    words, or it (three characters or more) appears in an alias ("table" ~ "kitchen table")."""
    g = norm(got or "")
    if not g:
        return False
    for alias in aliases:
        a = norm(alias)
        end = r"(?!\d)" if a[-1:].isdigit() else r"(?!\w)"  # dates: "2025-02-17T12:00"
        if re.search(rf"(?<!\w){re.escape(a)}{end}", g):
            return True
        if len(g) >= 3 and re.search(rf"(?<!\w){re.escape(g)}(?!\w)", a):
            return True
    return False


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


# -- resolver level -------------------------------------------------------------

def score_edges(history: History, edges: Sequence[SourceEdge]) -> dict[str, Any]:
    """Precision and recall of ``updates`` edges against the generator's revisions.

    An edge is correct when some source of its newer fact and some source of its
    older fact state two revisions of the same key, the newer one later. Precision
    counts the edges that touch at least one probed statement (a revision or a
    side of an open contradiction); an edge between two unprobed records (chatter
    about a neighbour's move, say) may be right or wrong and is only counted as
    ``edges_unscored``. Recall is over consecutive revision pairs: found when an
    edge runs from a source of revision i+1 to a source of revision i.
    """
    where: dict[str, tuple[str, int]] = {}
    gold: set[tuple[str, int]] = set()
    for p in history.probes:
        if p.expect != "answer":
            continue
        for i, rev in enumerate(p.revisions):
            for sid in rev.source_ids:
                where[sid] = (p.probe_id, i)
            if i:
                gold.add((p.probe_id, i))
    tracked = set(where) | {s for p in history.probes for r in p.revisions for s in r.source_ids}
    correct = unscored = 0
    found: set[tuple[str, int]] = set()
    for newer, older in edges:
        if not (newer | older) & tracked:
            unscored += 1
            continue
        ok = False
        for a in newer:
            for b in older:
                wa, wb = where.get(a), where.get(b)
                if wa and wb and wa[0] == wb[0] and wa[1] > wb[1]:
                    ok = True
                    if wa[1] == wb[1] + 1:
                        found.add(wa)
        correct += ok
    return {"update_precision": _rate(correct, len(edges) - unscored),
            "update_recall": _rate(len(found & gold), len(gold)),
            "edges": len(edges), "edges_correct": correct, "edges_unscored": unscored,
            "revision_pairs": len(gold)}


def score_resolver(history: History, resolve: ResolveFn, edges: Sequence[SourceEdge],
                   progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """The resolver block; ``by_kind`` breaks current/as-of accuracy down by probe kind."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_kind: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    stale = 0
    for p in history.probes:
        sid = p.subject_id
        if p.expect == "answer":
            cur = p.current
            assert cur is not None
            res = resolve(sid, p.entity, p.relation, None)
            ok = res.status == "answer" and value_matches(res.value, cur.aliases)
            _tally(counts["current"], by_kind[p.kind]["current"], ok)
            _tally(counts["current_source"], None, bool(set(cur.source_ids) & set(res.source_ids)))
            stale += res.status == "answer" and not ok and any(
                value_matches(res.value, r.aliases) for r in p.revisions[:-1])
            for point in p.as_of:
                rev = p.revisions[point.revision]
                res = resolve(sid, p.entity, p.relation, point.time)
                ok = res.status == "answer" and value_matches(res.value, rev.aliases)
                _tally(counts["as_of"], by_kind[p.kind]["as_of"], ok)
        elif p.expect == "conflict":
            res = resolve(sid, p.entity, p.relation, None)
            got = set(res.source_ids)
            ok = res.status == "conflict" and all(got & set(r.source_ids) for r in p.revisions)
            _tally(counts["conflict"], by_kind[p.base_kind]["conflict"], ok)
        else:
            res = resolve(sid, p.entity, p.relation, None)
            _tally(counts["never"], by_kind[p.base_kind]["never_answered"], res.status != "missing")
        if progress:
            progress(1)
    out = score_edges(history, edges)
    block = {
        "update_precision": out["update_precision"],
        "update_recall": out["update_recall"],
        "current_accuracy": _rate(*counts["current"]),
        "as_of_accuracy": _rate(*counts["as_of"]),
        "conflict_recall": _rate(*counts["conflict"]),
        "false_answer_rate": _rate(*counts["never"]),
        "n": len(history.probes),
        "current_source_accuracy": _rate(*counts["current_source"]),
        "stale_answer_rate": _rate(stale, counts["current"][1]),
        "counts": {"current": counts["current"][1], "as_of": counts["as_of"][1],
                   "conflict": counts["conflict"][1], "never": counts["never"][1],
                   "edges": out["edges"], "edges_correct": out["edges_correct"],
                   "edges_unscored": out["edges_unscored"],
                   "revision_pairs": out["revision_pairs"]},
        "by_kind": _kind_rates(by_kind),
    }
    return block


def _tally(total: list[int], kind: list[int] | None, ok: bool) -> None:
    total[0] += ok
    total[1] += 1
    if kind is not None:
        kind[0] += ok
        kind[1] += 1


def _kind_rates(by_kind: dict[str, dict[str, list[int]]]) -> dict[str, dict[str, Any]]:
    return {k: {m: {"rate": _rate(*hv), "n": hv[1]} for m, hv in sorted(v.items())}
            for k, v in sorted(by_kind.items())}


# -- query level ------------------------------------------------------------------

def score_queries(history: History, ask: AskFn,
                  progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """The query block: what the engine cites first for each phrasing of each probe."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    superseded = 0
    by_kind: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    statuses: dict[str, int] = defaultdict(int)
    latencies: list[float] = []
    n = 0
    for p in history.probes:
        for q in p.questions:
            t = time.perf_counter()
            res = ask(p.subject_id, q.text, q.as_of_valid)
            latencies.append((time.perf_counter() - t) * 1000.0)
            n += 1
            statuses[res.status] += 1
            first = res.source_ids[0] if res.source_ids else None
            if q.expect == "current":
                cur = p.current
                assert cur is not None
                ok = first in cur.source_ids
                _tally(counts["current"], by_kind[p.kind]["current_at1"], ok)
                stale = first in p.superseded_ids
                superseded += stale
                _tally([0, 0], by_kind[p.kind]["superseded_at1"], stale)
            elif q.expect == "as_of":
                ok = first in p.revisions[q.revision].source_ids
                mode = "as_of_param" if q.as_of_valid is not None else "as_of_named"
                _tally(counts["as_of"], by_kind[p.kind][mode], ok)
            elif q.expect == "conflict":
                _tally(counts["conflict"], by_kind[p.base_kind]["conflict"], res.status == "conflict")
            else:
                _tally(counts["never"], by_kind[p.base_kind]["never_answered"],
                       res.status == "answered")
            if progress:
                progress(1)
    from .metrics import latency_summary

    return {
        "current_at1": _rate(*counts["current"]),
        "superseded_at1": _rate(superseded, counts["current"][1]),
        "as_of_accuracy": _rate(*counts["as_of"]),
        "false_answer_rate": _rate(*counts["never"]),
        "n": n,
        "conflict_rate": _rate(*counts["conflict"]),
        "counts": {"current": counts["current"][1], "as_of": counts["as_of"][1],
                   "conflict": counts["conflict"][1], "never": counts["never"][1]},
        "status": dict(sorted(statuses.items())),
        "latency_ms": {k: (round(v, 3) if isinstance(v, float) else v)
                       for k, v in latency_summary(latencies).items()},
        "by_kind": _kind_rates(by_kind),
    }


# -- reading the ledger -------------------------------------------------------------

def read_update_edges(ledger: Any, subject_ids: Sequence[str]) -> list[SourceEdge]:
    """Every ``updates`` edge of these subjects, as the source IDs behind its newer and
    older fact (through the ledger contract's ``facts_since``/``edges_since``)."""
    out: list[SourceEdge] = []
    for subject in subject_ids:
        prov = {f.fact_id: frozenset(f.source_ids) for f in ledger.facts_since(subject)}
        out.extend((prov.get(e.src, frozenset()), prov.get(e.dst, frozenset()))
                   for e in ledger.edges_since(subject) if e.type == "updates")
    return out


def graph_counts(ledger: Any) -> dict[str, Any]:
    """Facts and edges by type (the ledger contract's ``graph_counts``)."""
    return dict(ledger.graph_counts())


def _build(cls: Any, available: dict[str, Any]) -> Any:
    """Construct ``cls`` passing the arguments it names from ``available``."""
    params = inspect.signature(cls).parameters
    kwargs = {}
    for name, param in params.items():
        if name in available:
            kwargs[name] = available[name]
        elif param.default is inspect.Parameter.empty and param.kind not in (
                inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise TypeError(f"{cls.__name__} needs '{name}'")
    return cls(**kwargs)


def make_projector(ledger: Any, cfg: Any, encoder: Any) -> tuple[Any, str]:
    """The graph projector with the CPU extractor when they exist, else None and why."""
    try:
        from ..consolidation.cpu import CpuExtractor
        from ..consolidation.project import GraphProjector  # type: ignore[import-not-found]
    except ImportError as exc:
        return None, f"plain consolidation: graph projector not available ({exc})"
    available: dict[str, Any] = {"ledger": ledger, "config": cfg.consolidation,
                                 "encoder": encoder}
    try:
        extractor = _build(CpuExtractor, available)
        available["extractor"] = extractor
        return _build(GraphProjector, available), "GraphProjector + CpuExtractor"
    except TypeError as exc:
        return None, f"plain consolidation: could not build the graph projector ({exc})"


def make_resolver(ledger: Any) -> tuple[ResolveFn | None, str]:
    from .. import state
    from ..ledger import Scope

    resolve = getattr(state, "resolve", None)
    if resolve is None:
        return None, "trace_ros.state.resolve not implemented yet"

    def fn(subject_id: str, entity: str, relation: str, as_of_valid: float | None) -> Any:
        return resolve(ledger, Scope(subject_id), entity, relation, as_of_valid=as_of_valid)

    return fn, "trace_ros.state.resolve"


# -- the command ------------------------------------------------------------------

def run(args: argparse.Namespace) -> dict[str, Any]:
    from ..capture import ingest
    from ..config import load_config
    from ..consolidation.worker import Consolidator
    from ..embed import MiniLMEncoder
    from ..ledger import Scope
    from ..query.answer import QueryEngine, QueryRequest
    from ..query.readers import ExtractiveReader
    from .engines import bench_ledger

    timings: dict[str, float] = {}
    t_all = time.perf_counter()
    t = time.perf_counter()
    history = generate(args.seed, args.subjects, args.sessions)
    timings["generate_s"] = time.perf_counter() - t
    cfg = load_config(args.params)
    tmp = None
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="bench-updates-")
        out = Path(tmp.name)
    notes: list[str] = []
    ablations: dict[str, dict[str, Any]] = {}
    try:
        with bench_ledger(args, out / "updates.db", cfg.ledger, "trace-ros bench updates",
                          "bench_updates") as (ledger, where):
            notes.append(f"ledger {where}")
            t = time.perf_counter()
            with bar(len(history.events), "capture", "ev") as b:
                results = ingest(ledger, history.events, cfg.capture, progress=b.update)
            timings["capture_s"] = time.perf_counter() - t
            rejected = [r for r in results if r.status != "accepted"]
            if rejected:
                raise RuntimeError(f"{len(rejected)} events not accepted, first: {rejected[0]}")

            encoder = MiniLMEncoder(cfg.embed)
            projector, how = make_projector(ledger, cfg, encoder)
            notes.append(how)
            t = time.perf_counter()
            worker = Consolidator(ledger, encoder, cfg.consolidation, projector=projector)
            with bar(ledger.job_counts()["pending"], "consolidate", "src") as b:
                worker.drain(progress=b.update)
            timings["consolidation_s"] = time.perf_counter() - t
            jobs = ledger.job_counts()

            t = time.perf_counter()
            resolve, how = make_resolver(ledger)
            edges = read_update_edges(ledger, [s.subject_id for s in history.subjects])
            resolver: dict[str, Any] = {}
            if resolve is not None:
                try:
                    with bar(len(history.probes), "resolver", "probe") as b:
                        resolver = score_resolver(history, resolve, edges, b.update)
                    notes.append(how)
                except Exception as exc:  # noqa: BLE001 - an engine still being built: report it
                    how = f"resolver failed: {type(exc).__name__}: {exc}"
                    print(how, file=sys.stderr)
                    notes.append(how)
                    resolve = None
            if resolve is None:
                resolver = {k: None for k in RESOLVER_KEYS}
                scored = score_edges(history, edges)
                resolver.update(update_precision=scored["update_precision"],
                                update_recall=scored["update_recall"], n=0, unavailable=how)
            timings["resolver_s"] = time.perf_counter() - t
            graph = graph_counts(ledger)

            def asker(ablate: frozenset[str] = frozenset()) -> AskFn:
                engine = QueryEngine(ledger, encoder, ExtractiveReader(), cfg.recall,
                                     audit=False, ablate=set(ablate))

                def ask(subject_id: str, question: str, as_of_valid: float | None) -> Any:
                    return engine.ask(QueryRequest(Scope(subject_id), question,
                                                   as_of_valid=as_of_valid))
                return ask

            ask = asker()
            t = time.perf_counter()
            n_q = sum(len(p.questions) for p in history.probes)
            try:
                with bar(n_q, "questions", "q") as b:
                    query = score_queries(history, ask, b.update)
            except Exception as exc:  # noqa: BLE001 - an engine still being built: report it
                how = f"query failed: {type(exc).__name__}: {exc}"
                print(how, file=sys.stderr)
                notes.append(how)
                query = {k: None for k in QUERY_KEYS}
                query.update(n=0, unavailable=how, by_kind={})
            timings["query_s"] = time.perf_counter() - t
            for name in args.ablate:
                with bar(n_q, f"ablate {name}", "q") as b:
                    scored = score_queries(history, asker(frozenset({name})), b.update)
                ablations[name] = {k: scored.get(k) for k in (*QUERY_KEYS, "n")}
    finally:
        if tmp is not None:
            tmp.cleanup()
    timings["total_s"] = time.perf_counter() - t_all
    report = {
        "resolver": resolver,
        "query": query,
        "ablations": ablations,
        "seed": args.seed,
        "subjects": args.subjects,
        "sessions": args.sessions,
        "events": len(history.events),
        "probes": _probe_counts(history.probes),
        "graph": graph,
        "jobs": jobs,
        "reader": "extractive",
        "engine": engine_name(args),
        "notes": notes,
        "timings": {k: round(v, 3) for k, v in timings.items()},
    }
    if args.out:
        (out / "updates.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def _probe_counts(probes: Sequence[Probe]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for p in probes:
        counts[p.kind] += 1
    return dict(sorted(counts.items()))


def _fmt(v: Any) -> str:
    return "  -  " if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def summary(report: dict[str, Any]) -> str:
    r, q = report["resolver"], report["query"]
    lines = [
        f"bench updates: {report.get('engine', 'sqlite')}, seed {report['seed']}, "
        f"{report['subjects']} subjects, "
        f"{report['events']} events, probes {report['probes']}",
        f"  graph: {report['graph'].get('facts')} facts, edges {report['graph'].get('edges_by_type')}",
        "  resolver: " + ", ".join(f"{k} {_fmt(r.get(k))}" for k in RESOLVER_KEYS),
        "  query:    " + ", ".join(f"{k} {_fmt(q.get(k))}" for k in QUERY_KEYS)
        + f", conflict_rate {_fmt(q.get('conflict_rate'))}",
    ]
    for name, block in (("resolver", r), ("query", q)):
        if block.get("unavailable"):
            lines.append(f"  {name} unavailable: {block['unavailable']}")
    lines.append("  query by kind: " + "; ".join(
        f"{kind} " + " ".join(f"{m}={_fmt(v['rate'])}/{v['n']}" for m, v in ms.items())
        for kind, ms in q["by_kind"].items()))
    if r.get("by_kind"):
        lines.append("  resolver by kind: " + "; ".join(
            f"{kind} " + " ".join(f"{m}={_fmt(v['rate'])}/{v['n']}" for m, v in ms.items())
            for kind, ms in r["by_kind"].items()))
    for name, a in report.get("ablations", {}).items():
        lines.append(f"  query without {name}: " + ", ".join(f"{k} {_fmt(a.get(k))}"
                                                          for k in QUERY_KEYS))
    lines.append(f"  notes: {'; '.join(report['notes'])}")
    lines.append("  timings: " + ", ".join(f"{k} {v:.1f}" for k, v in report["timings"].items()))
    return "\n".join(lines)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = ArgParser(prog="trace-ros bench updates", description=__doc__,
                  formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=non_negative_int, default=7)
    p.add_argument("--subjects", type=positive_int, default=8)
    p.add_argument("--sessions", type=bounded(int, 3), default=8, help="sessions per subject (>= 3)")
    p.add_argument("--json", action="store_true", help="one JSON object on the last line")
    p.add_argument("--out", default=None, help="keep the ledger and updates.json here")
    p.add_argument("--params", default=None, help="ROS parameter file (config/memory.yaml format)")
    p.add_argument("--natural", action="store_true",
                   help="the hand-written natural-language sets instead of the generator "
                        "(trace_ros/bench/natural/; see updates_natural.py)")
    p.add_argument("--locomo", default=None,
                   help="--natural: the LoCoMo file (default ../shared/data/locomo10.json)")
    p.add_argument("--data", default=None, help="--natural: another folder of data files")
    p.add_argument("--sets", default="histories,locomo",
                   help="--natural: which sets to run (histories, locomo)")
    p.add_argument("--split", choices=("build", "confirm"), default=None,
                   help="--natural: ask only this half (default both)")
    p.add_argument("--ablate", default="",
                   help="comma-separated query components to remove, scored again each "
                        "(e.g. graph,update_seeds,recency)")
    add_engine_options(p)
    args = p.parse_args(argv)
    args.pg_url = postgresql_target(p, args)
    from ..query.answer import QueryEngine

    args.ablate = [a.strip() for a in args.ablate.split(",") if a.strip()]
    unknown = sorted(set(args.ablate) - set(QueryEngine.COMPONENTS))
    if unknown:
        p.error(f"--ablate: unknown component(s) {', '.join(unknown)}; "
                f"known: {', '.join(QueryEngine.COMPONENTS)}")
    if args.subjects < 1:
        p.error("--subjects: must be at least 1")
    if args.sessions < 3:
        p.error("--sessions: must be at least 3")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.natural:
        from . import updates_natural

        report = updates_natural.run(args)
        print(updates_natural.summary(report))
        if args.json:
            print(json.dumps(updates_natural.compact(report)))
        return 0
    report = run(args)
    print(summary(report))
    if args.json:
        print(json.dumps(report, sort_keys=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
