"""Start-up benchmark: seconds from `trace-ros up` to the first answered memory/query.

    trace-ros bench startup [--runs N] [--modes single,processes] [--cli N] [--json]

Each run starts the bring-up as a child process on a fresh temporary ledger in a private
namespace, asks memory/query as soon as the service appears, and records when the service
appeared and when the first answer came back (wall clock from the spawn). ``single``: one
process, one executor, one shared encoder (``--single-process``); ``processes``: one process
per node (the launch file's layout). With ``--json`` the last line is one object with
``first_answer_s`` (the best mode's median) and the figures of every mode. ``--cli N``: once
the bring-up answers, run ``trace-ros query --via ros`` N times against it (a new process
each, as from a shell) and report the wall time per call (``cli_query_s``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..cliargs import ArgParser, non_negative_int, positive_int

MODES = ("single", "processes")
TIMEOUT_S = 180.0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = ArgParser(prog="trace-ros bench startup", description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=positive_int, default=1, help="runs per mode (default 1)")
    p.add_argument("--modes", default=",".join(MODES),
                   help=f"comma-separated subset of {', '.join(MODES)}")
    p.add_argument("--cli", type=non_negative_int, default=0,
                   help="then time N `trace-ros query --via ros` calls against the bring-up")
    p.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = p.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not args.modes or set(args.modes) - set(MODES) or args.runs < 1 or args.cli < 0:
        p.error(f"--modes: choose from {', '.join(MODES)}; --runs >= 1; --cli >= 0")
    return args


def cli_calls(namespace: str, db: Path, n: int) -> list[float]:
    """Wall seconds of ``n`` shell calls of ``trace-ros query --via ros`` (each must answer
    over ROS: a call that fell back or failed raises)."""
    from trace_ros.nodes.bringup import child_env

    cmd = [sys.executable, "-P", "-m", "trace_ros.cli", "query", "--via", "ros", "--namespace",
           namespace, "--db", str(db), "--subject", "bench", "--json", "what did I say first?"]
    out = []
    for _ in range(n):
        t = time.monotonic()
        done = subprocess.run(cmd, env=child_env(), capture_output=True, text=True, timeout=60)
        out.append(time.monotonic() - t)
        if done.returncode != 0 or '"path": "ros' not in done.stdout:
            raise RuntimeError(f"trace-ros query did not answer over ROS: {done.stderr.strip()}")
    return out


def one_run(mode: str, workdir: Path, index: int, cli: int = 0) -> dict[str, Any]:
    """Spawn the bring-up, ask as soon as memory/query appears; times from the spawn."""
    from trace_ros.nodes.bringup import child_env
    from trace_ros.nodes.client import MemoryClient

    namespace = f"bench_startup_{os.getpid()}_{mode}_{index}"
    db = workdir / f"{mode}-{index}.db"
    cmd = [sys.executable, "-P", "-m", "trace_ros.nodes.bringup", "--db", str(db),
           "--namespace", namespace, "--log-level", "warn"]
    if mode == "single":
        cmd.append("--single-process")
    started = time.monotonic()
    proc = subprocess.Popen(cmd, env=child_env(), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with MemoryClient(f"bench_startup_{index}", namespace=namespace) as client:
            deadline = started + TIMEOUT_S
            while not client.query_client.service_is_ready():
                if proc.poll() is not None:
                    raise RuntimeError(f"bring-up exited ({proc.returncode}): "
                                       f"{proc.stderr.read() if proc.stderr else ''}")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"memory/query did not appear in {TIMEOUT_S:.0f} s")
                time.sleep(0.02)
            service_s = time.monotonic() - started
            reply = client.query("bench", "what did I say first?", timeout=60.0)
            answer_s = time.monotonic() - started
            if reply.status == "error":
                raise RuntimeError(f"query failed: {reply.message}")
        calls = cli_calls(namespace, db, cli) if cli else []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    out: dict[str, Any] = {"service_s": round(service_s, 3), "first_answer_s": round(answer_s, 3)}
    if calls:
        out["cli_query_s"] = [round(c, 3) for c in calls]
    return out


def _spread(values: list[float]) -> dict[str, Any]:
    """The calls' latency summary (seconds), their maximum and the share within 1 s."""
    from .metrics import latency_summary

    out: dict[str, Any] = {k: v if k == "n" else round(v, 3)
                           for k, v in latency_summary(values).items()}
    return {**out, "max": round(max(values), 3),
            "within_1s": round(sum(v <= 1.0 for v in values) / len(values), 3)}


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    workdir = Path(tempfile.mkdtemp(prefix="trace_ros_bench_startup_"))
    results: dict[str, Any] = {}
    try:
        for mode in args.modes:
            runs = [one_run(mode, workdir, i, args.cli) for i in range(args.runs)]
            results[mode] = {
                "runs": runs,
                "first_answer_s": round(statistics.median(r["first_answer_s"] for r in runs), 3),
                "service_s": round(statistics.median(r["service_s"] for r in runs), 3),
            }
            if args.cli:
                results[mode]["cli_query_s"] = _spread(
                    [c for r in runs for c in r["cli_query_s"]])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    best = min(results, key=lambda m: results[m]["first_answer_s"])
    print(f"{'mode':<10} {'service appears s':>18} {'first answer s':>15}   (median of "
          f"{args.runs} run(s), from spawn)")
    for mode, r in results.items():
        print(f"{mode:<10} {r['service_s']:>18.2f} {r['first_answer_s']:>15.2f}")
    for mode, r in results.items():
        if "cli_query_s" in r:
            c = r["cli_query_s"]
            print(f"{mode:<10} trace-ros query over ROS, per call: p50 {c['p50']:.2f} s, "
                  f"p95 {c['p95']:.2f} s, max {c['max']:.2f} s, {c['within_1s']:.0%} within 1 s "
                  f"({c['n']} calls)")
    from trace_ros.config import EmbedConfig

    embed = EmbedConfig()
    encoder = f"{embed.model_name}, embed.backend={getattr(embed, 'backend', 'torch')}, CPU"
    print(f"encoder: {encoder}; cores: {os.cpu_count()}")
    if args.json:
        print(json.dumps({"first_answer_s": results[best]["first_answer_s"], "mode": best,
                          "encoder": encoder, "modes": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
