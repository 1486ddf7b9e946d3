"""What a laptop user of `favakit train` meets: settings checked before anything is written,
a line per step with tokens/s and ETA, the base model recorded by a name that lasts, and a loss
computed only where there are labels (the same loss as the model's own)."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from favakit.errors import UsageError
from favakit.training.config import load_train_config, validate_config
from favakit.training.data import collate, encode_rows, load_rows
from favakit.training.recipe import _loss, _record_base, train


def _favakit_train(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "favakit", "train", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    "override, message",
    [
        ("max_steps=-3", "max_steps=-3"),
        ("lr=0", "lr=0"),
        ("batch_size=0", "batch_size=0"),
        ("warmup_ratio=1.5", "warmup_ratio"),
        ("lora.r=0", "lora.r=0"),
        ("data.max_length=4", "data.max_length"),
        ("epochs=-1", "epochs"),
        ("data.pad_multiple=-64", "data.pad_multiple"),
    ],
)
def test_nonsense_settings_are_rejected(override: str, message: str) -> None:
    cfg = load_train_config("smollm2_135m_lora", [override])
    with pytest.raises(UsageError, match=message):
        validate_config(cfg)


@pytest.mark.parametrize(
    "preset, overrides, said",
    [
        ("minilm_checker", ["grad_accum=4"], r"^grad_accum=4: task=checker does not read this"),
        ("minilm_detector", ["eval_every=5", "data.pad_multiple=8"],
         r"^eval_every=5, data.pad_multiple=8: task=detector does not read these settings"),
        ("smollm2_135m_lora", ["data.source_weights={snli: 2}"],
         r"^data.source_weights=\{'snli': 2.*task=editor"),
    ],
)  # fmt: skip
def test_a_setting_the_task_never_reads_is_refused_not_ignored(
    preset: str, overrides: list[str], said: str
) -> None:
    with pytest.raises(UsageError, match=said):
        validate_config(load_train_config(preset, overrides))
    validate_config(load_train_config(preset))  # the preset alone is accepted


def test_each_unread_setting_exists_and_the_dry_run_refuses_too(tmp_path: Path) -> None:
    from favakit.training.config import UNREAD_BY_TASK, TrainConfig, _unread_settings

    for task, keys in UNREAD_BY_TASK.items():
        cfg = TrainConfig(task=task)  # type: ignore[arg-type]
        assert _unread_settings(cfg) == []
        for key in keys:  # a typo here would make the guard check nothing
            *parents, name = key.split(".")
            holder = cfg
            for part in parents:
                holder = getattr(holder, part)
            assert hasattr(holder, name), key
    dry = _favakit_train("--config", "minilm_checker", "grad_accum=2", "--dry-run")
    assert dry.returncode == 2 and "task=checker does not read" in dry.stderr


@pytest.mark.slow
def test_cli_rejects_before_writing_anything(
    tiny_llama: Path, rows_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    common = ["--config", "tiny_cpu", f"model={tiny_llama}", f"output_dir={out}"]
    bad = _favakit_train(*common, f"data.train_file={rows_file}", "max_steps=-3")
    assert bad.returncode == 2 and "max_steps=-3" in bad.stderr
    missing = _favakit_train(*common, f"data.train_file={tmp_path / 'nope.jsonl'}")
    assert missing.returncode == 2 and "nope.jsonl" in missing.stderr
    assert not out.exists()  # no config.yaml left behind


@pytest.mark.slow
def test_every_step_is_logged_with_speed_and_eta(
    tiny_llama: Path, rows_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    run = _favakit_train(
        "--config",
        "tiny_cpu",
        f"model={tiny_llama}",
        f"data.train_file={rows_file}",
        f"output_dir={out}",
        "max_steps=3",
        "log_every=1",
        "eval_every=0",
    )
    assert run.returncode == 0, run.stderr
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2, 3]
    assert all(r["tokens_per_s"] > 0 and r["eta_s"] >= 0 for r in log)
    assert all(r["rss_mb"] > 50 for r in log)  # the process's memory, step by step (CPU)
    assert log[-1]["eta_s"] == 0
    lines = [line for line in run.stderr.splitlines() if " step " in line]
    assert len(lines) == 3 and all("tokens/s" in x and "ETA" in x for x in lines)


def test_adapter_records_its_base_by_a_lasting_name(tiny_adapter: Path, tmp_path: Path) -> None:
    recorded = json.loads((tiny_adapter / "adapter_config.json").read_text())
    base = recorded["base_model_name_or_path"]
    assert Path(base).is_absolute() and (Path(base) / "config.json").exists()
    folder = tmp_path / "adapter"
    folder.mkdir()
    (folder / "adapter_config.json").write_text(
        json.dumps({"base_model_name_or_path": "/root/.cache/favakit/gguf/SmolLM2-x"})
    )
    _record_base(folder, "smollm2")  # a preset: found again after the cache is cleared
    assert json.loads((folder / "adapter_config.json").read_text())["base_model_name_or_path"] == (
        "smollm2"
    )


def test_loss_on_labelled_positions_only_equals_the_models_loss(
    tiny_llama: Path, rows_file: Path
) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_llama)
    model = AutoModelForCausalLM.from_pretrained(tiny_llama).eval()
    examples = encode_rows(tok, load_rows(str(rows_file))[:5], 512).examples
    # rows of other lengths, so padding and the label positions differ across the batch
    short = (examples[1][0][:-3], examples[1][1][:-3])
    batch = collate([examples[0], short, examples[2]], int(tok.pad_token_id))
    batch["labels"][1, :5] = -100
    with torch.no_grad():
        own = model(**batch).loss
        selected = _loss(model, batch, select=True)
        full = _loss(model, batch, select=False)
    torch.testing.assert_close(selected, own, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(full, own, atol=1e-5, rtol=1e-5)
    # bucketed: the batch is padded to a multiple of 64 and the kept logits rounded up likewise
    wide = collate([examples[0], short, examples[2]], int(tok.pad_token_id), multiple=64)
    wide["labels"][1, :5] = -100
    assert wide["input_ids"].shape[1] % 64 == 0
    assert wide["input_ids"].shape[1] >= batch["input_ids"].shape[1]
    with torch.no_grad():
        bucketed = _loss(model, wide, select=True, multiple=64)
    torch.testing.assert_close(bucketed, own, atol=1e-5, rtol=1e-5)


def test_a_checkpoint_exports_as_a_loadable_adapter(
    tiny_llama: Path, rows_file: Path, tmp_path: Path
) -> None:
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from favakit.training.recipe import export_checkpoint

    cfg = load_train_config(
        "tiny_cpu",
        [f"model={tiny_llama}", f"data.train_file={rows_file}", f"output_dir={tmp_path / 'run'}"],
    )

    def stop(step: int, loss: float) -> None:
        if step == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(cfg, on_step=stop)
    out = export_checkpoint(str(tmp_path / "run"), str(tmp_path / "export"))
    saved = torch.load(tmp_path / "run" / "checkpoint" / "trainable.pt", weights_only=True)
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_llama), out)
    params = dict(model.named_parameters())
    assert saved and all(torch.equal(params[k], v) for k, v in saved.items())
    assert "step 4" in (Path(out) / "README.md").read_text()


@pytest.mark.parametrize(
    ("finished", "checkpointed", "resume", "refused"),
    [
        (True, False, False, r"holds a finished run; give another --out \(output_dir\)$"),
        (True, False, True, r"finished run.*--resume would start again at step 0"),
        (False, True, False, "holds a checkpoint; pass --resume"),
        (True, True, False, "holds a checkpoint; pass --resume"),  # a checker's time limit
    ],
)
def test_a_run_folder_that_would_be_overwritten_is_refused(
    finished: bool, checkpointed: bool, resume: bool, refused: str, tmp_path: Path
) -> None:
    from favakit.training.runtime import check_run_folder

    with pytest.raises(UsageError, match=refused):
        check_run_folder(tmp_path, finished, checkpointed, resume)


def test_resume_with_no_checkpoint_starts_over_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from favakit.training.runtime import check_run_folder

    check_run_folder(tmp_path, finished=True, checkpointed=True, resume=True)  # killed at the end
    check_run_folder(tmp_path, finished=False, checkpointed=True, resume=True)
    check_run_folder(tmp_path, finished=False, checkpointed=False, resume=False)
    assert not caplog.records
    check_run_folder(tmp_path, finished=False, checkpointed=False, resume=True)
    assert [r.getMessage() for r in caplog.records] == [
        f"{tmp_path} holds no checkpoint to resume: starting at step 0"
    ]


def test_a_folder_of_other_files_is_no_run_folder(tmp_path: Path) -> None:
    """A synthesis run given as output_dir had the training run's files written among its own."""
    from favakit.training.runtime import check_run_folder

    for name in ("train.jsonl", "validation.jsonl", "config.json", "stats.json", "hf"):
        (tmp_path / name).write_text("{}")
    with pytest.raises(UsageError, match=r"holds other files \(config.json, hf, stats.json, "
                                         r"train.jsonl and 1 more\) and no run of favakit train"):  # fmt: skip
        check_run_folder(tmp_path, finished=False, checkpointed=False, resume=False)
    (tmp_path / "config.yaml").write_text("{}")  # a run killed before its first checkpoint
    check_run_folder(tmp_path, finished=False, checkpointed=False, resume=False)


def test_length_batches_hold_every_row_once_in_batches_of_like_length() -> None:
    from favakit.training.runtime import length_batches

    lengths = [(i * 37) % 301 for i in range(1000)]  # 0..300, scattered
    batches = length_batches(lengths, 8, seed=3)
    assert sorted(i for b in batches for i in b) == list(range(1000))
    assert all(len(b) == 8 for b in batches)
    padding = sum(max(lengths[i] for i in b) * len(b) - sum(lengths[i] for i in b)
                  for b in batches)  # fmt: skip
    chance = sum(max(lengths[i] for i in range(s, s + 8)) * 8 - sum(lengths[s : s + 8])
                 for s in range(0, 1000, 8))  # fmt: skip
    assert padding < chance / 10
    assert length_batches(lengths, 8, seed=3) == batches  # the seed decides
    again = length_batches(lengths, 8, seed=4)  # another epoch: another mix and order
    assert again != batches and {tuple(b) for b in again} != {tuple(b) for b in batches}
    assert sorted(map(len, length_batches(lengths[:13], 8, seed=0))) == [5, 8]


def test_epoch_batches_by_length_or_at_random() -> None:
    import random

    from favakit.training.runtime import epoch_batches, length_batches

    lengths = [(i * 37) % 301 for i in range(1000)]
    assert epoch_batches(lengths, 8, 3, 2, by_length=True) == length_batches(lengths, 8, 5)
    drawn = epoch_batches(lengths, 8, 3, 2, by_length=False)
    order = list(range(1000))
    random.Random("order:3:2").shuffle(order)  # the detector's draw before length buckets
    assert [i for b in drawn for i in b] == order and all(len(b) == 8 for b in drawn)
    assert epoch_batches(lengths, 8, 3, 3, by_length=False) != drawn  # a new mix each epoch
    assert sorted(map(len, epoch_batches(lengths[:13], 8, 0, 0, by_length=False))) == [5, 8]


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="a glibc setting")
def test_cpu_training_tells_glibc_to_return_freed_blocks() -> None:
    from favakit.training.runtime import return_freed_memory

    assert return_freed_memory() is True


def test_labelled_claims_given_to_the_editor_point_to_the_checker(tmp_path: Path) -> None:
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"text": "a", "evidence": ["b"], "label": "supported"}) + "\n")
    with pytest.raises(UsageError, match=r"claims.jsonl:1: .*--config minilm_checker"):
        load_rows(str(claims))
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"input": "a", "output": "b"}) + "\n")
    with pytest.raises(UsageError, match=r"'completion'$"):  # no hint where it would mislead
        load_rows(str(other))


def test_a_row_with_an_empty_completion_is_refused(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        json.dumps({"prompt": "p", "completion": "a tagged text"}) + "\n"
        + json.dumps({"prompt": "p", "completion": " \n"}) + "\n"
    )  # fmt: skip
    with pytest.raises(UsageError, match=r"rows.jsonl:2: 'completion' is empty"):
        load_rows(str(rows))


def test_a_validation_file_of_training_rows_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    """The training file given again as data.validation_file trained and reported a validation
    loss on the very rows it trained on."""
    from favakit.training.data import check_held_out

    rows = [{"prompt": f"p{i}", "completion": f"c{i}"} for i in range(4)]
    with pytest.raises(UsageError, match=r"its 2 row\(s\) are all training rows"):
        check_held_out(rows, rows[:2])
    check_held_out(rows, [rows[0], {"prompt": "new", "completion": "c"}])
    assert "1 of its 2 rows are training rows too" in caplog.text
    check_held_out(rows, [])  # no validation file


def test_a_checker_s_log_says_its_rate_and_its_development_figure(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A checker's run logged its development split as a second "step N loss X" line (the last
    batch's loss, another number than the step's mean just above it) and never said the figure
    it chooses its checkpoint by; its examples/s went unsaid."""
    import logging

    from favakit.training.runtime import log_record

    path = tmp_path / "train_log.jsonl"
    with caplog.at_level(logging.INFO, logger="favakit.training.recipe"):
        log_record(path, None, {"step": 3, "loss": 0.9476, "examples_per_s": 35.2, "eta_s": 75})
        log_record(path, None, {"step": 3, "dev_mean_balanced_accuracy": 0.7512,
                                "threshold": 0.42, "loss": 0.8632})  # fmt: skip
        log_record(path, None, {"step": 6, "dev_mean_balanced_accuracy": None,
                                "threshold": 0.5, "loss": 0.5})  # fmt: skip
    assert caplog.messages == [
        "step 3 loss 0.9476 | 35.2 examples/s | ETA 0h01m15s",
        "step 3 development split: mean balanced accuracy 0.7512 at threshold 0.42",
        "step 6 development split: cannot be measured (one label)",
    ]
    assert [json.loads(line)["step"] for line in path.read_text().splitlines()] == [3, 3, 6]
