"""``bench capture`` with its memory node started by a diagnosis script instead.

The capture diagnosis tools (``capture_profile.py``, ``capture_rtt.py``) each wrap the
memory node's stages in their own process; ``run_bench`` starts the real bench with its
node command pointed at the calling script (``SCRIPT --node NODE_OUT [CHILD_ARGS] --ros-args
…``) and returns the bench's exit code and its JSON summary, its printing kept quiet.
"""

from __future__ import annotations

import builtins
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def run_bench(script: str, node_out: Path, child_args: Sequence[str],
              bench_args: Sequence[str]) -> tuple[int, dict[str, Any]]:
    """Run ``bench capture`` with ``bench_args``, its memory node started as ``script
    --node node_out *child_args --ros-args …``; the exit code and the bench's summary."""
    from trace_ros.bench import capture as bench
    from trace_ros.nodes import bringup

    command = bringup.node_command

    def instrumented(node: str, *rest: Any, **kwargs: Any) -> list[str]:
        cmd = command(node, *rest, **kwargs)
        ros = cmd.index("--ros-args")
        return [sys.executable, os.path.abspath(script), "--node", str(node_out),
                *child_args, *cmd[ros:]]

    printed: list[str] = []
    real_print = builtins.print

    def keep(*values: Any, **kwargs: Any) -> None:
        printed.append(" ".join(str(v) for v in values))

    bringup.node_command = instrumented  # type: ignore[assignment]
    builtins.print = keep
    try:
        code = bench.main(list(bench_args))
    finally:
        builtins.print = real_print
        bringup.node_command = command  # type: ignore[assignment]
    return code, (json.loads(printed[-1]) if printed else {})
