"""The weights digest that names the ONNX export is remembered (not re-read: ~90 MB a
load), and is read again when a weight file changes."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from trace_ros import embed
from trace_ros.embed import EXPORT_RECIPE, weights_digest


def full_digest(folder: Path) -> str:
    h = hashlib.sha256(EXPORT_RECIPE.encode())
    for name in embed.WEIGHT_FILES:
        if (folder / name).is_file():
            h.update((folder / name).read_bytes())
    return h.hexdigest()


@pytest.fixture
def weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(embed, "_DIGESTS", {})
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text('{"hidden_size": 384}')
    (folder / "model.safetensors").write_bytes(os.urandom(3 << 20))
    return folder


def test_the_digest_is_the_hash_of_recipe_and_weights(weights: Path, tmp_path: Path) -> None:
    assert weights_digest(weights, tmp_path / "memo") == full_digest(weights)
    assert (tmp_path / "memo" / "weights-digest.json").is_file()


def test_a_later_process_takes_the_remembered_digest(weights: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    memo = tmp_path / "memo"
    weights_digest(weights, memo)
    saved = json.loads((memo / "weights-digest.json").read_text())
    # A fresh process (no in-process memo) whose memo file says otherwise: the file's
    # word is taken, so the weights were not read again.
    monkeypatch.setattr(embed, "_DIGESTS", {})
    (memo / "weights-digest.json").write_text(json.dumps({**saved, "digest": "f" * 64}))
    assert weights_digest(weights, memo) == "f" * 64


def test_a_changed_weight_file_is_hashed_again(weights: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    memo = tmp_path / "memo"
    before = weights_digest(weights, memo)
    monkeypatch.setattr(embed, "_DIGESTS", {})
    (weights / "model.safetensors").write_bytes(os.urandom(3 << 20))
    after = weights_digest(weights, memo)
    assert after != before
    assert after == full_digest(weights)


def test_a_memo_that_cannot_be_written_costs_only_the_hashing(weights: Path,
                                                              tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert weights_digest(weights, blocked / "memo") == full_digest(weights)


def test_a_damaged_memo_is_ignored(weights: Path, tmp_path: Path) -> None:
    memo = tmp_path / "memo"
    memo.mkdir()
    (memo / "weights-digest.json").write_text("{not json")
    assert weights_digest(weights, memo) == full_digest(weights)
