"""Fixtures for ROS integration tests: real nodes as child processes, on a private domain.

Every ROS process of a test run (these tests' in-process clients and the nodes they
start) uses ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` and a ``ROS_DOMAIN_ID`` in
1..100 picked from the pid, set here before any rclpy context exists.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from pkgutil import extend_path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DOMAIN_ID = os.getpid() % 100 + 1
os.environ["ROS_DOMAIN_ID"] = str(DOMAIN_ID)
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

# Work from the source tree as well as from the venv install (`make setup`): put the
# checkout on sys.path and let the trace_ros namespace span both (see trace_ros/__init__).
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
if "trace_ros" in sys.modules:
    _pkg = sys.modules["trace_ros"]
    _pkg.__path__ = extend_path(list(_pkg.__path__), "trace_ros")  # type: ignore[attr-defined]

NODE_START_TIMEOUT_S = 90.0


def pytest_report_header(config: Any) -> str:
    return f"ROS tests: ROS_DOMAIN_ID={DOMAIN_ID}, ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST"


class Nodes:
    """Child node processes (one process group) on one ledger; stopped at teardown."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.procs: list[Any] = []

    def start(self, names: tuple[str, ...], overrides: tuple[str, ...] = (),
              namespace: str = "") -> None:
        from trace_ros.nodes import bringup

        self.procs += bringup.start(names, bringup.default_params_file(),
                                    bringup.overrides_for(str(self.db), list(overrides)),
                                    log_level="warn", namespace=namespace)

    def alive(self) -> bool:
        return all(p.poll() is None for p in self.procs)

    def kill(self, signum: int) -> None:
        """Send ``signum`` to every node process and reap them (no clean shutdown for -9)."""
        for proc in self.procs:
            if proc.poll() is None:
                os.kill(proc.pid, signum)
        for proc in self.procs:
            proc.wait(timeout=15)
        self.procs = []

    def stop(self) -> None:
        from trace_ros.nodes import bringup

        bringup.stop(self.procs, timeout=15.0)
        self.procs = []


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


def _nodes(db: Path) -> Iterator[Nodes]:
    nodes = Nodes(db)
    try:
        yield nodes
    finally:
        nodes.stop()


@pytest.fixture
def nodes(db: Path) -> Iterator[Nodes]:
    yield from _nodes(db)


@pytest.fixture
def make_nodes(tmp_path: Path) -> Iterator[Callable[[str], Nodes]]:
    """Factory of ``Nodes``, each on its own ledger ``<tmp>/<name>.db``; all stopped at teardown."""
    made: list[Nodes] = []

    def make(name: str) -> Nodes:
        made.append(Nodes(tmp_path / f"{name}.db"))
        return made[-1]

    yield make
    for nodes in made:
        nodes.stop()


@pytest.fixture(scope="module")
def module_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ledger") / "memory.db"


@pytest.fixture(scope="module")
def module_nodes(module_db: Path) -> Iterator[Nodes]:
    yield from _nodes(module_db)


@pytest.fixture
def make_client() -> Iterator[Callable[..., Any]]:
    """Factory of in-process MemoryClients, all closed at teardown."""
    from trace_ros.nodes.client import MemoryClient

    made: list[MemoryClient] = []

    def make(**kwargs: Any) -> MemoryClient:
        client = MemoryClient(f"test_client_{len(made)}", **kwargs)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


def wait_ready(client: Any, nodes: Nodes, timeout: float = NODE_START_TIMEOUT_S,
               **what: bool) -> None:
    """Wait (deadline-bound) until the client sees the nodes; fail early if one died."""
    deadline = time.monotonic() + timeout
    while not client.wait_ready(1.0, **what):
        assert nodes.alive(), "a node exited during start-up"
        assert time.monotonic() < deadline, f"nodes not ready within {timeout:.0f} s"


@pytest.fixture(scope="session")
def ready() -> Callable[..., None]:
    """``ready(client, nodes, capture=..., query=..., forget=...)``: see ``wait_ready``."""
    return wait_ready
