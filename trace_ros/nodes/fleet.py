"""The layout of a fleet's shared back end (``launch/fleet.launch.py``): N consolidation
workers and a query node on one ledger, no memory node (the robots run those).

The query node sits in the launch namespace, so its service has the name a robot's
``memory.launch.py`` gives it (``<namespace>/memory/query``). Each worker runs in a
namespace of its own below it (``<namespace>/worker_<i>``) under its usual node name, so
the ``/**/consolidation_node`` section of the parameter file applies to every worker and
the nodes' names stay distinct; workers are told apart in the job queue by their process
(``consolidation.worker.worker_id``). No rclpy and no launch here: the checks are plain
and testable, and a bad argument is one ``ConfigError`` line naming it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from ..storage.url import parse_ledger_url

WORKER = "consolidation_node"
QUERY = "query_node"
MAX_WORKERS = 64


@dataclass(frozen=True)
class FleetNode:
    executable: str
    namespace: str  # absolute ("/site/worker_1"), or "" for the root


def check_workers(text: str) -> int:
    """The ``workers`` launch argument as a count 1..MAX_WORKERS."""
    try:
        count = int(str(text).strip())
    except ValueError:
        raise ConfigError(f"workers: must be an integer 1..{MAX_WORKERS}, got {text!r}") from None
    if not 1 <= count <= MAX_WORKERS:
        raise ConfigError(f"workers: must be an integer 1..{MAX_WORKERS}, got {text!r}")
    return count


def check_ledger_url(text: str) -> str:
    """The ``ledger_url`` launch argument: required (every node must share one ledger),
    checked as ``ledger.url`` is."""
    if not str(text).strip():
        raise ConfigError("ledger_url: required, the fleet's shared ledger "
                          "(postgresql://user@host:port/db, or sqlite:///abs/path.db)")
    parse_ledger_url(text, "ledger_url")
    return str(text).strip()


def fleet_nodes(namespace: str, workers: int) -> list[FleetNode]:
    """The query node in ``namespace``, then ``workers`` consolidation workers below it."""
    base = "/" + namespace.strip("/") if namespace.strip("/") else ""
    return [FleetNode(QUERY, base)] + [FleetNode(WORKER, f"{base}/worker_{i}")
                                       for i in range(1, workers + 1)]
