"""dateparser's first use (~0.3–0.5 s) is done at warm-up, a node's configure, not by the
first question that reads a date; what it reads afterwards is unchanged."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from trace_ros.language import timeanchor
from trace_ros.ledger import Ledger
from trace_ros.query.answer import QueryEngine

SETTINGS = {"RETURN_AS_TIMEZONE_AWARE": False, "STRICT_PARSING": False}


def test_warm_parses_with_dateparser_and_keeps_no_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real = timeanchor._dateparser_parse

    def counting(expr: str, settings: dict[str, Any]) -> datetime | None:
        asked.append(expr)
        return real(expr, settings)

    monkeypatch.setattr(timeanchor, "_dateparser_parse", counting)
    before = timeanchor._parse.cache_info()
    timeanchor.warm()
    assert asked == list(timeanchor._WARM_EXPRESSIONS)
    # nothing was kept where a question's reading would find it
    assert timeanchor._parse.cache_info() == before


@pytest.mark.parametrize("expr", ["3 days ago", "two weeks ago", "5 June 2023", "last month"])
def test_readings_after_warm_up_are_dateparsers(expr: str) -> None:
    base = datetime(2023, 5, 8, 13, 56)
    want = timeanchor._dateparser_parse(expr, {**SETTINGS, "RELATIVE_BASE": base,
                                               "PREFER_DATES_FROM": "past"})
    timeanchor.warm()
    got = timeanchor.resolve_expression(expr, base.replace(tzinfo=UTC).timestamp(),
                                        future=False)
    assert want is not None and got == want.replace(tzinfo=UTC).timestamp()


def test_engine_warm_starts_the_dateparser_warm_up(ledger: Ledger,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[bool] = []
    monkeypatch.setattr(timeanchor, "warm", lambda: ran.append(True))
    engine = QueryEngine(ledger, None, audit=False)
    dates = engine.warm()
    dates.join(timeout=30)
    assert ran == [True] and not dates.is_alive()
    engine.close()
