"""The SQLite ledger: one WAL file that is the single authority of the memory.

Sources are immutable records of what was said or perceived; every source has one
projection job. Vectors, the FTS5 index and anything in memory are derived and can be
rebuilt from sources (``Ledger.rebuild_fts``, consolidation for vectors).

``Ledger`` combines one mixin per concern over ``SqliteBase`` (the connection): sources,
forget and tombstones, jobs, vectors and their packs (files beside the ledger), lexical
search, audit, maintenance, the evidence graph, spatial and explorer reads.
``trace_ros.storage.contract.LedgerContract`` names every operation the layers above use.
"""

from __future__ import annotations

from .audit import AuditStore
from .base import SqliteBase
from .explore import ExploreStore
from .forget import ForgetOps
from .graph import GraphStore
from .jobs import JobStore
from .maintenance import Maintenance
from .packs import VectorPacks
from .search import SearchReads
from .sources import SourceStore
from .spatial import SpatialReads
from .vectors import VectorStore


class Ledger(SourceStore, ForgetOps, JobStore, VectorStore, VectorPacks, SearchReads, AuditStore,
             Maintenance, GraphStore, ExploreStore, SpatialReads, SqliteBase):
    """The SQLite authority. Thread-safe within a process; safe across processes."""

    graph = GraphStore  # the transaction statements (``contract.GraphStatements``)
