#!/usr/bin/env bash
# Build trace_ros the way a ROS 2 workspace would (colcon, symlink install) in a scratch
# workspace, then start the installed executables and check they come up.
#
#   VENV=.venv tools/colcon_check.sh          (make colcon-check does this after make setup)
#
# Environment: VENV (default .venv), COLCON_WS (default build/colcon_ws),
# STARTUP_TIMEOUT_S (default 120: how long a node may take to appear on the graph).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=$(cd "${VENV:-$repo/.venv}" && pwd)
ws=${COLCON_WS:-$repo/build/colcon_ws}
startup_timeout=${STARTUP_TIMEOUT_S:-120}

export ROS_AUTOMATIC_DISCOVERY_RANGE=${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}
export ROS_DOMAIN_ID=${ROS_DOMAIN_ID:-77}
export VIRTUAL_ENV=$venv PATH="$venv/bin:$PATH"

say() { printf 'colcon-check: %s\n' "$*"; }

mkdir -p "$ws/src"
ln -sfn "$repo" "$ws/src/trace_ros"
cd "$ws"

say "colcon build in $ws"
start=$(date +%s)
AMENT_PREFIX_PATH=$venv CMAKE_PREFIX_PATH=$venv \
  colcon build --symlink-install --base-paths src \
  --cmake-args -DPython3_EXECUTABLE="$venv/bin/python" -DBUILD_TESTING=OFF
say "colcon build took $(( $(date +%s) - start )) s"

# colcon's setup scripts read unset variables; source them without nounset.
set +u
# shellcheck disable=SC1091
. "$ws/install/setup.sh"
set -u
export AMENT_PREFIX_PATH="$ws/install/trace_ros:$venv"

prefix="$ws/install/trace_ros"
python - "$prefix" <<'EOF'
import sys
from pathlib import Path

import trace_ros
from ament_index_python.packages import get_package_prefix
from trace_ros.msg import DialogueEvent  # noqa: F401
from trace_ros.srv import Query  # noqa: F401

prefix = Path(sys.argv[1]).resolve()
assert Path(trace_ros.__file__).is_relative_to(prefix), f"imported {trace_ros.__file__}"
assert Path(get_package_prefix("trace_ros")).resolve() == prefix, get_package_prefix("trace_ros")
print(f"colcon-check: trace_ros from {trace_ros.__file__}; ament index -> {prefix}")
EOF

for exe in memory_node consolidation_node query_node bringup; do
  test -x "$prefix/lib/trace_ros/$exe" || { say "missing $prefix/lib/trace_ros/$exe"; exit 1; }
done
test -x "$prefix/bin/trace-ros" || { say "missing $prefix/bin/trace-ros"; exit 1; }

run_dir=$(mktemp -d "${TMPDIR:-/tmp}/trace_ros_colcon_check.XXXXXX")
pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill -INT -- "-$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    # bringup gives its children 15 s to stop; allow 20 s before SIGKILL.
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  pids=()
}
trap stop_all EXIT

# Start executables in their own process groups (so a signal reaches all their children),
# wait until the expected nodes and /memory/query show up on the graph, then stop them.
probe() {  # probe <label> <node names...>
  local label=$1; shift
  PROBE_PIDS="${pids[*]}" python - "$startup_timeout" "$@" <<'EOF'
import os
import sys
import time

import rclpy


def exited(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


deadline = time.monotonic() + float(sys.argv[1])
want_nodes = set(sys.argv[2:])
rclpy.init()
node = rclpy.create_node("trace_ros_colcon_probe")
try:
    while True:
        nodes = {name for name, _ns in node.get_node_names_and_namespaces()}
        services = {name for name, _types in node.get_service_names_and_types()}
        if want_nodes <= nodes and "/memory/query" in services:
            print(f"colcon-check: up: {sorted(want_nodes)} and /memory/query")
            break
        dead = [pid for pid in os.environ["PROBE_PIDS"].split() if exited(pid)]
        if dead:
            print(f"colcon-check: process(es) {dead} exited before coming up")
            sys.exit(1)
        if time.monotonic() > deadline:
            print(f"colcon-check: timed out; nodes seen {sorted(nodes)}, "
                  f"/memory/query {'present' if '/memory/query' in services else 'absent'}")
            sys.exit(1)
        time.sleep(0.5)
finally:
    node.destroy_node()
    rclpy.shutdown()
EOF
  local rc=$?
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || { say "$label: a process exited early"; rc=1; }
  done
  return $rc
}

start_exe() {  # start_exe <exe> [args...]
  local exe=$1; shift
  (cd "$run_dir" && exec setsid "$prefix/lib/trace_ros/$exe" "$@" >"$run_dir/$exe.log" 2>&1) &
  pids+=($!)
}

status=0
say "starting memory_node, consolidation_node, query_node (logs in $run_dir)"
for exe in memory_node consolidation_node query_node; do
  start_exe "$exe" --ros-args -p "ledger.db_path:=$run_dir/separate.db"
done
probe "separate nodes" memory_node consolidation_node query_node || status=1
stop_all

say "starting bringup"
# bringup has its own options (python -m trace_ros.nodes.bringup --help); it passes --ros-args on.
start_exe bringup --db "$run_dir/bringup.db"
probe "bringup" memory_node consolidation_node query_node || status=1
stop_all

if [ "$status" -ne 0 ]; then
  for log in "$run_dir"/*.log; do say "--- $log"; tail -n 30 "$log"; done
  exit 1
fi
rm -rf "$run_dir"
say "ok"
