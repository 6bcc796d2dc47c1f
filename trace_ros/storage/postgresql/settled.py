"""Numbers a reader may resume after, with many writers.

A source's ``seq`` and a vector's ``vid`` are drawn from a sequence before their
transaction commits, so with several writers at once (issue 15 point 3: every robot
captures, no lock orders them) a smaller number can become visible after a larger one. A
reader that resumes after the largest number it has read (``trace-ros sync``, a query
node's vector index and attachments) would never read the smaller one. Instead of
ordering the writers, readers stop at a *settled* number:

- A writer draws its numbers with ``draw``, once its transaction holds an ID, then
  inserts the rows in a subtransaction (``conn.transaction()`` inside the write): the
  subtransaction takes its own ID at the first row, after the draw, so a row's ``xmin``
  is above the ID of every transaction that drew a smaller number (the sequences cache
  no numbers: a later draw gets a larger one).
- A row is settled in a reader's snapshot once its ``xmin`` is older than every
  transaction still running there (``pg_snapshot_xmin``): every transaction that may
  hold a smaller number has ended, and those that committed are in the snapshot. The
  largest settled number (a subquery: ``... WHERE {SETTLED} ORDER BY seq DESC LIMIT 1``)
  bounds what is final: a reader that takes only rows up to it, and resumes after the
  last row it took, misses none.

Readers that resume after no number need none of this: a job claim reads a subject's
outstanding jobs under the subject's ``subject_queues`` lock, which capture holds until it
commits (``jobs``), and lexical statistics are counters kept in the capture transaction.
Tombstones are numbered under one lock instead (``forget.TOMBSTONE_LOCK``: forgets are few).

Only rows written this way may settle a number: a reader takes it from them alone
(session vectors, whose writer draws in its INSERT, are not read after a number).

A writing transaction left open holds back the rows numbered after it began until it
ends; a reader's own transaction does not. The comparison is of 32-bit transaction IDs
(``age``), so a newest row more than two billion transactions old may look unsettled
until a newer one settles it. An older build, still writing beside this one, draws in its
INSERT: upgrade the writers together.
"""

from __future__ import annotations

from typing import Any

# A row is settled in the reader's snapshot (see above).
SETTLED = "age(xmin) > age(pg_snapshot_xmin(pg_current_snapshot())::xid)"


def draw(conn: Any, table: str, column: str, n: int) -> list[int]:
    """Inside a write transaction, before a subtransaction inserts the rows: ``n`` new
    numbers of ``table.column``'s identity, ascending, drawn once the transaction holds
    its ID (the filter runs before each number is drawn and gives the transaction its
    ID on the first row)."""
    return sorted(int(r[0]) for r in conn.execute(
        "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s) "
        "WHERE pg_current_xact_id() IS NOT NULL", (table, column, int(n))))

