"""Smoke run of ``trace-ros bench locomo`` (one conversation, 20 questions) and its report.

Needs the public LoCoMo file at ../shared/data/locomo10.json (skipped without it) and
the MiniLM weights. Takes about 30 s on two CPU cores. The full run is marked slow.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trace_ros.bench.locomo import DESIGN_COMPONENTS, engine_components

from .contract import BASELINES, check_metric_block, check_report

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data" / "locomo10.json"

pytestmark = pytest.mark.skipif(not DATA.is_file(), reason=f"{DATA} not present")


def _run(out: Path, *extra: str, timeout: float = 600) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "trace_ros.cli", "bench", "locomo", "--data", str(DATA),
           "--out", str(out), *extra]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "| trace_ros (system) |" in proc.stdout
    return json.loads((out / "report.json").read_text())


def applicable(*names: str) -> dict[str, bool]:
    """Which ablation rows apply: what the engine can run without, today."""
    return {n: n in engine_components() for n in names}


# A DESIGN component the engine does not build yet (if any) exercises the "not built" row.
UNBUILT = next((c for c in DESIGN_COMPONENTS if c not in engine_components()), "")
SMOKE_ABLATE = ",".join(filter(None, (UNBUILT, "lexical")))


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("locomo-smoke")
    return out, _run(out, "--samples", "1", "--questions", "20", "--ablate", SMOKE_ABLATE,
                     timeout=240)


def test_smoke_report_has_every_documented_key_in_range(smoke: tuple[Path, dict[str, Any]]) -> None:
    _, report = smoke
    check_report(report, applicable(*SMOKE_ABLATE.split(",")))
    assert report["data"]["conversations"] == 1 and report["data"]["questions"] == 20
    assert report["system"]["overall"]["n"] + len(report["data"]["excluded"]) == 20
    assert sum(report["system"]["status"].values()) == 20
    if UNBUILT:
        assert report["ablations"][UNBUILT]["reason"] == "not a query component of this build"
    assert report["config"]["embed_model"].endswith("-int8")


def test_smoke_writes_tables_plots_and_per_question_lines(smoke: tuple[Path, dict[str, Any]]) -> None:
    out, report = smoke
    md = (out / "report.md").read_text()
    for label in ("trace_ros (system)", *(f"baseline: {b}" for b in BASELINES), "system − lexical"):
        assert f"| {label} |" in md
    for png in ("metrics_by_category.png", "latency_cdf.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = (out / "questions.jsonl").read_text().splitlines()
    assert len(lines) == 20
    first = json.loads(lines[0])
    assert set(first["baselines"]) == set(BASELINES)
    assert len(first["system"]["turns"]) <= 10


def test_unknown_ablation_is_refused(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "trace_ros.cli", "bench", "locomo", "--data",
                           str(DATA), "--out", str(tmp_path), "--ablate", "telepathy"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "unknown component" in proc.stderr


def test_unknown_question_encoder_is_refused(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "trace_ros.cli", "bench", "locomo", "--data",
                           str(DATA), "--out", str(tmp_path), "--question-encoders", "tiny"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--question-encoders" in proc.stderr


def test_a_question_encoder_row_is_asked_on_the_kept_ledger(
        smoke: tuple[Path, dict[str, Any]]) -> None:
    """``--question-encoders static,cascade``: one more row each, the system with static
    (then cascaded) question vectors, scored like an ablation and with its latency; the
    cascade's row says how many questions took its second stage."""
    out, first = smoke
    again = _run(out, "--samples", "1", "--questions", "20", "--reuse-db",
                 "--question-encoders", "static,cascade", timeout=240)
    row = again["ablations"]["question_encoder=static"]
    assert row["applicable"] and row["latency_ms"]["n"] == 20
    check_metric_block(row["overall"], "ablations.question_encoder=static.overall")
    assert "second_stage_share" not in row
    cascade = again["ablations"]["question_encoder=cascade"]
    check_metric_block(cascade["overall"], "ablations.question_encoder=cascade.overall")
    share = cascade["second_stage_share"]
    assert 0.0 <= share <= 1.0 and cascade["latency_ms"]["n"] == 20
    assert again["config"]["question_encoders"] == ["static", "cascade"]
    assert again["system"]["overall"] == first["system"]["overall"]
    report = (out / "report.md").read_text()
    assert "| system, question_encoder=static |" in report
    assert f"| system, question_encoder=cascade (2nd stage {share:.0%}) |" in report


def test_reuse_db_asks_again_on_the_kept_ledger(smoke: tuple[Path, dict[str, Any]]) -> None:
    """``--reuse-db``: no capture, no consolidation; the same ledger answers the same."""
    out, first = smoke
    again = _run(out, "--samples", "1", "--questions", "20", "--reuse-db", timeout=240)
    assert again["ingest"]["reused_db"] is True and again["ingest"]["consolidated"] == 0
    assert again["data"]["sources"] == first["data"]["sources"]
    assert again["system"]["overall"] == first["system"]["overall"]
    # A kept ledger of other conversations is refused, not measured.
    proc = subprocess.run([sys.executable, "-m", "trace_ros.cli", "bench", "locomo", "--data",
                           str(DATA), "--out", str(out), "--samples", "2", "--reuse-db"],
                          cwd=REPO, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 2 and "--reuse-db" in proc.stderr


@pytest.mark.slow
def test_two_runs_give_the_same_metrics(tmp_path: Path,
                                        smoke: tuple[Path, dict[str, Any]]) -> None:
    _, first = smoke
    second = _run(tmp_path, "--samples", "1", "--questions", "20", "--ablate", SMOKE_ABLATE)
    for key in ("system", "baselines", "ablations", "context"):
        a, b = first[key], second[key]
        if key in ("baselines", "ablations"):
            a = {n: {k: v for k, v in x.items() if k != "latency_ms"} for n, x in a.items()}
            b = {n: {k: v for k, v in x.items() if k != "latency_ms"} for n, x in b.items()}
        assert a == b, key


@pytest.mark.slow
def test_full_locomo_run(tmp_path: Path) -> None:
    names = ("graph", "hierarchy", "update_seeds", "lexical", "dense")
    report = _run(tmp_path, "--ablate", ",".join(names), timeout=3600)
    check_report(report, applicable(*names))
    assert report["system"]["overall"]["n"] == 1531
    assert report["data"]["questions"] == 1540
