"""Ask a query node of this host over a Unix socket: the quick path of ``trace-ros query``.

Over DDS a one-shot command pays for rclpy and the message packages (~0.45 s on a busy
2-core machine), a context and a node (~0.14 s) and the discovery of the service's
reply path (0.2-0.6 s) before its question is sent, for an answer the node finds in
tens of milliseconds. A query node therefore also listens on a Unix socket beside its
presence record (``trace_ros.presence``) and names it there; ``trace-ros query
--via auto`` reads the record, connects, sends one JSON line and reads one back. The
node answers it with the same engine, under the same lock, as its ``memory/query``
service. Where the socket is missing or refuses, the command asks over ROS as before;
``--via ros`` always asks over ROS.

Who may ask: the socket file is the node's user's alone (mode 0600), and the node also
checks the peer's user id where the system tells it (``SO_PEERCRED``). Another user's
command falls back to ROS.

Wire: request ``{"subject", "question", "robot", "session", "as_of_valid",
"as_of_known", "token_budget", "asker"}`` (times in seconds, ``null`` or 0 for now;
``asker`` optional: who asks), one line of UTF-8 JSON; reply ``QueryResult.to_dict()``,
or ``{"status": "error", "message"}``, one line. Nothing here imports rclpy.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import socketserver
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import ValidationError

MAX_LINE = 1 << 20  # a request or reply larger than this is refused
READ_TIMEOUT_S = 5.0  # a connected client must send its request within this
FIELDS = ("subject", "question", "robot", "session", "as_of_valid", "as_of_known",
          "token_budget", "asker")
# AF_UNIX paths are at most 107 bytes on Linux (sun_path is 108, NUL included).
MAX_SOCKET_PATH = 100

Answer = Callable[[dict[str, Any]], dict[str, Any]]


def socket_path_for(record_path: Path) -> Path:
    """Where the node whose presence record is ``record_path`` listens: beside the record,
    or (a path too long for a Unix socket) in a per-user folder of the temporary
    directory, named by the record."""
    beside = record_path.with_suffix(".sock")
    if len(os.fsencode(str(beside))) <= MAX_SOCKET_PATH:
        return beside
    import tempfile
    from hashlib import sha256

    key = sha256(str(record_path).encode()).hexdigest()[:20]
    return Path(tempfile.gettempdir()) / f"trace_ros-{os.getuid()}" / "sock" / f"{key}.sock"


def request_fields(data: Any) -> dict[str, Any]:
    """The request's fields, checked: ``ValidationError`` for anything else than the
    ``FIELDS`` with the types the engine takes (its own validation comes after)."""
    if not isinstance(data, dict):
        raise ValidationError("request", "must be a JSON object")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ValidationError("request", f"unknown fields {unknown}")
    out: dict[str, Any] = {}
    for name in ("subject", "question", "robot", "session", "asker"):
        value = data.get(name, "")
        if not isinstance(value, str):
            raise ValidationError(name, f"must be a string, got {type(value).__name__}")
        out[name] = value
    for name in ("as_of_valid", "as_of_known"):
        value = data.get(name)
        if value is not None and (isinstance(value, bool)
                                  or not isinstance(value, int | float)):
            raise ValidationError(name, f"must be seconds or null, got {value!r}")
        if value is not None and value < 0:
            raise ValidationError(name, f"must not be negative, got {value}")
        out[name] = float(value) if value else None  # 0: now, as over ROS
    budget = data.get("token_budget", 0)
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise ValidationError("token_budget", f"must be an integer, got {budget!r}")
    out["token_budget"] = budget
    return out


def _peer_uid(conn: socket.socket) -> int | None:
    """The connected peer's user id, where the system says (Linux), else None."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:
        return None
    try:
        _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, opt,
                                                        struct.calcsize("3i")))
    except OSError:
        return None
    return uid


class _Handler(socketserver.StreamRequestHandler):
    timeout = READ_TIMEOUT_S
    server: _Server

    def handle(self) -> None:
        uid = _peer_uid(self.connection)
        if uid is not None and uid != os.getuid():
            return  # not this user's: closed without an answer
        line = self.rfile.readline(MAX_LINE + 1)
        if not line.endswith(b"\n"):
            return  # timed out, too long, or the client went away
        try:
            reply = self.server.answer(json.loads(line))
        except ValueError as exc:  # not JSON
            reply = {"status": "error", "message": f"request: not JSON ({exc})"}
        with contextlib.suppress(OSError):  # the client gave up waiting
            self.wfile.write(json.dumps(reply).encode() + b"\n")


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    answer: Answer


class AskServer:
    """Listens on ``path`` and answers each request with ``answer(request)`` (a dict:
    ``QueryResult.to_dict()`` or an error), one thread per connection. ``start`` raises
    ``OSError`` when the socket cannot be made (the node serves over ROS only)."""

    def __init__(self, path: Path, answer: Answer) -> None:
        self.path = path
        self._answer = answer
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a socket file left by a process that died
        server = _Server(str(self.path), _Handler, bind_and_activate=False)
        server.answer = self._answer
        try:
            server.server_bind()
            # Before listening: no connection is accepted while the file is still open to
            # others (and every connection's peer is checked as well, where it can be).
            os.chmod(self.path, 0o600)
            server.server_activate()
        except OSError:
            server.server_close()
            raise
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever,
                                        kwargs={"poll_interval": 0.2}, name="nodeask",
                                        daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop listening and remove the socket file (idempotent)."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        with contextlib.suppress(OSError):
            self.path.unlink()


def ask(path: str, fields: dict[str, Any], *, connect_s: float = 1.0,
        answer_s: float = 30.0) -> tuple[dict[str, Any] | None, str, bool]:
    """Send ``fields`` (see ``FIELDS``) to the node listening on ``path``: (reply, '', True),
    or (None, why not, whether the request was sent: a request that was sent may have
    been answered, so the caller does not ask elsewhere for it again)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(connect_s)
        try:
            conn.connect(path)
        except OSError as exc:
            return None, f"{path}: {exc.strerror or exc}", False
        conn.settimeout(answer_s)
        try:
            conn.sendall(json.dumps(fields).encode() + b"\n")
            reply = conn.makefile("rb").readline(MAX_LINE + 1)
        except TimeoutError:
            return None, f"{path} did not answer in {answer_s:g} s", True
        except OSError as exc:
            return None, f"{path}: {exc.strerror or exc}", True
        if not reply.endswith(b"\n"):
            return None, f"{path} closed without an answer", True
        try:
            out = json.loads(reply)
        except ValueError:
            return None, f"{path} answered something that is not JSON", True
        if not isinstance(out, dict):
            return None, f"{path} answered something that is not an object", True
        return out, "", True
    finally:
        conn.close()
