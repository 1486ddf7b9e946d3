"""favakit serve's OpenAPI schema shows the request and answer bodies of /v1/edit, /v1/detect
and /v1/verify, while requests are still validated as before (a real server on loopback; the
shipped encoder detector as the editor)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from favakit.inference.detector import Detector, DetectorEditor, default_detector
from favakit.inference.server import create_editor_app

sys.path.insert(0, str(Path(__file__).parent))
from test_serve import _call, _serve


def test_openapi_shows_real_schemas_and_error_codes_stay(free_port: Any) -> None:
    app = create_editor_app(DetectorEditor(Detector(default_detector())), api_key="k3y")
    for url in _serve(app, free_port()):
        status, spec = _call(url, "/openapi.json", key=None, method="GET")
        assert status == 200
        schemas = spec["components"]["schemas"]
        assert {"EditRequestBody", "EditResponse", "DetectResponse", "VerdictResponse"} <= set(
            schemas
        )
        assert schemas["EditRequestBody"]["required"] == ["text"]
        assert "corrected" in schemas["EditResponse"]["properties"]
        assert "corrected" not in schemas["DetectResponse"]["properties"]
        for path, answer in (("/v1/edit", "EditResponse"), ("/v1/detect", "DetectResponse"),
                             ("/v1/verify", "VerdictResponse")):  # fmt: skip
            post = spec["paths"][path]["post"]
            body = post["requestBody"]["content"]["application/json"]["schema"]
            refs = str(body)
            assert "#/components/schemas/EditRequestBody" in refs and "array" in refs
            assert answer in str(post["responses"]["200"])
            assert {"400", "401", "413", "422", "502", "504"} <= set(post["responses"])
        # validation and its codes as before
        assert _call(url, "/v1/edit", {"txt": "x"})[0] == 422
        assert _call(url, "/v1/edit", b"{not json")[0] == 400
        assert _call(url, "/v1/edit", {"text": "x"}, key="wrong")[0] == 401
        status, verdict = _call(
            url, "/v1/verify", {"text": "The Eiffel Tower is in Berlin.",
                                "evidence": ["The Eiffel Tower is a lattice tower in Paris."]},
        )  # fmt: skip
        assert status == 200 and verdict["supported"] is False and verdict["judge"]
