"""A figure written with thousands separators is one figure ("2,340", "12,500"), read
whole by the spans (``spans._TOKEN``, ``spans._number``; invented sentences). Look-alikes
that stay apart: figures a comma lists ("rooms 3,4 and 5", "100, 200")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from readerkit import read, rec  # noqa: E402

from trace_ros.query.spans import _number, tokens  # noqa: E402


@pytest.mark.parametrize(("text", "figure"), [
    ("Yes, 2,340. Don't let them round it.", "2,340"),
    ("The car was 12,500 in the end.", "12,500"),
    ("We printed 1,200,000 leaflets.", "1,200,000"),
])
def test_a_grouped_figure_is_one_token(text: str, figure: str) -> None:
    assert figure in [t.text for t in tokens(text)]
    assert _number(text, tokens(text)).startswith(figure)


@pytest.mark.parametrize(("text", "first"), [
    ("Rooms 3,4 and 5 are free.", "3"),
    ("Between 100, 200 of them came.", "100"),
    ("It was 12,50 at the till.", "12"),
])
def test_figures_a_comma_lists_stay_apart(text: str, first: str) -> None:
    assert _number(text, tokens(text)).split()[0] == first


def test_a_bare_grouped_figure_answers_whole() -> None:
    a = rec(0, "The station sits at 2,340 metres, people keep asking me.")
    assert "2,340" in read("At what altitude is the station?", a)
