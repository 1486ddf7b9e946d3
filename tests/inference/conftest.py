"""Fixtures shared by the inference tests."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture()
def judge_folder_with(tiny_llama: Path, tiny_adapter: Path, tmp_path: Path,
                      monkeypatch: pytest.MonkeyPatch) -> Callable[[float], Path]:  # fmt: skip
    """A maker of a folder laid out like ``inference/qwen_judge`` (the tiny Llama with a tiny
    adapter; verdict threshold 0.3, evidence cut to 20 words) at a given gate threshold, which
    ``favakit.inference.models.qwen_judge`` then names: the shipped judge's base is 1.1 GB."""

    def make(gate_threshold: float) -> Path:
        folder = tmp_path / "qwen_judge"
        folder.mkdir()
        for name in ("adapter_config.json", "adapter_model.safetensors"):
            shutil.copy(tiny_adapter / name, folder / name)
        (folder / "judge.json").write_text(json.dumps(
            {"model": str(tiny_llama), "style": "strict", "threshold": 0.3, "evidence_words": 20,
             "gate_threshold": gate_threshold}))  # fmt: skip
        monkeypatch.setattr("favakit.inference.models.qwen_judge", lambda: str(folder))
        return folder

    return make
