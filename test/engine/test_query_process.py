"""A `trace-ros query` process's own settings, made before numpy is imported."""

from __future__ import annotations

import os
import subprocess
import sys

CODE = ("import os, sys; from trace_ros import cli; cli._query_process_settings(); "
        "print(os.environ.get('OPENBLAS_NUM_THREADS'), 'numpy' in sys.modules)")


def _run(extra: dict[str, str]) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"} | extra
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True,
                          check=True, env=env)
    return done.stdout.split()


def test_a_query_process_runs_openblas_on_one_thread() -> None:
    assert _run({}) == ["1", "False"]


def test_the_environment_keeps_its_own_openblas_threads() -> None:
    assert _run({"OPENBLAS_NUM_THREADS": "3"}) == ["3", "False"]
