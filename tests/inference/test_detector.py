"""The encoder detector: labels, span decoding, corrections from evidence, training a real tiny
BERT with `favakit train` (task: detector) until it finds the planted errors, and the CLI
backends `encoder` and `cascade`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from favakit.errors import UsageError
from favakit.inference.detector import (
    LABELS,
    Detector,
    DetectorEditor,
    decode_spans,
    label_tokens,
    suggest_replacement,
)


def test_tokens_get_bio_labels_and_non_text_tokens_are_ignored() -> None:
    text = "saturn is the fourth planet ."
    offsets = [(0, 0), (0, 6), (7, 9), (10, 13), (14, 20), (21, 27), (28, 29), (0, 0), (0, 6)]
    in_text = [False, True, True, True, True, True, True, False, False]
    spans = [("entity", text.index("fourth"), text.index("fourth") + 6),
             ("subjective", text.index("planet"), len(text))]  # fmt: skip
    got = [LABELS[i] if i >= 0 else None for i in label_tokens(offsets, in_text, spans)]
    assert got == [None, "O", "O", "O", "B-entity", "B-subjective", "I-subjective", None, None]


def test_spans_are_decoded_with_their_confidence() -> None:
    def row(**p: float) -> list[float]:
        r = [0.0] * len(LABELS)
        for name, v in p.items():
            r[LABELS.index(name.replace("_", "-"))] = v
        return r

    probs = [row(O=0.9, B_entity=0.1), row(B_entity=0.7, I_entity=0.1, O=0.2),
             row(I_entity=0.6, B_entity=0.2, O=0.2), row(O=0.8), row(I_relation=0.5, O=0.4)]  # fmt: skip
    offsets = [(0, 3), (4, 8), (9, 12), (13, 15), (16, 20)]
    spans = decode_spans(probs, offsets)
    assert [(s.type, s.start, s.end) for s in spans] == [("entity", 4, 12), ("relation", 16, 20)]
    assert spans[0].confidence == pytest.approx(0.8)  # mean of 0.8 and 0.8
    assert spans[1].confidence == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("text", "wrong", "evidence", "kind", "fixed"),
    [
        ("The Danube flows into the North Sea.", "North Sea", "The Danube flows into the Black Sea.",
         "entity", "The Danube flows into the Black Sea."),
        ("Mount Etna is a volcano in Sardinia, Italy.", "Sardinia",
         "Mount Etna is an active volcano on the east coast of Sicily, Italy.", "entity",
         "Mount Etna is a volcano on the east coast of Sicily, Italy."),
        # reordered: the alignment fails, the one number the text lacks is taken
        ("Marie Curie won the Nobel Prize in Chemistry in 1921.", "1921",
         "Marie Curie won the 1911 Nobel Prize in Chemistry. She was born in Warsaw.", "entity",
         "Marie Curie won the Nobel Prize in Chemistry in 1911."),
        ("Paris is the capital of Germany. It is old.", "capital of Germany",
         "Paris is the capital of France and its largest city.", "relation",
         "Paris is the capital of France. It is old."),
        ("Titan is the smallest moon of Saturn. It has lakes.", "Titan is the smallest moon of Saturn.",
         "Titan is the largest moon of Saturn. It has a thick atmosphere.", "contradictory",
         "Titan is the largest moon of Saturn. It has lakes."),
    ],
)  # fmt: skip
def test_corrections_come_from_the_evidence(
    text: str, wrong: str, evidence: str, kind: str, fixed: str
) -> None:
    i = text.index(wrong)
    got = suggest_replacement(text, i, i + len(wrong), [evidence], kind)
    assert got is not None
    start, end, right = got
    assert text[:start] + right + text[end:] == fixed


def test_no_correction_without_matching_evidence() -> None:
    text = "Saturn is the fourth planet from the Sun."
    i = text.index("fourth")
    assert suggest_replacement(text, i, i + 6, ["Bread is made from flour and water."]) is None


@pytest.fixture(scope="module")
def trained_detector(
    tiny_encoder: Path,
    rows_file: Path,
    edit_facts: list[tuple[str, str, str]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """`favakit train --config minilm_detector` on the tiny BERT, full fine-tuning, until the
    six planted errors of the rows are learnt; the rows plus the same texts without errors."""
    from favakit.prompts import build_prompt

    out = tmp_path_factory.mktemp("detector") / "run"
    rows = rows_file.read_text().splitlines()
    for _ in range(4):
        rows += [json.dumps({"prompt": build_prompt(t, [t], template="fava"), "completion": t})
                 for t, _, _ in edit_facts]  # fmt: skip
    rows_file = out.parent / "rows.jsonl"
    rows_file.write_text("\n".join(rows) + "\n")
    cmd = [sys.executable, "-m", "favakit", "train", "--config", "minilm_detector",
           f"model={tiny_encoder}", f"data.train_file={rows_file}", f"output_dir={out}",
           "method=full", "lr=0.005", "max_steps=80", "batch_size=8", "data.max_length=128",
           "warmup_ratio=0", "data.validation_fraction=0.2", "log_every=20", "precision=fp32",
           "--no-progress"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["task"] == "detector" and summary["steps"] == 80
    assert summary["tuning_examples"] > 0 and summary["last_loss"] < summary["first_loss"] / 4
    assert summary["bf16"] is False  # fp32 as asked, on any machine (the preset's is `auto`)
    return Path(summary["output"])


@pytest.mark.slow
def test_detector_training_honours_bf16_and_accumulates(
    tiny_encoder: Path, rows_file: Path, tmp_path: Path
) -> None:
    """`precision=bf16` trains in bf16 autocast (it was once ignored), with batches accumulated
    over `grad_accum` and drawn at random (`data.length_buckets=false`; the preset buckets them,
    as the fixture above trains); the loss still falls, and the load report of a new head is not
    printed."""
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "favakit", "train", "--config", "minilm_detector",
           f"model={tiny_encoder}", f"data.train_file={rows_file}", f"output_dir={out}",
           "precision=bf16", "lr=0.005", "max_steps=30", "batch_size=4", "grad_accum=2",
           "data.max_length=128", "warmup_ratio=0", "data.validation_fraction=0.2",
           "data.length_buckets=false", "--no-progress"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["bf16"] is True and summary["steps"] == 30
    assert summary["last_loss"] < summary["first_loss"] / 2
    assert "LOAD REPORT" not in done.stderr and "MISSING" not in done.stderr


@pytest.mark.slow
def test_a_trained_detector_finds_and_fixes_the_planted_errors(
    trained_detector: Path, edit_facts: list[tuple[str, str, str]]
) -> None:
    EDIT_FACTS = edit_facts
    config = json.loads((trained_detector / "detector.json").read_text())
    assert set(config["thresholds"]) == {"entity", "relation", "contradictory", "invented",
                                         "subjective", "unverifiable"}  # fmt: skip
    detector = Detector(trained_detector, device="cpu")
    requests = []
    for text, right, wrong in EDIT_FACTS:
        requests.append({"text": text.replace(right, wrong, 1), "evidence": [text]})
    results = detector.edit_many(requests)
    found = sum(
        any(e["wrong"] == wrong for e in res["edits"])
        for res, (_, _, wrong) in zip(results, EDIT_FACTS, strict=True)
    )
    assert found >= 5, [r["edits"] for r in results]
    fixed = sum(
        res["corrected"] == text for res, (text, _, _) in zip(results, EDIT_FACTS, strict=True)
    )
    assert fixed >= 4, [(r["original"], r["corrected"]) for r in results]
    for res in results:
        assert res["faithful"] and all(0 <= e["confidence"] <= 1 for e in res["edits"])
        for e in res["edits"]:
            assert res["original"][e["start"] : e["end"]] == e["wrong"]
    # correct text: left alone
    clean = detector.edit_many([{"text": t, "evidence": [t]} for t, _, _ in EDIT_FACTS])
    assert sum(not r["edits"] for r in clean) >= 4


@pytest.mark.slow
def test_cli_encoder_backend(trained_detector: Path) -> None:
    text, right, wrong = "saturn is the sixth planet from the sun .", "sixth", "second"
    done = subprocess.run(
        [sys.executable, "-m", "favakit", "edit", "--backend", "encoder", "--detector",
         str(trained_detector), "--evidence", text, text.replace(right, wrong)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    res = json.loads(done.stdout.splitlines()[0])
    assert res["original"] == text.replace(right, wrong)
    assert {"corrected", "edits", "evidence", "model", "faithful"} <= set(res)
    assert res["evidence"] == [{"title": "", "text": text}]


def test_cascade_sends_only_flagged_windows_to_the_generative_editor(
    trained_detector: Path, tiny_adapter: Path
) -> None:
    from favakit.inference.factory import open_editor
    from favakit.spec import ClientSpec

    generative = open_editor(ClientSpec(adapter=str(tiny_adapter), device="cpu"))
    editor = DetectorEditor(Detector(trained_detector, device="cpu"), generative=generative)
    wrong = "saturn is the second planet from the sun ."
    right = "saturn is the sixth planet from the sun ."
    results = editor.edit_many([{"text": wrong, "evidence": [right]},
                                {"text": right, "evidence": [right]}])  # fmt: skip
    assert editor.windows_seen == 2 and editor.windows_sent == 1
    assert results[1]["corrected"] == right and not results[1]["edits"]  # never generated
    assert results[0]["original"] == wrong and results[0]["model"].endswith(generative.model)
    assert results[0]["usage"]["completion_tokens"] > 0  # this one went to the generator


@pytest.mark.slow
def test_serve_encoder_backend_on_loopback(trained_detector: Path, free_port: object) -> None:
    import time
    import urllib.request

    port = free_port()  # type: ignore[operator]
    proc = subprocess.Popen(
        [sys.executable, "-m", "favakit", "serve", "--backend", "encoder", "--detector",
         str(trained_detector), "--port", str(port), "--verify-judge", "editor"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(url + "/health", timeout=1)
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, (
                    proc.stderr.read() if proc.stderr else ""
                )
                time.sleep(0.2)
        right = "saturn is the sixth planet from the sun ."
        body = [{"text": right.replace("sixth", "second"), "evidence": [right]},
                {"text": right, "evidence": [right]}]  # fmt: skip

        def post(route: str) -> Any:
            req = urllib.request.Request(
                url + route, data=json.dumps(body).encode(),
                headers={"Content-Type": "application/json"},
            )  # fmt: skip
            with urllib.request.urlopen(req, timeout=60) as resp:
                return json.loads(resp.read())

        got = post("/v1/edit")
        assert [r["original"] for r in got] == [b["text"] for b in body]
        assert all("corrected" in r and r["faithful"] for r in got)
        verdicts = post("/v1/verify")
        assert len(verdicts) == 2 and all(
            {"supported", "score", "judge"} <= set(v) for v in verdicts
        )
        assert verdicts[1]["score"] > verdicts[0]["score"]  # the correct claim is surer
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow
def test_demo_runs_on_the_encoder(trained_detector: Path, tmp_path: Path) -> None:
    import io

    from favakit.demo import run_demo

    out = io.StringIO()
    figures = run_demo(tmp_path / "demo", backend="encoder", detector=str(trained_detector),
                       limit=2, out=out, color=False)  # fmt: skip
    text = out.getvalue()
    assert "encoder detector" in text and "judge: encoder" in text and "Error" not in text
    assert (tmp_path / "demo" / "edits.html").exists()
    rows = [json.loads(x) for x in (tmp_path / "demo" / "edits.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(r["evidence"] for r in rows)  # retrieved from the demo KB
    assert figures["texts"] == 2 and figures["model"].startswith("favakit-detector")
    assert 0 <= figures["factscore_before"] <= 1 and 0 <= figures["binary_f1"] <= 1


@pytest.mark.slow
def test_verify_cli_judges_claims_and_resumes(
    trained_detector: Path, edit_facts: list[tuple[str, str, str]], tmp_path: Path
) -> None:
    claims = tmp_path / "claims.jsonl"
    rows = []
    for n, (text, right, wrong) in enumerate(edit_facts):
        rows.append({"id": f"false{n}", "claim": text.replace(right, wrong, 1), "evidence": [text]})
        rows.append({"id": f"true{n}", "text": text, "evidence": [{"title": "t", "text": text}]})
    claims.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "verdicts.jsonl"
    cmd = [sys.executable, "-m", "favakit", "verify", "--judge", "encoder", "--detector", str(trained_detector),
           "--input", str(claims), "--output", str(out)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    got = {v["id"]: v for v in map(json.loads, out.read_text().splitlines())}
    assert set(got) == {r["id"] for r in rows}
    for v in got.values():
        assert set(v) >= {"supported", "score", "judge"} and 0.0 <= v["score"] <= 1.0
    right = sum(not got[f"false{n}"]["supported"] for n in range(6)) + sum(
        got[f"true{n}"]["supported"] for n in range(6)
    )
    assert right >= 9  # the trained detector tells them apart
    mean = lambda k: sum(got[f"{k}{n}"]["score"] for n in range(6)) / 6  # noqa: E731
    assert mean("true") > mean("false")
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "12 id(s) already in" in again.stderr
    assert len(out.read_text().splitlines()) == 12  # nothing written twice
    one = subprocess.run(
        [sys.executable, "-m", "favakit", "verify", "--judge", "encoder", "--detector", str(trained_detector),
         "--claim", "titan is its largest moon .", "--evidence", "titan is its largest moon ."],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert one.returncode == 0, one.stderr[-2000:]
    assert json.loads(one.stdout)["id"] == "0"
    bad = subprocess.run([sys.executable, "-m", "favakit", "verify", "--claim", ""],
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert bad.returncode == 2 and "empty" in bad.stderr


@pytest.mark.slow
def test_verify_with_an_llm_judge(tiny_llama: Path, tmp_path: Path) -> None:
    """--judge llm: the model is asked True or False; a random tiny model answers neither, which
    counts as not supported (FActScore's default)."""
    done = subprocess.run(
        [sys.executable, "-m", "favakit", "verify", "--judge", "llm", "--model", str(tiny_llama),
         "--claim", "titan is its largest moon .", "--evidence", "titan is its largest moon ."],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout)
    assert got["supported"] is False and got["score"] == 0.0 and got["judge"]


def test_packed_int8_detector_is_smaller_and_finds_the_same_spans(
    trained_detector: Path, edit_facts: list[tuple[str, str, str]], tmp_path: Path
) -> None:
    from favakit.inference.detector import pack_int8
    from favakit.inference.int8 import INT8_WEIGHTS

    out = tmp_path / "packed"
    report = pack_int8(trained_detector, out, min_size=1)  # the tiny BERT's matrices are small
    assert (out / INT8_WEIGHTS).exists() and not (out / "model.safetensors").exists()
    assert report["to_mb"] < report["from_mb"] / 2
    assert json.loads((out / "detector.json").read_text())["weights"] == "int8"
    texts = [t.replace(right, wrong, 1) for t, right, wrong in edit_facts]
    evidence = [[t] for t, _, _ in edit_facts]
    full, packed = Detector(trained_detector, device="cpu"), Detector(out, device="cpu")
    a, b = full.spans(texts, evidence), packed.spans(texts, evidence)
    assert [[(s.type, s.start, s.end) for s in x] for x in a] == [
        [(s.type, s.start, s.end) for s in x] for x in b
    ]
    for x, y in zip(a, b, strict=True):
        for s, t in zip(x, y, strict=True):
            assert abs(s.confidence - t.confidence) < 0.05
    with pytest.raises(UsageError, match="is the folder the model is read from: give another"):
        pack_int8(trained_detector, trained_detector)
    with pytest.raises(UsageError, match=r"\(it is packed already\)"):
        pack_int8(out, tmp_path / "twice")
    assert pack_int8(trained_detector, out, min_size=1)["out"] == str(out)  # packed again


def test_the_shipped_detector_finds_and_fixes_an_entity_error() -> None:
    from favakit.inference.detector import default_detector

    evidence = (
        "Albert Einstein was a German-born theoretical physicist who is best known for developing "
        "the theory of relativity. He was born in Ulm in 1879. Einstein also made important "
        "contributions to quantum mechanics. His mass-energy equivalence formula has been called "
        "the world's most famous equation."
    )
    right = ". ".join(evidence.split(". ")[:3]) + "."  # the first three sentences
    wrong = right.replace("Ulm", "Paris")
    detector = Detector(default_detector(), device="cpu")
    assert json.loads((Path(default_detector()) / "detector.json").read_text())["weights"] == "int8"
    bad, good = detector.edit_many([{"text": wrong, "evidence": [evidence]},
                                    {"text": right, "evidence": [evidence]}])  # fmt: skip
    assert [(e["type"], e["wrong"], e["right"]) for e in bad["edits"]] == [
        ("entity", "Paris", "Ulm")
    ]
    assert bad["corrected"] == right and bad["edits"][0]["confidence"] >= 0.5
    assert good["edits"] == [] and good["corrected"] == right


def test_an_edit_changes_the_text_or_is_flagged_on_every_backend(tiny_detector: Path) -> None:
    """A fix equal to its wrong text ("1979" -> "1979") is reported as flagged, no fix, by the
    encoder and by the generative editor alike (issue 33, item 16)."""
    from favakit.inference.detector import SpanPrediction
    from favakit.inference.editor import align

    text = "Einstein was born in 1979."
    start = text.index("1979")
    encoder = Detector(tiny_detector, device="cpu")._result(
        text,
        ["Einstein was born in 1979 in Ulm."],
        [SpanPrediction("entity", start, start + 4, 0.9)],
    )
    (span,) = encoder["edits"]
    assert span["right"] == span["wrong"] == "1979" and span.get("flagged") is True
    assert encoder["corrected"] == text
    generative = [
        ("Einstein was born in <entity><mark>1979</mark><delete>1979</delete></entity>.", False),
        ("Einstein was born in <entity>1979</entity>.", True),  # bare, its text kept
        ("Einstein was born in <entity><mark>1879</mark><delete>1979</delete></entity>.", False),
    ]
    for output, keep_bare in generative:
        (span,) = align(text, output, keep_bare=keep_bare)[0].edits
        assert span.get("flagged", False) == (span["right"] == span["wrong"]), (output, span)
        assert (span["right"] != span["wrong"]) == ("1879" in output)


def test_a_text_with_a_sentence_longer_than_the_encoder_reads_is_windowed(
    tiny_detector: Path,
) -> None:
    """A text whose one sentence (no full stop, or a long URL) is longer than the encoder's
    length ended in the tokenizer's "Truncation error: Sequence to truncate too short" (the
    evidence was cut to nothing and the text still did not fit). It is read in runs of words,
    a word over the budget cut by characters, every window within the encoder's length."""
    detector = Detector(tiny_detector, device="cpu")  # max_length 128: windows of 64 tokens
    words = " ".join(f"Lava{k} flows" for k in range(150))  # one sentence, far over 128
    text = f"Saturn has rings. {words} and {'x' * 400} too. Titan is a moon."
    windows = detector._windows(text)
    assert len(windows) > 3 and windows[0] == (0, len("Saturn has rings."))
    for s, e in windows:
        assert detector._tokens(text[s:e]) <= 64, text[s:e][:60]
    covered = "".join(text[s:e] for s, e in windows)
    assert "".join(covered.split()) == "".join(text.split())  # every character, once
    (result,) = detector.edit_many([{"text": text, "evidence": ["Saturn has rings. " * 40]}])
    assert result["original"] == text
