"""What ``trace-ros query`` imports to answer locally: each heavy package kept off its
path here cost a person at a terminal a measured share of a second or more."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# The modules the local answer (cli.cmd_query -> _ask_local) imports.
QUERY_PATH = ("trace_ros.cli", "trace_ros.presence", "trace_ros.embed", "trace_ros.ledger",
              "trace_ros.storage", "trace_ros.storage.sqlite.ledger", "trace_ros.query.answer",
              "trace_ros.query.readers")
# nltk (its package initialiser pulls scipy and sklearn: ~2.4 s), sqlite_utils (~0.15 s,
# only a migration helper), torch and transformers (only the ONNX export and the torch
# backend), rclpy (only when a query node is asked).
KEPT_OFF = ("nltk", "scipy", "sklearn", "sqlite_utils", "torch", "transformers", "rclpy")


def test_the_local_query_path_keeps_heavy_packages_off() -> None:
    code = (f"import importlib, sys\nfor m in {QUERY_PATH!r}: importlib.import_module(m)\n"
            f"print(sorted(p for p in {KEPT_OFF!r} if p in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_ledger_connections_keep_what_sqlite_utils_set_without_importing_it(
        tmp_path: Path) -> None:
    from trace_ros.ledger import Ledger
    from trace_ros.storage.sqlite.readonly import open_read_only

    with Ledger(tmp_path / "m.db") as ledger:
        assert ledger.conn.execute("PRAGMA recursive_triggers").fetchone()[0] == 1
    with open_read_only(tmp_path / "m.db") as ledger:
        assert ledger.conn.execute("PRAGMA recursive_triggers").fetchone()[0] == 1
