"""favakit train --config tiny_cpu end to end on a tiny random Llama (real peft, real torch)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

from favakit.errors import UsageError
from favakit.inference.models import merge_adapter
from favakit.training.cli import configure
from favakit.training.config import load_train_config, presets
from favakit.training.data import IGNORE, encode_rows
from favakit.training.recipe import train


def _cfg(tiny_llama: Path, rows_file: Path, out: Path, *extra: str):  # type: ignore[no-untyped-def]
    return load_train_config(
        "tiny_cpu",
        [f"model={tiny_llama}", f"data.train_file={rows_file}", f"output_dir={out}", *extra],
    )


def test_presets_all_load() -> None:
    assert {
        "tiny_cpu",
        "smollm2_135m_lora",
        "fava_llama2_7b_full",
        "llama3_8b_lora",
        "llama3_8b_qlora",
    } <= set(presets())
    parser = argparse.ArgumentParser()
    configure(parser)  # `favakit train --help` names every preset
    (config,) = [a for a in parser._actions if a.dest == "config"]
    assert config.help == f"a preset ({', '.join(presets())}) or a YAML file"
    fava = load_train_config("fava_llama2_7b_full")
    assert (fava.lr, fava.epochs, fava.warmup_ratio, fava.data.max_length) == (
        2e-5,
        2.0,
        0.03,
        2048,
    )
    assert fava.batch_size * fava.grad_accum * 4 == 128


def test_prompt_is_masked_by_position(tiny_llama: Path, rows_file: Path) -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_llama)
    row = json.loads(rows_file.read_text().splitlines()[0])
    ((ids, labels),) = encode_rows(tok, [row], 512).examples
    first = next(i for i, x in enumerate(labels) if x != IGNORE)
    assert all(x == IGNORE for x in labels[:first]) and all(x != IGNORE for x in labels[first:])
    assert labels[-1] == tok.eos_token_id and ids[-1] == tok.eos_token_id
    prompt_only = tok(row["prompt"], add_special_tokens=True)["input_ids"]
    assert first == len(prompt_only)  # this tokenizer splits at the boundary: no token straddles it


def test_tiny_cpu_lora(tiny_llama: Path, rows_file: Path, tmp_path: Path) -> None:
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    summary = train(_cfg(tiny_llama, rows_file, tmp_path / "run"))
    assert summary["last_loss"] < summary["first_loss"]  # loss goes down
    assert (
        summary["final_val_loss"] < summary["first_val_loss"] or summary["first_val_loss"] is None
    )
    adapter = Path(summary["output"])
    assert (adapter / "adapter_config.json").exists() and (adapter / "README.md").exists()
    assert "favakit editor" in (adapter / "README.md").read_text()
    assert (tmp_path / "run" / "config.yaml").exists() and (
        tmp_path / "run" / "train_log.jsonl"
    ).exists()

    base = AutoModelForCausalLM.from_pretrained(tiny_llama)
    base_state = {k: v.clone() for k, v in base.state_dict().items()}
    reloaded = PeftModel.from_pretrained(
        AutoModelForCausalLM.from_pretrained(tiny_llama), adapter
    ).eval()
    # only LoRA weights changed: the base weights under the adapter are bit-identical
    for name, value in reloaded.state_dict().items():
        if "lora_" in name:
            continue
        key = name.replace("base_model.model.", "", 1).replace(".base_layer", "")
        assert torch.equal(value, base_state[key]), name
    ids = torch.tensor([[2, 5, 9, 14, 22, 7]])
    with torch.no_grad():
        adapted = reloaded(ids).logits
        plain = base.eval()(ids).logits
    assert not torch.allclose(adapted, plain)  # the adapter does something
    merged_dir = merge_adapter(str(adapter), str(tmp_path / "merged"))
    merged = AutoModelForCausalLM.from_pretrained(merged_dir).eval()
    assert (Path(merged_dir) / "model.safetensors").exists()
    with torch.no_grad():
        torch.testing.assert_close(merged(ids).logits, adapted, atol=1e-4, rtol=1e-4)


def test_training_can_start_from_a_saved_adapter(
    tiny_llama: Path, rows_file: Path, tmp_path: Path
) -> None:
    """init_adapter continues an adapter (the shipped editor's, on new data): one step at a
    vanishing learning rate leaves the first run's weights as they were, where a fresh adapter
    starts from zero; a folder without an adapter is refused."""
    from safetensors.torch import load_file

    first = train(_cfg(tiny_llama, rows_file, tmp_path / "first"))
    still = ["max_steps=1", "lr=1e-12"]
    again = train(_cfg(tiny_llama, rows_file, tmp_path / "again", *still,
                       f"init_adapter={first['output']}"))  # fmt: skip
    fresh = train(_cfg(tiny_llama, rows_file, tmp_path / "fresh", *still))
    a, b, c = (load_file(Path(s["output"]) / "adapter_model.safetensors")
               for s in (first, again, fresh))  # fmt: skip
    assert a.keys() == b.keys() == c.keys()
    lora_b = [k for k in a if "lora_B" in k]
    assert lora_b and all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)
    assert all(c[k].abs().max() < 1e-6 < a[k].abs().max() for k in lora_b)  # fresh: B is zero
    with pytest.raises(UsageError, match="not an adapter folder"):
        train(_cfg(tiny_llama, rows_file, tmp_path / "bad", f"init_adapter={tmp_path}"))
    with pytest.raises(UsageError, match="needs task=editor with method=lora"):
        train(_cfg(tiny_llama, rows_file, tmp_path / "full", "method=full",
                   f"init_adapter={first['output']}"))  # fmt: skip


def _interrupted(model: Path, rows: Path, out: Path) -> Any:
    """The config of a run stopped at step 6 (its last checkpoint: step 4)."""

    def stop(step: int, loss: float) -> None:
        if step == 6:
            raise KeyboardInterrupt

    cfg = _cfg(model, rows, out)
    with pytest.raises(KeyboardInterrupt):
        train(cfg, on_step=stop)
    return cfg


def test_resume_after_interrupt_gives_the_same_adapter(
    tiny_llama: Path, rows_file: Path, tmp_path: Path
) -> None:
    from safetensors.torch import load_file

    clean = train(_cfg(tiny_llama, rows_file, tmp_path / "clean"))
    cfg = _interrupted(tiny_llama, rows_file, tmp_path / "cut")
    assert (tmp_path / "cut" / "checkpoint" / "state.json").exists()  # saved at step 4
    resumed = train(cfg, resume=True)
    a = load_file(Path(clean["output"]) / "adapter_model.safetensors")
    b = load_file(Path(resumed["output"]) / "adapter_model.safetensors")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    # finished, the run keeps no checkpoint: --resume again would start over and replace it
    with pytest.raises(UsageError, match=r"finished run.*start again at step 0"):
        train(cfg, resume=True)
    c = load_file(Path(resumed["output"]) / "adapter_model.safetensors")
    assert all(torch.equal(b[k], c[k]) for k in b)


class _Planted:
    """Unpickling this opens (creates) a file: what a tampered checkpoint could run."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def test_resume_never_runs_code_from_a_checkpoint(
    tiny_llama: Path, rows_file: Path, tmp_path: Path
) -> None:
    """Resuming loads optimizer, scheduler and RNG states with weights_only=True: a checkpoint
    file that carries code is refused, and the code does not run."""
    cfg = _interrupted(tiny_llama, rows_file, tmp_path / "cut")
    ckpt = tmp_path / "cut" / "checkpoint"
    for name, key in (("optim.pt", "optimizer"), ("rng.pt", "scheduler")):
        marker = tmp_path / f"ran-{name}"
        state = torch.load(ckpt / name, weights_only=True)
        torch.save({**state, key: _Planted(marker)}, ckpt / name)
        with pytest.raises(Exception, match=r"[Ww]eights only load failed|Unsupported"):
            train(cfg, resume=True)
        assert not marker.exists()
        torch.save(state, ckpt / name)


@pytest.mark.slow
def test_cli_dry_run_and_errors(tiny_llama: Path, rows_file: Path, tmp_path: Path) -> None:
    def favakit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "favakit", "train", *args],
            capture_output=True,
            text=True,
            timeout=600,
        )

    dry = favakit("--config", "tiny_cpu", "--dry-run", "lora.r=2")
    assert dry.returncode == 0 and "r: 2" in dry.stdout
    bad = favakit("--config", "tiny_cpu", "lora.rr=2")
    assert bad.returncode == 2 and "did you mean 'r'" in bad.stderr
    qlora = favakit(
        "--config",
        "tiny_cpu",
        "method=qlora",
        f"model={tiny_llama}",
        f"data.train_file={rows_file}",
        f"output_dir={tmp_path / 'q'}",
    )
    assert qlora.returncode == 2 and "needs a CUDA GPU" in qlora.stderr
    run = favakit(
        "--config",
        "tiny_cpu",
        f"model={tiny_llama}",
        f"data.train_file={rows_file}",
        f"output_dir={tmp_path / 'cli'}",
        "max_steps=3",
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["steps"] == 3


@pytest.mark.slow
def test_ddp_two_processes_equal_one_process_with_accumulation(
    tiny_llama: Path, rows_file: Path, tmp_path: Path, free_port: Any
) -> None:
    """Data parallel through accelerate (torchrun, 2 CPU processes, gloo): each process takes its
    own micro-batch of a step, so the adapter matches one process accumulating both."""
    from safetensors.torch import load_file

    common = [
        f"model={tiny_llama}",
        f"data.train_file={rows_file}",
        "max_steps=4",
        "batch_size=2",
        "save_every=0",
        "eval_every=0",
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MASTER_ADDR": "127.0.0.1"}
    ddp = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
         "--master_port", str(free_port()), "-m", "favakit", "train", "--config", "tiny_cpu",
         *common, f"output_dir={tmp_path / 'ddp'}", "grad_accum=1"],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert ddp.returncode == 0, ddp.stderr[-2000:]
    summary = json.loads((tmp_path / "ddp" / "summary.json").read_text())
    assert summary["processes"] == 2 and summary["steps"] == 4
    single = train(_cfg(tiny_llama, rows_file, tmp_path / "one", *common, "grad_accum=2"))
    a = load_file(tmp_path / "ddp" / "adapter" / "adapter_model.safetensors")
    b = load_file(Path(single["output"]) / "adapter_model.safetensors")
    assert a.keys() == b.keys()
    for key in a:
        torch.testing.assert_close(a[key], b[key], atol=1e-5, rtol=1e-4)


@pytest.mark.slow
def test_periodic_detection_quality_is_logged(
    tiny_llama: Path, rows_file: Path, tmp_path: Path
) -> None:
    cfg = _cfg(tiny_llama, rows_file, tmp_path / "q", "max_steps=4", "eval_every=2",
               "eval_generate=2", "save_every=0")  # fmt: skip
    train(cfg)
    logged = [json.loads(x) for x in (tmp_path / "q" / "train_log.jsonl").read_text().splitlines()]
    scored = [r for r in logged if "val_macro_f1" in r]
    assert [r["step"] for r in scored] == [2, 4]
    for r in scored:
        assert 0.0 <= r["val_macro_f1"] <= 1.0 and 0.0 <= r["val_binary_f1"] <= 1.0
        assert 0.0 <= r["val_exact_match"] <= 1.0


def test_the_time_left_follows_recent_steps_and_cut_examples_are_announced(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import collections
    import logging

    from favakit.training.data import EncodedSet
    from favakit.training.recipe import step_seconds, warn_if_cut

    recent: collections.deque[float] = collections.deque(maxlen=10)
    recent.extend([30.0, 2.0, 2.0])  # the first step paid for start-up
    assert step_seconds(recent) == 2.0
    recent.extend([8.0] * 10)  # the machine slowed: the estimate follows
    assert step_seconds(recent) == 8.0
    with caplog.at_level(logging.WARNING):
        warn_if_cut(EncodedSet(truncated=6, dropped=2), EncodedSet(), rows=10, max_length=64)
        warn_if_cut(EncodedSet(), EncodedSet(), rows=10, max_length=64)
    (record,) = caplog.records
    assert "8 of 10 examples are longer than data.max_length=64" in record.getMessage()
    assert "raise data.max_length" in record.getMessage()


def test_too_few_examples_for_one_optimizer_step_are_refused_not_looped_on(
    tiny_llama: Path, rows_file: Path, tmp_path: Path
) -> None:
    """Three examples in batches of 2 make 2 micro-batches, and one step of grad_accum=4 takes
    4: no step could ever be taken (the loop ran forever). Refused with the numbers and a
    setting that works; that setting then trains."""
    from favakit.errors import UsageError

    few = tmp_path / "few.jsonl"
    few.write_text("".join(rows_file.read_text().splitlines(keepends=True)[:3]))
    settings = ["batch_size=2", "max_steps=2", "data.validation_fraction=0"]
    with pytest.raises(UsageError, match=r"^3 training example\(s\) make 2 batch\(es\) of "
                       r"batch_size=2, and one optimizer step takes 4 \(grad_accum=4 on 1 "
                       r"process\(es\)\): give more rows, or set grad_accum=2$"):  # fmt: skip
        train(_cfg(tiny_llama, few, tmp_path / "run", *settings, "grad_accum=4"))
    done = train(_cfg(tiny_llama, few, tmp_path / "run2", *settings, "grad_accum=2"))
    assert done["steps"] == 2


def test_a_run_with_nothing_held_out_reports_no_validation_loss_and_says_why(
    tiny_llama: Path, rows_file: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """One row (validation_fraction 0.2 holds none out) wrote `"final_val_loss": NaN` into
    summary.json, which JSON readers refuse, and said nothing of the missing validation."""
    one = tmp_path / "one.jsonl"
    one.write_text(rows_file.read_text().splitlines(keepends=True)[0])
    with caplog.at_level("WARNING", logger="favakit"):
        done = train(_cfg(tiny_llama, one, tmp_path / "run", "batch_size=1", "max_steps=2",
                          "grad_accum=1", "eval_every=1"))  # fmt: skip
    assert done["validation_examples"] == 0 and done["final_val_loss"] is None
    summary = (tmp_path / "run" / "summary.json").read_text()
    assert json.loads(summary, parse_constant=lambda c: pytest.fail(f"{c} in summary.json"))
    logged = [json.loads(line) for line in (tmp_path / "run" / "train_log.jsonl").open()]
    assert logged and not any("val_loss" in r for r in logged)
    assert "no validation examples (1 row(s) are too few to hold any out" in caplog.text
    card = (Path(done["output"]) / "README.md").read_text()
    assert "validation loss none (no validation examples)" in card
