"""The PostgreSQL ledger (a fleet's shared memory), as far as it is built.

``PgLedger`` implements the part of ``storage.contract.LedgerContract`` that road 1, the
job queue, the vector index, the audit writer and the spatial route need — sources,
tombstones and forget, jobs, vectors (pgvector), audit rows, perceptions, the generation —
with the same meaning as the SQLite engine, which the contract tests in ``test/storage``
check on both. Lexical search, the evidence graph and explorer reads are still
SQLite-only, so ``storage.open_ledger`` does not open a PostgreSQL URL for the nodes yet.
"""

from __future__ import annotations

from .forget import PgForget
from .spatial import PgSpatialReads


class PgLedger(PgForget, PgSpatialReads):
    """Sources, tombstones, jobs, vectors, audit, perceptions and the generation on
    PostgreSQL."""
