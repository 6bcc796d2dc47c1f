"""Fixtures for the explorer: the demo memory in a real ledger file (captured and
consolidated by the real pipeline) and a live server on a free loopback port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from trace_ros.explore.demo_data import build_demo_ledger


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo_ledger(tmp_path_factory.mktemp("explore") / "demo.db")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """uvicorn serving an app in a thread (stopped by the fixture)."""

    def __init__(self, app: object, port: int) -> None:
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                                    log_level="warning"))
        self.url = f"http://127.0.0.1:{port}/"
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("explorer server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def serve() -> Iterator:
    servers: list[Server] = []

    def start(app: object) -> Server:
        srv = Server(app, free_port())
        srv.start()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.stop()
