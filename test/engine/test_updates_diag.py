"""``tools/locomo_updates_diag.py`` names which of ``judge.elsewhere``'s tests hold a
pair of turns off, so a reader of a long chatty turn sees why no ``updates`` edge came:
an event noun in an unrelated sentence of the turn is one such reason."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from locomo_updates_diag import blocked_by  # noqa: E402

from trace_ros.consolidation import judge  # noqa: E402


def test_a_plain_revision_is_held_off_by_nothing() -> None:
    old = "My locker at the gym is number 12."
    new = "They moved me, my locker at the gym is number 40 now."
    assert blocked_by(old, new, frozenset({"dana"})) == []
    assert not judge.elsewhere(old, new, judge.shared_terms(old, new), frozenset({"dana"}))


def test_an_event_noun_elsewhere_in_a_long_turn_is_named() -> None:
    old = "I applied to adoption agencies this week."
    new = ("I passed the adoption agency interviews last Friday! "
           "Also we had a great meeting at the library.")
    why = blocked_by(old, new, frozenset({"caroline"}))
    assert "other_event_new" in why
    assert judge.elsewhere(old, new, judge.shared_terms(old, new), frozenset({"caroline"}))
