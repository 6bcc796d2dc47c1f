"""The ``trace-ros`` command line: the engine without ROS, plus bring-up, demo and benchmarks.

Subcommands: up, demo, record, ingest, export, consolidate, query, graph, stats, forget, rebuild,
bench, explore, ledger grant.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .cliargs import ArgParser, non_negative_int, positive_int, seconds, time_view
from .config import MemoryConfig, load_config
from .errors import TraceError, ValidationError

if TYPE_CHECKING:
    from .ledger import Ledger

# The ledger (numpy, sqlite-utils) is imported where a command opens one: `trace-ros query`
# answered by a running node never does, and its start-up is most of that path's time.


def _config(args: argparse.Namespace) -> MemoryConfig:
    overrides: dict[str, Any] = {}
    url = getattr(args, "ledger_url", None)
    if url is not None and getattr(args, "db", None):
        raise ValidationError("--ledger-url", "give --db or --ledger-url, not both")
    if url is not None:
        from .storage.url import parse_ledger_url

        parse_ledger_url(url, "--ledger-url")  # checked here so the error names the option
        overrides["ledger.url"] = url
    elif getattr(args, "db", None):
        overrides["ledger.db_path"] = args.db
        overrides["ledger.url"] = ""  # --db wins over a url in --params
    return load_config(getattr(args, "params", None), None, overrides)


def _open(args: argparse.Namespace, cfg: MemoryConfig, create: bool = False) -> Ledger:
    """The configured ledger; only commands that store (ingest) create a new one."""
    from .storage import open_ledger

    field = ("--ledger-url" if getattr(args, "ledger_url", None) is not None
             else "ledger.url" if cfg.ledger.url else "ledger.db_path")
    return open_ledger(cfg.ledger_url, cfg.ledger, create=create, field=field)


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
    with _open(args, cfg, create=True) as ledger:
        timed: _Timed | None = None
        if args.format == "mcap":
            errors, timed = _mcap_events(args.path, args.topics)
            good: list[tuple[str, Any]] = timed.items
        else:
            if args.format == "locomo":
                items: list[tuple[str, Any]] = [
                    ("", e) for s in read_locomo(args.path, args.samples) for e in locomo_events(s)]
            else:
                items = list(read_jsonl_lines(args.path))
            errors = [e for _, e in items if isinstance(e, EventError)]
            good = [(where, e) for where, e in items if not isinstance(e, EventError)]
        with _progress(len(good), "capture") as bar:
            if timed is not None:  # receipt times from the bag, not the wall clock
                results = ingest(ledger, timed, cfg.capture, progress=bar.update,
                                 clock=timed.clock)
            else:
                results = ingest(ledger, [e for _, e in good], cfg.capture,
                                 progress=bar.update)
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


class _Timed:
    """Events that move a clock as they are taken: ``capture.ingest`` reads the clock right
    after taking an event, so a zero stamp gets that event's log time in the bag."""

    def __init__(self, timed: list[tuple[str, Any, float]]) -> None:
        self.items = [(where, event) for where, event, _ in timed]
        self.times = [at for _, _, at in timed]
        self.now = self.times[0] if self.times else 0.0

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Any:
        for (_, event), at in zip(self.items, self.times, strict=True):
            self.now = at
            yield event

    def clock(self) -> float:
        return self.now


def _mcap_events(path: str, topics: str | None) -> tuple[list[Any], _Timed]:
    """(errors, events with their log times) of a rosbag2 MCAP file (see trace_ros.bags)."""
    from .bags import read_mcap, read_topic_map
    from .formats import EventError

    bag = list(read_mcap(path, read_topic_map(topics)))
    errors = [EventError(f"{b.topic}@{b.log_time:.9f}", b.error) for b in bag
              if b.error is not None]
    return errors, _Timed([(f"{b.topic}@{b.log_time:.9f}", b.event, b.log_time) for b in bag
                           if b.event is not None])


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


def cmd_export(args: argparse.Namespace) -> int:
    from .bags import write_mcap
    from .ledger import Scope

    cfg = _config(args)
    with _open(args, cfg) as ledger:
        records = ledger.sources_in_scope(Scope(args.subject, args.robot, args.session))
        written = write_mcap(args.out, records, args.namespace)
    print(json.dumps({"written": written, "path": args.out}))
    return 0


def cmd_consolidate(args: argparse.Namespace) -> int:
    cfg = _config(args)
    with _open(args, cfg) as ledger:
        print(json.dumps({"consolidated": _consolidate(ledger, cfg)}))
    return 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    cfg = _config(args)
    with _open(args, cfg) as ledger:
        # Derived state goes (vectors, FTS, facts, edges, topics); projecting every
        # source again in sequence order recreates the same graph.
        requeued = ledger.reset_derived()
        ledger.clear_graph()
        print(json.dumps({"requeued": requeued, "consolidated": _consolidate(ledger, cfg)}))
    return 0


def cmd_graph(args: argparse.Namespace) -> int:
    from .state import update_chains

    cfg = _config(args)
    with _open(args, cfg) as ledger, ledger.read():
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


def _ros_domain() -> int:
    """The ROS domain this command's rclpy would join (``ROS_DOMAIN_ID``, default 0)."""
    text = os.environ.get("ROS_DOMAIN_ID", "").strip()
    return int(text) if text.isdigit() else 0


def _remote() -> Any:
    """``trace_ros.nodes.remote`` (imports rclpy); raises ImportError without ROS."""
    import importlib

    return importlib.import_module("trace_ros.nodes.remote")


def _question_fields(args: argparse.Namespace) -> dict[str, Any]:
    return {"robot": args.robot, "session": args.session, "as_of_valid": args.as_of_valid,
            "as_of_known": args.as_of_known, "token_budget": args.budget, "asker": args.asker}


def _announced(args: argparse.Namespace, cfg: MemoryConfig) -> tuple[Any, str]:
    """(the presence record of a live query node this command can ask, '') or (None, why
    none): read from the ledger's presence folder, no waiting (see trace_ros.presence)."""
    from .presence import live_nodes

    live = live_nodes(cfg.ledger_url)
    if not live:
        return None, "no query node serves this ledger"
    if args.namespace is not None:
        wanted = "/" + args.namespace.strip("/")
        live = [r for r in live if r.namespace == wanted]
        if not live:
            return None, f"no query node serves this ledger in {wanted}"
    domain = _ros_domain()
    here = [r for r in live if r.domain_id == domain]
    if not here:
        return None, (f"the query node {live[0].node} serves this ledger on ROS domain "
                      f"{live[0].domain_id}, this command is on {domain}")
    return here[0], ""


def _ask_ros(args: argparse.Namespace, cfg: MemoryConfig) -> tuple[dict[str, Any] | None, str]:
    """Ask a running query node that serves this ledger: the one its presence record names
    (waiting only for that service), else (``--via ros``) one found over DDS."""
    record, why = _announced(args, cfg)
    if record is None and args.via == "auto":
        return None, why
    if record is not None and record.socket and args.via == "auto":
        out, why, sent = _ask_socket(args, record)
        if out is not None or sent:
            return out, why
    try:
        remote = _remote()
    except ImportError as exc:  # no ROS 2 wheels in this environment
        return None, f"ROS is not available ({exc})"
    question = " ".join(args.question)
    if record is not None:
        out, why = remote.ask_service(record.service, args.subject, question,
                                      discover_s=args.wait, **_question_fields(args))
        if out is not None or args.via == "auto":
            return out, why
    from .presence import ledger_identity

    return remote.ask(ledger_identity(cfg.ledger_url), args.namespace or "", args.subject,
                      question, discover_s=args.wait, **_question_fields(args))


def _ask_socket(args: argparse.Namespace, record: Any) -> tuple[dict[str, Any] | None, str,
                                                                 bool]:
    """Ask the node of ``record`` on its Unix socket (``trace_ros.nodeask``: no rclpy, no
    DDS); (result, '', True) or (None, why, whether the question reached it)."""
    from .nodeask import ask

    fields = {"subject": args.subject, "question": " ".join(args.question),
              "robot": args.robot, "session": args.session, "as_of_valid": args.as_of_valid,
              "as_of_known": args.as_of_known, "token_budget": args.budget}
    if args.asker:  # (a node built before the field refuses it: asked over ROS then)
        fields["asker"] = args.asker
    out, why, sent = ask(record.socket, fields, connect_s=max(0.1, min(1.0, args.wait)))
    if out is not None:
        out["path"] = f"node ({record.service}, unix socket)"
    return out, why, sent


def cmd_query(args: argparse.Namespace) -> int:
    cfg = _config(args)
    if args.via == "local":
        out, why = None, "--via local"
    else:
        out, why = _ask_ros(args, cfg)
    if out is None and args.via == "ros":
        print(f"error: {why}", file=sys.stderr)
        return 2
    if out is None:
        out = _ask_local(args, cfg)
        out["path"] = f"local ({why})"
    elif out["status"] == "error":
        print(f"error: {out['message']}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out))
    else:
        print(f"[{out['status']}] {out['answer'] or '(no answer)'}")
        print(f"  sources: {', '.join(out['source_ids']) or '-'}  reader: {out['reader']}")
        for ev in out["evidence"]:
            mark = "*" if ev["source_id"] in out["source_ids"] else " "
            print(f" {mark} [{ev['source_id']}] {ev['speaker']}: {ev['text']}")
        print(f"  path: {out['path']}")
    return 0


def _ask_local(args: argparse.Namespace, cfg: MemoryConfig) -> dict[str, Any]:
    from .embed import MiniLMEncoder

    encoder = MiniLMEncoder(cfg.embed)
    # The encoder loads (files, onnxruntime's session: native code, the GIL released) on a
    # thread of its own while this one imports the query pipeline (Python, under the GIL);
    # the question's embedding waits for it. A load that fails fails again there, and the
    # error is reported as before.
    import threading

    loading = threading.Thread(target=_preload, args=(encoder,), name="encoder-load",
                               daemon=True)
    loading.start()
    from .ledger import Scope
    from .query.answer import QueryEngine, QueryRequest
    from .query.readers import make_reader

    try:
        with _open(args, cfg) as ledger:
            engine = QueryEngine(ledger, encoder, make_reader(cfg.reader), cfg.recall)
            req = QueryRequest(Scope(args.subject, args.robot, args.session),
                               " ".join(args.question), as_of_valid=args.as_of_valid,
                               as_of_known=args.as_of_known, token_budget=args.budget,
                               asker=args.asker)
            return engine.ask(req).to_dict()
    finally:
        # A question answered without its embedding (a spatial one), or an error, can
        # end before the load: the process must not exit while onnxruntime is still
        # making its session on that thread (its C++ runtime then aborts: "terminate
        # called without an active exception", seen once in 20 calls under load).
        loading.join()


def _preload(encoder: Any) -> None:
    """Load ``encoder`` ahead of the question (a daemon thread: a question that needs no
    embedding, a spatial one, does not wait for it). Not the first load of the ONNX
    backend, which exports the model: the question does that, and waits for it whole."""
    cache_path = getattr(encoder, "cache_path", None)
    try:
        if cache_path is None or cache_path().is_file():
            encoder.load()
    except Exception:  # noqa: BLE001 - raised again, and reported, where the question embeds
        pass


def cmd_stats(args: argparse.Namespace) -> int:
    cfg = _config(args)
    with _open(args, cfg) as ledger:
        print(json.dumps(ledger.stats(), indent=2))
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    from .ledger import Scope

    cfg = _config(args)
    scope = Scope(args.subject, args.robot, args.session) if args.subject else None
    with _open(args, cfg) as ledger:
        removed = ledger.forget(scope, args.source_id or [], args.allow_reingest)
        print(json.dumps({"removed": len(removed), "source_ids": removed}))
    return 0


def cmd_sync(args: argparse.Namespace) -> int:
    """Push sources and tombstones from ``--from`` to ``--to`` (see ``trace_ros.sync``)."""
    from .storage import open_sources_ledger, parse_ledger_url
    from .storage.url import SQLITE, sqlite_url
    from .sync import sync

    src_url = parse_ledger_url(args.from_url, "--from")
    dst_url = parse_ledger_url(args.to_url, "--to")
    if src_url.engine == SQLITE and src_url.path is not None:
        src_url = sqlite_url(src_url.path)
    if dst_url.engine == SQLITE and dst_url.path is not None:
        dst_url = sqlite_url(dst_url.path)
    if str(src_url) == str(dst_url):
        raise ValidationError("--to", "names the same ledger as --from")
    with open_sources_ledger(src_url, create=False, field="--from") as source, \
            open_sources_ledger(dst_url, create=True, field="--to") as target:
        # A bar only where a person waits (a terminal); none in logs and scripts.
        total = max(0, source.last_seq()) if sys.stderr.isatty() else None
        with _progress(total, "sync") as bar:
            report = sync(source, target, str(src_url), subject_id=args.subject or None,
                          batch=args.batch, on_batch=bar.update)
    summary = {"from": str(src_url), "to": str(dst_url), **report.as_dict()}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"sync {src_url} -> {dst_url}: {report.sources_seen} sources read, "
              f"{report.accepted} stored, {report.duplicate} already there, "
              f"{report.rejected} refused; {report.tombstones_seen} tombstones, "
              f"{report.forgotten} forgotten on the target")
    return 0


def cmd_ledger_grant(args: argparse.Namespace) -> int:
    """Confine a database role to its subjects (``storage.postgresql.roles``)."""
    from .storage.postgresql.roles import grant_subjects
    from .storage.url import POSTGRESQL, parse_ledger_url

    url = parse_ledger_url(args.ledger_url, "--ledger-url")
    if url.engine != POSTGRESQL:
        raise ValidationError("--ledger-url", "row-level security needs a postgresql:// ledger")
    grant = grant_subjects(url, args.role, args.subject)
    if args.json:
        print(json.dumps(dataclasses.asdict(grant)))
        return 0
    print(f"{'created' if grant.created else 'updated'} role {grant.role}: subjects "
          f"{', '.join(grant.subjects)}; {len(grant.confined) + len(grant.through_parent)} "
          f"tables confined by subject")
    if grant.unconfined:
        print(f"not confined (no subject_id): {', '.join(grant.unconfined)}")
    return 0


def _role(text: str) -> str:
    from .storage.postgresql.roles import check_role

    try:
        return check_role(text)
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(exc.reason) from None


def _subject(text: str) -> str:
    if not text.strip() or "\x00" in text:
        raise argparse.ArgumentTypeError(f"must be a non-empty subject ID, got {text!r}")
    return text


def _delegate(module: str, argv: list[str]) -> int:
    import importlib

    return int(importlib.import_module(module).main(argv) or 0)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgParser(prog="trace-ros", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def with_db(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--db", help="ledger file (default: ledger.db_path of --params)")
        p.add_argument("--ledger-url", metavar="URL",
                       help="ledger URL: sqlite:///abs/path.db, sqlite:relative.db or "
                            "postgresql://user@host:port/db (default: ledger.url of --params, "
                            "else the file --db names)")
        p.add_argument("--params", help="ROS parameter file (config/memory.yaml format)")
        return p

    sub.add_parser("up", help="start the three nodes (bring-up without the launch system)",
                   add_help=False)
    sub.add_parser("demo", help="bring up the nodes, stream a demo conversation, ask questions",
                   add_help=False)
    sub.add_parser("record", help="record the memory topics to a rosbag2 MCAP file",
                   add_help=False)
    sub.add_parser("bench", help="benchmarks: capture | locomo | scale | updates | faults | fleet "
                   "| load | startup | cli",
                   add_help=False)
    sub.add_parser("explore", help="read-only web explorer of a ledger", add_help=False)

    p = with_db(sub.add_parser("ingest", help="capture a JSONL, LoCoMo or rosbag2 MCAP file"))
    p.add_argument("--format", choices=("jsonl", "locomo", "mcap"), required=True)
    p.add_argument("--topics", help="mcap: YAML mapping more topics to dialogue/perception "
                                    "(see trace_ros.bags.read_topic_map)")
    p.add_argument("--samples", type=positive_int, default=None, help="locomo: only the first K")
    p.add_argument("--no-consolidate", action="store_true",
                   help="only capture; leave the projection jobs pending")
    p.add_argument("path")
    p.set_defaults(func=cmd_ingest)

    p = with_db(sub.add_parser("export", help="write a subject's sources as a rosbag2 MCAP file"))
    p.add_argument("--format", choices=("mcap",), default="mcap")
    p.add_argument("--subject", required=True)
    p.add_argument("--robot", default="")
    p.add_argument("--session", default="")
    p.add_argument("--namespace", default="", help="topic namespace in the bag")
    p.add_argument("out", help="output .mcap file")
    p.set_defaults(func=cmd_export)

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
    p.add_argument("--as-of-valid", type=time_view("as_of_valid"), default=None,
                   help="epoch seconds")
    p.add_argument("--as-of-known", type=time_view("as_of_known"), default=None,
                   help="epoch seconds")
    p.add_argument("--budget", type=non_negative_int, default=0, help="evidence token budget")
    p.add_argument("--asker", default="",
                   help="who asks, as the records name speakers: whose 'I' and 'my' the "
                        "question means (default: not known)")
    p.add_argument("--json", action="store_true", help="one JSON object on the last line")
    p.add_argument("--via", choices=("auto", "ros", "local"), default="auto",
                   help="auto (default): ask the live query node whose presence record says "
                        "it serves this ledger (on its Unix socket, else over ROS), else "
                        "answer here at once; ros: only a query node over ROS (its record, "
                        "else one found over DDS); local: only here")
    p.add_argument("--namespace", default=None,
                   help="only a query node in this namespace (default: any for auto; "
                        "the root for --via ros without a presence record)")
    p.add_argument("--wait", type=seconds, default=3.0,
                   help="most seconds to wait for the node's service to be discovered "
                        "(default 3); then auto answers here")
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

    p = sub.add_parser("sync", help="push sources and tombstones from one ledger to another "
                                    "(resumable, idempotent; also copies across engines)")
    p.add_argument("--from", dest="from_url", metavar="URL", required=True,
                   help="the ledger to read: sqlite:///abs/path.db, sqlite:relative.db or "
                        "postgresql://user@host:port/db (must exist)")
    p.add_argument("--to", dest="to_url", metavar="URL", required=True,
                   help="the ledger to write (a SQLite file is created if missing)")
    p.add_argument("--subject", default="", help="only this subject's sources")
    p.add_argument("--batch", type=positive_int, default=500, help="sources per batch")
    p.add_argument("--json", action="store_true", help="one JSON object on the last line")
    p.set_defaults(func=cmd_sync)

    ledger = sub.add_parser("ledger", help="administer a fleet ledger (PostgreSQL)")
    admin = ledger.add_subparsers(dest="action", required=True)
    p = admin.add_parser("grant", help="create a database role that can read and write only "
                                       "the given subjects (row-level security)")
    p.add_argument("--ledger-url", metavar="URL", required=True,
                   help="postgresql://owner@host:port/db, as the tables' owner or a superuser")
    p.add_argument("--role", type=_role, required=True,
                   help="the role to confine (created with LOGIN if missing)")
    p.add_argument("--subject", type=_subject, action="append", required=True,
                   help="a subject ID the role may use (repeat; replaces its earlier set)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(func=cmd_ledger_grant)
    return parser


DELEGATED = {
    "up": "trace_ros.nodes.bringup",
    "record": "trace_ros.nodes.record",
    "demo": "trace_ros.demo",
    "explore": "trace_ros.explore.app",
    "bench capture": "trace_ros.bench.capture",
    "bench locomo": "trace_ros.bench.locomo",
    "bench scale": "trace_ros.bench.scale",
    "bench updates": "trace_ros.bench.updates",
    "bench faults": "trace_ros.bench.faults",
    "bench fleet": "trace_ros.bench.fleet",
    "bench load": "trace_ros.bench.load",
    "bench startup": "trace_ros.bench.startup",
    "bench cli": "trace_ros.bench.cli",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; an error the engine raises on purpose, a file it cannot use or a
    SQLite failure ends it with one line on stderr and exit status 2 (a bad argument:
    the parser's one line, also 2). Run as the program (no ``argv``), ``query`` ends its
    process at once when done (``_end_query_process``)."""
    if argv is None:
        args = sys.argv[1:]
        if args[:1] == ["query"]:
            _query_process_settings()
        rc = _main(args)
        if args[:1] == ["query"]:
            _end_query_process(rc)
        return rc
    return _main(list(argv))


def _query_process_settings() -> None:
    """What a ``trace-ros query`` process sets first: OpenBLAS on one thread, set before
    numpy is imported and only where the environment does not say otherwise. Starting its
    pool of a thread per core cost ~45 ms of CPU of numpy's import (measured on 2 cores),
    and its threads spin after a product. A question's BLAS products are a few hundred rows
    at most (the large scans use numpy's own loop, ``storage.coarse.dot``), where one thread
    gives the bits that several give (checked up to 4,000 rows of 384), so the answers are
    the same: ``bench cli`` compares them, and a re-ask of the natural sets moved none."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _end_query_process(rc: int) -> None:
    """End this ``trace-ros query`` process now, skipping the interpreter's teardown:
    freeing every module's objects one by one and unloading onnxruntime and numpy took
    ~0.15 s of a command that answers in well under a second, and leaves nothing
    behind. The exit handlers run first (the audit writer stores its queued rows), then
    the output is flushed. Where that cannot be done safely (a thread that is not a
    daemon still runs, or this Python has no ``atexit._run_exitfuncs``) the process ends
    as usual."""
    import atexit
    import threading

    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    others = [t for t in threading.enumerate()
              if t is not threading.main_thread() and not t.daemon]
    if run_exit_handlers is None or others:
        return
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said there
            pass
    os._exit(rc)


def _main(argv: list[str]) -> int:
    try:
        return _dispatch(argv)
    except SystemExit as exc:  # a parser's one-line error (2), or --help (0)
        return exc.code if isinstance(exc.code, int) else 1
    except ValidationError as exc:
        print(f"error: {exc.field}: {exc.reason}", file=sys.stderr)
        return 2
    except (TraceError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:  # e.g. the disk filled up: one line, no traceback
        print(f"error: ledger: {exc}", file=sys.stderr)
        return 2


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] in ("up", "demo", "record", "explore"):
        return _delegate(DELEGATED[argv[0]], argv[1:])
    if argv and argv[0] == "bench":
        key = " ".join(argv[:2])
        if key not in DELEGATED:
            names = ",".join(k.split()[1] for k in DELEGATED if k.startswith("bench "))
            print(f"usage: trace-ros bench {{{names}}} [options]", file=sys.stderr)
            return 2
        return _delegate(DELEGATED[key], argv[2:])
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())


