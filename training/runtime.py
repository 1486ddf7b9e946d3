"""What a training run needs from the machine it runs on, shared by the editor's recipe
(:mod:`favakit.training.recipe`), the detector's (:mod:`favakit.training.detector`) and the
checker's (:mod:`favakit.training.checker`): the output folder's guard, CPU and GPU features,
memory readings, the step log (``train_log.jsonl``, the log, TensorBoard), and LoRA over an
encoder (the detector's and the checker's)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

__all__ = [
    "CHECKPOINT_DIR",
    "check_run_folder",
    "encoder_lora",
    "epoch_batches",
    "length_batches",
    "log_record",
    "peak_memory_mb",
    "rate",
    "return_freed_memory",
    "rss_mb",
    "tensorboard_writer",
]

log = logging.getLogger("favakit.training.recipe")

#: where every trainer keeps its last checkpoint inside ``output_dir`` (what --resume reads)
CHECKPOINT_DIR = "checkpoint"


def check_run_folder(out: Path, finished: bool, checkpointed: bool, resume: bool) -> None:
    """Refuse an ``output_dir`` whose run this one would overwrite, before anything is written.

    A run that holds a checkpoint goes on only with ``--resume`` (a checker run stopped at its
    ``notes.time_limit_s`` is finished and keeps one). A finished run with no checkpoint is
    refused even with ``--resume``, which would start again at step 0 and replace its model.
    ``--resume`` where no checkpoint was saved yet (a run killed before its first one, or a new
    folder) starts at step 0 and says so. A folder of other files (a synthesis run, say), with
    no ``config.yaml`` of a run, is refused: the run's files were written in among them."""
    from favakit.errors import UsageError
    from favakit.records import some_names

    if checkpointed:
        if not resume:
            raise UsageError(
                f"{out} holds a checkpoint; pass --resume to continue it, or give another --out "
                "(output_dir)"
            )
        return
    if finished:
        why = (" (a finished run keeps no checkpoint: --resume would start again at step 0 and"
               " replace its model)" if resume else "")  # fmt: skip
        raise UsageError(f"{out} holds a finished run; give another --out (output_dir){why}")
    if out.is_dir() and not (out / "config.yaml").exists():
        others = [p.name for p in out.iterdir()]
        if others:
            raise UsageError(
                f"{out} holds other files ({some_names(others)}) and no run of favakit train (its "
                "config.yaml): a run is a folder of its own; give a new --out (output_dir)"
            )
    if resume:
        log.warning("%s holds no checkpoint to resume: starting at step 0", out)


def epoch_batches(
    lengths: list[int], size: int, seed: int, epoch: int, by_length: bool
) -> list[list[int]]:
    """One epoch's batches of ``size`` row indices: of similar length (``length_batches``, seeded
    ``seed + epoch``) or drawn at random (``data.length_buckets=false``), each epoch a new mix."""
    if by_length:
        return length_batches(lengths, size, seed + epoch)
    import random

    order = list(range(len(lengths)))
    random.Random(f"order:{seed}:{epoch}").shuffle(order)
    return [order[s : s + size] for s in range(0, len(order), size)]


def length_batches(lengths: list[int], size: int, seed: int) -> list[list[int]]:
    """Indices in batches of ``size`` of similar length, in random order: the rows are shuffled,
    sorted by length within windows of 50 batches, cut into batches, and the batches shuffled.
    Less padding than random batches (on a CPU, padding is paid for in full), still a different
    mix each epoch (``seed``)."""
    import random

    rng = random.Random(seed)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    window = size * 50
    batches = []
    for s in range(0, len(order), window):
        chunk = sorted(order[s : s + window], key=lambda i: lengths[i])
        batches += [chunk[k : k + size] for k in range(0, len(chunk), size)]
    rng.shuffle(batches)
    return batches


def encoder_lora(
    model: Any, lora: Any, task_type: str, modules_to_save: list[str] | None = None
) -> Any:
    """``model`` (an encoder with a classification head) with LoRA on ``lora.target_modules``
    (``lora``: a config's ``LoraSettings``; the preset names the encoder's layers, e.g. ``[q, k,
    v, o, intermediate.dense, output.dense]`` for mpnet) and its head trained whole
    (``modules_to_save``, default peft's for ``task_type``), saved with the adapter."""
    from favakit.deps import require
    from favakit.errors import UsageError

    peft = require("peft", "train", "LoRA")
    config = peft.LoraConfig(r=lora.r, lora_alpha=lora.alpha, lora_dropout=lora.dropout,
                             target_modules=list(lora.target_modules),
                             modules_to_save=modules_to_save, task_type=task_type)  # fmt: skip
    try:
        model = peft.get_peft_model(model, config)
    except ValueError as exc:  # no such layer in this encoder
        raise UsageError(f"lora.target_modules={list(lora.target_modules)}: {exc}") from None
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log.info("LoRA r=%d: %d trainable parameters", lora.r, trainable)
    return model


def rate(tokens: int, seconds: float) -> float | None:
    return round(tokens / seconds, 1) if seconds > 0 and tokens > 0 else None


def tensorboard_writer(out: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(out / "tensorboard"))


def log_record(path: Path, writer: Any, record: dict[str, Any]) -> None:
    """Append ``record`` to ``train_log.jsonl``, say it on the log (a training step's loss,
    rate and time left; a checker's development split, its figure and threshold) and give
    its scalars to TensorBoard's ``writer`` where there is one."""
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
    log.info("step %s %s", record["step"], _said(record))
    if writer is not None:
        for key in ("loss", "val_loss", "lr", "val_exact_match", "val_macro_f1", "val_binary_f1"):
            if key in record:
                writer.add_scalar(key, record[key], record["step"])


def _said(record: dict[str, Any]) -> str:
    """A record of :func:`log_record` as its log line says it (after the step)."""
    if "dev_mean_balanced_accuracy" in record:  # a checker's development split, measured
        score = record["dev_mean_balanced_accuracy"]
        return "development split: " + ("cannot be measured (one label)" if score is None else
                f"mean balanced accuracy {score:.4f} at threshold {record['threshold']}")  # fmt: skip
    eta = record.get("eta_s")
    return "".join((
        f"loss {record['loss']:.4f}",
        f" val {record['val_loss']:.4f}" if "val_loss" in record else "",
        f" | {record['tokens_per_s']:.0f} tokens/s" if record.get("tokens_per_s") else "",
        f" | {record['examples_per_s']:.1f} examples/s" if record.get("examples_per_s") else "",
        f" | ETA {eta // 3600:d}h{eta % 3600 // 60:02d}m{eta % 60:02d}s" if eta is not None else "",
    ))  # fmt: skip


def peak_memory_mb(device: str) -> float:
    import torch

    if device.startswith("cuda"):
        return round(torch.cuda.max_memory_allocated() / 2**20, 1)
    try:
        import resource

        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # KiB on Linux
    except ImportError:  # pragma: no cover - not on Linux
        return float("nan")


def return_freed_memory(threshold: int = 32 << 20) -> bool:
    """Make glibc give freed tensor memory back to the system (Linux, CPU training).

    glibc raises its mmap threshold each time a large block is freed, so later activations and
    logits come from the heap, where each new batch shape leaves memory that is never returned:
    the process grew by hundreds of MB per new shape (docs/benchmarks.md). A fixed threshold keeps
    every block over 1 MiB in its own mapping, returned when the tensor is freed. Returns whether
    the setting took (False off glibc)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        libc = ctypes.CDLL(name)
        m_mmap_threshold = -3  # from <malloc.h>
        return bool(libc.mallopt(m_mmap_threshold, threshold))
    except (OSError, AttributeError):  # not glibc
        return False


def rss_mb() -> float | None:
    """This process's resident memory now (Linux), to watch it step by step."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
