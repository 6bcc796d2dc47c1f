"""The PostgreSQL ledger (a fleet's shared memory), as far as it is built.

``PgLedger`` implements the part of ``storage.contract.LedgerContract`` that road 1, the
job queue, the vector index and the audit writer need — sources, tombstones and forget,
jobs, vectors (pgvector), audit rows, the generation — with the same meaning as the SQLite
engine, which the contract tests in ``test/storage`` check on both. Lexical search, the
evidence graph, spatial and explorer reads are still SQLite-only, so ``storage.open_ledger`` does
not open a PostgreSQL URL for the nodes yet.
"""

from __future__ import annotations

from .forget import PgForget


class PgLedger(PgForget):
    """Sources, tombstones, jobs, vectors, audit and the generation on PostgreSQL."""
