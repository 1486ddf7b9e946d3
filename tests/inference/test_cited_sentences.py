"""A claim that cites several sources, verified against one: only its cited sentences are judged
(favakit verify --cites, a row's 'cites', /v1/verify), with the real shipped MiniLM checker."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

EVIDENCE = ["Apollo 11 was the spaceflight that first landed humans on the Moon, on 20 July 1969."]
TEXT = "Apollo 11 first landed humans on the Moon in 1969 [1]. Its crew was four women [2]."


def test_the_cited_sentence_is_judged_and_the_verdict_says_so() -> None:
    from favakit.inference.factory import open_verifier
    from favakit.inference.verifiers import CitedSentences

    judge = CitedSentences(open_verifier("checker", checker="checker"))
    whole, cited, other = judge.verify([
        {"text": TEXT, "evidence": EVIDENCE},
        {"text": TEXT, "evidence": EVIDENCE, "cites": "[1]"},
        {"text": TEXT, "evidence": EVIDENCE, "cites": ["[2]"]},
    ])  # fmt: skip
    assert not whole["supported"]  # its least supported sentence cites another source
    assert cited["supported"] and cited["score"] > whole["score"]
    assert cited["warnings"][0] == "read the 1 of 2 sentences that cite [1], citation marks removed"
    assert not other["supported"]


@pytest.mark.slow
def test_verify_cites_flag_and_a_rows_own_cites(tmp_path: Path) -> None:
    rows = tmp_path / "claims.jsonl"
    rows.write_text(json.dumps({"id": "a", "text": TEXT, "evidence": EVIDENCE}) + "\n"
                    + json.dumps({"id": "b", "text": TEXT, "evidence": EVIDENCE, "cites": "[2]"})
                    + "\n")  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "favakit", "verify", "--input", str(rows), "--checker", "checker",
         "--cites", "[1]"], capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    a, b = (json.loads(line) for line in done.stdout.splitlines())
    assert a["supported"] and "sentences that cite [1]" in a["warnings"][0]
    assert not b["supported"] and "sentences that cite [2]" in b["warnings"][0]  # the row's wins
    bad = subprocess.run(
        [sys.executable, "-m", "favakit", "edit", "--backend", "encoder", "--input", str(rows)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert bad.returncode == 2 and "'cites' is read by favakit verify only" in bad.stderr


def _post(url: str, body: Any) -> tuple[int, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})  # fmt: skip
    try:
        with urllib.request.urlopen(req, timeout=300) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def checker_server(tiny_llama: Path, tiny_adapter: Path, port: int) -> Iterator[str]:
    """``favakit serve``'s app on loopback: the tiny editor, and /v1/verify
    answered by the shipped MiniLM checker; yields its URL (test_claim_fields uses it too)."""
    from favakit.inference.factory import judge_beside, open_editor
    from favakit.inference.server import create_editor_app
    from favakit.spec import ClientSpec

    sys.path.insert(0, str(Path(__file__).parent))
    from test_serve import _serve

    editor = open_editor(ClientSpec(str(tiny_llama), str(tiny_adapter)), shared=True)
    app = create_editor_app(editor, verifier=judge_beside(editor, "checker", checker="checker"))
    yield from _serve(app, port)


def test_serve_reads_cites_on_verify_and_refuses_them_on_edit(
    tiny_llama: Path, tiny_adapter: Path, free_port: Any
) -> None:
    for url in checker_server(tiny_llama, tiny_adapter, free_port()):
        status, verdict = _post(url + "/v1/verify",
                                {"text": TEXT, "evidence": EVIDENCE, "cites": "[1]"})  # fmt: skip
        assert status == 200 and verdict["supported"]
        status, error = _post(url + "/v1/verify", {"text": TEXT, "cites": 5})
        assert status == 422 and "'cites' must be" in error["detail"]
        status, error = _post(url + "/v1/edit", [{"text": "A."}, {"text": TEXT, "cites": "[1]"}])
        assert status == 422 and error["detail"].startswith("item 1: 'cites' is read by /v1/verify")
