"""``bench updates`` on both engines: a small generated history, and a small natural one,
give the same figures on SQLite and on PostgreSQL (a real server: ``TRACE_ROS_TEST_PG_URL``,
else the ``pgserver`` wheel); only the times and the ledger's address differ."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trace_ros.bench import updates
from trace_ros.storage.url import parse_ledger_url

from .test_updates_natural import HISTORY

# What may differ between two runs of one history: wall-clock times and where the ledger is.
VARYING = {"timings", "latency_ms", "notes", "engine"}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert updates.main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def _figures(block: Any) -> Any:
    if isinstance(block, dict):
        return {k: _figures(v) for k, v in block.items() if k not in VARYING}
    return block


def test_a_generated_history_gives_the_same_figures_on_both_engines(
        pg_database: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--seed", "2", "--subjects", "2", "--sessions", "3"]
    lite = _run([*argv, "--out", str(tmp_path)], capsys)
    pg = _run([*argv, "--ledger-url", str(pg_database("updates"))], capsys)
    assert (lite["engine"], pg["engine"]) == ("sqlite", "postgresql")
    assert lite["query"]["n"] > 0 and lite["resolver"]["n"] > 0
    assert lite["graph"]["edges_by_type"].get("updates", 0) > 0  # the graph stage ran
    assert _figures(pg) == _figures(lite)


def test_a_natural_history_gives_the_same_figures_on_both_engines(
        pg_database: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "histories_t.json").write_text(json.dumps(HISTORY))
    argv = ["--natural", "--sets", "histories", "--data", str(data)]
    lite = _run(argv, capsys)
    pg = _run([*argv, "--ledger-url", str(pg_database("natural"))], capsys)
    assert (lite["engine"], pg["engine"]) == ("sqlite", "postgresql")
    assert lite["natural"]["build"]["n"] == 2
    assert pg["natural"] == lite["natural"]


def test_a_database_that_holds_sources_is_never_reused(pg_database: Any) -> None:
    from trace_ros.capture import Event, ingest
    from trace_ros.config import CaptureConfig
    from trace_ros.errors import TraceError
    from trace_ros.ledger import Scope
    from trace_ros.storage import open_ledger

    url = str(pg_database("filled"))
    with open_ledger(parse_ledger_url(url, "test")) as ledger:
        ingest(ledger, [Event("dialogue", Scope("ann", "r1", "s1"), text="kept", speaker="ann",
                              stamp=1_700_000_000.0, source_id="ann-1")], CaptureConfig())
    with pytest.raises(TraceError, match="is not empty"):
        updates.main(["--seed", "2", "--subjects", "1", "--sessions", "3", "--ledger-url", url])
    with open_ledger(parse_ledger_url(url, "test")) as ledger:
        assert ledger.count_sources() == 1  # nothing was deleted


@pytest.mark.parametrize(("argv", "message"), [
    (["--ledger-url", "sqlite:///tmp/x.db"], "makes its own SQLite file"),
    (["--ledger-url", "postgresql://u@h/db", "--engine", "sqlite"], "disagree"),
    (["--ledger-url", "mysql://h/db"], "--ledger-url"),
    (["--engine", "oracle"], "--engine"),
])
def test_engine_options_are_checked(argv: list[str], message: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        updates.parse_args(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
