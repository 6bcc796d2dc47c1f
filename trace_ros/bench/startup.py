"""Start-up benchmark: seconds from `trace-ros up` to the first answered memory/query.

    trace-ros bench startup [--runs N] [--modes single,processes] [--json]

Each run starts the bring-up as a child process on a fresh temporary ledger in a private
namespace, asks memory/query as soon as the service appears, and records when the service
appeared and when the first answer came back (wall clock from the spawn). ``single``: one
process, one executor, one shared encoder (``--single-process``); ``processes``: one process
per node (the launch file's layout). With ``--json`` the last line is one object with
``first_answer_s`` (the best mode's median) and the figures of every mode.
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

MODES = ("single", "processes")
TIMEOUT_S = 180.0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="trace-ros bench startup", description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=1, help="runs per mode (default 1)")
    p.add_argument("--modes", default=",".join(MODES),
                   help=f"comma-separated subset of {', '.join(MODES)}")
    p.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = p.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not args.modes or set(args.modes) - set(MODES) or args.runs < 1:
        p.error(f"--modes: choose from {', '.join(MODES)}; --runs >= 1")
    return args


def one_run(mode: str, workdir: Path, index: int) -> dict[str, float]:
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
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    return {"service_s": round(service_s, 3), "first_answer_s": round(answer_s, 3)}


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    workdir = Path(tempfile.mkdtemp(prefix="trace_ros_bench_startup_"))
    results: dict[str, Any] = {}
    try:
        for mode in args.modes:
            runs = [one_run(mode, workdir, i) for i in range(args.runs)]
            results[mode] = {
                "runs": runs,
                "first_answer_s": round(statistics.median(r["first_answer_s"] for r in runs), 3),
                "service_s": round(statistics.median(r["service_s"] for r in runs), 3),
            }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    best = min(results, key=lambda m: results[m]["first_answer_s"])
    print(f"{'mode':<10} {'service appears s':>18} {'first answer s':>15}   (median of "
          f"{args.runs} run(s), from spawn)")
    for mode, r in results.items():
        print(f"{mode:<10} {r['service_s']:>18.2f} {r['first_answer_s']:>15.2f}")
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
