"""SQL of the evidence graph: facts with provenance, typed edges, sessions and topics.

``GraphStore``, a mixin of ``Ledger`` assembled from ``graph_writes``, ``hierarchy``
and ``graph_reads``, holds every statement that touches ``facts``, ``fact_sources``,
``edges``, ``topics`` and the session/topic side of ``sessions`` and ``vectors``, so
the rest of road 2 and road 3 never write SQL.
Static methods take ``conn`` and run inside the caller's transaction (the
consolidation batch); instance methods are reads on the ledger's connection.

Vertex IDs: facts use their ``fact_id``; hierarchy vertices carry their subject
because the edge table's ``UNIQUE (type, src, dst)`` is global and every
subject has e.g. a ``session_1`` (``session:<subject>/<robot>/<session>``,
``topic:<subject>/<n>``, ``entity:<subject>/<name>``).
"""

from __future__ import annotations

from .graph_reads import GraphReads


class GraphStore(GraphReads):
    """Mixin for ``Ledger`` (which provides ``query``, ``read`` and ``write``); its static
    methods are also called on the class inside a transaction (``GraphStore.insert_facts``)."""
