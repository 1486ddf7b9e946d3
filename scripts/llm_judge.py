"""Tune an instruct LM as a claim judge with LoRA on real labelled pairs (issue 31's "LLM judge,
tuned"): the strict prompt (``favakit.inference.judges.strict_prompt``) through the model's chat
template, answered by one token, "True" or "False".

Three steps, so that the slow one can run on a GPU machine that reads prepared files only:

    # 1. prompts (CPU): the checker's training pairs and development split (favakit.training.pairs,
    #    the same files, seed and source weights as the minilm_checker preset), and the rows of
    #    any sets to score (eval sets only measure: nothing here learns from them)
    python scripts/llm_judge.py data --real ../shared/data/real --out runs/judge_data \
        --score-sets fm2_test,scifact,citint_test,wice_test,anli_dev

    # 2. train and score (GPU where lent; any torch device): LoRA on every linear layer, the loss
    #    a two-way cross-entropy over the first answer token's "True" and "False" logits;
    #    P(supported) = softmax over those two, as favakit's Judge reads it from log-probabilities
    python scripts/llm_judge.py train --gguf qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \
        --data runs/judge_data --out runs/qwen_judge --train-seconds 300 --base-too

    # 3. report (CPU): the threshold chosen on the development split (mean per-source balanced
    #    accuracy, as the checker's), then balanced accuracy, ROC AUC and F1 per scored set
    python scripts/llm_judge.py report --scores runs/qwen_judge/scores.jsonl --out qwen_judge.json

Each prompt reads the claim's evidence cut to the ``--words`` words that share the most with it
(``favakit.inference.evidence_reading.fit_evidence``), as the cascade's second judge reads it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

TRAIN_FILES = ("train/*.jsonl", "train_spans/*.jsonl")
ANSWERS = ("True", "False")


# ---------------------------------------------------------------------------------------------
# 1. data


def judge_prompt(text: str, evidence: list[str], words: int) -> str:
    """The strict prompt of ``text`` against ``evidence`` cut to ``words`` words, built the way
    favakit's llm judge builds it (through an EditRequest), so training and use read alike."""
    from favakit.contracts import as_request
    from favakit.inference.evidence_reading import fit_evidence
    from favakit.inference.judges import Check, strict_prompt

    request = as_request({"text": text, "evidence": [fit_evidence(text, evidence, words)]})
    passages = [{"title": e.title, "text": e.text} for e in request.evidence or []]
    return strict_prompt(Check(request.topic or "", request.text, passages))


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)


def read_rows(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def build_data(args: argparse.Namespace) -> None:
    from favakit.training.checker import data_files
    from favakit.training.pairs import normalize, prepare

    real = Path(args.real)
    files = data_files(",".join(str(real / f) for f in TRAIN_FILES))
    data = prepare(files, dev_fraction=0.05, weights={"snli": 0.5}, hard_share=0.3, seed=0)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    train = [{"prompt": judge_prompt(p.text, p.evidence, args.words), "label": bool(p.label)}
             for p in data.train]  # fmt: skip
    random.Random(0).shuffle(train)
    dev = [{"set": "dev", "id": p.id, "source": p.source, "label": bool(p.label),
            "prompt": judge_prompt(p.text, p.evidence, args.words)} for p in data.dev]  # fmt: skip
    scored: list[dict[str, Any]] = []
    for name in [s for s in args.score_sets.split(",") if s]:
        for line in (real / "eval" / f"{name}.jsonl").open(encoding="utf-8"):
            r = json.loads(line)
            text, evidence = normalize(r["text"]), [normalize(str(e)) for e in r["evidence"]]
            scored.append({"set": name, "id": r["id"], "label": r["label"] == "supported",
                           "prompt": judge_prompt(text, evidence, args.words)})  # fmt: skip
    with (out / "dev_rows.jsonl").open("w", encoding="utf-8") as fh:  # for other judges' scores
        fh.writelines(json.dumps({"id": p.id, "source": p.source, "text": p.text, "evidence":
                                  p.evidence, "label": "supported" if p.label else
                                  "not_supported"}) + "\n" for p in data.dev)  # fmt: skip
    _write(out / "train.jsonl.gz", train)
    _write(out / "dev.jsonl.gz", dev)
    _write(out / "score.jsonl.gz", scored)
    meta = {"words": args.words, "files": files, "stats": data.stats, "score_sets": args.score_sets}
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps({"train": len(train), "dev": len(dev), "score": len(scored)}))


# ---------------------------------------------------------------------------------------------
# 2. train and score


def load_model(args: argparse.Namespace) -> tuple[Any, Any]:
    import torch
    import transformers

    dtype = torch.bfloat16 if args.device.startswith("cuda") else torch.float32
    if args.gguf:
        gguf = Path(args.gguf)
        tok = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        model: Any = transformers.AutoModelForCausalLM.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name, dtype=dtype,
            quantization_config=transformers.GgufConfig(dequantize=True))  # fmt: skip
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
    else:
        tok = transformers.AutoTokenizer.from_pretrained(args.model)
        model = transformers.AutoModelForCausalLM.from_pretrained(args.model, dtype=dtype)
    return tok, model.to(args.device)


def answer_ids(tok: Any) -> list[int]:
    """The first token of "True" and of "False" (each a single token in the models favakit
    tunes; the judge reads P(supported) from that first token)."""
    ids = [tok.encode(a, add_special_tokens=False)[0] for a in ANSWERS]
    if ids[0] == ids[1]:
        raise SystemExit(f"the tokenizer reads {ANSWERS} as the same first token")
    return ids


def encode(tok: Any, rows: list[dict[str, Any]], max_tokens: int) -> list[list[int]]:
    """Each prompt through the chat template with the generation prompt, as token ids; a prompt
    longer than ``max_tokens`` keeps its last ``max_tokens`` (its claim and question)."""
    texts = [
        tok.apply_chat_template([{"role": "user", "content": r["prompt"]}], tokenize=False,
                                add_generation_prompt=True)
        for r in rows
    ]  # fmt: skip
    ids = tok(texts, add_special_tokens=False)["input_ids"]
    return [x[-max_tokens:] for x in ids]


def batches(lengths: list[int], tokens: int, seed: int | None) -> list[list[int]]:
    """Indices in batches of similar length, at most ``tokens`` padded tokens each; shuffled
    batches when ``seed`` is given (training), in length order otherwise (scoring)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    out: list[list[int]] = []
    cur: list[int] = []
    for i in order:
        if cur and (len(cur) + 1) * lengths[i] > tokens:
            out.append(cur)
            cur = []
        cur.append(i)
    if cur:
        out.append(cur)
    if seed is not None:
        random.Random(seed).shuffle(out)
    return out


def two_logits(model: Any, ids: list[list[int]], answer: list[int], pad: int, device: str) -> Any:
    """The last position's logits of "True" and "False" for a left-padded batch."""
    import torch

    n = max(len(x) for x in ids)
    input_ids = torch.tensor([[pad] * (n - len(x)) + x for x in ids], device=device)
    mask = torch.tensor([[0] * (n - len(x)) + [1] * len(x) for x in ids], device=device)
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    out = model(input_ids=input_ids, attention_mask=mask, position_ids=positions,
                logits_to_keep=1)  # fmt: skip
    return out.logits[:, -1, answer].float()


def step_loss(model: Any, ids: list[list[int]], labels: list[int], batch: list[int], micro: int,
              answer: list[int], pad: int, device: str) -> Any:  # fmt: skip
    """Backpropagate the mean two-way cross-entropy of ``batch`` in ``micro`` parts."""
    import torch

    size = math.ceil(len(batch) / micro)
    total = 0.0
    for k in range(0, len(batch), size):
        part = batch[k : k + size]
        with torch.autocast(device_type=device.split(":")[0], dtype=torch.bfloat16,
                            enabled=device.startswith("cuda")):  # fmt: skip
            logits = two_logits(model, [ids[i] for i in part], answer, pad, device)
        y = torch.tensor([labels[i] for i in part], device=device)
        loss: Any = torch.nn.functional.cross_entropy(logits, y) * len(part) / len(batch)
        if not torch.isfinite(loss):  # a non-finite forward teaches nothing: skip the batch
            return loss.detach()
        loss.backward()
        total += loss.item()
    return torch.tensor(total)


def train(args: argparse.Namespace) -> None:
    import torch
    from peft import LoraConfig, get_peft_model

    start = time.time()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = (out / "train.log").open("a", encoding="utf-8")

    def say(msg: str) -> None:
        line = f"[{time.time() - start:6.0f}s] {msg}"
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    tok, model = load_model(args)
    say(f"model loaded on {args.device}")
    answer = answer_ids(tok)
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    data = Path(args.data)
    rows = read_rows(data / "train.jsonl.gz")
    if args.limit:
        rows = rows[: args.limit]
    ids = encode(tok, rows, args.max_tokens)
    labels = [0 if r["label"] else 1 for r in rows]  # class 0: "True"
    say(f"{len(rows)} training prompts, mean {sum(map(len, ids)) / len(ids):.0f} tokens")
    targets = [m for m in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                           "down_proj") if any(n.endswith(m) for n, _ in model.named_modules())]  # fmt: skip
    model = get_peft_model(model, LoraConfig(r=args.lora_r, lora_alpha=2 * args.lora_r,
                                             lora_dropout=0.0, target_modules=targets))  # fmt: skip
    params = [p for p in model.parameters() if p.requires_grad]
    for p in params:
        p.data = p.data.float()  # the adapter trains in fp32 over a bf16 base
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.0)
    plan = batches([len(x) for x in ids], args.batch_tokens, seed=0)
    planned = len(plan) * args.epochs
    model.train()
    step, seen, micro, skipped, t0 = 0, 0, 1, 0, time.time()
    t10 = t0
    losses: list[float] = []
    done = False
    for epoch in range(args.epochs):
        for b in batches([len(x) for x in ids], args.batch_tokens, seed=epoch):
            if time.time() - t0 > args.train_seconds:
                done = True
                break
            if step == 10:
                t10 = time.time()
            if step == 30:  # re-plan the schedule on the pace after warm-up (steps 10-30)
                per_step = (time.time() - t10) / 20
                left = args.train_seconds - (time.time() - t0)
                planned = min(planned, step + int(left / per_step))
            frac = step / max(1, planned)
            lr = args.lr * min(1.0, (step + 1) / 20) * max(0.1, 1.0 - frac)
            for g in opt.param_groups:
                g["lr"] = lr
            try:
                loss = step_loss(model, ids, labels, b, micro, answer, pad, args.device)
            except torch.cuda.OutOfMemoryError:  # split this and later batches in two
                opt.zero_grad(set_to_none=True)
                torch.cuda.empty_cache()
                micro *= 2
                say(f"out of memory at {len(b)} prompts: {micro} micro-batches from now on")
                continue
            norm = torch.nn.utils.clip_grad_norm_(params, 1.0)
            if not (torch.isfinite(loss) and torch.isfinite(norm)):
                opt.zero_grad(set_to_none=True)
                skipped += 1
                say(f"step {step}: loss {loss.item()} grad norm {norm.item()}: batch skipped")
                continue
            opt.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            seen += len(b)
            losses.append(loss.item())
            if step % args.log_every == 0:
                rate = seen / (time.time() - t0)
                say(f"step {step}/{planned} epoch {epoch} loss {sum(losses[-args.log_every:]) / args.log_every:.4f} "
                    f"lr {lr:.2e} {rate:.0f} examples/s")  # fmt: skip
        if done:
            break
    say(
        f"trained {step} steps, {seen} examples ({seen / len(ids):.2f} epochs) in {time.time() - t0:.0f}s"
    )
    model.eval()
    for p in params:  # stored (and scored) in fp16: half the file, the precision LoRA needs
        p.data = p.data.half()
    model.save_pretrained(str(out / "adapter"))
    meta = {"steps": step, "examples": seen, "epochs": round(seen / len(ids), 3),
            "lora_r": args.lora_r, "lr": args.lr, "batch_tokens": args.batch_tokens,
            "max_tokens": args.max_tokens, "train_seconds": round(time.time() - t0),
            "data": json.loads((data / "meta.json").read_text()) if (data / "meta.json").exists() else None,
            "answer_ids": answer, "skipped_batches": skipped, "last_losses": losses[-50:]}  # fmt: skip
    (out / "judge_train.json").write_text(json.dumps(meta, indent=1) + "\n")
    say("adapter saved")
    score_all(args, model, tok, answer, pad, out, say, start)


def score_all(args: argparse.Namespace, model: Any, tok: Any, answer: list[int], pad: int,
              out: Path, say: Any, start: float) -> None:  # fmt: skip
    """Scores of the development rows, then of the sets to score: tuned first, then (with
    --base-too, while time is left) the base model with the adapter off."""
    import contextlib

    dev = read_rows(Path(args.data) / "dev.jsonl.gz")
    other = read_rows(Path(args.data) / "score.jsonl.gz")
    groups = [("dev", dev)] + [(s, [r for r in other if r["set"] == s])
                               for s in dict.fromkeys(r["set"] for r in other)]  # fmt: skip
    runs = [("tuned", g) for g in groups]
    if args.base_too:
        runs += [("base", g) for g in groups]
    with (out / "scores.jsonl").open("a", encoding="utf-8") as fh:
        for judge, (name, rows) in runs:
            if args.deadline and time.time() - start > args.deadline:
                say(f"deadline: {judge} {name} not scored")
                continue
            off = model.disable_adapter() if judge == "base" else contextlib.nullcontext()
            t = time.time()
            with off:
                scores = score(model, tok, rows, answer, pad, args)
            for r, s in zip(rows, scores, strict=True):
                fh.write(json.dumps({"judge": judge, "set": name, "id": r["id"],
                                     "source": r.get("source", name), "label": r["label"],
                                     "score": round(s, 5)}) + "\n")  # fmt: skip
            fh.flush()
            say(f"scored {judge} {name}: {len(rows)} rows in {time.time() - t:.0f}s")


def score(model: Any, tok: Any, rows: list[dict[str, Any]], answer: list[int], pad: int,
          args: argparse.Namespace) -> list[float]:  # fmt: skip
    """P(supported) of each row: the softmax of the "True" and "False" logits."""
    import torch

    ids = encode(tok, rows, args.max_tokens)
    scores = [0.0] * len(rows)
    with torch.no_grad(), torch.autocast(device_type=args.device.split(":")[0],
                                         dtype=torch.bfloat16, enabled=args.device.startswith("cuda")):  # fmt: skip
        for b in batches([len(x) for x in ids], args.batch_tokens * 2, seed=None):
            p = torch.softmax(two_logits(model, [ids[i] for i in b], answer, pad, args.device), -1)
            for i, v in zip(b, p[:, 0].tolist(), strict=True):
                scores[i] = v
    return scores


# ---------------------------------------------------------------------------------------------
# 3. report


def _groups(path: Path) -> Iterator[tuple[tuple[str, str], list[dict[str, Any]]]]:
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
        grouped.setdefault((r["judge"], r["set"]), []).append(r)
    yield from grouped.items()


def gate_threshold(dev: list[dict[str, Any]], left_alone: float) -> dict[str, float] | None:
    """The gate's threshold by issue 32's shape, on the development rows: on a 0.02 grid, the one
    flagging the largest per-source mean share of unsupported rows while the per-source mean
    share of supported rows left alone (scored above it) stays at ``left_alone`` or more."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in dev:
        groups.setdefault(r["source"], []).append(r)
    both = [g for g in groups.values() if len({bool(r["label"]) for r in g}) == 2]
    best: dict[str, float] | None = None
    for t in [round(0.02 * k, 2) for k in range(1, 50)]:
        alone = [sum(r["score"] > t for r in g if r["label"]) / sum(bool(r["label"]) for r in g)
                 for g in both]  # fmt: skip
        flagged = [sum(r["score"] <= t for r in g if not r["label"])
                   / sum(not r["label"] for r in g) for g in both]  # fmt: skip
        la, fl = sum(alone) / len(both), sum(flagged) / len(both)
        if la >= left_alone and (best is None or fl > best["flagged"]):
            best = {"threshold": t, "left_alone": round(la, 4), "flagged": round(fl, 4)}
    return best


def report(args: argparse.Namespace) -> None:
    from bench_verify import agreement, auc

    from favakit.training.checker import choose_threshold, reliability
    from favakit.training.pairs import Pair

    results: dict[str, Any] = {"scores": args.scores, "sets": {}}
    groups = dict(_groups(Path(args.scores)))
    for judge in dict.fromkeys(j for j, _ in groups):
        dev = groups.get((judge, "dev"))
        if not dev:
            print(f"{judge}: no development scores, no threshold", file=sys.stderr)
            continue
        pairs = [Pair(id=r["id"], source=r["source"], text="", evidence=[], label=r["label"])
                 for r in dev]  # fmt: skip
        threshold, dev_mean = choose_threshold(pairs, [r["score"] for r in dev])
        entry: dict[str, Any] = {"threshold": threshold, "dev_mean_balanced_accuracy":
                                 round(dev_mean, 4), "dev_reliability": reliability(
                                     [r["label"] for r in dev], [r["score"] for r in dev])}  # fmt: skip
        entry["gate_threshold"] = gate_threshold(dev, args.left_alone)
        for (j, name), rows in groups.items():
            if j != judge or name == "dev":
                continue
            human = [bool(r["label"]) for r in rows]
            scores = [float(r["score"]) for r in rows]
            judged = [s > threshold for s in scores]
            entry[name] = {"rows": len(rows), **agreement(human, judged), "auc": auc(human, scores),
                           "supported_share": round(sum(judged) / len(judged), 4)}  # fmt: skip
        four = [entry[s]["balanced_accuracy"] for s in args.mean_of.split(",") if s in entry]
        if four:
            entry["mean_balanced_accuracy"] = round(sum(four) / len(four), 4)
        results["sets"][judge] = entry
        print(judge, json.dumps({k: (v["balanced_accuracy"], v["auc"]) if isinstance(v, dict)
                                 and "auc" in v else v for k, v in entry.items()
                                 if k != "dev_reliability"}))  # fmt: skip
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1) + "\n")


def _verdict_scores(folder: Path) -> dict[str, dict[str, float]]:
    """``favakit verify --output`` files in ``folder`` (one per set, named SET.jsonl;
    ``dev_rows.jsonl`` is the development split): set -> id -> score."""
    out: dict[str, dict[str, float]] = {}
    for f in sorted(folder.glob("*.jsonl")):
        name = "dev" if f.stem == "dev_rows" else f.stem
        lines = f.read_text(encoding="utf-8").splitlines()
        out[name] = {r["id"]: float(r["score"]) for r in map(json.loads, lines)}
    return out


def band_cut(scores: list[float], threshold: float, share: float) -> float:
    """The distance from ``threshold`` within which the ``share`` of ``scores`` nearest it
    lie: the cascade's band is ``threshold`` -/+ this."""
    distance = sorted(abs(s - threshold) for s in scores)
    return distance[min(len(distance) - 1, int(share * len(distance)))]


def band_edges(threshold: float, cut: float) -> list[float]:
    """The band ``threshold`` -/+ ``cut`` within [0, 1], as stored (4 places)."""
    return [round(max(0.0, threshold - cut), 4), round(min(1.0, threshold + cut), 4)]


def cascade(args: argparse.Namespace) -> None:
    """The cascade of the checker and the tuned judge, from both judges' scores on every row:
    the band holds the ``share`` of development rows whose checker score lies nearest the
    checker's threshold; inside it the judge decides at its own threshold. The share is the one
    with the best development mean (per-source balanced accuracy) among those whose expected
    time per claim, ``checker_seconds + share * judge_seconds``, keeps 1 claim/s or more."""
    from bench_verify import agreement, auc

    checker_cfg = json.loads((Path(args.checker) / "checker.json").read_text())
    cthr = float(checker_cfg["threshold"])
    judge_cfg = json.loads((Path(args.judge) / "judge.json").read_text())
    jthr = float(judge_cfg["threshold"])
    first = _verdict_scores(Path(args.checker_scores))
    second: dict[str, dict[str, dict[str, Any]]] = {}
    for r in map(json.loads, Path(args.scores).read_text(encoding="utf-8").splitlines()):
        if r["judge"] == "tuned":
            second.setdefault(r["set"], {})[r["id"]] = r
    dev_ids = [i for i in second["dev"] if i in first.get("dev", {})]
    if not dev_ids:
        raise SystemExit("no development row has both judges' scores")
    dev_scores = [first["dev"][i] for i in dev_ids]

    def decide(name: str, share: float, cut: float) -> tuple[list[bool], list[bool], float]:
        ids = [i for i in second[name] if i in first.get(name, {})]
        human, judged, asked = [], [], 0
        for i in ids:
            c = first[name][i]
            inside = share > 0 and abs(c - cthr) <= cut
            asked += inside
            human.append(bool(second[name][i]["label"]))
            judged.append(second[name][i]["score"] > jthr if inside else c > cthr)
        return human, judged, asked / max(1, len(ids))

    def dev_mean(judged_by: dict[str, bool]) -> float:
        groups: dict[str, tuple[list[bool], list[bool]]] = {}
        for i in dev_ids:
            h, j = groups.setdefault(second["dev"][i]["source"], ([], []))
            h.append(bool(second["dev"][i]["label"]))
            j.append(judged_by[i])
        values = [agreement(h, j)["balanced_accuracy"] for h, j in groups.values()
                  if any(h) and not all(h)]  # fmt: skip
        return round(sum(values) / len(values), 4)

    rows = []
    shares = [round(0.01 * k, 2) for k in range(0, 20)] + [round(0.05 * k, 2) for k in range(4, 21)]
    for share in shares:
        cut = band_cut(dev_scores, cthr, share) if share else -1.0
        human, judged, asked = decide("dev", share, cut)
        entry: dict[str, Any] = {
            "share": share, "band": band_edges(cthr, cut) if share else None,
            "dev_mean_balanced_accuracy": dev_mean(dict(zip(dev_ids, judged, strict=True))),
            "seconds_per_claim": round(args.checker_seconds + share * args.judge_seconds, 3),
        }  # fmt: skip
        for name in [n for n in second if n != "dev" and n in first]:
            human, judged, asked = decide(name, share, cut)
            entry[name] = {**agreement(human, judged), "asked_judge": round(asked, 4)}
        means = [entry[n]["balanced_accuracy"] for n in args.mean_of.split(",") if n in entry]
        if means:
            entry["mean_balanced_accuracy"] = round(sum(means) / len(means), 4)
        rows.append(entry)
    fast = [r for r in rows if r["seconds_per_claim"] <= 1.0]
    chosen = max(fast, key=lambda r: (r["dev_mean_balanced_accuracy"], -r["share"]))
    checker_auc = {n: auc([bool(second[n][i]["label"]) for i in ids], [first[n][i] for i in ids])
                   for n in second if n in first
                   for ids in [[i for i in second[n] if i in first[n]]]}  # fmt: skip
    result = {"checker": args.checker, "checker_threshold": cthr, "judge": args.judge,
              "judge_threshold": jthr, "checker_seconds": args.checker_seconds,
              "judge_seconds": args.judge_seconds, "checker_auc": checker_auc,
              "chosen": chosen, "shares": rows}  # fmt: skip
    for r in rows:
        print(json.dumps({k: (v["balanced_accuracy"] if isinstance(v, dict) else v)
                          for k, v in r.items()}))  # fmt: skip
    print("chosen:", json.dumps({k: v for k, v in chosen.items() if not isinstance(v, dict)}))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    if args.write and chosen["share"]:
        checker_cfg["cascade"] = {
            "judge": "qwen", "band": chosen["band"], "share": chosen["share"],
            "second_words": int(judge_cfg["evidence_words"]),
            "chosen_on": "the development split (scripts/llm_judge.py cascade): the best mean "
            "per-source balanced accuracy among shares that keep 1 claim/s on 2 CPU cores",
            "dev_mean_balanced_accuracy": chosen["dev_mean_balanced_accuracy"],
        }  # fmt: skip
        (Path(args.checker) / "checker.json").write_text(json.dumps(checker_cfg, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="step", required=True)
    d = sub.add_parser(
        "data", help="prompts of the training pairs, development split and sets to score"
    )
    d.add_argument("--real", required=True, help="the folder of train/, train_spans/ and eval/")
    d.add_argument("--out", required=True)
    d.add_argument("--words", type=int, default=300, help="evidence words each prompt reads")
    d.add_argument("--score-sets", default="", help="eval/ sets to score (comma-separated names)")
    t = sub.add_parser("train", help="LoRA on the training prompts, then score")
    src = t.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="a transformers causal LM folder")
    src.add_argument("--gguf", help="a GGUF file (dequantized on load)")
    t.add_argument("--data", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--device", default="cuda")
    t.add_argument("--train-seconds", type=float, default=300)
    t.add_argument(
        "--deadline",
        type=float,
        default=0,
        help="seconds from start after which no further set is scored (0: none)",
    )
    t.add_argument("--epochs", type=int, default=1)
    t.add_argument("--lora-r", type=int, default=8)
    t.add_argument("--lr", type=float, default=2e-4)
    t.add_argument(
        "--batch-tokens", type=int, default=12288, help="padded tokens per training batch"
    )
    t.add_argument("--max-tokens", type=int, default=768)
    t.add_argument("--limit", type=int, default=0, help="train on the first N prompts only")
    t.add_argument("--log-every", type=int, default=20)
    t.add_argument("--base-too", action="store_true", help="also score with the adapter off")
    r = sub.add_parser("report", help="threshold on the development split, figures per set")
    r.add_argument("--scores", required=True)
    r.add_argument("--out", default="")
    r.add_argument("--mean-of", default="fm2_test,wice_test,scifact,citint_test")
    r.add_argument("--left-alone", type=float, default=0.85,
                   help="the gate threshold's floor on supported rows left alone (issue 32)")  # fmt: skip
    c = sub.add_parser(
        "cascade", help="the checker + tuned judge cascade: band on the development split"
    )
    c.add_argument("--scores", required=True, help="the train step's scores.jsonl")
    c.add_argument("--checker-scores", required=True,
                   help="a folder of `favakit verify --output` files of the checker, SET.jsonl "
                   "(dev_rows.jsonl: the development split)")  # fmt: skip
    c.add_argument(
        "--checker",
        required=True,
        help="the checker folder (its threshold; --write stores the band there)",
    )
    c.add_argument("--judge", required=True, help="the tuned judge's folder (its judge.json)")
    c.add_argument(
        "--checker-seconds",
        type=float,
        required=True,
        help="the checker's seconds per claim, measured",
    )
    c.add_argument(
        "--judge-seconds", type=float, required=True, help="the judge's seconds per claim, measured"
    )
    c.add_argument("--mean-of", default="fm2_test,wice_test,scifact,citint_test")
    c.add_argument("--out", default="")
    c.add_argument(
        "--write", action="store_true", help="store the chosen band in the checker's checker.json"
    )
    args = ap.parse_args()
    if args.step == "train":  # needs torch, transformers and peft only: a bare GPU machine runs it
        train(args)
        return
    from favakit.errors import UsageError

    try:
        {"data": build_data, "train": train, "report": report, "cascade": cascade}[args.step](args)
    except UsageError as exc:
        raise SystemExit(f"llm_judge.py {args.step}: {exc}") from None


if __name__ == "__main__":
    main()
