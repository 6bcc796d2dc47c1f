"""'yesterday', 'today' and 'tomorrow' resolve without dateparser (its first use in a
process costs ~0.3 s) and exactly as dateparser resolves them."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from trace_ros.language import timeanchor
from trace_ros.language.timeanchor import resolve_expression

SETTINGS = {"RETURN_AS_TIMEZONE_AWARE": False, "STRICT_PARSING": False}


@pytest.mark.parametrize("expr", ["yesterday", "today", "tomorrow", "Yesterday "])
@pytest.mark.parametrize("future", [False, True])
def test_next_days_are_dateparsers_without_it(expr: str, future: bool,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(f"{expr}{future}")
    bases = [datetime(2000, 1, 1) + timedelta(seconds=rnd.randint(0, 40 * 365 * 86400),
                                              microseconds=rnd.randint(0, 999_999))
             for _ in range(20)]
    # dateparser's own reading, with the settings resolve_expression gives it.
    expected = [timeanchor._dateparser_parse(expr.strip().lower(), {
        **SETTINGS, "RELATIVE_BASE": b, "PREFER_DATES_FROM": "future" if future else "past"})
        for b in bases]
    monkeypatch.setattr(timeanchor, "_dateparser_parse",
                        lambda *a: pytest.fail("dateparser was asked"))
    for base, want in zip(bases, expected, strict=True):
        got = resolve_expression(expr, base.replace(tzinfo=UTC).timestamp(), future=future)
        assert want is not None and got == want.replace(tzinfo=UTC).timestamp()
