"""A claim's fields as other tools name them: ``claim`` reads as the text everywhere a claim is
verified (the CLI's rows, the Python API, ``/v1/verify``), and a claim whose evidence sits in a
field favakit does not read (``context``, ``document``, ...) is refused with the field named,
not judged against nothing. The real shipped MiniLM checker judges; the server is real, on
loopback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from favakit.contracts import EditRequest, as_claim, as_request
from favakit.errors import UsageError
from favakit.prompts import Reference

EVIDENCE = ["The Eiffel Tower is a wrought-iron lattice tower in Paris, France."]


def test_claim_reads_as_the_text_and_a_missing_text_names_the_fields() -> None:
    assert as_claim({"claim": "It is in Paris.", "evidence": EVIDENCE}).text == "It is in Paris."
    assert as_claim("a bare claim").evidence is None  # no evidence given: none read
    with pytest.raises(UsageError, match=r"claim 2: no 'evidence' field, but 'context'"):
        as_claim({"claim": "It is in Paris.", "context": EVIDENCE[0]}, 2)
    with pytest.raises(ValueError, match=r"but 'document': .*\(rename 'document'"):
        EditRequest.from_claim({"text": "It is in Paris.", "document": EVIDENCE})
    # given evidence wins, and an empty field is no evidence elsewhere
    assert as_claim({"text": "x", "evidence": EVIDENCE, "context": "y"}).evidence
    assert as_claim({"text": "x", "context": ""}).evidence is None
    # an editor's request keeps one name for its text, and says what it got instead
    with pytest.raises(
        UsageError, match=r"request 0: missing 'text' \(its fields: 'claim', 'id'\)"
    ):
        as_request({"claim": "It is in Paris.", "id": 4})
    with pytest.raises(ValueError, match=r"^missing 'text'$"):
        EditRequest.from_obj({})
    # a claim's messages name the field it was read from, or both it may be read from
    with pytest.raises(ValueError, match=r"^claim 3: 'claim' is empty$"):
        EditRequest.from_claim({"claim": " ", "evidence": EVIDENCE}, "claim 3")
    with pytest.raises(ValueError, match=r"^'text' is empty \(it holds only invisible "
                                         r"characters\)$"):  # fmt: skip
        EditRequest.from_claim({"text": "\u200b\ufeff \u200b", "evidence": EVIDENCE})
    assert EditRequest.from_obj({"text": "x", "evidence": ["\u200b", "y"]}).evidence == [
        Reference("y")
    ]  # a passage that shows nothing is dropped as a blank one is
    with pytest.raises(ValueError, match=r"^'text' must be a string, not int$"):
        EditRequest.from_claim({"text": 4, "claim": "x"})
    # a row whose 'text' is the source and whose 'claim' is the claim had its source judged
    with pytest.raises(ValueError, match=r"^claim 2: both 'text' and 'claim', and they differ: .*"
                                         r"give it as 'evidence': \[text\]"):  # fmt: skip
        EditRequest.from_claim({"text": EVIDENCE[0], "claim": "It is in Rome."}, "claim 2")
    assert EditRequest.from_claim({"text": "x", "claim": "x"}).text == "x"
    with pytest.raises(ValueError, match=r"^missing 'text' or 'claim' \(its fields: 'id'\)$"):
        EditRequest.from_claim({"id": 1})
    with pytest.raises(ValueError, match=r"^expected an object with a 'text' or 'claim' field$"):
        EditRequest.from_claim(3)
    # a batch wrapped in an object, as some APIs take it: how favakit takes several
    with pytest.raises(ValueError, match=r"'claims' holds a list: each text is an object of its "
                                         r"own, .*several go in a JSON array"):  # fmt: skip
        EditRequest.from_claim({"claims": [{"text": "x", "evidence": ["y"]}]})


def test_the_python_api_reads_claim_and_refuses_evidence_it_would_not_read() -> None:
    from favakit.inference.factory import open_verifier

    verifier = open_verifier("checker", checker="checker")
    (verdict,) = verifier.verify([{"claim": "The Eiffel Tower is in Paris.", "evidence": EVIDENCE}])
    assert verdict["supported"] and "warnings" not in verdict
    with pytest.raises(UsageError, match="claim 1: no 'evidence' field, but 'passages'"):
        verifier.verify([{"text": "It is in Paris.", "evidence": EVIDENCE},
                         {"text": "It is in Paris.", "passages": EVIDENCE}])  # fmt: skip


def test_verify_input_refuses_evidence_it_would_not_read_before_any_model(tmp_path: Path) -> None:
    rows = tmp_path / "claims.jsonl"
    rows.write_text(json.dumps({"id": "a", "claim": "It is in Paris.", "evidence": EVIDENCE})
                    + "\n" + json.dumps({"id": "b", "text": "It is in Paris.",
                                         "context": EVIDENCE[0]}) + "\n")  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "favakit", "verify", "--input", str(rows), "--checker",
         str(tmp_path / "no-such-checker")], capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"{rows}:2: no 'evidence' field, but 'context'" in done.stderr


def test_serve_verify_reads_claim_as_the_cli_does(
    tiny_llama: Path, tiny_adapter: Path, free_port: Any
) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_cited_sentences import _post, checker_server

    for url in checker_server(tiny_llama, tiny_adapter, free_port()):
        claim = {"claim": "The Eiffel Tower is in Paris.", "evidence": EVIDENCE}
        status, verdict = _post(url + "/v1/verify", claim)
        assert status == 200 and verdict["supported"], verdict
        status, error = _post(url + "/v1/verify", [claim, {"text": "x", "document": "y"}])
        assert status == 422 and error["detail"].startswith("item 1: no 'evidence' field")
        status, error = _post(url + "/v1/verify", {"claims": [claim]})
        assert status == 422 and "several go in a JSON array of them" in error["detail"], error
        status, error = _post(url + "/v1/edit", claim)  # an editor reads 'text' only
        assert (
            status == 422 and error["detail"] == "missing 'text' (its fields: 'claim', 'evidence')"
        )
