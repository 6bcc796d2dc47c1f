"""The evidence graph's public names (``GraphStore`` and the vertex IDs), re-exported
from ``trace_ros.storage`` so that ``from trace_ros.graphstore import …`` keeps working.

The SQL is in ``trace_ros.storage.sqlite.graph_writes`` (statements inside a transaction),
``hierarchy`` (sessions and topics) and ``graph_reads``.
"""

from __future__ import annotations

from .storage.records import (
    CAUSAL_TYPES,
    SessionRow,
    TopicRow,
    entity_vertex,
    session_vertex,
    topic_vertex,
)
from .storage.sqlite.graph import GraphStore

__all__ = ["CAUSAL_TYPES", "GraphStore", "SessionRow", "TopicRow", "entity_vertex",
           "session_vertex", "topic_vertex"]
