"""The encoder checker end to end on a tiny random BERT: `favakit train --config minilm_checker`
on real-shaped rows, the checkpoint and threshold chosen on the development split, resume, the
folder loads in plain transformers, and the checker answers as a Verifier (long evidence in
pieces, with a warning)."""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

WORDS = ["curie", "paris", "sicily", "melbourne", "radium", "polonium"]
FILLER = ["gold", "ice", "gas", "lava", "magma", "crust", "ash", "medal"]


def _rows(n: int, seed: int) -> list[dict[str, object]]:
    """A rule a tiny random encoder learns in a few steps: a claim is supported when its
    evidence names saturn, not when it names etna (some of those rows also mark a span)."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    for i in range(n):
        filler = " ".join(rng.sample(FILLER, 3))  # varies the rows (and their claims)
        claim = f"{rng.choice(WORDS)} is a planet of the sun {filler} ."
        evidence = f"{'saturn' if i % 2 == 0 else 'etna'} is a planet of the sun {filler} ."
        row: dict[str, object] = {"id": f"r{seed}-{i}", "source": ["fever", "fm2"][i % 3 == 0],
                                  "text": claim, "evidence": [evidence],
                                  "label": "supported" if i % 2 == 0 else "not_supported"}  # fmt: skip
        if i % 2 and i % 5 == 1:
            row["spans"] = [{"start": 0, "end": len(claim.split()[0])}]
        rows.append(row)
    return rows


def _command(encoder: Path, data: Path, out: Path, *overrides: str) -> list[str]:
    """`favakit train --config minilm_checker` on the tiny encoder, short sequences, fp32."""
    return [sys.executable, "-m", "favakit", "train", "--config", "minilm_checker",
            f"model={encoder}", f"data.train_file={data}", "data.max_length=64", "batch_size=16",
            "precision=fp32", f"output_dir={out}", *overrides]  # fmt: skip


@pytest.fixture(scope="module")
def trained_checker(tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("checker")
    data = root / "train" / "pairs.jsonl"
    data.parent.mkdir()
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows(240, 0)), encoding="utf-8")
    common = _command(tiny_encoder, data, root / "run", "data.validation_fraction=0.2",
                      "lr=0.001", "eval_every=50", "save_every=50", "log_every=5")  # fmt: skip
    first = subprocess.run([*common, "max_steps=150"], capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-2000:]
    return root / "run" / "model"


@pytest.mark.slow
def test_training_picks_checkpoint_and_threshold_on_the_dev_split(trained_checker: Path) -> None:
    meta = json.loads((trained_checker / "checker.json").read_text())
    assert 0.0 < meta["threshold"] < 1.0 and meta["best_step"] in (50, 100, 150)
    assert meta["dev"]["rows"] > 0 and set(meta["dev"]["per_source"]) <= {"fever", "fm2"}
    assert meta["training"]["duplicates"] >= 0 and meta["training"]["dev"] == meta["dev"]["rows"]
    assert sum(r["n"] for r in meta["dev"]["reliability"]) == meta["dev"]["rows"]
    log = [json.loads(line) for line in (trained_checker.parent / "train_log.jsonl").open()]
    assert any("dev_mean_balanced_accuracy" in r for r in log)
    assert not (trained_checker.parent / "checkpoint").exists()  # removed when done


def test_the_model_loads_in_plain_transformers(trained_checker: Path) -> None:
    import torch
    import transformers

    model = transformers.AutoModelForSequenceClassification.from_pretrained(trained_checker)
    tok = transformers.AutoTokenizer.from_pretrained(trained_checker)
    assert model.config.id2label[1] == "supported"
    enc = tok("saturn is a planet of the sun .", "saturn is a planet of the sun .",
              return_tensors="pt")  # fmt: skip
    with torch.no_grad():
        assert model(**enc).logits.shape == (1, 2)


@pytest.mark.slow
def test_an_int8_checker_is_smaller_scores_alike_and_unpacks_for_plain_transformers(
    trained_checker: Path, tmp_path: Path
) -> None:
    import torch
    import transformers

    from favakit.inference.checker import Checker
    from favakit.inference.int8 import INT8_WEIGHTS

    packed, plain = tmp_path / "packed", tmp_path / "plain"
    cli = [sys.executable, "-m", "favakit", "train"]
    done = subprocess.run([*cli, "pack-checker", "--detector", str(trained_checker), "--out",
                           str(packed)], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["out"] == str(packed)
    assert (packed / INT8_WEIGHTS).exists() and not (packed / "model.safetensors").exists()
    assert json.loads((packed / "checker.json").read_text())["weights"] == "int8"
    # the tiny BERT's matrices are under the default size for int8: pack every one of them
    from favakit.inference.checker import pack_checker

    report = pack_checker(trained_checker, packed, min_size=1)
    assert report["to_mb"] < report["from_mb"] / 2
    pairs = [("saturn is a planet of the sun .", "saturn is a planet of the sun ."),
             ("saturn is a planet of the sun .", "etna is a planet of the sun ."),
             ("curie is a planet of the sun gold .", "etna is a planet of the sun gold .")]  # fmt: skip
    # fp32: the packed checker against plain transformers below, to 1e-4
    full = Checker(trained_checker, device="cpu", precision="fp32").score_pairs(pairs)
    small = Checker(packed, device="cpu", precision="fp32").score_pairs(pairs)
    assert full[0] != full[1] and all(abs(a - b) < 0.05 for a, b in zip(full, small, strict=True))
    # bf16 autocast (the default where the CPU has it) moves the scores a little, not the order
    half = Checker(trained_checker, device="cpu", precision="bf16")
    assert half.bf16 and not Checker(trained_checker, device="cpu", precision="fp32").bf16
    rough = half.score_pairs(pairs)
    assert all(abs(a - b) < 0.05 for a, b in zip(full, rough, strict=True))
    assert rough[0] > rough[1]
    # the token head reads the bf16 model's hidden states the same way
    plain_tokens = Checker(trained_checker, device="cpu", precision="fp32").token_scores(pairs)
    for exact, near in zip(plain_tokens, half.token_scores(pairs), strict=True):
        assert exact.keys() == near.keys() and exact
        assert all(abs(exact[k] - near[k]) < 0.05 for k in exact)
    from favakit.deps import cpu_has_bf16
    from favakit.errors import UsageError

    assert Checker(trained_checker, device="cpu").bf16 == cpu_has_bf16()
    with pytest.raises(UsageError, match="precision 'fp8'"):
        Checker(trained_checker, device="cpu", precision="fp8")
    done = subprocess.run([*cli, "unpack-checker", "--detector", str(packed), "--out", str(plain)],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    model = transformers.AutoModelForSequenceClassification.from_pretrained(plain)
    tok = transformers.AutoTokenizer.from_pretrained(plain)
    enc = tok([a for a, _ in pairs], [b for _, b in pairs], padding=True, return_tensors="pt")
    with torch.no_grad():
        p = torch.softmax(model(**enc).logits, dim=-1)[:, 1].tolist()
    assert all(abs(a - b) < 1e-4 for a, b in zip(p, small, strict=True))
    bad = subprocess.run([*cli, "pack-checker", "--detector", str(tmp_path), "--out",
                          str(tmp_path / "x")], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert (
        bad.returncode == 2 and "model.safetensors" in bad.stderr and "Traceback" not in bad.stderr
    )


def test_the_cpu_scores_in_small_batches_with_the_same_scores(trained_checker: Path) -> None:
    """On the CPU a checker scores 8 pairs a pass (faster there than 32, docs/benchmarks.md,
    session 59); the batch size does not change a score."""
    from favakit.inference.checker import CPU_BATCH, Checker

    checker = Checker(trained_checker, device="cpu", precision="fp32")
    assert checker.batch_size == CPU_BATCH == 8
    assert Checker(trained_checker, device="cpu", batch_size=3).batch_size == 3
    rng = random.Random(0)
    words = ["the", "river", "city", "was", "founded", "by", "a", "king", "north", "of", "stone"]
    pairs = [(" ".join(rng.choices(words, k=rng.randint(3, 9))),
              " ".join(rng.choices(words, k=rng.randint(5, 60)))) for _ in range(21)]  # fmt: skip
    small = checker.score_pairs(pairs)
    checker.batch_size = 32
    assert checker.score_pairs(pairs) == pytest.approx(small, abs=1e-5)


def test_a_checker_json_sets_its_own_cpu_batch(trained_checker: Path, tmp_path: Path) -> None:
    """``cpu_batch`` in checker.json (the mpnet checker's 4: its eager attention runs faster in
    smaller passes, docs/benchmarks.md, session 73) sets the CPU's pairs a pass; an explicit
    batch size still wins."""
    from favakit.inference.checker import CONFIG_NAME, Checker

    folder = tmp_path / "own_batch"
    shutil.copytree(trained_checker, folder)
    config = json.loads((folder / CONFIG_NAME).read_text())
    (folder / CONFIG_NAME).write_text(json.dumps({**config, "cpu_batch": 3}))
    assert Checker(folder, device="cpu").batch_size == 3
    assert Checker(folder, device="cpu", batch_size=5).batch_size == 5


def test_the_checker_is_a_verifier(trained_checker: Path) -> None:
    from favakit.contracts import Verifier
    from favakit.inference.factory import open_verifier

    verifier = open_verifier("checker", detector=str(trained_checker))
    assert isinstance(verifier, Verifier)
    long = ["saturn is a planet of the sun ."] + ["etna is a planet of the sun ."] * 60
    same, other, cut = verifier.verify([
        {"text": "saturn is a planet of the sun .", "evidence": ["saturn is a planet of the sun ."]},
        {"text": "saturn is a planet of the sun .", "evidence": ["etna is a planet of the sun ."]},
        {"text": "saturn is a planet of the sun .", "evidence": long},
    ])  # fmt: skip
    assert "warnings" not in same and "warnings" not in other
    assert all(0.0 <= v["score"] <= 1.0 and v["judge"] == "favakit-checker-minilm"
               for v in (same, other, cut))  # fmt: skip
    assert same["score"] > other["score"]  # it learned the one rule of this data
    from favakit.errors import UsageError
    from favakit.inference.checker import Checker
    from favakit.inference.evidence_reading import fit_evidence, pieces
    from favakit.text import undo_ptb

    # long evidence, read as training showed it (the default): one pass over the sentences that
    # share the most words with the claim, the saturn sentence first among them; the verdict
    # says the evidence was cut (the checker reads FEVER-style spacing as plain text)
    checker = verifier.checker  # type: ignore[attr-defined]
    text, plain = "saturn is a planet of the sun.", [undo_ptb(e) for e in long]
    read = fit_evidence(text, plain, checker.piece_words)
    assert read.startswith("saturn is a planet") and len(read.split()) <= checker.piece_words
    assert cut["score"] == pytest.approx(checker.score_pairs([(text, read)])[0], abs=2e-4)
    assert cut["warnings"] == [f"evidence cut: the checker read the sentences sharing the most "
                               f"words with the text, {len(read.split())} of its "
                               f"{len(' '.join(plain).split())} words"]  # fmt: skip
    # the other reading: each piece on its own, the claim scored by the best one
    by_pieces = Checker(trained_checker, device="cpu", reading="pieces")
    parts = pieces(plain, by_pieces.piece_words)
    assert len(parts) > 1
    ((best, passes),) = by_pieces.score([long[0]], [long])
    assert passes == len(parts)
    assert best == pytest.approx(max(by_pieces.score_pairs([(text, p) for p in parts])), abs=2e-4)
    assert by_pieces.reading_note(long, passes) == (
        f"evidence read in {len(parts)} pieces, scored by the best"
    )
    with pytest.raises(UsageError, match="evidence reading 'all'"):
        Checker(trained_checker, device="cpu", reading="all")
    # titled passages of two articles: the cut ranks each sentence with its title's words
    # (fit_evidence), so the verdict is the score of that cut
    last = [*long[1:], long[0]]  # the saturn sentence last, in an article titled etna
    titles = ["saturn"] * 60 + ["etna"]
    (titled,) = verifier.verify([{"text": text, "evidence": [
        {"title": t, "text": e} for t, e in zip(titles, last, strict=True)]}])  # fmt: skip
    plain = [undo_ptb(e) for e in last]
    read = fit_evidence(text, plain, checker.piece_words, titles)
    assert "saturn" not in read  # each etna sentence shares "saturn" through its title
    assert fit_evidence(text, plain, checker.piece_words).endswith("saturn is a planet of the sun.")
    assert titled["score"] == pytest.approx(checker.score_pairs([(text, read)])[0], abs=2e-4)


def test_a_text_of_several_sentences_is_scored_by_its_least_supported_sentence(
    trained_checker: Path, tmp_path: Path
) -> None:
    """``text_reading: sentences`` (the shipped mpnet checker's): each sentence against the
    evidence, the text scored by the lowest, and the verdict names that sentence; a fragment
    of fewer than four words is read with its neighbour; the gate (one sentence at a time)
    and ``whole`` read the text in one pass."""
    from favakit.errors import UsageError
    from favakit.inference.checker import Checker, CheckerVerifier
    from favakit.inference.evidence_reading import text_units

    assert text_units("Yes! It was released in 1999 by Sony.") == [
        "Yes! It was released in 1999 by Sony."
    ]
    assert text_units("Saturn is a planet. Etna is a volcano. Sure.") == [
        "Saturn is a planet.", "Etna is a volcano. Sure."]  # fmt: skip
    assert text_units("Fine.") == ["Fine."]

    first, second = "Saturn is a planet of the sun.", "Curie is a planet of the sun."
    evidence = ["saturn is a planet of the sun .", "etna is a planet of the sun ."]
    checker = Checker(trained_checker, device="cpu")
    assert checker.text_reading == "whole"  # the tiny checker's checker.json sets none
    alone = [c.score for c in checker.checked_scores([first, second], [evidence] * 2)]
    ((whole, _),) = checker.score([f"{first} {second}"], [evidence])

    checker.text_reading = "sentences"
    (verdict,) = CheckerVerifier(checker).verify(
        [{"text": f"{first} {second}", "evidence": evidence}]
    )
    assert verdict["score"] == pytest.approx(min(alone), abs=2e-4)
    weakest = (first, second)[alone.index(min(alone))]
    assert verdict["warnings"][-1] == (f"read sentence by sentence (2), scored by the least "
                                       f"supported ({min(alone):.2f}): {weakest!r}")  # fmt: skip
    # one sentence: read as before, no note
    ((single, _),) = checker.score([first], [evidence])
    assert single == pytest.approx(alone[0], abs=2e-4)
    # checker.json sets the reading of verdicts; the gate reads what it is handed in one pass
    by_sentences = _with_config(trained_checker, tmp_path / "sentences", text_reading="sentences")
    assert Checker(by_sentences, device="cpu").text_reading == "sentences"
    gate = Checker(by_sentences, device="cpu", role="gate")
    assert gate.text_reading == "whole"
    ((gated, _),) = gate.score([f"{first} {second}"], [evidence])
    assert gated == pytest.approx(whole, abs=2e-4)
    with pytest.raises(UsageError, match="text reading 'paragraphs'"):
        Checker(_with_config(trained_checker, tmp_path / "bad", text_reading="paragraphs"))


def _with_config(folder: Path, out: Path, **keys: object) -> Path:
    """A copy of a checker folder with ``keys`` set in its checker.json."""
    shutil.copytree(folder, out)
    meta = json.loads((folder / "checker.json").read_text())
    (out / "checker.json").write_text(json.dumps({**meta, **keys}))
    return out


@pytest.mark.slow
def test_a_killed_run_resumes_from_its_checkpoint(tiny_encoder: Path, tmp_path: Path) -> None:
    import os
    import signal
    import time

    from favakit.training.config import load_train_config

    assert load_train_config("minilm_checker").task == "checker"
    data = tmp_path / "train" / "pairs.jsonl"
    data.parent.mkdir()
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows(120, 1)), encoding="utf-8")
    common = _command(tiny_encoder, data, tmp_path / "run", "save_every=4", "eval_every=0",
                      "max_steps=80")  # fmt: skip
    state = tmp_path / "run" / "checkpoint" / "state.pt"
    proc = subprocess.Popen(common, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not state.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)  # as a crash or the end of a session would
    proc.wait()
    assert state.exists() and not (tmp_path / "run" / "summary.json").exists()
    again = subprocess.run(common, capture_output=True, text=True, timeout=600)
    assert again.returncode != 0 and "--resume" in again.stderr
    done = subprocess.run([*common, "--resume"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    resumed = json.loads((tmp_path / "run" / "summary.json").read_text())["resumed_at"]
    assert resumed > 0 and resumed % 4 == 0
    assert f"resumed at step {resumed}" in done.stderr  # the checker's notes reach the log
    model = (tmp_path / "run" / "model" / "model.safetensors").read_bytes()
    finished = subprocess.run([*common, "--resume"], capture_output=True, text=True, timeout=600)
    assert finished.returncode != 0 and "holds a finished run" in finished.stderr
    assert (tmp_path / "run" / "model" / "model.safetensors").read_bytes() == model


def test_a_resumed_run_takes_its_best_record_from_the_best_model_s_folder(tmp_path: Path) -> None:
    from favakit.training.checker import BEST_RECORD, _resumed_best

    assert _resumed_best(tmp_path) == {"score": -1.0, "step": 0}  # no best model yet
    # killed mid-swap: the last best model had moved aside, the new one was not yet in place
    aside = tmp_path / "best.old"
    aside.mkdir()
    (aside / BEST_RECORD).write_text(json.dumps({"score": 0.7, "step": 40, "threshold": 0.4}))
    assert _resumed_best(tmp_path) == {"score": 0.7, "step": 40, "threshold": 0.4}
    assert (tmp_path / "best" / BEST_RECORD).exists() and not aside.exists()


def test_flagged_words_join_pieces_of_a_word_and_neighbouring_words() -> None:
    from favakit.inference.checker import _flagged_words

    text = "Curie was born in Krakow, Poland in 1867."
    #        0    5   9    14 17     25 27     34 37
    tokens = {(0, 5): 0.1, (6, 9): 0.2, (10, 14): 0.1, (15, 17): 0.3, (18, 22): 0.9,
              (22, 24): 0.4, (24, 25): 0.2, (26, 32): 0.7, (33, 35): 0.1, (36, 40): 0.8,
              (40, 41): 0.1}  # fmt: skip
    spans = _flagged_words(text, tokens, 0.5)
    # "Krakow," (two pieces and its comma) and "Poland" join; "in" is not flagged, so "1867." is
    # a span of its own
    assert [(text[a:b], p) for a, b, p in spans] == [("Krakow, Poland", 0.9), ("1867.", 0.8)]
    assert _flagged_words(text, tokens, 0.95) == []


def test_unsupported_spans_take_each_tokens_lowest_score_over_the_pieces(
    trained_checker: Path,
) -> None:
    from favakit.inference.checker import Checker
    from favakit.inference.evidence_reading import pieces

    checker = Checker(trained_checker, device="cpu")
    text = "curie is a planet of the sun ."
    long = ["saturn is a planet of the sun ."] + ["etna is a planet of the sun ."] * 60
    parts = pieces(long, checker.piece_words)
    assert len(parts) > 1
    per_piece = checker.token_scores([(text, p) for p in parts])
    assert all(set(s) == set(per_piece[0]) for s in per_piece)  # the text is never cut
    lowest = {k: min(s[k] for s in per_piece) for k in per_piece[0]}
    (spans,) = checker.unsupported_spans([text], [long], threshold=0.0)
    # threshold 0: every word is flagged and they join into one span over the whole text
    assert [(a, b) for a, b, _ in spans] == [(0, len(text))]
    assert spans[0][2] == pytest.approx(max(lowest.values()), abs=1e-4)
    assert all(0.0 <= p <= 1.0 for p in lowest.values())


def test_the_token_head_scores_every_word_of_a_text_longer_than_the_model_reads(
    trained_checker: Path,
) -> None:
    from favakit.inference.checker import Checker
    from favakit.inference.evidence_reading import pieces
    from favakit.text import undo_ptb

    checker = Checker(trained_checker, device="cpu")  # 64 tokens, pieces of 38 words
    evidence = [" ".join(["etna is a planet of the sun"] * 5) + " ."]
    short = " ".join(["curie is a planet of the sun"] * 4) + " ."
    # a text that fits is one window beside each piece, as the pieces are
    assert checker.marking_passes(short, evidence) == [
        (0, short, p) for p in pieces([undo_ptb(e) for e in evidence], checker.piece_words)
    ]
    long = " . ".join(["curie is a planet of the sun"] * 12) + " ."
    assert len(checker.tokenizer(long)["input_ids"]) > checker.max_length
    passes = checker.marking_passes(long, evidence)
    windows = sorted({(start, window) for start, window, _ in passes})
    assert len(windows) > 1 and "".join(w for _, w in windows) == long  # nothing left out
    assert all(long[s : s + len(w)] == w for s, w in windows)
    assert all(
        len(checker.tokenizer(w)["input_ids"]) <= checker.max_length // 2 for _, w in windows
    )
    (spans,) = checker.unsupported_spans([long], [evidence], threshold=0.0)
    assert [(a, b) for a, b, _ in spans] == [(0, len(long))]  # every word scored, so flagged


@pytest.mark.slow
def test_checker_gated_editing_over_the_shipped_encoder(trained_checker: Path) -> None:
    """The gate with a real (tiny) checker over the real shipped detector: a threshold no
    sentence passes keeps the detector's edits as they are; one every sentence passes leaves
    the text exactly as it was; the CLI's --gate builds the same editor."""
    from favakit.inference.factory import open_editor
    from favakit.inference.gate import GateSettings
    from favakit.spec import ClientSpec

    # docs/guide.md's example, which the shipped detector gets right
    text = (
        "Albert Einstein was a German-born theoretical physicist who is best known for "
        "developing the theory of relativity. He was born in Paris in 1879."
    )
    evidence = ["Albert Einstein was a German-born theoretical physicist who is best known for "
                "developing the theory of relativity. He was born in Ulm in 1879. Einstein also "
                "made important contributions to quantum mechanics."]  # fmt: skip
    request = {"text": text, "evidence": evidence}
    bare = open_editor(ClientSpec(device="cpu"), "encoder").edit_many([request])[0]
    assert bare["edits"], "the shipped detector should find the planted place"
    gate = GateSettings(str(trained_checker), threshold=1.0, check_fixes=False)
    kept = open_editor(ClientSpec(device="cpu"), "encoder", gate=gate).edit_many([request])[0]
    # with the fix check, no sentence is supported at threshold 1, the fixed one neither; the
    # fix stays all the same, as the rule beneath the checker makes it from the evidence (the
    # untitled evidence opens with Einstein's name, so "He was born in Ulm" is his: session 49)
    gate = GateSettings(str(trained_checker), threshold=1.0)
    checked = open_editor(ClientSpec(device="cpu"), "encoder", gate=gate).edit_many([request])[0]
    assert checked["corrected"] == text.replace("Paris", "Ulm")
    [ulm] = [e for e in checked["edits"] if not e.get("flagged")]
    assert (ulm["wrong"], ulm["right"]) == ("Paris", "Ulm")
    assert sorted(e["start"] for e in checked["edits"]) == sorted(
        [0] + [e["start"] for e in bare["edits"]]
    )
    fixes = [e for e in kept["edits"] if not e.get("flagged")]
    assert [(e["start"], e["right"]) for e in fixes] == [
        (e["start"], e["right"]) for e in bare["edits"]
    ]
    assert kept["corrected"] == bare["corrected"] and "checker_score" in fixes[0]
    assert fixes[0]["cites"]["sentence"].startswith("He was born in Ulm in 1879.")
    # every sentence counts as unsupported at threshold 1: the first, with no edit, is flagged
    [flag] = [e for e in kept["edits"] if e.get("flagged")]
    assert flag["start"] == 0 and flag["wrong"].endswith("relativity")  # its words, no period
    gate = GateSettings(str(trained_checker), threshold=0.0)
    gated = open_editor(ClientSpec(device="cpu"), "encoder", gate=gate).edit_many([request])[0]
    assert gated["edits"] == [] and gated["corrected"] == text
    assert "2 of 2 sentence(s) supported" in gated["warnings"][-1]
    done = subprocess.run(
        [sys.executable, "-m", "favakit", "edit", text, "--evidence", evidence[0], "--backend",
         "encoder", "--gate", str(trained_checker), "--gate-threshold", "0"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["corrected"] == text and "gated by" in done.stderr


def test_a_folder_that_is_no_checker_is_refused_with_what_it_holds(tmp_path: Path) -> None:
    from favakit.errors import UsageError
    from favakit.inference.checker import Checker, unpack_checker

    with pytest.raises(UsageError, match="no such folder"):
        Checker(tmp_path / "nowhere")
    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    with pytest.raises(UsageError, match="not finished"):
        Checker(run)
    (run / "model").mkdir()
    (run / "model" / "checker.json").write_text("{}")
    with pytest.raises(UsageError, match=f"whose checker is {run / 'model'}"):
        unpack_checker(run, tmp_path / "out")


def test_the_dev_split_measures_by_source_then_pooled_and_says_when_it_cannot() -> None:
    from favakit.training.checker import choose_threshold, dev_measure, dev_problem
    from favakit.training.pairs import Pair

    def pairs(source: str, labels: list[bool]) -> list[Pair]:
        return [Pair(f"{source}{i}", source, f"claim {i}", ["e"], y) for i, y in enumerate(labels)]

    # sources with both labels are averaged; a source with one label is left out, as before
    mixed = pairs("fever", [True, False]) + pairs("fm2", [True, True])
    assert dev_measure(mixed, [0.9, 0.1, 0.1, 0.1], 0.5) == 1.0
    # ... but one unsupported row moves that figure by half: said
    few = dev_problem(mixed) or ""
    assert "4 rows, 1 of them not supported" in few and "by 0.50" in few, few
    enough = pairs("fever", [True, False] * 20) + pairs("fm2", [True, True])
    assert dev_problem(enough) is None
    assert "39 rows, 19 of them supported" in (dev_problem(enough[1:-2]) or "")
    # a user's supported and unsupported rows in two files, each file its own source: pooled
    two_files = pairs("sup", [True, True]) + pairs("ref", [False, False])
    assert choose_threshold(two_files, [0.9, 0.8, 0.6, 0.6]) == (0.6, 1.0)
    assert "pooled" in (dev_problem(two_files) or "")
    # one label, or no rows: nothing to compare checkpoints by
    for dev in (pairs("sup", [True, True]), []):
        threshold, measure = choose_threshold(dev, [0.7] * len(dev))
        assert threshold == 0.5 and math.isnan(measure)
        assert "keeps its last step" in (dev_problem(dev) or "")


@pytest.mark.slow
def test_a_validation_file_of_one_label_keeps_the_last_step_and_says_so(
    tiny_encoder: Path, tmp_path: Path
) -> None:
    """`data.validation_file` is the development split; one that cannot compare checkpoints
    (one label) keeps the last step and the threshold 0.5, with a warning and a note."""
    rows = _rows(120, 4)
    data = tmp_path / "train" / "pairs.jsonl"
    data.parent.mkdir()
    data.write_text("".join(json.dumps(r) + "\n" for r in rows[:100]), encoding="utf-8")
    dev_rows = [r for r in rows[100:] if r["label"] == "supported"]
    dev = tmp_path / "train" / "dev.jsonl"
    dev.write_text("".join(json.dumps(r) + "\n" for r in dev_rows), encoding="utf-8")
    run = subprocess.run(
        _command(tiny_encoder, data, tmp_path / "run", f"data.validation_file={dev}",
                 "max_steps=12", "eval_every=4", "lr=0.001"),
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert "keeps its last step" in run.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["best_step"] == 12 and summary["dev_mean_balanced_accuracy"] is None
    meta = json.loads((tmp_path / "run" / "model" / "checker.json").read_text())
    assert meta["threshold"] == 0.5 and meta["dev"]["rows"] == len(dev_rows)
    assert "keeps its last step" in meta["dev"]["note"]


@pytest.mark.slow
def test_a_time_limit_ends_training_with_a_saved_model_and_resume_goes_on(
    tiny_encoder: Path, tmp_path: Path
) -> None:
    """`notes.time_limit_s` stops at the deadline, then evaluates and saves as a finished run,
    keeping a checkpoint: the folder is refused without --resume, and --resume (the deadline
    lifted) trains on to the planned steps and then drops the checkpoint."""
    data = tmp_path / "train" / "pairs.jsonl"
    data.parent.mkdir()
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows(120, 2)), encoding="utf-8")
    common = _command(tiny_encoder, data, tmp_path / "run", "max_steps=6", "eval_every=0",
                      "data.validation_fraction=0.2")  # fmt: skip
    run = subprocess.run([*common, "notes.time_limit_s=0.001"],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert "time_limit_s" in run.stderr and "--resume" in run.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert (summary["steps"], summary["planned_steps"]) == (1, 6)
    assert json.loads((tmp_path / "run" / "model" / "checker.json").read_text())["threshold"] > 0
    assert (tmp_path / "run" / "checkpoint" / "state.pt").exists()

    again = subprocess.run(common, capture_output=True, text=True, timeout=600)
    assert again.returncode == 2 and "pass --resume" in again.stderr, again.stderr[-2000:]
    resumed = subprocess.run([*common, "--resume"], capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert (summary["resumed_at"], summary["steps"]) == (1, 6)
    assert not (tmp_path / "run" / "checkpoint").exists()


@pytest.mark.slow
def test_a_teacher_s_scores_are_learned(tiny_encoder: Path, tmp_path: Path) -> None:
    """Distillation: with teacher_weight 1 a student learns the teacher's probabilities, not the
    human labels; here the teacher says the opposite of every label, and the student follows."""
    from favakit.inference.checker import Checker
    from favakit.training.pairs import pair_key, prepare

    data = tmp_path / "train" / "pairs.jsonl"
    data.parent.mkdir()
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows(240, 3)), encoding="utf-8")
    prepared = prepare([str(data)], 0.2, {}, 0.3, 0)
    teacher = tmp_path / "teacher.jsonl"
    teacher.write_text("".join(json.dumps({"key": pair_key(p), "score": float(not p.label)}) + "\n"
                               for p in prepared.train))  # fmt: skip
    common = _command(tiny_encoder, data, tmp_path / "run", "data.validation_fraction=0.2",
                      "lr=0.001", "eval_every=0", "max_steps=150", f"notes.teacher_scores={teacher}",
                      "notes.teacher_weight=1.0")  # fmt: skip
    done = subprocess.run(common, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    checker = Checker(tmp_path / "run" / "model", device="cpu")
    dev = prepared.dev
    scores = [s for s, _ in checker.score([p.text for p in dev], [p.evidence for p in dev])]
    on_supported = [s for p, s in zip(dev, scores, strict=True) if p.label]
    on_unsupported = [s for p, s in zip(dev, scores, strict=True) if not p.label]
    assert sum(on_supported) / len(on_supported) < sum(on_unsupported) / len(on_unsupported)
    empty = tmp_path / "none.jsonl"
    empty.write_text(json.dumps({"key": "nothing", "score": 0.5}) + "\n")
    refused = subprocess.run(
        _command(tiny_encoder, data, tmp_path / "run2", "max_steps=2", f"notes.teacher_scores={empty}"),
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert refused.returncode == 2 and "scores none of the training pairs" in refused.stderr


@pytest.mark.slow
def test_a_lora_checker_saves_an_adapter_that_loads_over_its_base(
    tiny_encoder: Path, tmp_path: Path
) -> None:
    """`method=lora`: the folder holds an adapter (no full weights) and `checker.json` names the
    base; the Checker builds base + adapter and reproduces the development figure that
    training measured at its best step."""
    from favakit.inference.checker import Checker

    data = tmp_path / "train" / "pairs.jsonl"
    data.parent.mkdir()
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows(160, 4)), encoding="utf-8")
    run = subprocess.run(
        _command(tiny_encoder, data, tmp_path / "run", "method=lora", "lora.r=4",
                 "lora.target_modules=[query,value]", "notes.base_rounding=int8", "lr=0.003",
                 "max_steps=40", "eval_every=20", "data.validation_fraction=0.2"),
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    model = tmp_path / "run" / "model"
    assert (model / "adapter_config.json").exists() and not (model / "model.safetensors").exists()
    meta = json.loads((model / "checker.json").read_text())
    assert meta["adapter"]["r"] == 4 and meta["base_rounding"] == "int8"
    assert meta["base"] == str(tiny_encoder)
    log = [json.loads(line) for line in (tmp_path / "run" / "train_log.jsonl").open()]
    at_best = [r["dev_mean_balanced_accuracy"] for r in log
               if r.get("step") == meta["best_step"] and "dev_mean_balanced_accuracy" in r]  # fmt: skip
    assert meta["dev"]["mean_balanced_accuracy"] == at_best[0]  # measured again through Checker
    checker = Checker(model, device="cpu")
    assert (
        checker.name == "favakit-checker-minilm" and 0.0 < checker.score(["x"], [["y"]])[0][0] < 1
    )


@pytest.mark.slow
def test_a_lora_checker_with_an_unknown_layer_is_refused(
    tiny_encoder: Path, tmp_path: Path
) -> None:
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows(40, 5)), encoding="utf-8")
    run = subprocess.run(
        _command(tiny_encoder, data, tmp_path / "run", "method=lora", "max_steps=2"),
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode != 0 and "lora.target_modules" in run.stderr


def test_int8_rounding_of_a_base_is_what_packing_stores(tiny_encoder: Path, tmp_path: Path) -> None:
    """`round_int8` gives, bit for bit, the weights a packed copy loads back: a base that
    travelled packed trains an adapter that fits the original base rounded alike."""
    import torch
    from safetensors.torch import load_file

    from favakit.inference.int8 import INT8_WEIGHTS, load_int8, pack_int8, round_int8

    src = tmp_path / "src"
    src.mkdir()
    for f in tiny_encoder.iterdir():
        (src / f.name).write_bytes(f.read_bytes())
    (src / "base.json").write_text("{}")
    pack_int8(src, tmp_path / "packed", "base.json", min_size=1024)
    original = load_file(str(src / "model.safetensors"))
    rounded = round_int8(original, min_size=1024)
    loaded = load_int8(tmp_path / "packed" / INT8_WEIGHTS)
    changed = [k for k in original if not torch.equal(original[k], rounded[k])]
    assert changed  # the tiny encoder has matrices of at least 1024 entries
    assert all(torch.equal(rounded[k], loaded[k]) for k in original)


def test_the_mpnet_checker_preset_is_the_recipe_of_the_shipped_adapter() -> None:
    from favakit.training.config import load_train_config

    cfg = load_train_config("mpnet_checker")
    assert (cfg.task, cfg.model, cfg.method) == ("checker", "mpnet", "lora")
    shipped = Path(__file__).parents[2] / "inference" / "mpnet_checker"
    adapter = json.loads((shipped / "adapter_config.json").read_text())
    assert (adapter["r"], adapter["lora_alpha"]) == (cfg.lora.r, cfg.lora.alpha)
    assert set(adapter["target_modules"]) == set(cfg.lora.target_modules)
    meta = json.loads((shipped / "checker.json").read_text())
    assert meta["adapter"]["r"] == cfg.lora.r and meta["max_length"] == cfg.data.max_length


def test_the_gate_marks_words_from_what_its_verdict_passes_read(trained_checker: Path) -> None:
    """A gate's checker keeps the token head's scores of each verdict pass; marking the same
    sentence against the same pieces then runs the model only on pairs no pass has read, with
    the scores a fresh pass gives."""
    from favakit.inference.checker import Checker

    gate = Checker(trained_checker, device="cpu", role="gate", reading="pieces", precision="fp32")
    fresh = Checker(trained_checker, device="cpu", reading="pieces", precision="fp32")
    text = "curie is a planet of the sun ."
    long = ["saturn is a planet of the sun ."] + ["etna is a planet of the sun ."] * 60
    passes = gate.marking_passes(text, long)
    assert len(passes) > 1
    fresh.score([text], [long])  # a verdict's passes keep nothing
    assert gate.keeps_marks and not fresh.keeps_marks and len(fresh.kept_marks) == 0
    ((_, read),) = gate.score([text], [long])
    assert gate.kept_marks.kept == read == len(passes)
    pairs = [(window, piece) for _, window, piece in passes]
    kept = gate.token_scores(pairs)
    assert gate.kept_marks.hits == len(passes)  # the model never ran on these again
    want = fresh.token_scores(pairs)
    for got, expected in zip(kept, want, strict=True):
        assert got.keys() == expected.keys()
        assert got == pytest.approx(expected, abs=1e-5)
    # a pair no verdict pass read runs the model, and is kept for the next time
    other = [("etna is a planet of the sun .", long[0])]
    (new,) = gate.token_scores(other)
    assert new == pytest.approx(fresh.token_scores(other)[0], abs=1e-5)
    assert gate.kept_marks.hits == len(passes) and gate.kept_marks.kept == len(passes) + 1
    gate.token_scores(other)
    assert gate.kept_marks.hits == len(passes) + 1


@pytest.mark.slow
def test_no_training_pairs_left_is_refused_not_looped_on(
    tiny_encoder: Path, tmp_path: Path
) -> None:
    """Rows that all fall in the development split (every claim also in data.validation_file;
    or rows that a split put on the development side before) leave no pair to train on: the
    run stops with why, before any model is built. It used to loop forever, making no batch
    (hence the timeout: a run that hangs fails here)."""
    from favakit.training.pairs import in_dev_split, normalize

    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _rows(40, 6)), encoding="utf-8")
    both = subprocess.run(
        _command(tiny_encoder, data, tmp_path / "a", f"data.validation_file={data}", "max_steps=2"),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert both.returncode == 2
    assert both.stderr.strip().splitlines()[-1].startswith(
        "favakit train: error: no training pairs: the 40 row(s) read share their claims with "
        "data.validation_file; give more rows, or the development rows apart in"
    )  # fmt: skip
    held = [r for r in _rows(400, 7) if in_dev_split(normalize(str(r["text"])), 0.05, 0)]
    assert held  # some of them fall on the development side of the default split
    dev_only = tmp_path / "dev_only.jsonl"
    dev_only.write_text("".join(json.dumps(r) + "\n" for r in held), encoding="utf-8")
    run = subprocess.run(_command(tiny_encoder, dev_only, tmp_path / "b", "max_steps=2"),
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 2
    assert (
        f"no training pairs: the {len(held)} row(s) read fell in the development split "
        "(data.validation_fraction=0.05, chosen by a hash of each claim"
    ) in run.stderr
    assert not (tmp_path / "b" / "model").exists()
