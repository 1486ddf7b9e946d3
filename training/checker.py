"""Training the encoder checker (``task: checker``; preset ``minilm_checker``).

Data: labelled (claim, evidence) pairs and span rows (:mod:`favakit.training.pairs`), from
``data.train_file`` (comma-separated files or globs), normalised, deduplicated, with a
development split carved per source and grouped by claim, rule-made hard negatives and source
weights (``data.source_weights``). Files in measuring-only folders are refused.

Model: a BERT-style encoder (``model``: ``minilm`` or a folder) with two heads over
``[CLS] text [SEP] evidence [SEP]``: the sequence head (supported or not, cross-entropy on every
pair) and an untyped token head (unsupported or not, on the text's tokens, only where the row
says where: span rows, and every token of a supported text). Real spans carry no FAVA type, so
this head has no types to teach wrongly. Evidence longer than fits is cut to the sentences that
share the most words with the claim (:func:`~favakit.inference.evidence_reading.fit_evidence`).
``method: full`` trains the whole encoder; ``method: lora`` (preset ``mpnet_checker``) an adapter
on ``lora.target_modules`` with the classifier and token head trained whole, and the saved
folder holds the adapter over the base ``checker.json`` names. ``notes.base_rounding: int8``
rounds the base's weights as :func:`~favakit.inference.int8.pack_int8` stores them first (a
base that travelled packed), and the checker does the same on load.

Distillation: ``notes.teacher_scores`` names a JSONL file of ``{"key", "score"}`` rows, a larger
checker's P(supported) for the training pairs (``scripts/teacher_scores.py``; ``key`` is
:func:`~favakit.training.pairs.pair_key`). The sequence loss is then ``(1 - w)`` x the
cross-entropy with the human label plus ``w`` x the cross-entropy with the teacher's probability
(``w`` = ``notes.teacher_weight``, 0.5), for the pairs the file scores; the rest keep the human
label alone. The development split is never scored by the teacher's file.

``notes.time_limit_s`` stops training early, at a deadline, with the same final evaluation and
save as a finished run (the learning-rate schedule is not shortened); it also keeps a checkpoint
of that step, so ``--resume`` goes on towards the planned steps (with a new deadline).

The loop: length-bucketed batches (``data.length_buckets``), bf16 autocast where the CPU or GPU
has it, a log line per ``log_every`` steps (loss, examples/s, ETA), a checkpoint every
``save_every`` steps (model, optimizer, scheduler and RNG states, loaded back with
``weights_only=True``) and ``--resume``; every ``eval_every`` steps the development split is
scored and the best checkpoint so far is kept. At the end the best is saved with the threshold
that maximises the mean of the per-source balanced accuracies on the development split, a
reliability table, and its figures, in ``checker.json``. ``data.validation_file`` gives the
development rows instead of carving them. Where no source of the split holds both labels, the
rows pooled are measured; where the split holds one label or none, nothing can be compared: the
run warns, keeps its last step and the threshold 0.5, and says so in ``checker.json``
(:func:`dev_problem`).
"""

from __future__ import annotations

import json
import logging
import math
import random
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from favakit.claim_metrics import balanced_accuracy
from favakit.deps import bf16_wanted, require
from favakit.devices import torch_device
from favakit.errors import UsageError
from favakit.inference.checker import CONFIG_NAME, Checker
from favakit.inference.evidence_reading import fit_evidence
from favakit.records import output_folder, replace_folder, settle_folder
from favakit.training import runtime
from favakit.training.config import TrainConfig, data_files, validate_config
from favakit.training.pairs import Pair, Prepared, pair_key, prepare

__all__ = [
    "balanced_accuracy",
    "choose_threshold",
    "data_files",
    "dev_measure",
    "dev_problem",
    "reliability",
    "train_checker",
]

log = logging.getLogger("favakit.training.checker")
IGNORE = -100
#: the best model's record (score, step, threshold), saved inside its folder
BEST_RECORD = "best.json"


def _evidence_words(cfg: TrainConfig) -> int:
    """Evidence words that fit beside a claim in ``data.max_length`` tokens: what training shows
    and the piece size inference reads (stored in ``checker.json``)."""
    return max(32, int(cfg.data.max_length * 0.6))


def _teacher(path: str) -> dict[str, float]:
    """``notes.teacher_scores``: pair key -> the teacher's P(supported)."""
    if not Path(path).exists():
        raise UsageError(f"notes.teacher_scores: {path} does not exist")
    scores: dict[str, float] = {}
    with Path(path).open(encoding="utf-8") as lines:
        for lineno, line in enumerate(lines, 1):
            try:
                row = json.loads(line)
                scores[str(row["key"])] = float(row["score"])
            except (ValueError, KeyError, TypeError) as e:
                raise UsageError(f"{path}:{lineno}: expected {{key, score}} ({e})") from e
    return scores


def _encode(tokenizer: Any, pairs: list[Pair], max_length: int, words: int,
            teacher: dict[str, float] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    out = []
    for p in pairs:
        evidence = fit_evidence(p.text, p.evidence, words)
        enc = tokenizer(p.text, evidence, truncation="only_second", max_length=max_length,
                        return_offsets_mapping=True)  # fmt: skip
        seq = enc.sequence_ids()
        labels = [IGNORE] * len(enc["input_ids"])
        if p.label or p.has_spans:
            for i, (sid, (s, e)) in enumerate(zip(seq, enc["offset_mapping"], strict=True)):
                if sid == 0 and e > s:
                    labels[i] = int(any(s < b and e > a for a, b in p.spans))
        target = teacher.get(pair_key(p), -1.0) if teacher else -1.0
        out.append({"input_ids": enc["input_ids"], "token_type_ids": enc.get("token_type_ids"),
                    "label": int(p.label), "target": target, "token_labels": labels,
                    "source": p.source})  # fmt: skip
    return out


def _collate(torch: Any, items: list[dict[str, Any]], pad: int) -> dict[str, Any]:
    n = max(len(x["input_ids"]) for x in items)

    def padded(key: str, fill: int) -> Any:
        return torch.tensor([list(x[key] or []) + [fill] * (n - len(x[key] or [])) for x in items])

    batch = {
        "input_ids": padded("input_ids", pad),
        "attention_mask": torch.tensor(
            [[1] * len(x["input_ids"]) + [0] * (n - len(x["input_ids"])) for x in items]
        ),
        "labels": torch.tensor([x["label"] for x in items]),
        "targets": torch.tensor([float(x.get("target", -1.0)) for x in items]),
        "token_labels": padded("token_labels", IGNORE),
    }
    if items[0].get("token_type_ids") is not None:
        batch["token_type_ids"] = padded("token_type_ids", 0)
    return batch


def dev_measure(dev: list[Pair], scores: list[float], threshold: float) -> float:
    """What the development split says of ``scores`` at ``threshold``: the mean over sources
    with both labels of their balanced accuracy. Where no source has both (a user's supported
    and unsupported rows in two files, each its own source), the balanced accuracy of all the
    rows together; NaN where the split holds one label or none (:func:`dev_problem`)."""
    groups: dict[str, tuple[list[bool], list[float]]] = {}
    for p, s in zip(dev, scores, strict=True):
        ys, ss = groups.setdefault(p.source, ([], []))
        ys.append(p.label)
        ss.append(s)
    values = [balanced_accuracy(y, s, threshold) for y, s in groups.values()]
    values = [v for v in values if not math.isnan(v)]
    if values:
        return sum(values) / len(values)
    return balanced_accuracy([p.label for p in dev], scores, threshold)


FEW_DEV_ROWS = 20
"""Fewer development rows of either label than this, and :func:`dev_problem` warns."""


def dev_problem(dev: list[Pair]) -> str | None:
    """Why the development split cannot choose as :func:`dev_measure` usually does, if it
    cannot: said to the user when training starts, and kept in ``checker.json``."""
    ask = "give more labelled rows, a larger data.validation_fraction or data.validation_file"
    supported = sum(p.label for p in dev)
    if not dev or supported in (0, len(dev)):
        held = ("no rows" if not dev else
                f"{len(dev)} rows, all {'supported' if supported else 'not supported'}")  # fmt: skip
        return (f"the development split holds {held}: checkpoints cannot be compared, so the "
                f"run keeps its last step and the threshold 0.5 ({ask})")  # fmt: skip
    labels: dict[str, set[bool]] = {}
    for p in dev:
        labels.setdefault(p.source, set()).add(p.label)
    if all(len(held) == 1 for held in labels.values()):
        return (
            "no source of the development split holds both labels: checkpoints and the "
            "threshold are chosen by the balanced accuracy of its rows pooled"
        )
    fewer = min(supported, len(dev) - supported)
    if fewer < FEW_DEV_ROWS:
        name = "not supported" if fewer == len(dev) - supported else "supported"
        return (f"the development split holds {len(dev)} rows, {fewer} of them {name}: one row "
                f"moves its balanced accuracy by {0.5 / fewer:.2f}, so the checkpoint and "
                f"threshold chosen on it are noisy ({ask})")  # fmt: skip
    return None


def choose_threshold(dev: list[Pair], scores: list[float]) -> tuple[float, float]:
    """(threshold, :func:`dev_measure` there) on a 0.02 grid; ties: nearest 0.5. A split that
    cannot measure gives (0.5, NaN)."""
    if math.isnan(dev_measure(dev, scores, 0.5)):
        return 0.5, math.nan
    grid = [round(0.02 * i, 2) for i in range(1, 50)]
    best = max(grid, key=lambda t: (round(dev_measure(dev, scores, t), 9), -abs(t - 0.5)))
    return best, dev_measure(dev, scores, best)


def reliability(labels: list[bool], scores: list[float], bins: int = 10) -> list[dict[str, Any]]:
    """Per score bin: how many, the mean score and the share actually supported."""
    table = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, s in enumerate(scores) if lo <= s < hi or (b == bins - 1 and s == 1.0)]
        if idx:
            table.append({"bin": f"{lo:.1f}-{hi:.1f}", "n": len(idx),
                          "mean_score": round(sum(scores[i] for i in idx) / len(idx), 3),
                          "supported": round(sum(labels[i] for i in idx) / len(idx), 3)})  # fmt: skip
    return table


@dataclass
class _Run:
    """One checker training run between its phases: what it trained on and what it trains."""

    cfg: TrainConfig
    out: Path
    data: Prepared
    device: str
    bf16: bool
    tokenizer: Any
    model: Any
    head: Any
    train_set: list[dict[str, Any]]
    dev_set: list[dict[str, Any]]
    pad: int
    params: list[Any]
    optimizer: Any
    scheduler: Any
    steps_per_epoch: int
    total: int  # steps; lowered to the step reached where notes.time_limit_s stops the run
    weights: dict[str, float]  # of the token head's loss and the teacher's

    @property
    def checkpoint(self) -> Path:
        return self.out / runtime.CHECKPOINT_DIR


def train_checker(cfg: TrainConfig, resume: bool = False, progress: bool = False) -> dict[str, Any]:
    """Train, choose the checkpoint and threshold on the development split, save; a summary.
    The data is read and the development split carved (:func:`_read_data`), the model and its
    optimizer are set up (:func:`_set_up`) or resumed (:func:`_resume`), the steps run
    (:func:`_fit`), and the best step becomes the model (:func:`_finish`)."""
    torch = require("torch", "train", "training the checker")
    transformers = require("transformers", "train", "training the checker")
    out, files, data, problem = _read_data(cfg, resume)
    run = _set_up(torch, transformers, cfg, out, data)
    step, best = 0, {"score": -1.0, "step": 0}
    if resume and (run.checkpoint / "state.pt").exists():
        step, best = _resume(torch, run)
    t0, start_step, planned = time.perf_counter(), step, run.total
    step, best, seen = _fit(torch, run, step, best, progress)
    return _finish(cfg, out, files, data, best, run.device, time.perf_counter() - t0, seen,
                   start_step, step, planned, problem)  # fmt: skip


def _read_data(cfg: TrainConfig, resume: bool) -> tuple[Path, list[str], Prepared, str | None]:
    """The run's folder (checked before the data is read), its training files, the pairs with
    the development split carved from them (or read from ``data.validation_file``), and what is
    wrong with that split, if anything (:func:`dev_problem`); the config and the data's figures
    written beside the run."""
    validate_config(cfg)
    if not cfg.data.train_file:
        raise UsageError("no training data: set data.train_file=FILE.jsonl[,FILE.jsonl...]")
    files = data_files(cfg.data.train_file)
    dev_files = (
        data_files(cfg.data.validation_file, "data.validation_file")
        if cfg.data.validation_file
        else []
    )
    out = Path(cfg.output_dir)
    runtime.check_run_folder(out, (out / "model" / CONFIG_NAME).exists(),
                             (out / runtime.CHECKPOINT_DIR / "state.pt").exists(), resume)  # fmt: skip
    output_folder(out, "output_dir")  # before the data is read: a file there is said at once
    data = prepare(files, cfg.data.validation_fraction, dict(cfg.data.source_weights),
                   cfg.data.hard_negatives, cfg.seed, cfg.data.limit, dev_files)  # fmt: skip
    if not data.train:  # else no batch is ever made, and the step loop never ends
        held = ("share their claims with data.validation_file" if dev_files else
                f"fell in the development split (data.validation_fraction="
                f"{cfg.data.validation_fraction}, chosen by a hash of each claim: rows that "
                "were a development split before all fall there again)")  # fmt: skip
        raise UsageError(f"no training pairs: the {data.stats['read']} row(s) read {held}; "
                         "give more rows, or the development rows apart in "
                         "data.validation_file")  # fmt: skip
    problem = dev_problem(data.dev)
    from favakit.config import dump_config

    (out / "config.yaml").write_text(dump_config(cfg))
    chosen_on = {"validation_files": dev_files} if dev_files else {}
    (out / "data.json").write_text(
        json.dumps({"files": files, **chosen_on, **data.stats}, indent=1)
    )
    log.info("data: %s", json.dumps(data.stats))
    if problem:
        log.warning("%s", problem)
    return out, files, data, problem


def _set_up(torch: Any, transformers: Any, cfg: TrainConfig, out: Path, data: Prepared) -> _Run:
    """The model and its two heads, the pairs encoded, the optimizer and its schedule."""
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    device = torch_device(cfg.device)
    if device == "cpu":
        runtime.return_freed_memory()
    tokenizer, model = _base_model(transformers, cfg, device)
    head = torch.nn.Linear(model.config.hidden_size, 2).to(device)
    words = _evidence_words(cfg)
    teacher = (
        _teacher(str(cfg.notes["teacher_scores"])) if cfg.notes.get("teacher_scores") else None
    )
    train_set = _encode(tokenizer, data.train, cfg.data.max_length, words, teacher)
    if teacher is not None:
        covered = sum(x["target"] >= 0 for x in train_set)
        log.info("teacher scores for %d of %d training pairs", covered, len(train_set))
        if not covered:
            raise UsageError("notes.teacher_scores: it scores none of the training pairs")
    params = [p for p in model.parameters() if p.requires_grad] + list(head.parameters())
    optimizer = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps_per_epoch = max(1, math.ceil(len(train_set) / cfg.batch_size))
    total = cfg.max_steps or max(1, int(cfg.epochs * steps_per_epoch))
    scheduler = transformers.get_scheduler(
        "constant_with_warmup" if cfg.schedule == "constant" else cfg.schedule, optimizer,
        num_warmup_steps=int(cfg.warmup_ratio * total), num_training_steps=total,
    )  # fmt: skip
    teacher_weight = float(cfg.notes.get("teacher_weight", 0.5)) if teacher is not None else 0.0
    weights = {"token": float(cfg.notes.get("token_loss_weight", 0.5)), "teacher": teacher_weight}
    return _Run(
        cfg=cfg, out=out, data=data, device=device, bf16=bf16_wanted(cfg.precision, device),
        tokenizer=tokenizer, model=model, head=head, train_set=train_set,
        dev_set=_encode(tokenizer, data.dev, cfg.data.max_length, words),
        pad=int(tokenizer.pad_token_id or 0), params=params, optimizer=optimizer,
        scheduler=scheduler, steps_per_epoch=steps_per_epoch, total=total, weights=weights,
    )  # fmt: skip


def _base_model(transformers: Any, cfg: TrainConfig, device: str) -> tuple[Any, Any]:
    """The tokenizer and the sequence classifier over ``cfg.model`` (default MiniLM), rounded
    as ``notes.base_rounding`` says, with LoRA over it for ``method: lora``."""
    from favakit.retrieval.encoder import resolve_encoder

    base = resolve_encoder(cfg.model or "minilm").model
    if base.startswith(("/", "./", "../", "~")) and not Path(base).expanduser().is_dir():
        raise UsageError(f"model: {base} is not a folder (give a model folder or 'minilm')")
    if cfg.method not in ("lora", "full"):
        raise UsageError(f"method={cfg.method}: the checker trains with lora or full")
    tokenizer = transformers.AutoTokenizer.from_pretrained(base)
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()  # a bar per weight load is noise
    model = transformers.AutoModelForSequenceClassification.from_pretrained(
        base, num_labels=2, id2label={0: "not_supported", 1: "supported"},
        label2id={"not_supported": 0, "supported": 1},
    ).to(device)  # fmt: skip
    if cfg.notes.get("base_rounding"):
        _round_base(model, str(cfg.notes["base_rounding"]))
    if cfg.method == "lora":
        model = runtime.encoder_lora(model, cfg.lora, "SEQ_CLS")
    return tokenizer, model


def _resume(torch: Any, run: _Run) -> tuple[int, dict[str, Any]]:
    """The checkpoint's state put back into ``run``; the step it was at and the best so far."""
    state = torch.load(run.checkpoint / "state.pt", map_location=run.device, weights_only=True)
    run.model.load_state_dict(state["model"])
    run.head.load_state_dict(state["head"])
    run.optimizer.load_state_dict(state["optimizer"])
    run.scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["torch_rng"])
    step = int(state["step"])
    log.info("resumed at step %d", step)
    return step, _resumed_best(run.out)


def _fit(torch: Any, run: _Run, step: int, best: dict[str, Any], progress: bool
         ) -> tuple[int, dict[str, Any], int]:  # fmt: skip
    """The steps from ``step`` to ``run.total``, in length-bucketed batches: a log line every
    ``log_every``, the development split measured every ``eval_every`` (the best step saved),
    a checkpoint every ``save_every``; stopped early by ``notes.time_limit_s``. The last step,
    the best record and the pairs seen."""
    cfg = run.cfg
    time_limit = float(cfg.notes.get("time_limit_s", 0))  # 0: none
    bar: Any = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=run.total, initial=step, desc="train checker", unit="step")
    run.model.train()
    t0, seen = time.perf_counter(), 0
    lengths = [len(x["input_ids"]) for x in run.train_set]
    losses: list[float] = []
    while step < run.total:
        epoch, within = divmod(step, run.steps_per_epoch)
        batches = runtime.epoch_batches(
            lengths, cfg.batch_size, cfg.seed, epoch, cfg.data.length_buckets
        )
        for idx in batches[within:]:
            batch = _collate(torch, [run.train_set[i] for i in idx], run.pad)
            loss = _batch_loss(torch, run.model, run.head, batch, run.device, run.bf16,
                               run.weights)  # fmt: skip
            loss.backward()
            torch.nn.utils.clip_grad_norm_(run.params, cfg.max_grad_norm)
            run.optimizer.step()
            run.scheduler.step()
            run.optimizer.zero_grad(set_to_none=True)
            step += 1
            seen += len(idx)
            if time_limit and step < run.total and time.perf_counter() - t0 > time_limit:
                log.warning("notes.time_limit_s (%ss) reached: stopping at step %d of %d",
                            time_limit, step, run.total)  # fmt: skip
                run.total = step  # the last evaluation and the save below happen now
                _checkpoint(torch, run, step)  # to resume
            losses.append(float(loss.detach()))
            if bar is not None:
                bar.update(1)
            if step % cfg.log_every == 0 or step == run.total:
                _log_step(run, step, seen / (time.perf_counter() - t0), losses[-cfg.log_every :])
            if (cfg.eval_every and step % cfg.eval_every == 0) or step == run.total:
                best = _measured(torch, run, step, losses[-1], best)
            if cfg.save_every and step % cfg.save_every == 0 and step < run.total:
                _checkpoint(torch, run, step)
            if step >= run.total:
                break
    if bar is not None:
        bar.close()
    return step, best, seen


def _log_step(run: _Run, step: int, rate: float, losses: list[float]) -> None:
    """A line of ``train_log.jsonl``: the mean of the last losses, pairs a second, time left."""
    record = {"step": step, "loss": round(sum(losses) / len(losses), 4),
              "examples_per_s": round(rate, 1),
              "eta_s": round((run.total - step) * run.cfg.batch_size / max(rate, 1e-9)),
              "rss_mb": runtime.rss_mb()}  # fmt: skip
    runtime.log_record(
        run.out / "train_log.jsonl", None, {**record, "lr": run.scheduler.get_last_lr()[0]}
    )


def _measured(torch: Any, run: _Run, step: int, loss: float, best: dict[str, Any]
              ) -> dict[str, Any]:  # fmt: skip
    """The development split scored at ``step`` and its threshold chosen; the step saved as
    ``best`` where it beats the best so far (or where there is nothing to compare)."""
    run.model.eval()
    scores = _dev_scores(torch, run.model, run.dev_set, run.pad, run.device, run.bf16)
    run.model.train()
    threshold, score = _measure_step(run.data.dev, scores, step, loss, run.out)
    if score is None or score > best["score"]:  # nothing to compare: the latest
        best = {"score": -1.0 if score is None else score, "step": step, "threshold": threshold}
        _save_model(torch, run.model, run.head, run.tokenizer, run.out / "best", best)
    return best


def _batch_loss(torch: Any, model: Any, head: Any, batch: dict[str, Any], device: str,
                bf16: bool, weights: dict[str, float]) -> Any:  # fmt: skip
    """One batch's loss: the sequence head's cross-entropy with the human label (mixed with the
    teacher's probability by ``weights["teacher"]`` where the batch has one), plus
    ``weights["token"]`` x the token head's cross-entropy where the rows say where."""
    batch = {k: v.to(device) for k, v in batch.items()}
    token_labels = batch.pop("token_labels")
    targets = batch.pop("targets")
    with torch.autocast(device_type=device.split(":")[0], dtype=torch.bfloat16, enabled=bf16):
        got = model(**batch, output_hidden_states=True)
        token_logits = head(got.hidden_states[-1])
    loss = got.loss.float()
    taught = targets >= 0
    if weights["teacher"] and taught.any():
        logp = torch.log_softmax(got.logits.float()[taught], dim=-1)
        t = targets[taught]
        soft = -(t * logp[:, 1] + (1 - t) * logp[:, 0]).mean()
        loss = (1 - weights["teacher"]) * loss + weights["teacher"] * soft
    if (token_labels != IGNORE).any():
        loss = loss + weights["token"] * torch.nn.functional.cross_entropy(
            token_logits.float().reshape(-1, 2), token_labels.reshape(-1), ignore_index=IGNORE
        )
    return loss


def _measure_step(dev: list[Any], scores: list[float], step: int, loss: float,
                  out: Path) -> tuple[float, float | None]:  # fmt: skip
    """This step on the development split, logged: the threshold chosen for it and the mean
    per-source balanced accuracy there, or None where the split cannot measure one."""
    threshold, mean_ba = choose_threshold(dev, scores)
    score = None if math.isnan(mean_ba) else mean_ba
    record = {"step": step, "dev_mean_balanced_accuracy": None if score is None else round(score, 4),
              "threshold": threshold, "loss": loss}  # fmt: skip
    runtime.log_record(out / "train_log.jsonl", None, record)
    return threshold, score


def _round_base(model: Any, rounding: str) -> None:
    """The base's weights rounded as :func:`~favakit.inference.int8.pack_int8` stores them
    (``notes.base_rounding: int8``): a base that travelled packed trains the same as its
    original, and :class:`~favakit.inference.checker.Checker` rounds the original alike."""
    if rounding != "int8":
        raise UsageError(f"notes.base_rounding={rounding!r}: the one rounding is 'int8'")
    from favakit.inference.int8 import round_int8

    model.load_state_dict(round_int8(model.state_dict()))


def _dev_scores(torch: Any, model: Any, dev_set: list[dict[str, Any]], pad: int, device: str,
                bf16: bool) -> list[float]:  # fmt: skip
    scores = [0.0] * len(dev_set)
    order = sorted(range(len(dev_set)), key=lambda i: len(dev_set[i]["input_ids"]))
    with torch.inference_mode():
        for s in range(0, len(order), 64):
            idx = order[s : s + 64]
            batch = _collate(torch, [dev_set[i] for i in idx], pad)
            batch.pop("token_labels")
            batch.pop("targets")
            batch.pop("labels")
            with torch.autocast(
                device_type=device.split(":")[0], dtype=torch.bfloat16, enabled=bf16
            ):
                logits = model(**{k: v.to(device) for k, v in batch.items()}).logits
            for i, p in zip(idx, torch.softmax(logits.float(), -1)[:, 1].tolist(), strict=True):
                scores[i] = float(p)
    return scores


def _save_model(torch: Any, model: Any, head: Any, tokenizer: Any, folder: Path,
                best: dict[str, Any]) -> None:  # fmt: skip
    """The best model so far, with its record (``best.json``: score, step, threshold) inside
    it, so that a kill between this save and the next checkpoint cannot pair a model with
    another step's threshold."""
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    torch.save(head.state_dict(), tmp / "token_head.pt")
    (tmp / BEST_RECORD).write_text(json.dumps(best))
    replace_folder(tmp, folder)


def _resumed_best(out: Path) -> dict[str, Any]:
    """The best record of a killed run: the one saved inside its best model's folder."""
    record = settle_folder(out / "best") / BEST_RECORD
    return json.loads(record.read_text()) if record.exists() else {"score": -1.0, "step": 0}


def _checkpoint(torch: Any, run: _Run, step: int) -> None:
    """``run``'s model, heads, optimizer, schedule and random state at ``step``, for --resume."""
    ckpt = run.checkpoint
    ckpt.mkdir(parents=True, exist_ok=True)
    state = {"model": run.model.state_dict(), "head": run.head.state_dict(),
             "optimizer": run.optimizer.state_dict(), "scheduler": run.scheduler.state_dict(),
             "torch_rng": torch.get_rng_state(), "step": step}  # fmt: skip
    torch.save(state, ckpt / "state.tmp")
    # replaced whole: a run killed while writing keeps the last checkpoint readable (a kill
    # during a plain write of a file here once left it empty, and --resume failed on it)
    (ckpt / "state.tmp").replace(ckpt / "state.pt")


def _finish(cfg: TrainConfig, out: Path, files: list[str], data: Any, best: dict[str, Any],
            device: str, seconds: float, seen: int, start_step: int, step: int, planned: int,
            problem: str | None) -> dict[str, Any]:  # fmt: skip
    """The best checkpoint as the run's model: threshold, reliability and figures in
    ``checker.json``, measured again through the inference class. A run stopped before its
    ``planned`` steps (``notes.time_limit_s``) keeps its checkpoint for ``--resume``."""
    final = out / "model"
    shutil.rmtree(final, ignore_errors=True)
    shutil.copytree(settle_folder(out / "best"), final, ignore=shutil.ignore_patterns(BEST_RECORD))
    meta = {"name": str(cfg.notes.get("name", "favakit-checker")), "base": cfg.model or "minilm",
            "max_length": cfg.data.max_length, "piece_words": _evidence_words(cfg),
            "threshold": best.get("threshold", 0.5)}  # fmt: skip
    if cfg.method == "lora":  # the folder holds an adapter: Checker loads the base it names
        meta["adapter"] = {"r": cfg.lora.r, "alpha": cfg.lora.alpha}
    if cfg.notes.get("base_rounding"):
        meta["base_rounding"] = str(cfg.notes["base_rounding"])
    (final / CONFIG_NAME).write_text(json.dumps(meta, indent=1))
    checker = Checker(final, device=device)
    scored = checker.score([p.text for p in data.dev], [p.evidence for p in data.dev])
    scores = [s for s, _ in scored]
    threshold = float(meta["threshold"])
    per_source: dict[str, float] = {}
    for source in sorted({p.source for p in data.dev}):
        ys = [p.label for p in data.dev if p.source == source]
        ss = [s for p, s in zip(data.dev, scores, strict=True) if p.source == source]
        ba = balanced_accuracy(ys, ss, threshold)
        if not math.isnan(ba):
            per_source[source] = round(ba, 4)
    measure = dev_measure(data.dev, scores, threshold)
    meta.update(
        best_step=best.get("step"),
        dev={"rows": len(data.dev), "mean_balanced_accuracy": None if math.isnan(measure) else round(measure, 4),
             "per_source": per_source,
             "reliability": reliability([p.label for p in data.dev], scores),
             **({"note": problem} if problem else {})},
        training={"files": [Path(f).name for f in files], **data.stats,
                  "steps": step, "examples_per_s": round(seen / seconds, 1) if seconds else None},
    )  # fmt: skip
    (final / CONFIG_NAME).write_text(json.dumps(meta, indent=1))
    summary = {"output": str(final), "best_step": best.get("step"), "threshold": threshold,
               "dev_mean_balanced_accuracy": meta["dev"]["mean_balanced_accuracy"],
               "steps": step, "planned_steps": planned, "resumed_at": start_step,
               **({"dev_note": problem} if problem else {})}  # fmt: skip
    if problem:
        log.warning("%s", problem)  # again where the run ends: the first is far up its log
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    if step < planned:
        log.warning("stopped at step %d of %d: --resume with the same output_dir goes on",
                    step, planned)  # fmt: skip
    else:
        shutil.rmtree(out / runtime.CHECKPOINT_DIR, ignore_errors=True)
    return summary
