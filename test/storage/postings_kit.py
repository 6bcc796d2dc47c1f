"""Helpers for tests that keep a ledger at a migration before the source postings and
the speaker-turn counts (m011-m012, p013-p014)."""

from __future__ import annotations

import pytest


def as_before_postings(patch: pytest.MonkeyPatch) -> None:
    """Capture and forget as a build before the source postings and the speaker-turn
    counts (m011-m012 / p013-p014) wrote them: for a ledger a test keeps at an older
    migration (SQLite's counts are kept by triggers that migration makes; its postings
    are written by ``index_postings``, after capture)."""
    from trace_ros.storage.postgresql import forget as pg_forget
    from trace_ros.storage.postgresql import lexindex
    from trace_ros.storage.postgresql import search as pg_search
    from trace_ros.storage.postgresql import sources as pg_sources
    from trace_ros.storage.sqlite import forget as sq_forget
    from trace_ros.storage.sqlite import sources as sq_sources

    patch.setattr(lexindex, "add_postings", lambda conn, rows: None)
    patch.setattr(sq_sources, "index_pending", lambda conn, max_sources: 0)
    for module in (pg_forget, sq_forget):
        patch.setattr(module, "remove_postings", lambda conn, rows: None)
    patch.setattr(pg_sources, "add_speaker_turns", lambda conn, said: None)
    patch.setattr(pg_search, "clear_postings", lambda conn: None)
    patch.setattr(pg_forget, "recount_speaker_turns", lambda conn, subjects: None)
