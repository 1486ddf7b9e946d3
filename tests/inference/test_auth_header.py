"""A non-ASCII Authorization header is a wrong key (401), not a server error (500), on both
servers (real servers on loopback)."""

from __future__ import annotations

import http.client
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from favakit.inference.editor import GenerativeEditor
from favakit.inference.server import create_editor_app
from favakit.llm import FunctionClient

sys.path.insert(0, str(Path(__file__).parent))
from test_serve import _serve


def _status(url: str, path: str, authorization: str) -> int:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    conn.putrequest("POST" if path.startswith("/v1/") and path != "/v1/models" else "GET", path)
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Authorization", authorization)  # sent as latin-1 bytes
    body = b'{"text": "x"}'
    conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    status = conn.getresponse().status
    conn.close()
    return status


def test_non_ascii_keys_are_refused_with_401(tiny_llama: Path, free_port: Any) -> None:
    from favakit.inference.generators import HFGenerator
    from favakit.inference.llm_server import create_app

    editor = GenerativeEditor(FunctionClient(lambda p, _: "x", model="echo"))
    apps = {
        "/v1/edit": create_editor_app(editor, api_key="k3y"),
        "/v1/completions": create_app(HFGenerator.load(str(tiny_llama)), api_key="k3y"),
    }
    for path, app in apps.items():
        for url in _serve(app, free_port()):
            for header in ("Bearer é", "Bearer k3yé", "Bearer \xff\xfe"):
                assert _status(url, path, header) == 401, (path, header)
            assert _status(url, "/v1/models", "Bearer é") == 401
