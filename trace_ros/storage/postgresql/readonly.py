"""A read-only PostgreSQL ledger (the explorer's).

Every connection it opens runs with ``default_transaction_read_only``, so nothing done
through it can write; the server refuses. It never migrates: a database whose schema is
older than this code is refused with a hint to open it once read-write.
"""

from __future__ import annotations

from dataclasses import replace

from ...errors import LedgerError, TraceError
from ..settings import LedgerConfig
from ..url import LedgerURL
from ..vectorpack import VectorPack
from .ledger import PgLedger
from .migrations import MIGRATIONS


class PgReadOnlyLedger(PgLedger):
    """A ``PgLedger`` whose transactions are read-only."""

    def __init__(self, url: LedgerURL, config: LedgerConfig | None = None) -> None:
        read_only = replace(url, options=(*url.options,
                                          ("options", "-c default_transaction_read_only=on")))
        try:
            super().__init__(read_only, config, pool_size=2)
        except LedgerError as exc:  # name the URL as given, not with the option added
            raise LedgerError(str(exc).replace(str(read_only), str(url))) from None
        self.url = url
        if self.query("SELECT count(*) FROM schema_version")[0][0] != len(MIGRATIONS):
            self.close()
            raise TraceError(f"{url}: ledger schema is older than this code; open it once "
                             "read-write (e.g. `trace-ros stats --ledger-url`) to migrate")

    def save_vector_pack(self, pack: VectorPack) -> bool:
        """Writes nothing: it reads the packs others saved."""
        return False

    def _index_unindexed(self) -> None:
        """Nothing: a read-only ledger writes no index (searches see what is indexed)."""
