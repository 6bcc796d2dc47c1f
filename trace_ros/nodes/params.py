"""Parameters the ROS way: each node declares only what it uses, one descriptor each.

Engine settings come from ``trace_ros.paramspec`` (defaults from ``config.py``); a node
adds its own (``NodeParam``). Every parameter gets its own ``ParameterDescriptor`` with a
description, its type, a range where it has one, and ``read_only`` where a change needs a
restart. ``ros2 param set`` on a dynamic one is checked by the on-set callback (the same
validation as the config file) and then applied to the live config objects, which the
engine reads at use time; on a read-only one rclpy refuses it with a reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rcl_interfaces.msg import (
    FloatingPointRange,
    IntegerRange,
    ParameterDescriptor,
    ParameterType,
    SetParametersResult,
)
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.logging import LoggingSeverity
from rclpy.node import Node
from rclpy.parameter import Parameter

from trace_ros.config import MemoryConfig
from trace_ros.errors import ConfigError
from trace_ros.paramspec import NODE_SECTIONS, ParamSpec, engine_params

LOG_LEVELS = {"debug": LoggingSeverity.DEBUG, "info": LoggingSeverity.INFO,
              "warn": LoggingSeverity.WARN, "error": LoggingSeverity.ERROR,
              "fatal": LoggingSeverity.FATAL}


@dataclass(frozen=True)
class NodeParam:
    """A parameter of the node itself (not an engine setting)."""

    default: Any
    spec: ParamSpec


COMMON: dict[str, NodeParam] = {
    "diagnostics_period_s": NodeParam(1.0, ParamSpec(
        "Seconds between /diagnostics messages (0: none)", min=0.0, max=3600.0)),
    "log_level": NodeParam("", ParamSpec(
        "Logger level of this node: debug, info, warn, error or fatal (empty: as started, "
        "e.g. by --log-level)", dynamic=True, choices=("", *LOG_LEVELS))),
}

_TYPES = {bool: ParameterType.PARAMETER_BOOL, int: ParameterType.PARAMETER_INTEGER,
          float: ParameterType.PARAMETER_DOUBLE, str: ParameterType.PARAMETER_STRING}


def descriptor(name: str, default: Any, spec: ParamSpec) -> ParameterDescriptor:
    """A new descriptor for one parameter (rclpy writes into it: never share one)."""
    text = spec.description if spec.dynamic else f"{spec.description} (restart to change)"
    desc = ParameterDescriptor(name=name, type=_TYPES[type(default)], description=text,
                               read_only=not spec.dynamic)
    if spec.choices:
        desc.additional_constraints = "one of: " + ", ".join(repr(c) for c in spec.choices)
    if isinstance(default, bool) or (spec.min is None and spec.max is None):
        return desc
    if isinstance(default, int):
        desc.integer_range = [IntegerRange(
            from_value=int(spec.min if spec.min is not None else -(2**63)),
            to_value=int(spec.max if spec.max is not None else 2**63 - 1), step=0)]
    elif isinstance(default, float):
        desc.floating_point_range = [FloatingPointRange(
            from_value=float(spec.min if spec.min is not None else -1e308),
            to_value=float(spec.max if spec.max is not None else 1e308), step=0.0)]
    return desc


class NodeParameters:
    """Declares a node's parameters and keeps its live config in step with them.

    Declared at construction; ``load()`` (at configure) builds ``config``, the engine
    config (only the node's sections come from parameters; the others keep their
    defaults), and ``opts``, the node's own values. ``on_change`` registers a function
    called with ``{name: value}`` after a set was accepted.
    """

    def __init__(self, node: Node, node_name: str, own: dict[str, NodeParam]) -> None:
        self.node = node
        self.engine = engine_params(NODE_SECTIONS[node_name])
        self.own = {**COMMON, **own}
        self.specs: dict[str, tuple[Any, ParamSpec]] = {
            **self.engine, **{k: (p.default, p.spec) for k, p in self.own.items()}}
        self._listeners: list[Callable[[dict[str, Any]], None]] = []
        for name, (default, spec) in self.specs.items():
            try:
                node.declare_parameter(name, default, descriptor(name, default, spec))
            except (InvalidParameterTypeException, InvalidParameterValueException) as exc:
                raise ConfigError(f"{name}: {exc}") from exc
        self.config: MemoryConfig | None = None
        self.opts = {name: node.get_parameter(name).value for name in self.own}
        node.add_on_set_parameters_callback(self._validate)
        node.add_post_set_parameters_callback(self._apply)

    def value(self, name: str) -> Any:
        return self.node.get_parameter(name).value

    def load(self) -> MemoryConfig:
        """Check every value and build the engine config; raises ``ConfigError``."""
        values = {name: self.value(name) for name in self.engine}
        for name, value in values.items():
            self._check_choice(name, value)
        self.opts = {name: self.value(name) for name in self.own}
        for name, value in self.opts.items():
            self._check_choice(name, value)
        self.config = MemoryConfig.from_flat(values)
        self._apply_log_level(self.opts["log_level"])
        return self.config

    def on_change(self, listener: Callable[[dict[str, Any]], None]) -> None:
        self._listeners.append(listener)

    def _check_choice(self, name: str, value: Any) -> None:
        choices = self.specs[name][1].choices
        if choices and value not in choices:
            raise ConfigError(f"{name}: must be one of {', '.join(map(repr, choices))}, "
                              f"got {value!r}")

    def _validate(self, params: list[Parameter]) -> SetParametersResult:
        flat = {**MemoryConfig().to_flat(), **{n: self.value(n) for n in self.engine}}
        try:
            for param in params:
                if param.name not in self.specs:
                    continue  # use_sim_time and other rclpy parameters
                self._check_choice(param.name, param.value)
                if param.name in self.engine:
                    flat[param.name] = param.value
            MemoryConfig.from_flat(flat)
        except ConfigError as exc:
            return SetParametersResult(successful=False, reason=str(exc))
        return SetParametersResult(successful=True)

    def _apply(self, params: list[Parameter]) -> None:
        changed: dict[str, Any] = {}
        for param in params:
            if param.name in self.engine:
                if self.config is not None:
                    section, _, field = param.name.partition(".")
                    setattr(getattr(self.config, section), field, param.value)
            elif param.name in self.own:
                self.opts[param.name] = param.value
            else:
                continue
            changed[param.name] = param.value
        if "log_level" in changed:
            self._apply_log_level(changed["log_level"])
        if changed:
            self.node.get_logger().info(
                "parameters changed: " + ", ".join(f"{k}={v!r}" for k, v in changed.items()))
            for listener in self._listeners:
                listener(changed)

    def _apply_log_level(self, level: str) -> None:
        if level:
            self.node.get_logger().set_level(LOG_LEVELS[level])
