"""The editor's training recipe, top to bottom: data, model, LoRA (or not), loop, save.

``train(cfg)`` reads ``{"prompt", "completion"}`` rows, tokenizes each pair once with the prompt
masked by position, loads the base model (folder, Hub id, GGUF, ``smollm2``), wraps it with LoRA
(``method="lora"``), 4-bit NF4 + LoRA (``"qlora"``, CUDA only) or trains it whole (``"full"``),
and runs a plain loop through ``accelerate.Accelerator``: AdamW, warmup then cosine or linear decay,
gradient accumulation, bf16 autocast where the device has it, optional gradient checkpointing.
Started with ``accelerate launch`` (configs in ``training/accelerate/``) the same loop runs data
parallel (DDP), sharded (FSDP) or under DeepSpeed: each process takes its own micro-batches of a
global step, and only the main process writes. Every ``eval_every`` steps it
logs the validation loss, every ``save_every`` steps it writes a checkpoint that ``resume=True``
continues from exactly (model, optimizer, schedule, data position, RNG). At the end it saves the
adapter (or the full model), the tokenizer, the resolved config and a model card.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import math
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from favakit.config import dump_config
from favakit.deps import cpu_has_bf16, cuda_available, quiet_library_warnings, require
from favakit.devices import torch_device
from favakit.errors import UsageError
from favakit.records import output_folder, replace_folder, settle_folder, share_like_open
from favakit.training import runtime
from favakit.training.config import TrainConfig, validate_config
from favakit.training.data import (
    EncodedSet,
    check_held_out,
    collate,
    encode_rows,
    load_rows,
    pack,
    split_validation,
)

__all__ = ["export_checkpoint", "train"]

log = logging.getLogger(__name__)


def _device_and_precision(cfg: TrainConfig) -> tuple[str, bool, bool]:
    """(device, bf16 autocast, frozen base weights held in bf16)."""
    import torch

    device = torch_device(cfg.device)
    if cfg.precision == "fp32":
        return device, False, False
    if device.startswith("cuda"):
        bf16 = bool(torch.cuda.is_bf16_supported())
        if cfg.precision == "bf16" and not bf16:
            raise UsageError("precision=bf16 but this GPU has no bf16; use precision=fp32")
        # Weights that train stay fp32 (AdamW on bf16 weights loses small updates); a frozen
        # base under LoRA is held in bf16, halving its memory (PEFT keeps the adapter fp32).
        return device, bf16, bf16 and cfg.method == "lora"
    # CPUs: no autocast (it was 25x slower than fp32 on a CPU without native bf16: 375 s against
    # 13-17 s for one SmolLM2 LoRA step of 2048 tokens). Where the CPU has native bf16, a LoRA
    # run holds its frozen base in bf16 and the adapter in fp32: 2.3x the tokens/s of fp32 and
    # half the memory on the project's 2-core EPYC (docs/benchmarks.md).
    base_bf16 = cfg.method == "lora" and (
        cfg.precision == "bf16" or (cfg.precision == "auto" and cpu_has_bf16())
    )
    return device, False, base_bf16


def _load_model(cfg: TrainConfig, device: str, frozen_bf16: bool) -> tuple[Any, Any]:
    import torch

    transformers = require("transformers", "train", "training")
    from favakit.inference.models import resolve_model

    path = resolve_model(cfg.model)
    quiet_library_warnings()
    kwargs: dict[str, Any] = {"dtype": torch.bfloat16 if frozen_bf16 else torch.float32}
    if cfg.method == "qlora":
        if not torch.cuda.is_available():
            raise UsageError(
                "method=qlora needs a CUDA GPU (bitsandbytes 4-bit kernels); on this machine use "
                "method=lora, which trains the same adapter in bf16/fp32"
            )
        require("bitsandbytes", "gpu", "QLoRA")
        kwargs = {
            "quantization_config": transformers.BitsAndBytesConfig(
                load_in_4bit=True,
                bnb_4bit_quant_type="nf4",
                bnb_4bit_use_double_quant=True,
                bnb_4bit_compute_dtype=torch.bfloat16,
            ),
            "device_map": {"": int(device.split(":")[1]) if ":" in device else 0},
        }
    transformers.utils.logging.disable_progress_bar()
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(path)
        model = transformers.AutoModelForCausalLM.from_pretrained(path, **kwargs)
    except OSError as exc:
        raise UsageError(f"cannot load base model {cfg.model!r}: {exc}") from None
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    if cfg.method != "qlora":
        model.to(device)
    if cfg.gradient_checkpointing:
        # transformers 5 renamed it (the old name warns); older releases have only the old name
        enable = getattr(model, "activation_checkpointing_enable", None)
        (enable or model.gradient_checkpointing_enable)()
        model.config.use_cache = False
    if cfg.method in ("lora", "qlora"):
        peft = require("peft", "train", "LoRA")
        if cfg.method == "qlora":
            model = peft.prepare_model_for_kbit_training(
                model, use_gradient_checkpointing=cfg.gradient_checkpointing
            )
        if cfg.init_adapter:
            model = _start_from_adapter(peft, model, cfg.init_adapter)
        else:
            names = {n.rsplit(".", 1)[-1] for n, _ in model.named_modules()}
            targets = [t for t in cfg.lora.target_modules if t in names]
            if not targets:
                raise UsageError(
                    f"none of lora.target_modules {cfg.lora.target_modules} is in this model"
                )
            lora = peft.LoraConfig(
                task_type="CAUSAL_LM",
                r=cfg.lora.r,
                lora_alpha=cfg.lora.alpha,
                lora_dropout=cfg.lora.dropout,
                target_modules=targets,
            )
            model = peft.get_peft_model(model, lora)
        for param in model.parameters():  # the adapter trains in fp32 over a bf16 base
            if param.requires_grad and param.dtype != torch.float32:
                param.data = param.data.float()
        if cfg.gradient_checkpointing:
            model.enable_input_require_grads()
    return model, tokenizer


def _start_from_adapter(peft: Any, model: Any, folder: str) -> Any:
    """``model`` under the trainable LoRA adapter saved in ``folder`` (``init_adapter``)."""
    path = Path(folder).expanduser()  # validate_config checked that it holds an adapter
    log.info("starting from the adapter in %s", path)
    return peft.PeftModel.from_pretrained(model, str(path), is_trainable=True)


def _keeps_logits(model: Any) -> bool:
    """Whether the causal LM's forward takes ``logits_to_keep`` (Llama and most HF models)."""
    import inspect

    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return "logits_to_keep" in inspect.signature(base.forward).parameters


def _loss(
    model: Any, batch: dict[str, Any], select: bool, reduction: str = "mean", multiple: int = 0
) -> Any:
    """Next-token cross-entropy over the labelled positions.

    With ``select`` the model computes logits only from the first position some row of the batch
    has a label for (``logits_to_keep``): the masked prompt, most of every example, never goes
    through the vocabulary projection, which saves about a sixth of the compute of a SmolLM2
    step and most of the memory of the logits. The kept length is rounded up to ``multiple``
    like the batch width (few shapes, flat memory). The loss is the same as the model's own.
    """
    import torch

    labels = batch["labels"][:, 1:]
    kwargs: dict[str, Any] = {}
    if select:
        width = batch["input_ids"].size(1)
        labelled = (labels != -100).any(dim=0).nonzero()
        first = int(labelled[0]) if len(labelled) else width - 2
        keep = width - first  # logits for positions first..width-1; the last one has no label
        if multiple > 0:
            keep = min(width, -(-keep // multiple) * multiple)
        kwargs["logits_to_keep"] = keep
        labels = labels[:, width - keep :]
    logits = model(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], **kwargs
    ).logits[:, :-1]
    return torch.nn.functional.cross_entropy(
        logits.float().reshape(-1, logits.size(-1)),
        labels.reshape(-1),
        ignore_index=-100,
        reduction=reduction,
    )


def _trainable_state(model: Any) -> dict[str, Any]:
    return {n: p.detach().cpu().clone() for n, p in model.named_parameters() if p.requires_grad}


def _evaluate(
    model: Any,
    examples: list[tuple[list[int], list[int]]],
    cfg: TrainConfig,
    pad: int,
    device: str,
    bf16: bool,
) -> float:
    import torch

    if not examples:
        return float("nan")
    model.eval()
    total, count = 0.0, 0
    select = _keeps_logits(model)
    with torch.inference_mode():
        for i in range(0, len(examples), cfg.batch_size):
            batch = {
                k: v.to(device)
                for k, v in collate(
                    examples[i : i + cfg.batch_size], pad, cfg.data.pad_multiple
                ).items()
            }
            with torch.autocast(
                device_type=device.split(":")[0], dtype=torch.bfloat16, enabled=bf16
            ):
                total += float(
                    _loss(model, batch, select, reduction="sum", multiple=cfg.data.pad_multiple)
                )
            count += int((batch["labels"][:, 1:] != -100).sum())
    model.train()
    return total / max(1, count)


def _detection_quality(
    model: Any, tokenizer: Any, rows: list[dict[str, str]], device: str, max_new: int = 512
) -> dict[str, float]:
    """Decode validation rows greedily and score the tags with favakit.eval's detection
    metrics (per-type sentence F1, macro and binary) plus the exact match of corrected text."""
    import torch

    from favakit.eval.detect import annotated_from_row, detection_report
    from favakit.tags import parse_lenient

    pairs, hits = [], 0
    model.eval()
    for row in rows:
        enc = tokenizer(row["prompt"], return_tensors="pt").to(device)
        with torch.inference_mode():
            out = model.generate(
                **enc, max_new_tokens=max_new, do_sample=False, pad_token_id=tokenizer.pad_token_id
            )
        text = tokenizer.decode(out[0][enc["input_ids"].shape[1] :], skip_special_tokens=True)
        got, want = parse_lenient(text).tagged, parse_lenient(row["completion"]).tagged
        hits += got.corrected().split() == want.corrected().split()
        pairs.append(
            (
                annotated_from_row({"tagged": row["completion"]}),
                annotated_from_row({"tagged": text}),
            )
        )
    model.train()
    report = detection_report(pairs)
    return {
        "val_exact_match": hits / max(1, len(rows)),
        "val_macro_f1": report["macro_f1"],
        "val_binary_f1": report["binary"]["f1"],
    }


def _save_checkpoint(
    folder: Path, acc: Any, model: Any, optimizer: Any, scheduler: Any, state: dict[str, Any]
) -> None:
    """Write ``folder`` atomically: trainable weights, optimizer, schedule, RNG, loop state.

    Sharded runs (FSDP, DeepSpeed) hand the weights and optimizer to accelerate's own
    ``save_state``, which gathers the shards; single-process and DDP runs save only what trains.
    """
    import torch

    tmp = folder.with_name(folder.name + ".partial")
    if acc.is_main_process:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
    acc.wait_for_everyone()
    if _sharded(acc):
        acc.save_state(str(tmp / "accelerate"))
    elif acc.is_main_process:
        torch.save(_trainable_state(acc.unwrap_model(model)), tmp / "trainable.pt")
        torch.save({"optimizer": optimizer.state_dict()}, tmp / "optim.pt")
    if acc.is_main_process:
        rng = {"python": random.getstate(), "torch": torch.get_rng_state()}
        torch.save({**rng, "scheduler": scheduler.state_dict()}, tmp / "rng.pt")
        (tmp / "state.json").write_text(json.dumps(state))
        replace_folder(tmp, folder)  # a kill mid-swap leaves the last whole checkpoint
    acc.wait_for_everyone()


def _load_checkpoint(
    folder: Path, acc: Any, model: Any, optimizer: Any, scheduler: Any
) -> dict[str, Any]:
    import torch

    if (folder / "accelerate").exists():
        acc.load_state(str(folder / "accelerate"))
    else:
        weights = torch.load(folder / "trainable.pt", weights_only=True)
        params = dict(acc.unwrap_model(model).named_parameters())
        with torch.no_grad():
            for name, value in weights.items():
                params[name].copy_(value)
        optimizer.load_state_dict(torch.load(folder / "optim.pt", weights_only=True)["optimizer"])
    rng = torch.load(folder / "rng.pt", weights_only=True)  # tensors and plain data only
    scheduler.load_state_dict(rng["scheduler"])
    random.setstate(rng["python"])
    torch.set_rng_state(rng["torch"])
    state: dict[str, Any] = json.loads((folder / "state.json").read_text())
    return state


def _accelerator(cfg: TrainConfig) -> Any:
    """The run's ``Accelerator``: one process unless started by ``accelerate launch``/torchrun."""
    accelerate = require("accelerate", "train", "training")
    cpu = cfg.device == "cpu" or not cuda_available()
    # Placement stays ours, so device=cuda:N works for a single process; mixed precision comes
    # from the launcher's config (FSDP's bf16 policy), on top of the recipe's own autocast.
    return accelerate.Accelerator(cpu=cpu, device_placement=False)


def _sharded(acc: Any) -> bool:
    return str(acc.distributed_type).rsplit(".", 1)[-1] in ("FSDP", "DEEPSPEED")


def train(
    cfg: TrainConfig,
    resume: bool = False,
    on_step: Callable[[int, float], None] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Train and save; returns a summary (losses, tokens/s, peak memory, paths).

    Every ``log_every`` steps a line goes to ``output_dir/train_log.jsonl`` and the log (loss,
    tokens/s, ETA); ``progress`` also shows a progress bar on stderr. The steps:
    :func:`_setup` (data, model, optimizer, checkpoint), :func:`_fit` (the loop),
    :func:`_final_evaluation`, :func:`_save`."""
    if cfg.task == "detector":
        from favakit.training.detector import train_detector

        return train_detector(cfg, resume=resume, progress=progress)
    if cfg.task == "checker":
        from favakit.training.checker import train_checker

        return train_checker(cfg, resume=resume, progress=progress)
    run = _setup(cfg, resume)
    _fit(run, on_step, progress)
    summary = _final_evaluation(run)
    _save(run, summary)
    return summary


@dataclass
class _Run:
    """One training run on its way from :func:`_setup` to :func:`_save`."""

    cfg: TrainConfig
    acc: Any  # accelerate.Accelerator
    out: Path
    device: str
    bf16: bool  # autocast
    base_bf16: bool  # the frozen base held in bf16
    model: Any
    tokenizer: Any
    train_set: EncodedSet
    val_set: EncodedSet
    val_rows: list[dict[str, str]]
    examples: list[tuple[list[int], list[int]]]  # what the loop draws batches from
    pad: int
    select: bool
    params: list[Any]
    optimizer: Any
    scheduler: Any
    per_step: int  # micro-batches per optimizer step, over all processes
    steps_per_epoch: int
    total_steps: int
    step: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    tokens_seen: int = 0
    seconds: float = 0.0
    steady: float | None = None  # tokens/s after the first step

    @property
    def checkpoint(self) -> Path:
        return self.out / runtime.CHECKPOINT_DIR


def _setup(cfg: TrainConfig, resume: bool) -> _Run:
    """Check the config, read the data (before anything is written: a wrong path leaves no run
    folder behind), load the model (+ LoRA) and tokenize; then the optimizer, the schedule and,
    with ``resume``, the checkpoint's state."""
    import torch

    transformers = require("transformers", "train", "training")
    validate_config(cfg)
    if not cfg.model:
        raise UsageError("no base model: set model=FOLDER|HUB_ID|FILE.gguf|smollm2")
    if not cfg.data.train_file:
        raise UsageError("no training data: set data.train_file=FILE.jsonl")
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    rows = load_rows(cfg.data.train_file, cfg.data.limit)
    if cfg.data.validation_file:
        train_rows, val_rows = rows, load_rows(cfg.data.validation_file)
        check_held_out(train_rows, val_rows)
    else:
        train_rows, val_rows = split_validation(rows, cfg.data.validation_fraction, cfg.seed)
    acc = _accelerator(cfg)
    out = Path(cfg.output_dir)
    ckpt = settle_folder(out / runtime.CHECKPOINT_DIR)  # whole even after a kill mid-save
    runtime.check_run_folder(out, (out / "summary.json").exists(), (ckpt / "state.json").exists(),
                             resume)  # fmt: skip
    if acc.is_main_process:
        output_folder(out, "output_dir")
        (out / "config.yaml").write_text(dump_config(cfg))

    device, bf16, base_bf16 = _device_and_precision(cfg)
    if acc.num_processes > 1:
        device = str(acc.device)
    if not device.startswith("cuda"):
        runtime.return_freed_memory()
    model, tokenizer = _load_model(cfg, device, base_bf16)
    select = _keeps_logits(model)
    train_set = encode_rows(tokenizer, train_rows, cfg.data.max_length)
    val_set = encode_rows(tokenizer, val_rows, cfg.data.max_length)
    if acc.is_main_process:
        warn_if_cut(train_set, val_set, len(train_rows) + len(val_rows), cfg.data.max_length)
        if not val_set.examples and (cfg.data.validation_file or cfg.data.validation_fraction):
            log.warning("no validation examples (%s): the run reports no validation loss",
                        _why_no_validation(cfg, len(train_rows), len(val_rows)))  # fmt: skip
    examples = (
        pack(train_set.examples, cfg.data.max_length) if cfg.data.packing else train_set.examples
    )
    if not examples:
        raise UsageError("no training example fits data.max_length")

    # the model is wrapped before the optimizer is made: FSDP flattens its parameters
    model = acc.prepare(model)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = acc.prepare(torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay))
    # One optimizer step takes grad_accum micro-batches on each of the processes.
    per_step = cfg.grad_accum * acc.num_processes
    batches = math.ceil(len(examples) / cfg.batch_size)
    if batches < per_step:  # else no step is ever taken, and the step loop never ends
        raise UsageError(
            f"{len(examples)} training example(s) make {batches} batch(es) of batch_size="
            f"{cfg.batch_size}, and one optimizer step takes {per_step} (grad_accum="
            f"{cfg.grad_accum} on {acc.num_processes} process(es)): give more rows, or set "
            f"grad_accum={max(1, batches // acc.num_processes)}"
            + (f" or batch_size={len(examples) // per_step}" if len(examples) >= per_step else "")
        )
    steps_per_epoch = max(1, batches // per_step)
    total_steps = cfg.max_steps or max(1, int(cfg.epochs * steps_per_epoch))
    scheduler = transformers.get_scheduler(
        "constant_with_warmup" if cfg.schedule == "constant" else cfg.schedule,
        optimizer,
        num_warmup_steps=int(cfg.warmup_ratio * total_steps),
        num_training_steps=total_steps,
    )
    run = _Run(
        cfg, acc, out, device, bf16, base_bf16, model, tokenizer, train_set, val_set, val_rows,
        examples, int(tokenizer.pad_token_id), select, params, optimizer, scheduler, per_step,
        steps_per_epoch, total_steps,
    )  # fmt: skip
    if resume and (ckpt / "state.json").exists():
        state = _load_checkpoint(ckpt, acc, model, optimizer, scheduler)
        run.step, run.history = state["step"], state["history"]
        log.info("resumed at step %d", run.step)
    return run


def _fit(run: _Run, on_step: Callable[[int, float], None] | None, progress: bool) -> None:
    """The training loop, from ``run.step`` to ``run.total_steps``: logs every ``log_every``
    steps, evaluates every ``eval_every``, checkpoints every ``save_every``."""
    import torch

    cfg, acc, model, device = run.cfg, run.acc, run.model, run.device
    writer = runtime.tensorboard_writer(run.out) if acc.is_main_process else None
    log_path = run.out / "train_log.jsonl"
    model.train()
    t0 = time.perf_counter()
    warm: tuple[float, int] | None = None
    recent: collections.deque[float] = collections.deque(maxlen=ETA_STEPS)
    last_step_end = t0
    bar: Any = None
    if progress and acc.is_main_process:
        from tqdm import tqdm

        bar = tqdm(
            total=run.total_steps, initial=run.step, desc="train", unit="step", dynamic_ncols=True
        )
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    while run.step < run.total_steps:
        epoch, within = divmod(run.step, run.steps_per_epoch)
        order = list(range(len(run.examples)))
        random.Random(f"order:{cfg.seed}:{epoch}").shuffle(order)
        start = within * run.per_step * cfg.batch_size
        micro = [order[i : i + cfg.batch_size] for i in range(start, len(order), cfg.batch_size)]
        for chunk_start in range(0, len(micro) - run.per_step + 1, run.per_step):
            mine = chunk_start + acc.process_index * cfg.grad_accum
            loss_sum = _step(run, micro[mine : mine + cfg.grad_accum])
            run.step += 1
            if warm is None:  # the first step pays for start-up (CUDA context, kernel choice)
                warm = (time.perf_counter(), run.tokens_seen)
            if acc.num_processes > 1:
                loss_sum = float(acc.reduce(torch.tensor(loss_sum, device=device), "mean"))
            now = time.perf_counter()
            elapsed = now - t0
            rate = run.tokens_seen / elapsed if elapsed > 0 else 0.0
            recent.append(now - last_step_end)
            last_step_end = now
            eta = step_seconds(recent) * (run.total_steps - run.step)
            record: dict[str, Any] = {
                "step": run.step,
                "loss": round(loss_sum, 5),
                "lr": run.scheduler.get_last_lr()[0],
                "tokens_per_s": round(rate * acc.num_processes, 1),
                "eta_s": round(eta),
            }
            if not device.startswith("cuda"):
                record["rss_mb"] = runtime.rss_mb()
            if bar is not None:
                bar.update(1)
                bar.set_postfix(loss=f"{loss_sum:.4f}", tok_s=f"{rate:.0f}")
            if cfg.eval_every and run.step % cfg.eval_every == 0:
                record.update(_periodic_evaluation(run))
            run.history.append(record)
            if acc.is_main_process and (
                run.step % cfg.log_every == 0 or "val_loss" in record or run.step == run.total_steps
            ):
                runtime.log_record(log_path, writer, record)
            if on_step is not None:
                on_step(run.step, loss_sum)
            if cfg.save_every and run.step % cfg.save_every == 0 and run.step < run.total_steps:
                state = {"step": run.step, "history": run.history}
                _save_checkpoint(run.checkpoint, acc, model, run.optimizer, run.scheduler, state)
            if run.step >= run.total_steps:
                break
    if bar is not None:
        bar.close()
    if writer is not None:
        writer.close()
    run.seconds = time.perf_counter() - t0
    if warm is not None:
        run.steady = runtime.rate(run.tokens_seen - warm[1], run.seconds - (warm[0] - t0))
    if acc.num_processes > 1:
        run.tokens_seen = int(acc.reduce(torch.tensor(run.tokens_seen, device=device), "sum"))
        run.steady = None if run.steady is None else run.steady * acc.num_processes


ETA_STEPS = 10  # the time left is read from the last this many steps


def step_seconds(recent: collections.deque[float]) -> float:
    """Seconds a step takes now: the mean of the recent steps, without the first step of the
    run once others are known (it pays for start-up, and a mean from the start says the run
    is faster than it is on a machine that slows)."""
    steps = list(recent)
    if len(steps) > 1 and len(steps) < (recent.maxlen or 0):
        steps = steps[1:]
    return sum(steps) / len(steps) if steps else 0.0


def _why_no_validation(cfg: TrainConfig, train_rows: int, val_rows: int) -> str:
    if val_rows:
        return (f"each of the {val_rows} validation row(s) is longer than data.max_length="
                f"{cfg.data.max_length}")  # fmt: skip
    if cfg.data.validation_file:
        return f"{cfg.data.validation_file} holds no rows"
    return f"{train_rows} row(s) are too few to hold any out; give data.validation_file"


def warn_if_cut(train_set: EncodedSet, val_set: EncodedSet, rows: int, max_length: int) -> None:
    """Say before training starts how many examples do not fit ``max_length`` tokens, and the
    setting that keeps them whole (the counts are also in summary.json)."""
    shortened = train_set.truncated + val_set.truncated
    dropped = train_set.dropped + val_set.dropped
    if shortened or dropped:
        log.warning(
            "%d of %d examples are longer than data.max_length=%d tokens: %d shortened (evidence "
            "passages dropped from the prompt), %d left out; raise data.max_length to keep them "
            "whole (memory grows with it)",
            shortened + dropped, rows, max_length, shortened, dropped,
        )  # fmt: skip


def _step(run: _Run, micro_batches: list[list[int]]) -> float:
    """One optimizer step over this process's micro-batches; returns the summed loss."""
    import torch

    cfg, acc, device = run.cfg, run.acc, run.device
    loss_sum = 0.0
    for n, idx in enumerate(micro_batches):
        batch = {
            k: v.to(device)
            for k, v in collate(
                [run.examples[i] for i in idx], run.pad, cfg.data.pad_multiple
            ).items()
        }
        # DDP: gradients are all-reduced once per step, on the last micro-batch.
        sync = n == cfg.grad_accum - 1
        with contextlib.nullcontext() if sync else acc.no_sync(run.model):
            with torch.autocast(
                device_type=device.split(":")[0], dtype=torch.bfloat16, enabled=run.bf16
            ):
                loss = (
                    _loss(run.model, batch, run.select, multiple=cfg.data.pad_multiple)
                    / cfg.grad_accum
                )
            acc.backward(loss)
        loss_sum += float(loss.detach())
        run.tokens_seen += int(batch["attention_mask"].sum())
    acc.clip_grad_norm_(run.params, cfg.max_grad_norm)
    run.optimizer.step()
    run.scheduler.step()
    run.optimizer.zero_grad(set_to_none=True)
    return loss_sum


def _periodic_evaluation(run: _Run) -> dict[str, Any]:
    """Validation loss, and detection quality of ``eval_generate`` generated rows."""
    cfg = run.cfg
    out: dict[str, Any] = {}
    if run.val_set.examples:  # none held out: no validation loss (it was logged as NaN)
        out["val_loss"] = round(
            _evaluate(run.model, run.val_set.examples, cfg, run.pad, run.device, run.bf16), 5
        )
    if cfg.eval_generate and not _sharded(run.acc):
        out.update(
            _detection_quality(
                run.acc.unwrap_model(run.model),
                run.tokenizer,
                run.val_rows[: cfg.eval_generate],
                run.device,
            )
        )
    return out


def _final_evaluation(run: _Run) -> dict[str, Any]:
    """The run's summary: the final validation loss beside the losses and speed of the loop."""
    cfg, history = run.cfg, run.history
    final_val = (
        round(_evaluate(run.model, run.val_set.examples, cfg, run.pad, run.device, run.bf16), 5)
        if run.val_set.examples
        else None  # summary.json was written with NaN, which is not JSON
    )
    first_val = next((h["val_loss"] for h in history if "val_loss" in h), None)
    final = run.out / ("adapter" if cfg.method in ("lora", "qlora") else "model")
    precision = "bf16" if run.bf16 else ("bf16 base, fp32 adapter" if run.base_bf16 else "fp32")
    return {
        "method": cfg.method,
        "steps": run.step,
        "processes": run.acc.num_processes,
        "train_examples": len(run.train_set.examples),
        "validation_examples": len(run.val_set.examples),
        "truncated_examples": run.train_set.truncated + run.val_set.truncated,
        "dropped_examples": run.train_set.dropped + run.val_set.dropped,
        "first_loss": history[0]["loss"] if history else None,
        "last_loss": history[-1]["loss"] if history else None,
        "first_val_loss": first_val,
        "final_val_loss": final_val,
        "tokens_per_s": runtime.rate(run.tokens_seen, run.seconds),
        "tokens_per_s_after_first_step": run.steady,
        "peak_memory_mb": runtime.peak_memory_mb(run.device),
        "precision": precision,
        "device": run.device,
        "output": str(final),
    }


def _save(run: _Run, summary: dict[str, Any]) -> None:
    """Save the adapter (or model) with its tokenizer, model card and summary; the main process
    writes (sharded weights are gathered first), and the checkpoint goes."""
    acc, cfg = run.acc, run.cfg
    final = Path(summary["output"])
    full_state = acc.get_state_dict(run.model) if _sharded(acc) else None
    if acc.is_main_process:
        acc.unwrap_model(run.model).save_pretrained(final, state_dict=full_state)
        run.tokenizer.save_pretrained(final)
        if cfg.method in ("lora", "qlora"):
            _record_base(final, cfg.model)
        share_like_open(run.out)
        (run.out / "summary.json").write_text(json.dumps(summary, indent=2))
        (final / "README.md").write_text(_model_card(cfg, summary))
        shutil.rmtree(run.checkpoint, ignore_errors=True)
    acc.wait_for_everyone()


def _record_base(adapter: Path, model: str) -> None:
    """Name the base model in ``adapter_config.json`` as the user gave it (a preset such as
    ``smollm2``, a Hub id, or an absolute path), not as the folder it was loaded from: a
    dequantized GGUF lives in a cache that may be cleared, and the preset finds it again."""
    from favakit.inference.models import PRESETS

    path = adapter / "adapter_config.json"
    config = json.loads(path.read_text())
    local = Path(model).expanduser()
    config["base_model_name_or_path"] = (
        model if model in PRESETS or not local.exists() else str(local.resolve())
    )
    path.write_text(json.dumps(config, indent=2))


def _model_card(cfg: TrainConfig, summary: dict[str, Any]) -> str:
    validation = (
        f"{summary['first_val_loss']} -> {summary['final_val_loss']}"
        if summary["validation_examples"]
        else "none (no validation examples)"
    )
    return (
        f"# favakit editor ({cfg.method})\n\n"
        f"Base model: `{cfg.model}`. Trained with favakit's recipe to tag hallucinated spans with "
        "FAVA's six error types and suggest edits (prompt: `favakit.prompts.build_prompt`).\n\n"
        f"- data: `{cfg.data.train_file}` ({summary['train_examples']} training, "
        f"{summary['validation_examples']} validation examples; {summary['truncated_examples']} "
        f"shortened, {summary['dropped_examples']} dropped for length)\n"
        f"- recipe: {summary['steps']} steps, lr {cfg.lr}, {cfg.schedule} schedule, warmup "
        f"{cfg.warmup_ratio}, batch {cfg.batch_size} x {cfg.grad_accum}, {summary['precision']}\n"
        f"- LoRA: r={cfg.lora.r}, alpha={cfg.lora.alpha}, dropout={cfg.lora.dropout}\n"
        f"- loss: {summary['first_loss']} -> {summary['last_loss']}; validation loss "
        f"{validation}\n"
        f"- speed: {summary['tokens_per_s']} tokens/s on {summary['device']}, peak memory "
        f"{summary['peak_memory_mb']} MB\n\n"
        "Load with `peft.PeftModel.from_pretrained(base, this_folder)` or serve with "
        "`vllm serve BASE --enable-lora --lora-modules favakit=this_folder`.\n"
    )


def export_checkpoint(run_dir: str, out: str) -> str:
    """Save the latest checkpoint of a run (finished or not) as a loadable adapter (LoRA) or
    model (full) folder, as the end of training would have saved it: to try a run half way,
    or to compare runs at the same step."""
    import torch

    from favakit.training.config import load_train_config

    run = Path(run_dir)
    ckpt = settle_folder(run / runtime.CHECKPOINT_DIR)
    if not (ckpt / "trainable.pt").exists():
        raise UsageError(f"{run} has no single-process checkpoint (checkpoint/trainable.pt)")
    cfg = load_train_config(str(run / "config.yaml"))
    cfg.device = "cpu"
    model, tokenizer = _load_model(cfg, "cpu", frozen_bf16=False)
    params = dict(model.named_parameters())
    with torch.no_grad():
        for name, value in torch.load(ckpt / "trainable.pt", weights_only=True).items():
            params[name].copy_(value)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    if cfg.method in ("lora", "qlora"):
        _record_base(Path(out), cfg.model)
    step = json.loads((ckpt / "state.json").read_text())["step"]
    (Path(out) / "README.md").write_text(
        f"# favakit editor ({cfg.method}), checkpoint of {run} at step {step}\n"
    )
    share_like_open(out)
    return out
