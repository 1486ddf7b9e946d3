"""Shared test setup: everything offline and deterministic."""

from __future__ import annotations

import os

# Tests never reach a model hub; anything that tries fails fast instead of hanging.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
