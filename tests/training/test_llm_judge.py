"""scripts/llm_judge.py end to end on a tiny random causal LM: prompts of the checker's pairs and
development split, LoRA training on the "True"/"False" logits, scores in [0, 1], a threshold
chosen on the development split, and the cascade's band chosen under the speed bound."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "llm_judge.py"
CITIES = ["paris", "rome", "oslo", "lima", "cairo", "quito", "dakar", "hanoi"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def _row(i: int, source: str, supported: bool) -> dict[str, object]:
    city, other = CITIES[i % 8], CITIES[(i + 3) % 8]
    place = {"fever": "town", "snli": "claim"}.get(source, "town")
    return {"id": f"{source}-{i}", "source": source,
            "text": f"{place} {i} lies in {city if supported else other} .",
            "evidence": [f"{place} {i} lies in {city} .", "filler words " * 200],
            "label": "supported" if supported else "not_supported"}  # fmt: skip


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("real")
    for folder, name, n in (("train", "fever", 120), ("train", "snli", 120), ("eval", "toy", 12)):
        (root / folder).mkdir(exist_ok=True)
        rows = [_row(i, name, i % 2 == 0) for i in range(n)]
        (root / folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "train_spans").mkdir()
    spans = [{**_row(i + 200, "summedits", False), "original": f"town {i + 200} lies in {CITIES[i % 8]} ."}
             for i in range(40)]  # fmt: skip
    (root / "train_spans" / "summedits.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in spans)
    )
    return root


@pytest.fixture(scope="module")
def tiny_judge_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 2-layer Llama whose word-level vocabulary holds "true" and "false"."""
    import torch
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordLevel
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("tiny_judge")
    words = ["true", "false", "user", "assistant", ":", "town", "lies", "in", ".", "claim",
             *CITIES, *[str(i) for i in range(130)]]  # fmt: skip
    vocab = {w: i for i, w in enumerate(["<pad>", "<unk>", "<s>", "</s>", *words])}
    tok = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>",
                                   bos_token="<s>", eos_token="</s>")  # fmt: skip
    fast.chat_template = (
        "{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} {% endfor %}"
        "{% if add_generation_prompt %}assistant : {% endif %}"
    )
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=1024, pad_token_id=0, bos_token_id=2,
                         eos_token_id=3, tie_word_embeddings=True)  # fmt: skip
    LlamaForCausalLM(config).save_pretrained(folder)
    return folder


@pytest.mark.slow
def test_data_train_report_and_cascade(real: Path, tiny_judge_model: Path, tmp_path: Path) -> None:
    data, out = tmp_path / "data", tmp_path / "judge"
    run = _run("data", "--real", str(real), "--out", str(data), "--words", "40",
               "--score-sets", "toy")  # fmt: skip
    assert run.returncode == 0, run.stderr
    counts = json.loads(run.stdout)
    assert counts["score"] == 12 and counts["dev"] > 0
    stats = json.loads((data / "meta.json").read_text())["stats"]
    assert stats["read"] == 280 and stats["duplicates"] == 0 and stats["hard_negatives"] > 0
    assert counts["train"] == stats["train"] and counts["dev"] == stats["dev"]
    dev_rows = [json.loads(x) for x in (data / "dev_rows.jsonl").read_text().splitlines()]
    assert {r["source"] for r in dev_rows} <= {"fever", "snli", "summedits"}
    assert len(dev_rows) == counts["dev"]

    import gzip

    with gzip.open(data / "score.jsonl.gz", "rt") as fh:
        scored = [json.loads(x) for x in fh]
    first = scored[0]["prompt"]
    assert "Claim: town 0 lies in paris.\n" in first and "True or False" in first  # normalized
    # the evidence is cut to --words 40: the sentence sharing the claim's words first, then
    # windows of the 400-word filler (read as one long sentence) while they fit
    assert "town 0 lies in paris." in first and 0 < first.count("filler") <= 40 // 2

    run = _run("train", "--model", str(tiny_judge_model), "--data", str(data), "--out", str(out),
               "--device", "cpu", "--train-seconds", "20", "--batch-tokens", "2048",
               "--log-every", "5")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert (out / "adapter" / "adapter_model.safetensors").exists()
    meta = json.loads((out / "judge_train.json").read_text())
    assert meta["steps"] > 0 and meta["skipped_batches"] == 0
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert {s["set"] for s in scores} == {"dev", "toy"}
    assert sum(s["set"] == "toy" for s in scores) == 12
    assert all(0.0 <= s["score"] <= 1.0 for s in scores)

    run = _run("report", "--scores", str(out / "scores.jsonl"), "--out", str(tmp_path / "r.json"),
               "--mean-of", "toy")  # fmt: skip
    assert run.returncode == 0, run.stderr
    tuned = json.loads((tmp_path / "r.json").read_text())["sets"]["tuned"]
    assert 0.0 < tuned["threshold"] < 1.0 and tuned["toy"]["rows"] == 12
    assert tuned["mean_balanced_accuracy"] == tuned["toy"]["balanced_accuracy"]

    # the cascade, from the checker's verdict files (here: made-up scores, as `favakit verify
    # --output` writes them) and the judge's scores
    checker, judge, verdicts = tmp_path / "checker", tmp_path / "qj", tmp_path / "verdicts"
    for d in (checker, judge, verdicts):
        d.mkdir()
    (checker / "checker.json").write_text(json.dumps({"threshold": 0.5}))
    (judge / "judge.json").write_text(json.dumps({"threshold": tuned["threshold"],
                                                  "evidence_words": 40}))  # fmt: skip
    for name, ids in (
        ("dev_rows", [r["id"] for r in dev_rows]),
        ("toy", [f"toy-{i}" for i in range(12)]),
    ):
        (verdicts / f"{name}.jsonl").write_text("".join(
            json.dumps({"id": i, "score": (k % 10) / 10, "supported": (k % 10) / 10 > 0.5}) + "\n"
            for k, i in enumerate(ids)))  # fmt: skip
    run = _run("cascade", "--scores", str(out / "scores.jsonl"), "--checker-scores", str(verdicts),
               "--checker", str(checker), "--judge", str(judge), "--checker-seconds", "0.2",
               "--judge-seconds", "4", "--mean-of", "toy", "--out", str(tmp_path / "c.json"),
               "--write")  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads((tmp_path / "c.json").read_text())
    assert result["chosen"]["share"] <= 0.2  # 0.2 s + share * 4 s within one second
    nothing = result["shares"][0]
    assert nothing["share"] == 0 and nothing["toy"]["asked_judge"] == 0
    everything = result["shares"][-1]
    assert everything["share"] == 1.0 and everything["toy"]["asked_judge"] == 1.0
    stored = json.loads((checker / "checker.json").read_text())
    if result["chosen"]["share"]:
        assert stored["cascade"]["judge"] == "qwen" and stored["cascade"]["second_words"] == 40
        low, high = stored["cascade"]["band"]
        assert 0.0 <= low <= 0.5 <= high <= 1.0
    else:
        assert "cascade" not in stored
