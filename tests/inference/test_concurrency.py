"""Many clients at once against real servers on loopback: 32 clients x 10 long requests each,
every one answered 200 (issue 33, item 1: the encoder's shared tokenizer failed 2 in 80)."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from favakit.inference.http_guard import HttpLimits
from favakit.inference.server import create_editor_app

sys.path.insert(0, str(Path(__file__).parent))
from test_serve import _serve

CLIENTS, REQUESTS = 32, 10
SENTENCES = [
    "Marie Curie won the Nobel Prize in Physics in 1903.",
    "Saturn is the sixth planet from the Sun.",
    "Lava, ash and gases escape from a magma chamber below the surface.",
    "Titan is its largest moon.",
    "Mount Etna is a volcano in Sicily.",
]


def _long_text(n: int) -> str:
    """A text of many sentences (many encoder windows), different for each ``n``."""
    return " ".join(SENTENCES[(n + i) % len(SENTENCES)] for i in range(40 + n % 7))


def _hammer(url: str, path: str, body_of: Any) -> Counter[int]:
    """Statuses of CLIENTS threads each sending REQUESTS requests one after another."""

    def client(c: int) -> list[int]:
        codes = []
        for r in range(REQUESTS):
            req = urllib.request.Request(
                url + path, data=json.dumps(body_of(c * REQUESTS + r)).encode(),
                headers={"Content-Type": "application/json"},
            )  # fmt: skip
            try:
                with urllib.request.urlopen(req, timeout=300) as resp:
                    resp.read()
                    codes.append(resp.status)
            except urllib.error.HTTPError as exc:
                codes.append(exc.code)
        return codes

    with ThreadPoolExecutor(CLIENTS) as pool:
        return Counter(code for codes in pool.map(client, range(CLIENTS)) for code in codes)


@pytest.mark.slow
def test_the_encoder_server_answers_every_concurrent_long_request(
    tiny_detector: Path, free_port: Any
) -> None:
    from favakit.inference.detector import Detector, DetectorEditor

    detector = Detector(tiny_detector, device="cpu", batch_size=4)
    assert len(detector._windows(_long_text(0))) > 3  # long: several windows each
    app = create_editor_app(DetectorEditor(detector), workers=CLIENTS)
    for url in _serve(app, free_port()):
        codes = _hammer(url, "/v1/detect", lambda n: {"text": _long_text(n), "evidence": ["x"]})
        assert codes == Counter({200: CLIENTS * REQUESTS}), codes


@pytest.mark.slow
def test_the_generative_server_answers_every_concurrent_long_request(
    tiny_llama: Path, free_port: Any
) -> None:
    """serve-llm: completions, chat and /tokenize (counted while batches are generated)."""
    from favakit.inference.generators import HFGenerator
    from favakit.inference.llm_server import create_app

    app = create_app(
        HFGenerator.load(str(tiny_llama)), max_batch=8, batch_window_ms=5,
        http=HttpLimits(max_pending=128),  # 96 clients at once: none turned away busy
    )  # fmt: skip

    def prompt(n: int) -> dict[str, Any]:
        return {"prompt": _long_text(n), "max_tokens": 2}

    def chat(n: int) -> dict[str, Any]:
        return {"messages": [{"role": "user", "content": _long_text(n)}], "max_tokens": 2}

    for url in _serve(app, free_port()):
        routes = [("/v1/completions", prompt), ("/v1/chat/completions", chat),
                  ("/tokenize", lambda n: (prompt, chat)[n % 2](n))]  # fmt: skip
        codes: Counter[int] = Counter()
        with ThreadPoolExecutor(len(routes)) as pool:
            for got in pool.map(lambda route, url=url: _hammer(url, *route), routes):
                codes += got
        assert codes == Counter({200: len(routes) * CLIENTS * REQUESTS}), codes
