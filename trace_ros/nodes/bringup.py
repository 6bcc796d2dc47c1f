"""Start memory_node, consolidation_node and query_node as child processes (rclpy only).

    python -m trace_ros.nodes.bringup [--params FILE] [--db PATH] [-p KEY:=VALUE ...]
        [--namespace NS] [--nodes memory_node,...] [--log-level LEVEL] [--single-process]
        [--ros-args ARGS...]

The equivalent of ``launch/memory.launch.py`` where launch/launch_ros are not
installed. The children share one process group of their own; SIGINT/SIGTERM
are forwarded to it. A node that dies unexpectedly is restarted after a backoff
(1 s, doubling up to 30 s) and bringup says so on stderr; after ``--restarts``
quick deaths in a row (a node that ran for ``HEALTHY_S`` starts the count afresh)
the others are stopped and the exit status is non-zero. ``--restarts 0``: no restart.
Each node drives itself to active (lifecycle ``autostart``); one that cannot
configure exits with status 1. ``--single-process`` runs the nodes in this process on
one executor instead, with one encoder shared by consolidation_node and query_node
(see ``nodes.single``; no restarts there).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import yaml

from ..cliargs import ArgParser, non_negative_int
from ..errors import ConfigError
from ..storage.url import parse_ledger_url

NODES = ("memory_node", "consolidation_node", "query_node")
PACKAGE = "trace_ros"
STOP_TIMEOUT_S = 15.0
BACKOFF_S = (1.0, 30.0)  # first delay, ceiling
HEALTHY_S = 60.0  # a node up this long has its restart count reset
_PR_SET_PDEATHSIG = 1


def config_file(name: str) -> Path:
    """``config/<name>``: the installed share directory, else this source tree."""
    candidates = []
    try:
        from ament_index_python.packages import get_package_share_directory

        candidates.append(Path(get_package_share_directory(PACKAGE)) / "config" / name)
    except Exception:  # noqa: BLE001 - no ament index (or no AMENT_PREFIX_PATH): look elsewhere
        pass
    candidates.append(Path(sys.prefix) / "share" / PACKAGE / "config" / name)
    candidates.append(Path(__file__).resolve().parents[2] / "config" / name)
    for path in candidates:
        if path.is_file():
            return path
    raise FileNotFoundError(f"config/{name} not found")


def default_params_file() -> Path:
    """config/memory.yaml: the installed share directory, else this source tree."""
    try:
        return config_file("memory.yaml")
    except FileNotFoundError:
        raise FileNotFoundError("config/memory.yaml not found; pass --params FILE") from None


PROFILE_VARS = ("FASTDDS_DEFAULT_PROFILES_FILE", "FASTRTPS_DEFAULT_PROFILES_FILE")
FASTDDS_RMWS = ("", "rmw_fastrtps_cpp", "rmw_fastrtps_dynamic_cpp")


def discovery_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables to add so that FastDDS nodes load config/fastdds_discovery.xml (their
    services are found by a newly started client within 0.25 s instead of up to 3 s); empty
    under another RMW, when the user names a profile file of their own (even an empty one),
    or when the file is not installed."""
    env = os.environ if env is None else env
    if env.get("RMW_IMPLEMENTATION", "") not in FASTDDS_RMWS or any(v in env for v in PROFILE_VARS):
        return {}
    try:
        return {PROFILE_VARS[0]: str(config_file("fastdds_discovery.xml"))}
    except FileNotFoundError:
        return {}


def ros_arguments(params: Path, overrides_file: Path | None = None, log_level: str = "",
                  namespace: str = "", ros_args: Sequence[str] = ()) -> list[str]:
    """What follows ``--ros-args`` for a node: parameter files, namespace, log level."""
    out = ["--params-file", str(params)]
    if overrides_file is not None:
        out += ["--params-file", str(overrides_file)]
    if namespace:
        out += ["-r", f"__ns:={normal_namespace(namespace)}"]
    if log_level:
        out += ["--log-level", log_level]
    return out + list(ros_args)


def normal_namespace(namespace: str) -> str:
    """``robot1`` or ``/robot1/`` -> ``/robot1``; empty -> ``/``."""
    return "/" + namespace.strip("/")


def node_command(node: str, params: Path, overrides_file: Path | None = None,
                 log_level: str = "", ros_args: Sequence[str] = (),
                 namespace: str = "") -> list[str]:
    # -P: the caller's working directory must not shadow the package.
    return [sys.executable, "-P", "-m", f"trace_ros.nodes.{node}", "--ros-args",
            *ros_arguments(params, overrides_file, log_level, namespace, ros_args)]


def write_overrides(nodes: Sequence[str], overrides: Sequence[str]) -> Path | None:
    """A parameter file setting ``KEY:=VALUE`` overrides in each node's own section.

    ``-p`` on the command line would not do: ROS applies ``-p`` like a ``/**`` entry,
    so a node's own section in the main file would win over it. The sections are
    ``/**/<node>``, so they apply under any namespace. Values are typed as YAML, as
    ``-p`` would type them. The file is removed when this process exits.
    """
    if not overrides:
        return None
    values = {k.strip(): yaml.safe_load(v) for k, v in (o.split(":=", 1) for o in overrides)}
    # One copy per node: a shared dict would be written as a YAML alias, which rcl refuses.
    body = {f"/**/{node}": {"ros__parameters": dict(values)} for node in nodes}
    fd, name = tempfile.mkstemp(prefix="trace_ros_overrides_", suffix=".yaml")
    with os.fdopen(fd, "w") as fh:
        yaml.safe_dump(body, fh, sort_keys=True)
    atexit.register(_unlink, Path(name))
    return Path(name)


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def child_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: ours) with the trace_ros this process runs first on PYTHONPATH, and
    the discovery profile (``discovery_env``)."""
    out = dict(os.environ if env is None else env)
    out.update(discovery_env(out))
    root = str(Path(__file__).absolute().parents[2])
    paths = [p for p in out.get("PYTHONPATH", "").split(os.pathsep) if p and p != root]
    out["PYTHONPATH"] = os.pathsep.join([root, *paths])
    return out


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM if the parent dies (Linux only)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def start(nodes: Sequence[str], params: Path, overrides: Sequence[str] = (),
          log_level: str = "", env: dict[str, str] | None = None,
          ros_args: Sequence[str] = (), namespace: str = "") -> list[subprocess.Popen]:
    """Start ``nodes`` in one new process group (the first child's).

    ``ros_args`` are appended to every node's ``--ros-args`` section.
    """
    extra = write_overrides(nodes, overrides)
    procs: list[subprocess.Popen] = []
    for node in nodes:
        group = procs[0].pid if procs else 0
        procs.append(subprocess.Popen(node_command(node, params, extra, log_level, ros_args,
                                                   namespace),
                                      env=child_env(env),
                                      process_group=group, preexec_fn=_die_with_parent))
    return procs


def relauncher(params: Path, overrides: Sequence[str] = (), log_level: str = "",
               env: dict[str, str] | None = None, ros_args: Sequence[str] = (),
               namespace: str = "") -> Callable[[str, int], subprocess.Popen]:
    """``relaunch(node, group)``: start one node again, into process group ``group``
    while it still has members, else into a new one."""
    def relaunch(node: str, group: int) -> subprocess.Popen:
        extra = write_overrides([node], overrides)
        command = node_command(node, params, extra, log_level, ros_args, namespace)
        try:
            return subprocess.Popen(command, env=child_env(env), process_group=group,
                                    preexec_fn=_die_with_parent)
        except (OSError, subprocess.SubprocessError):  # the group has no member left
            return subprocess.Popen(command, env=child_env(env), process_group=0,
                                    preexec_fn=_die_with_parent)
    return relaunch


def _groups(procs: Sequence[subprocess.Popen]) -> list[int]:
    groups: list[int] = []
    for proc in procs:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            group = os.getpgid(proc.pid)
            if group not in groups:
                groups.append(group)
    return groups or [procs[0].pid]


def stop(procs: Sequence[subprocess.Popen], sig: int = signal.SIGINT,
         timeout: float = STOP_TIMEOUT_S) -> None:
    """Signal the group(s), wait until the deadline, then SIGKILL what is left."""
    if not procs:
        return
    groups = _groups(procs)
    for group in groups:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, sig)
    deadline = time.monotonic() + timeout
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(max(0.1, deadline - time.monotonic()))
    for group in groups:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
    for proc in procs:
        proc.wait()


def supervise(procs: list[subprocess.Popen], names: Sequence[str],
              relaunch: Callable[[str, int], subprocess.Popen] | None = None,
              max_restarts: int = 0) -> int:
    """Wait for a signal (forwarded) or an unexpected exit; returns the exit status.

    With ``relaunch`` and ``max_restarts`` > 0 a node that died is started again
    after a backoff (``procs`` is updated in place); a node that dies
    ``max_restarts`` + 1 times in a row without running ``HEALTHY_S`` stops all.
    """
    received: list[int] = []
    group = procs[0].pid
    started = [time.monotonic()] * len(procs)
    failures = [0] * len(procs)
    due: dict[int, float] = {}  # index -> when to restart

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while not received:
            now = time.monotonic()
            for i, (name, proc) in enumerate(zip(names, procs, strict=True)):
                if i in due or proc.poll() is None:
                    continue
                if now - started[i] >= HEALTHY_S:
                    failures[i] = 0
                failures[i] += 1
                if relaunch is None or failures[i] > max_restarts:
                    print(f"bringup: {name} exited unexpectedly (status {proc.returncode})",
                          file=sys.stderr, flush=True)
                    stop(procs, signal.SIGTERM)
                    return 1
                delay = min(BACKOFF_S[1], BACKOFF_S[0] * 2 ** (failures[i] - 1))
                print(f"bringup: {name} exited unexpectedly (status {proc.returncode}); "
                      f"restarting in {delay:.0f} s (restart {failures[i]} of {max_restarts})",
                      file=sys.stderr, flush=True)
                due[i] = now + delay
            for i, when in list(due.items()):
                if now >= when:
                    del due[i]
                    procs[i] = relaunch(names[i], group)  # type: ignore[misc]
                    started[i] = time.monotonic()
                    print(f"bringup: restarted {names[i]} (pid {procs[i].pid})",
                          file=sys.stderr, flush=True)
            time.sleep(0.2)
        stop(procs, received[0])
        bad = [p.returncode for p in procs if p.returncode not in (0, -received[0])]
        return 1 if bad else 0
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Options; anything after ``--ros-args`` is passed on to every node."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ros_args: list[str] = []
    if "--ros-args" in argv:
        cut = argv.index("--ros-args")
        argv, ros_args = argv[:cut], argv[cut + 1:]
    parser = ArgParser(prog="python -m trace_ros.nodes.bringup",
                       description=__doc__.split("\n\n")[0])
    parser.add_argument("--params", type=Path, help="ROS parameter file (default: "
                        "config/memory.yaml of the installed package or source tree)")
    parser.add_argument("--db", help="override ledger.db_path")
    parser.add_argument("--ledger-url", metavar="URL",
                        help="override ledger.url (sqlite:///abs/path.db or "
                             "postgresql://user@host:port/db)")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY:=VALUE",
                        help="extra parameter override for every node (repeatable)")
    parser.add_argument("--nodes", default=",".join(NODES),
                        help="comma-separated subset of nodes to start (default: all three)")
    parser.add_argument("--log-level", default="", help="ROS log level for every node")
    parser.add_argument("--namespace", default="",
                        help="namespace of every node, one per robot (e.g. robot1)")
    parser.add_argument("--single-process", action="store_true",
                        help="run the nodes in this process on one executor, sharing one "
                             "encoder (faster start-up)")
    parser.add_argument("--restarts", type=non_negative_int, default=5,
                        help="restart a node that dies, at most this many times in a row "
                        "(with backoff); 0: stop everything instead (default: 5)")
    args = parser.parse_args(argv)
    args.nodes = [n.strip() for n in args.nodes.split(",") if n.strip()]
    unknown = sorted(set(args.nodes) - set(NODES))
    if unknown or not args.nodes:
        parser.error(f"--nodes: choose from {', '.join(NODES)} (got {', '.join(unknown) or 'none'})")
    if any(":=" not in item for item in args.param):
        parser.error("-p/--param takes KEY:=VALUE")
    if args.ledger_url is not None:
        if args.db:
            parser.error("--ledger-url: give --db or --ledger-url, not both")
        try:
            parse_ledger_url(args.ledger_url, "--ledger-url")
        except ConfigError as exc:
            parser.error(str(exc))
    args.ros_args = ros_args
    return args


def overrides_for(db: str | None, params: Sequence[str], url: str | None = None) -> list[str]:
    out = list(params)
    if db:
        out.append(f"ledger.db_path:={Path(db).expanduser().resolve()}")
    if url:
        out.append(f"ledger.url:={url}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        params = args.params or default_params_file()
    except FileNotFoundError as exc:
        print(f"bringup: {exc}", file=sys.stderr)
        return 2
    if not params.is_file():
        print(f"bringup: parameter file {params} not found", file=sys.stderr)
        return 2
    overrides = overrides_for(args.db, args.param, args.ledger_url)
    if args.single_process:
        from trace_ros.nodes.single import run_single

        os.environ.update(discovery_env())  # read when the participant is created

        return run_single(args.nodes, ros_arguments(
            params, write_overrides(args.nodes, overrides), args.log_level, args.namespace,
            args.ros_args))
    procs = start(args.nodes, params, overrides, args.log_level,
                  ros_args=args.ros_args, namespace=args.namespace)
    where = f" in {normal_namespace(args.namespace)}" if args.namespace else ""
    print(f"bringup: started {', '.join(args.nodes)}{where} (process group {procs[0].pid}) "
          f"with {params}", file=sys.stderr, flush=True)
    relaunch = relauncher(params, overrides, args.log_level, ros_args=args.ros_args,
                          namespace=args.namespace)
    return supervise(procs, args.nodes, relaunch, max(0, args.restarts))


if __name__ == "__main__":
    sys.exit(main())
