"""Managed (lifecycle) start-up shared by the three nodes.

``configure`` checks the parameters, opens the ledger and loads models (the slow part);
``activate`` opens topics, services and timers; ``deactivate`` closes them again and
``cleanup`` releases the ledger and models. With ``autostart`` (the default) a node drives
itself to active at start (configure, then activate), as nav2's lifecycle manager does for
its nodes; with ``autostart:=false`` it waits in ``unconfigured`` for ``ros2 lifecycle set``.
A node that cannot configure logs why and its process exits with status 1.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from typing import Any

import rclpy
from lifecycle_msgs.msg import State
from rclpy.executors import Executor
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn

from trace_ros.config import EmbedConfig, MemoryConfig
from trace_ros.embed import MiniLMEncoder
from trace_ros.errors import ConfigError
from trace_ros.nodes.common import Diagnostics, spin
from trace_ros.nodes.logdir import ensure_log_dir
from trace_ros.nodes.params import NodeParam, NodeParameters
from trace_ros.paramspec import ParamSpec

AUTOSTART = NodeParam(True, ParamSpec(
    "Configure and activate at start (false: wait for `ros2 lifecycle set`)"))

_ENCODERS: dict[tuple[Any, ...], Any] = {}


def shared_encoder(config: EmbedConfig) -> Any:
    """One encoder per embed config in this process (nodes in one process share it)."""
    key = dataclasses.astuple(config)
    if key not in _ENCODERS:
        _ENCODERS[key] = MiniLMEncoder(config)
    return _ENCODERS[key]


class ManagedNode(LifecycleNode):
    """Subclasses implement ``configure(config)``, ``activate()``, ``deactivate()``,
    ``cleanup()`` and ``diagnostics()``; they declare their own parameters in ``OWN``."""

    NAME = ""
    OWN: dict[str, NodeParam] = {}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(self.NAME, **kwargs)
        self.params = NodeParameters(self, self.NAME, {**self.OWN, "autostart": AUTOSTART})
        self.config: MemoryConfig | None = None
        self.failure = ""
        self._diagnostics: Diagnostics | None = None

    # -- what subclasses provide -------------------------------------------------

    def configure(self, config: MemoryConfig) -> None:
        raise NotImplementedError

    def activate(self) -> None:
        raise NotImplementedError

    def deactivate(self) -> None:
        raise NotImplementedError

    def cleanup(self) -> None:
        raise NotImplementedError

    def diagnostics(self) -> dict[str, Any]:
        return {}

    def health(self, values: dict[str, Any]) -> tuple[str, str]:
        """("OK" | "WARN" | "ERROR", why) from this period's diagnostics values."""
        return "OK", "ok"

    def preferred_executor(self) -> Executor | None:
        """The executor this node wants when it runs alone in a process."""
        return None

    # -- lifecycle transitions ---------------------------------------------------------

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        started = time.monotonic()
        try:
            self.config = self.params.load()
            self.configure(self.config)
        except Exception as exc:  # noqa: BLE001 - reported as the reason configure failed
            self.failure = f"{type(exc).__name__}: {exc}" if not isinstance(exc, ConfigError) \
                else str(exc)
            self.get_logger().error(f"cannot configure: {self.failure}")
            return TransitionCallbackReturn.FAILURE
        self.failure = ""
        self.get_logger().info(f"configured in {time.monotonic() - started:.1f} s")
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        try:
            self.activate()
        except Exception as exc:  # noqa: BLE001
            self.failure = f"{type(exc).__name__}: {exc}"
            self.get_logger().error(f"cannot activate: {self.failure}")
            return TransitionCallbackReturn.FAILURE
        period = float(self.params.opts["diagnostics_period_s"])
        self._diagnostics = Diagnostics(self, period, self.diagnostics, assess=self.health)
        self.get_logger().info("active")
        return super().on_activate(state)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        if self._diagnostics is not None:
            self._diagnostics.close()
            self._diagnostics = None
        self.deactivate()
        self.get_logger().info("inactive")
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.cleanup()
        self.config = None
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.release(state.state_id)
        return TransitionCallbackReturn.SUCCESS

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.release(state.state_id)
        return TransitionCallbackReturn.SUCCESS

    def release(self, state_id: int | None = None) -> None:
        """Deactivate and clean up from whatever state the node is in (idempotent)."""
        if state_id is None:
            state_id = self._state_machine.current_state[0]
        if state_id == State.PRIMARY_STATE_ACTIVE and self._diagnostics is not None:
            self.on_deactivate(LifecycleState("active", state_id))
        if self.config is not None:
            self.cleanup()
            self.config = None

    @property
    def gc_holder(self) -> str:
        """This node's name in ``trace_ros.gcfreeze`` (one per node object, so that two
        nodes of one name in one process hold apart)."""
        return f"{self.get_fully_qualified_name()}#{id(self):x}"

    def state_id(self) -> int:
        return self._state_machine.current_state[0]

    def bring_up(self) -> bool:
        """configure, then activate (used for ``autostart``); False with ``failure`` set."""
        if self.trigger_configure() != TransitionCallbackReturn.SUCCESS:
            self.failure = self.failure or "configure failed"
            return False
        if self.trigger_activate() != TransitionCallbackReturn.SUCCESS:
            self.failure = self.failure or "activate failed"
            return False
        return True


def run(node_class: Callable[[], ManagedNode], args: list[str] | None = None) -> int:
    """``main`` of one node process: create, bring up (with autostart), spin, release."""
    ensure_log_dir()
    rclpy.init(args=args)
    name = getattr(node_class, "NAME", "node")
    try:
        node = node_class()
    except ConfigError as exc:
        print(f"{name}: bad parameter: {exc}", file=sys.stderr)
        rclpy.try_shutdown()
        return 1
    if node.params.opts.get("autostart", True) and not node.bring_up():
        print(f"{name}: cannot start: {node.failure}", file=sys.stderr)
        node.release()
        node.destroy_node()
        rclpy.try_shutdown()
        return 1
    return spin(node, node.preferred_executor(), close=node.release)
