"""Training the encoder detector (``task: detector``; preset ``minilm_detector``).

The same training rows as the editor (``{"prompt", "completion"}``): the text and references are
read back out of the prompt, the error spans out of the tagged completion. Each example is
``[CLS] text [SEP] references [SEP]`` with a BIO label per text token (see
:mod:`favakit.inference.detector`); references are cut first when it is too long, and an example
whose text alone does not fit is dropped (counted).

LoRA (``method: lora``: the encoder's linear layers, the classification head trained in full) or
full fine-tuning, in bf16 autocast with ``precision: bf16`` (or ``auto`` where the CPU or GPU
has native bf16; the preset keeps fp32, the shipped detector's). A line per logged step (loss,
examples/s, ETA), checkpoints every ``save_every`` steps and ``--resume``. At the end: token
accuracy and span F1 on the validation rows, and a per-type confidence threshold (the one that
maximizes that type's span F1), stored with the model in ``detector.json``. The thresholds are
picked on a tuning split held out from the *training* rows by source title
(``data.validation_fraction`` of the titles), never on the validation file, so figures measured
on the validation split stay unbiased.
"""

from __future__ import annotations

import json
import logging
import math
import random
import shutil
import time
from pathlib import Path
from typing import Any

from favakit.deps import bf16_wanted, require
from favakit.devices import torch_device
from favakit.errors import UsageError
from favakit.inference.detector import CONFIG_NAME, LABELS, Detector, label_tokens
from favakit.prompts import parse_prompt, parse_reference
from favakit.records import output_folder
from favakit.tags import ERROR_TYPES, parse_lenient
from favakit.training import runtime
from favakit.training.config import TrainConfig, validate_config

__all__ = ["detector_example", "train_detector"]

log = logging.getLogger("favakit.training.recipe")  # the same step lines as the editor's

GRID = [round(0.05 * i, 2) for i in range(2, 19)]  # candidate thresholds 0.10 ... 0.90


def detector_example(row: dict[str, Any]) -> tuple[str, list[str], list[tuple[str, int, int]]]:
    """(text, references, spans) of a training row; ``ValueError`` if it is not one."""
    parsed = parse_prompt(str(row["prompt"]))
    tagged = parse_lenient(str(row["completion"])).tagged
    text = tagged.original()
    if text.strip() != parsed.text.strip():
        raise ValueError("the completion does not reproduce the prompt's text")
    refs = [parse_reference(r).text for r in parsed.references]
    spans = [(s.type, s.start, s.end) for s in tagged.spans() if s.end > s.start]
    return text, refs, spans


def _encode(
    tokenizer: Any, rows: list[dict[str, Any]], max_length: int
) -> tuple[list[dict[str, Any]], int]:
    out, dropped = [], 0
    for row in rows:
        try:
            text, refs, spans = detector_example(row)
        except (ValueError, KeyError):
            dropped += 1
            continue
        if len(tokenizer.tokenize(text)) > max_length - 16:
            dropped += 1
            continue
        enc = tokenizer(
            text, " ".join(refs) or " ", truncation="only_second", max_length=max_length,
            return_offsets_mapping=True,
        )  # fmt: skip
        in_text = [sid == 0 for sid in enc.sequence_ids()]
        labels = label_tokens(enc["offset_mapping"], in_text, spans)
        out.append({"input_ids": enc["input_ids"], "token_type_ids": enc.get("token_type_ids"),
                    "labels": labels, "text": text, "refs": refs, "spans": spans})  # fmt: skip
    return out, dropped


def _collate(torch: Any, batch: list[dict[str, Any]], pad: int) -> dict[str, Any]:
    width = max(len(e["input_ids"]) for e in batch)
    ids = torch.full((len(batch), width), pad, dtype=torch.long)
    types = torch.zeros((len(batch), width), dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    labels = torch.full((len(batch), width), -100, dtype=torch.long)
    for i, e in enumerate(batch):
        n = len(e["input_ids"])
        ids[i, :n] = torch.tensor(e["input_ids"])
        if e["token_type_ids"] is not None:
            types[i, :n] = torch.tensor(e["token_type_ids"])
        mask[i, :n] = 1
        labels[i, :n] = torch.tensor(e["labels"])
    return {"input_ids": ids, "token_type_ids": types, "attention_mask": mask, "labels": labels}


def _span_f1(
    gold: list[list[tuple[str, int, int]]], pred: list[list[tuple[str, int, int, float]]], t: str,
    threshold: float,
) -> tuple[int, int, int]:  # fmt: skip
    """Counts for one type: a predicted span is right when it overlaps a gold span of its type."""
    tp = fp = fn = 0
    for g, p in zip(gold, pred, strict=True):
        gs = [(s, e) for k, s, e in g if k == t]
        ps = [(s, e) for k, s, e, c in p if k == t and c >= threshold]
        hit = {i for i, (s, e) in enumerate(gs) for a, b in ps if a < e and s < b}
        tp += len(hit)
        fn += len(gs) - len(hit)
        fp += sum(1 for a, b in ps if not any(a < e and s < b for s, e in gs))
    return tp, fp, fn


def _f1(tp: int, fp: int, fn: int) -> float:
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def tune_thresholds(
    gold: list[list[tuple[str, int, int]]], pred: list[list[tuple[str, int, int, float]]]
) -> tuple[dict[str, float], dict[str, float]]:
    """Per type: the threshold with the best span F1 on these rows, and that F1."""
    thresholds, f1s = {}, {}
    for t in ERROR_TYPES:
        best = max(GRID, key=lambda th: (_f1(*_span_f1(gold, pred, t, th)), -abs(th - 0.5)))
        thresholds[t], f1s[t] = best, round(_f1(*_span_f1(gold, pred, t, best)), 4)
    return thresholds, f1s


def _title(row: dict[str, Any]) -> str:
    rid = str(row.get("id", ""))
    if "#" in rid:
        return rid.split("#", 1)[0]
    refs = parse_prompt(str(row["prompt"])).references
    return parse_reference(refs[0]).title or refs[0][:80] if refs else rid


def split_by_title(
    rows: list[dict[str, Any]], fraction: float, seed: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows of about ``fraction`` of the source titles held out (at least one title)."""
    titles = sorted({_title(r) for r in rows})
    random.Random(f"tune:{seed}").shuffle(titles)
    n = max(1, round(len(titles) * fraction)) if len(titles) > 1 and fraction > 0 else 0
    held = set(titles[:n])
    return [r for r in rows if _title(r) not in held], [r for r in rows if _title(r) in held]


def _load(cfg: TrainConfig) -> tuple[Any, Any, str]:
    transformers = require("transformers", "train", "training the detector")
    from favakit.retrieval.encoder import resolve_encoder

    base = resolve_encoder(cfg.model or "minilm").model
    transformers.utils.logging.set_verbosity_error()  # its load report: a new head is expected
    transformers.utils.logging.disable_progress_bar()
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(base)
        model = transformers.AutoModelForTokenClassification.from_pretrained(
            base, num_labels=len(LABELS), id2label=dict(enumerate(LABELS)),
            label2id={n: i for i, n in enumerate(LABELS)},
        )  # fmt: skip
    except OSError as exc:
        raise UsageError(f"cannot load encoder {base!r}: {exc}") from None
    if cfg.method == "lora":
        model = runtime.encoder_lora(model, cfg.lora, "TOKEN_CLS", ["classifier"])
    elif cfg.method != "full":
        raise UsageError(f"method={cfg.method}: the detector trains with lora or full")
    return model, tokenizer, base


def train_detector(
    cfg: TrainConfig, resume: bool = False, progress: bool = False
) -> dict[str, Any]:
    """Train, tune the thresholds, save a detector folder; returns a summary."""
    torch = require("torch", "train", "training the detector")
    transformers = require("transformers", "train", "training the detector")
    from favakit.training.data import check_held_out, load_rows

    validate_config(cfg)
    if not cfg.data.train_file:
        raise UsageError("no training data: set data.train_file=FILE.jsonl")
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    rows = load_rows(cfg.data.train_file, cfg.data.limit)
    train_rows, tune_rows = split_by_title(rows, cfg.data.validation_fraction, cfg.seed)
    val_rows = load_rows(cfg.data.validation_file) if cfg.data.validation_file else []
    check_held_out(rows, val_rows)
    out = Path(cfg.output_dir)
    ckpt = out / runtime.CHECKPOINT_DIR
    runtime.check_run_folder(out, (out / "summary.json").exists(), (ckpt / "state.pt").exists(),
                             resume)  # fmt: skip
    output_folder(out, "output_dir")
    from favakit.config import dump_config

    (out / "config.yaml").write_text(dump_config(cfg))
    device = torch_device(cfg.device)
    bf16 = bf16_wanted(cfg.precision, device)
    if device == "cpu":
        runtime.return_freed_memory()
    model, tokenizer, _ = _load(cfg)
    model.to(device)
    train_set, dropped = _encode(tokenizer, train_rows, cfg.data.max_length)
    tune_set, tune_dropped = _encode(tokenizer, tune_rows, cfg.data.max_length)
    val_set, val_dropped = _encode(tokenizer, val_rows, cfg.data.max_length)
    if not train_set:
        raise UsageError("no training example could be read (rows with prompt and completion)")
    pad = int(tokenizer.pad_token_id or 0)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps_per_epoch = max(1, math.ceil(len(train_set) / (cfg.batch_size * cfg.grad_accum)))
    total = cfg.max_steps or max(1, int(cfg.epochs * steps_per_epoch))
    scheduler = transformers.get_scheduler(
        "constant_with_warmup" if cfg.schedule == "constant" else cfg.schedule, optimizer,
        num_warmup_steps=int(cfg.warmup_ratio * total), num_training_steps=total,
    )  # fmt: skip
    step = 0
    if resume and (ckpt / "state.pt").exists():
        state = torch.load(ckpt / "state.pt", map_location=device, weights_only=True)
        model.load_state_dict(state["model"], strict=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        step = int(state["step"])
        log.info("resumed at step %d", step)
    bar: Any = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, initial=step, desc="train detector", unit="step")
    model.train()
    t0, seen, start_step = time.perf_counter(), 0, step
    first_loss = last_loss = None
    per_step = cfg.batch_size * cfg.grad_accum
    lengths = [len(x["input_ids"]) for x in train_set]
    while step < total:
        epoch, within = divmod(step, steps_per_epoch)
        batches = runtime.epoch_batches(lengths, per_step, cfg.seed, epoch, cfg.data.length_buckets)
        for chunk in batches[within:]:
            loss_sum = 0.0
            for m in range(0, len(chunk), cfg.batch_size):
                idx = chunk[m : m + cfg.batch_size]
                batch = _collate(torch, [train_set[i] for i in idx], pad)
                with torch.autocast(
                    device_type=device.split(":")[0], dtype=torch.bfloat16, enabled=bf16
                ):
                    loss = model(**{k: v.to(device) for k, v in batch.items()}).loss
                loss = loss.float() / cfg.grad_accum
                loss.backward()
                loss_sum += float(loss.detach())
                seen += len(idx)
            torch.nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            first_loss = first_loss if first_loss is not None else loss_sum
            last_loss = loss_sum
            elapsed = time.perf_counter() - t0
            record: dict[str, Any] = {
                "step": step, "loss": round(loss_sum, 5), "lr": scheduler.get_last_lr()[0],
                "examples_per_s": round(seen / elapsed, 2),
                "eta_s": round(elapsed / (step - start_step) * (total - step)),
            }  # fmt: skip
            if device == "cpu":
                record["rss_mb"] = runtime.rss_mb()
            if bar is not None:
                bar.update(1)
                bar.set_postfix(loss=f"{loss_sum:.4f}")
            if step % cfg.log_every == 0 or step == total:
                runtime.log_record(out / "train_log.jsonl", None, record)
            if cfg.save_every and step % cfg.save_every == 0 and step < total:
                _checkpoint(torch, ckpt, model, optimizer, scheduler, step)
            if step >= total:
                break
    if bar is not None:
        bar.close()
    seconds = time.perf_counter() - t0
    tuned = _save_and_tune(cfg, out / "detector", model, tokenizer, device, tune_set, val_set)
    summary = {
        "task": "detector",
        "method": cfg.method,
        "steps": step,
        "train_examples": len(train_set),
        "tuning_examples": len(tune_set),
        "validation_examples": len(val_set),
        "dropped_examples": dropped + tune_dropped + val_dropped,
        "first_loss": first_loss,
        "last_loss": last_loss,
        "examples_per_s": round(seen / seconds, 2) if seconds else None,
        **tuned,
        "device": device,
        "bf16": bf16,
        "output": str(out / "detector"),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    shutil.rmtree(ckpt, ignore_errors=True)
    return summary


def _checkpoint(torch: Any, ckpt: Path, model: Any, optimizer: Any, scheduler: Any,
                step: int) -> None:  # fmt: skip
    """The training state, swapped in whole (a kill mid-write keeps the previous one)."""
    ckpt.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "step": step}, ckpt / "state.tmp")  # fmt: skip
    (ckpt / "state.tmp").replace(ckpt / "state.pt")


def _save_and_tune(cfg: TrainConfig, final: Path, model: Any, tokenizer: Any, device: str,
                   tune_set: list[dict[str, Any]],
                   val_set: list[dict[str, Any]]) -> dict[str, Any]:  # fmt: skip
    """Save the detector folder, then tune its per-type thresholds on ``tune_set`` and measure
    ``val_set`` through the inference class itself; the thresholds and span F1s."""
    if cfg.method == "lora":
        model.save_pretrained(final)
    else:
        model.save_pretrained(final, safe_serialization=True)
    tokenizer.save_pretrained(final)
    meta = {
        "schema": "favakit_detector/1", "name": f"favakit-detector-{Path(cfg.model or 'minilm').name}",
        "base": cfg.model or "minilm", "labels": list(LABELS), "max_length": cfg.data.max_length,
        "thresholds": {t: 0.5 for t in ERROR_TYPES},
    }  # fmt: skip
    (final / CONFIG_NAME).write_text(json.dumps(meta, indent=1) + "\n")
    detector = Detector(final, device=device)

    def scored(examples: list[dict[str, Any]]) -> list[list[tuple[str, int, int, float]]]:
        preds = detector.spans(
            [e["text"] for e in examples], [e["refs"] for e in examples], apply_thresholds=False
        )
        return [[(p.type, p.start, p.end, p.confidence) for p in ps] for ps in preds]

    thresholds, tune_f1 = tune_thresholds([e["spans"] for e in tune_set], scored(tune_set))
    meta["thresholds"] = thresholds
    meta["tuning_span_f1"] = tune_f1
    val_f1 = {}
    if val_set:
        val_scored = scored(val_set)
        val_gold = [e["spans"] for e in val_set]
        val_f1 = {
            t: round(_f1(*_span_f1(val_gold, val_scored, t, thresholds[t])), 4) for t in ERROR_TYPES
        }
    (final / CONFIG_NAME).write_text(json.dumps(meta, indent=1) + "\n")
    return {"thresholds": thresholds, "tuning_span_f1_per_type": tune_f1,
            "validation_span_f1_per_type": val_f1}  # fmt: skip
