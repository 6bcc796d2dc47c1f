"""The PostgreSQL ledger (a fleet's shared memory): the whole ledger contract.

``PgLedger`` implements every operation of ``storage.contract.LedgerContract`` with the
meaning of the SQLite engine, which the contract tests in ``test/storage`` check on
both: sources, tombstones and forget, jobs (``FOR UPDATE SKIP LOCKED``), vectors
(pgvector), lexical search (BM25 as FTS5 ranks), the evidence graph and its hierarchy
(``graph``: the transaction statements), audit rows, maintenance, spatial and explorer
reads. ``storage.open_ledger`` opens it for a ``postgresql://`` URL.
"""

from __future__ import annotations

from typing import Any

from ..settings import LedgerConfig
from ..url import LedgerURL
from .explore import PgExploreStore
from .forget import PgForget
from .graph_reads import PgGraphReads
from .maintenance import PgMaintenance
from .source_reads import PgSourceReads
from .spatial import PgSpatialReads

LEXICAL_LOCK = 0x6C6578  # "lex": one opener indexes sources stored before the index


class PgLedger(PgForget, PgMaintenance, PgGraphReads, PgSourceReads, PgExploreStore,
               PgSpatialReads):
    """The PostgreSQL authority: many processes on many machines share it."""

    def __init__(self, url: LedgerURL, config: LedgerConfig | None = None, **kw: Any) -> None:
        super().__init__(url, config, **kw)
        self._index_unindexed()

    def _index_unindexed(self) -> None:
        """Sources stored before the lexical index existed (e.g. by ``sync``) get it once."""
        if self.meta_value("lexical_index") != "1":
            with self.write() as conn:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (LEXICAL_LOCK,))
                if self.graph.get_meta(conn, "lexical_index") != "1":
                    self._rebuild_source_lex(conn)
                    self.graph.set_meta(conn, "lexical_index", "1")

    @property
    def path(self) -> LedgerURL:
        """What the ledger is opened from (a node logs it; the audit writer reopens it)."""
        return self.url
