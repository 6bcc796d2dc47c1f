"""A writable ROS log directory before ``rclpy.init``.

rcl's logging set-up opens a log file in ``$ROS_LOG_DIR``, else ``$ROS_HOME/log``, else
``~/.ros/log`` (a leading ``~`` is ``$HOME``), and ``rclpy.init`` fails with "failed to
initialize logging" when that directory cannot be created or written (a service account
whose HOME is read-only, a container without one). ``ensure_log_dir`` checks that
directory first and, where it is unusable, points ``ROS_LOG_DIR`` at a private temporary
directory, so the process (and every node it starts, which inherits the environment)
logs there instead of failing.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import MutableMapping
from pathlib import Path


def rcl_log_dir(environ: MutableMapping[str, str]) -> Path | None:
    """The directory rcl will log to under ``environ`` (None: it cannot tell, no HOME)."""
    home = environ.get("HOME", "")

    def expand(path: str) -> Path | None:
        if path == "~" or path.startswith("~/"):
            return Path(home + path[1:]) if home else None
        return Path(path)

    if environ.get("ROS_LOG_DIR"):
        return expand(environ["ROS_LOG_DIR"])
    if environ.get("ROS_HOME"):
        base = expand(environ["ROS_HOME"])
        return None if base is None else base / "log"
    return Path(home) / ".ros" / "log" if home else None


def _usable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK)


def ensure_log_dir(environ: MutableMapping[str, str] | None = None) -> Path | None:
    """Make sure rcl can log; returns the temporary directory set as ``ROS_LOG_DIR``
    when the configured one was unusable, else None (nothing changed)."""
    env = os.environ if environ is None else environ
    current = rcl_log_dir(env)
    if current is not None and _usable(current):
        return None
    fallback = Path(tempfile.mkdtemp(prefix="trace_ros_log_"))
    env["ROS_LOG_DIR"] = str(fallback)
    return fallback
