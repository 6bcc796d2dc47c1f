"""The scale benchmark: a seeded synthetic memory, and a 2,000-source run of the command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from trace_ros.bench import scale
from trace_ros.bench.synth import ATTRIBUTES, generate, questions
from trace_ros.capture import prepare
from trace_ros.config import CaptureConfig


def test_generator_is_seeded_and_exact() -> None:
    first = list(generate(500, seed=3))
    assert len(first) == 500
    assert first == list(generate(500, seed=3))
    assert first != list(generate(500, seed=4))
    assert questions(20, seed=3) == questions(20, seed=3)


def test_generator_makes_valid_varied_events() -> None:
    events = list(generate(3000, seed=1, subjects=4))
    for event in events:
        prepare(event, CaptureConfig())  # raises ValidationError if malformed
    assert {e.scope.subject_id for e in events} == {f"person-{i:02d}" for i in range(4)}
    perception = [e for e in events if e.modality == "perception"]
    assert perception and all(e.pose and e.pose["frame_id"] == "map" and e.label for e in perception)
    stamps = [e.stamp or 0.0 for e in events]
    assert max(stamps) - min(stamps) > 60 * 86400  # sessions spread over months
    updates = [e for e in events if e.text.startswith("My favourite colour is now")]
    assert len({e.text for e in updates}) > 1  # an attribute that changes over time
    assert set(ATTRIBUTES) >= {"colour", "city"}


def test_scale_command_small(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert scale.main(["--sources", "1000,2000", "--out", str(tmp_path), "--questions", "30"]) == 0
    report = json.loads((tmp_path / "scale.json").read_text())
    assert report["query_mode"] == "lexical-only"
    sizes = report["sizes"]
    assert [r["sources"] for r in sizes] == [1000, 2000]
    for row in sizes:
        assert row["accepted"] == row["sources"] and row["events_per_s"] > 0
        assert row["query_ms"]["n"] == 30 and 0 <= row["query_ms"]["p50"] <= row["query_ms"]["p95"]
        assert row["query_cpu_ms"]["n"] == 30 and row["query_cpu_ms"]["p95"] >= 0
        assert row["peak_rss_mb"] > 0 and row["db_mb"] > 0
    assert sizes[1]["db_mb"] > sizes[0]["db_mb"]
    assert (tmp_path / "scale.png").read_bytes()[:4] == b"\x89PNG"
    assert not list(tmp_path.glob("scale-*.db"))
    assert "| 2,000 |" in capsys.readouterr().out
    assert sizes[0]["cold_ms"]["n"] >= 1 and "recall" in sizes[0]["stages_ms"]


def test_scale_reuses_a_kept_ledger(tmp_path: Path) -> None:
    args = ["--sources", "1000", "--out", str(tmp_path), "--questions", "10", "--keep-db"]
    assert scale.main(args) == 0
    first = json.loads((tmp_path / "scale.json").read_text())["sizes"][0]
    assert scale.main([*args, "--reuse-db"]) == 0
    again = json.loads((tmp_path / "scale.json").read_text())["sizes"][0]
    assert not first["reused_db"] and first["accepted"] == 1000
    assert again["reused_db"] and again["accepted"] is None and again["query_ms"]["n"] == 10
    assert again["status"] == first["status"]


def test_scale_rejects_bad_sizes() -> None:
    with pytest.raises(SystemExit):
        scale.main(["--sources", "ten"])


@pytest.mark.slow
def test_scale_100k(tmp_path: Path) -> None:
    assert scale.main(["--sources", "10000,100000", "--out", str(tmp_path)]) == 0


def test_scale_on_postgresql_with_a_server_of_its_own(tmp_path: Path) -> None:
    pytest.importorskip("pgserver")
    pytest.importorskip("psycopg")
    assert scale.main(["--sources", "500", "--engine", "postgresql", "--out", str(tmp_path),
                       "--questions", "10"]) == 0
    report = json.loads((tmp_path / "scale.json").read_text())
    assert report["engine"] == "postgresql"
    row = report["sizes"][0]
    assert row["engine"] == "postgresql" and row["accepted"] == 500 and row["db_mb"] > 0
    assert row["query_ms"]["n"] == 10 and row["cold_ms"]["n"] >= 1
    assert "recall" in row["stages_ms"] and not list(tmp_path.glob("scale-*.db"))


@pytest.mark.parametrize(("argv", "field"), [
    (["--ledger-url", "postgresql://u@h/db", "--sources", "10,20"], "one size"),
    (["--ledger-url", "sqlite:///tmp/x.db"], "postgresql:// URL or none"),
    (["--ledger-url", "postgresql://u@h/db", "--sources", "10", "--engine", "sqlite"],
     "disagree"),
])
def test_scale_checks_its_ledger_url(argv: list[str], field: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        scale.main(argv)
    assert field in capsys.readouterr().err


def test_seeded_encoder_gives_each_text_one_unit_vector() -> None:
    from trace_ros.bench.synthvec import SeededEncoder

    enc = SeededEncoder(seed=7)
    a = enc.encode(["the red mug", "the red mug", "a wallet"])
    assert a.shape == (3, 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert (a[0] == a[1]).all() and not (a[0] == a[2]).all()
    assert (SeededEncoder(seed=7).encode(["a wallet"])[0] == a[2]).all()
    assert not (SeededEncoder(seed=8).encode(["a wallet"])[0] == a[2]).all()


def test_scale_with_synthetic_vectors_runs_the_dense_routes(tmp_path: Path) -> None:
    args = ["--sources", "1000", "--out", str(tmp_path), "--questions", "12", "--keep-db",
            "--synthetic-vectors"]
    assert scale.main(args) == 0
    report = json.loads((tmp_path / "scale.json").read_text())
    row = report["sizes"][0]
    assert report["query_mode"] == row["query_mode"] == "lexical+dense (synthetic vectors)"
    assert report["vectors"] == row["vectors"] == {
        "kind": "synthetic", "model": "synthetic-seeded-384", "dim": 384, "seed": 7,
        "owner_kinds": ["source", "window"]}
    assert row["vectors_s"] > 0
    assert "recall_dense" in row["stages_ms"] and "recall_window" in row["stages_ms"]
    from trace_ros.ledger import Ledger

    with Ledger(tmp_path / "scale-1000.db") as led:
        assert led.vector_models() == [("synthetic-seeded-384", 384, 1000)]
        assert led.query("SELECT count(*) FROM vectors WHERE owner_kind = 'window'")[0][0] == 1000
    assert scale.main([*args, "--reuse-db"]) == 0  # the vectors are there: none written
    again = json.loads((tmp_path / "scale.json").read_text())["sizes"][0]
    assert again["reused_db"] and again["vectors_s"] is None
    assert "recall_dense" in again["stages_ms"]


def test_scale_refuses_embed_with_synthetic_vectors(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        scale.parse_args(["--embed", "--synthetic-vectors"])
