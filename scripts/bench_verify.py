"""Claim verification against people, each judge side by side on two real sets never trained or
tuned on:

* the 26 human-labelled atomic facts of FActScore's Flaherty biography (7 supported, 19 not), each
  with the two Wikipedia passages given with it;
* real (claim, evidence) pairs from HotpotQA dev questions (``--hotpot``; :func:`hotpot_pairs`):
  "The answer to "QUESTION" is ANSWER." against the gold paragraphs (supported), the same with a
  wrong answer (not supported), and the gold answer against the two closest distractor paragraphs
  (merely related: not supported).

    python scripts/bench_verify.py --flaherty ../shared/data/factscore/flaherty_wikipedia.json \
        --hotpot ../shared/data/wiki/hotpot_dev_distractor_100.json --train-kb runs/verifier/kb.db \
        --judges verifier,encoder,editor --out docs/results/bench_verify_DATE.json

Per judge and set: accuracy, balanced accuracy, F1 of each label, the share judged supported (on
the bio: FActScore, against the human 0.269), claims per second, and each verdict. Also the rule
decomposer's facts of the bio against the 26 human atoms (count, coverage).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import time
from collections import Counter
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from favakit.inference.options import add_judge_options


def agreement(human: list[bool], judged: list[bool]) -> dict[str, float]:
    """Accuracy, balanced accuracy and F1 of both labels (True = supported)."""
    pairs = list(zip(human, judged, strict=True))

    def f1(label: bool) -> float:
        tp = sum(h == label and j == label for h, j in pairs)
        fp = sum(h != label and j == label for h, j in pairs)
        fn = sum(h == label and j != label for h, j in pairs)
        return round(2 * tp / (2 * tp + fp + fn), 4) if tp else 0.0

    def recall(label: bool) -> float:
        n = sum(h == label for h, _ in pairs)
        return sum(h == label and j == label for h, j in pairs) / n if n else 0.0

    return {
        "accuracy": round(sum(h == j for h, j in pairs) / len(pairs), 4),
        "balanced_accuracy": round((recall(True) + recall(False)) / 2, 4),
        "f1_supported": f1(True),
        "f1_not_supported": f1(False),
    }


_CAPS = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:(?:of|the|de|von)\s+)?[A-Z][\w'’-]*)*")
_NUM = re.compile(r"(?<![\d,.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d,]\d)")


_COMMON = frozenset(
    re.findall(
        r"\w+",
        "the a an he she it its his her they their this that there these those from in on "
        "at by for with as of to after before during when while january february march "
        "april may june july august september october november december",
    )
)


def _wrong_answer(q: dict[str, Any], gold_text: str, rng: random.Random) -> str | None:
    """Another answer to the question, wrong by the gold paragraphs: yes <-> no; the other
    option of an "A or B" question; else a name or number of the same shape taken from the gold
    paragraphs (never a part of the question or of the answer)."""
    answer, question = q["answer"].strip(), q["question"]
    if answer.lower() in ("yes", "no"):
        return "no" if answer.lower() == "yes" else "yes"
    m = re.search(r"([^,?]+?)\s+or\s+([^,?]+?)\s*\?", question)
    if m:
        a, b = (x.strip() for x in m.groups())
        for x, y in ((a, b), (b, a)):
            if answer.lower() in x.lower() or x.lower().endswith(answer.lower()):
                return y.split(" than ")[-1] if len(y.split()) <= 6 else None
    pattern = _NUM if _NUM.fullmatch(answer.replace(" ", "")) else _CAPS
    low_q, low_a = question.lower(), answer.lower()
    answer_words = set(re.findall(r"\w+", low_a))
    lower_words = set(re.findall(r"\b[a-z]\w*", gold_text))  # "There", "Game": common words
    found = sorted({m.group(0).strip(" .,") for m in pattern.finditer(gold_text)})
    options = [
        x for x in found
        if len(x) > 2 and x.lower() not in low_q and low_a not in x.lower()
        and not set(re.findall(r"\w+", x.lower())) & answer_words
        and not (len(x.split()) == 1 and x.lower() in lower_words | _COMMON)
    ]  # fmt: skip
    same = [x for x in options if len(x.split()) == len(answer.split())]
    return rng.choice(same or options) if options else None


def by_kind(
    kinds: list[str], labels: list[bool], verdicts: list[dict[str, Any]]
) -> dict[str, list[int]]:
    """``{kind: [right, total]}``."""
    out: dict[str, list[int]] = {}
    for kind, label, v in zip(kinds, labels, verdicts, strict=True):
        right_total = out.setdefault(kind, [0, 0])
        right_total[0] += v["supported"] == label
        right_total[1] += 1
    return out


def auc(labels: Sequence[bool], scores: Sequence[float | None]) -> float | None:
    """Area under the ROC curve of the scores (ties count half): how well a judge ranks supported
    claims above the rest, whatever its threshold. None when a judge gives no scores."""
    known = [s for s in scores if s is not None]
    if len(known) < len(scores):
        return None
    pos = [s for s, y in zip(known, labels, strict=True) if y]
    neg = [s for s, y in zip(known, labels, strict=True) if not y]
    if not pos or not neg:
        return None
    wins = sum(float(a > b) + 0.5 * float(a == b) for a in pos for b in neg)
    return round(wins / (len(pos) * len(neg)), 4)


def hotpot_pairs(
    path: str, start: int, known_titles: set[str], count: int = 0
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Real (claim, evidence, label) pairs from ``count`` HotpotQA questions from ``start`` on
    (0: to the end): each question with its gold answer against its gold paragraphs (supported,
    by HotpotQA's human-annotated supporting facts), a wrong answer against the same paragraphs
    (not supported), and the gold answer against the two distractor paragraphs closest to the
    question that do not contain it (merely related evidence: not supported). A question is left
    out when any paragraph it uses is in ``known_titles`` (the verifier's training knowledge
    source)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))[start:]
    data = data[:count] if count else data
    pairs: list[dict[str, Any]] = []
    skipped = {"title_in_training_kb": 0, "no_wrong_answer": 0, "no_distractor": 0}
    for n, q in enumerate(data):
        rng = random.Random(f"hotpot:{start + n}")
        paras = {t: " ".join(s.strip() for s in ss) for t, ss in
                 zip(q["context"]["title"], q["context"]["sentences"], strict=True)}  # fmt: skip
        gold = sorted(set(q["supporting_facts"]["title"]))
        qwords = set(re.findall(r"\w+", q["question"].lower()))
        others = sorted(
            (t for t in paras if t not in gold and q["answer"].lower() not in paras[t].lower()),
            key=lambda t: -len(qwords & set(re.findall(r"\w+", paras[t].lower()))),
        )[:2]
        if (set(gold) | set(others)) & known_titles:
            skipped["title_in_training_kb"] += 1
            continue
        gold_ev = [{"title": t, "text": paras[t]} for t in gold]
        claim = f'The answer to "{q["question"].strip()}" is {q["answer"].strip().rstrip(".")}.'
        qid = f"hotpot-{start + n}"
        pairs.append({"id": f"{qid}-gold", "text": claim, "evidence": gold_ev, "label": True,
                      "kind": "gold"})  # fmt: skip
        wrong = _wrong_answer(q, " ".join(paras[t] for t in gold), rng)
        if wrong:
            pairs.append({"id": f"{qid}-wrong", "text": f'The answer to "{q["question"].strip()}" '
                          f"is {wrong}.", "evidence": gold_ev, "label": False, "kind": "wrong"})  # fmt: skip
        else:
            skipped["no_wrong_answer"] += 1
        if len(others) == 2:
            pairs.append({"id": f"{qid}-related", "text": claim, "label": False, "kind": "related",
                          "evidence": [{"title": t, "text": paras[t]} for t in others]})  # fmt: skip
        else:
            skipped["no_distractor"] += 1
    return pairs, skipped


def _open_judge(name: str, args: argparse.Namespace) -> Any:
    from favakit.inference.factory import open_verifier
    from favakit.spec import ClientSpec

    if name == "encoder":
        return open_verifier("encoder", detector=args.detector)
    if name == "checker":  # --checker DIR, else the shipped checker
        return open_verifier("checker", detector=args.checker)
    if name == "verifier":
        adapter = args.verifier_adapter
        spec = ClientSpec("smollm2" if adapter else "", adapter, max_batch=8)
        return open_verifier("verifier", spec, chunk_words=args.chunk_words,
                             threshold=args.threshold, style=args.prompt_style)  # fmt: skip
    if name == "qwen":  # the tuned Qwen judge (in process, or the server at --llm-endpoint)
        return open_verifier("qwen", ClientSpec(endpoint=args.llm_endpoint, max_batch=4))
    if name == "llm":
        spec = ClientSpec(args.llm_model, endpoint=args.llm_endpoint, max_batch=4)
        return open_verifier("llm", spec, chunk_words=args.chunk_words, threshold=args.threshold,
                             style=args.prompt_style)  # fmt: skip
    return open_verifier("editor")


def _measure(verifier: Any, claims: list[dict[str, Any]], human: list[bool]) -> dict[str, Any]:
    from favakit.contracts import EditRequest

    requests = [EditRequest.from_claim(c) for c in claims]
    verifier.verify(requests[:2])  # warm-up
    t0 = time.perf_counter()
    verdicts = verifier.verify(requests)
    seconds = time.perf_counter() - t0
    judged = [v["supported"] for v in verdicts]
    return {
        **agreement(human, judged),
        "supported_share": round(sum(judged) / len(judged), 4),
        "claims_per_s": round(len(claims) / seconds, 3),
        "verdicts": verdicts,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flaherty", required=True)
    ap.add_argument("--hotpot", default=None, help="HotpotQA dev JSON: real pairs from it too")
    ap.add_argument("--hotpot-start", type=int, default=50, help="first question used (default 50)")
    ap.add_argument(
        "--hotpot-count", type=int, default=0, help="questions used (default 0: to the end)"
    )
    ap.add_argument(
        "--train-kb", default=None, help="the verifier's training KB: questions using its titles "
        "are left out of the HotpotQA pairs"
    )  # fmt: skip
    ap.add_argument("--write-pairs", default=None, help="also write the HotpotQA pairs (JSONL)")
    ap.add_argument("--synthetic", action="append", default=None, help="favakit synth claims "
                    "rows (validation.jsonl; repeatable, pooled): an in-distribution check by "
                    "kind, set name 'synthetic', and the threshold that set would choose")  # fmt: skip
    ap.add_argument("--judges", default="encoder,editor")
    ap.add_argument("--sets", default="flaherty,hotpot,synthetic",
                    help="which sets each judge runs on")  # fmt: skip
    ap.add_argument("--limit-slow", type=int, default=0,
                    help="the editor judge (~20 s a claim): only the first N HotpotQA pairs (0: all)")  # fmt: skip
    ap.add_argument("--detector", default=None, help="detector folder (default: shipped)")
    ap.add_argument("--checker", default=None, help="checker folder (default: shipped)")
    ap.add_argument("--verifier-adapter", default=None, help="verifier (default: shipped)")
    add_judge_options(ap, "claim")  # --chunk-words, --threshold, --prompt-style
    ap.add_argument("--llm-model", default="qwen2.5-coder-1.5b", help="the llm judge's model")
    ap.add_argument("--llm-endpoint", default=None, help="... or its OpenAI-compatible server")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    data = json.loads(Path(args.flaherty).read_text(encoding="utf-8"))
    contexts = {c["id"]: c for c in data["contexts"]}

    def evidence(ids: Any) -> list[dict[str, str]]:
        ids = json.loads(ids.replace("'", '"')) if isinstance(ids, str) else ids
        return [{"title": contexts[i]["title"], "text": contexts[i]["text"]} for i in ids[:2]]

    atoms = data["atoms"]
    sets: dict[str, tuple[list[dict[str, Any]], list[bool]]] = {
        "flaherty": (
            [
                {"text": a["text"], "evidence": evidence(a["contexts"]), "topic": data["topic"]}
                for a in atoms
            ],
            [a["label"] == "S" for a in atoms],
        )
    }
    human = sets["flaherty"][1]
    meta: dict[str, Any] = {
        "date": date.today().isoformat(), "machine": platform.machine(), "atoms": len(atoms),
        "human_factscore": round(sum(human) / len(human), 4)}  # fmt: skip
    if args.hotpot:
        known: set[str] = set()
        if args.train_kb:
            from favakit.retrieval.kb import KnowledgeSource

            with KnowledgeSource(args.train_kb) as kb:
                known = set(kb.titles())
        pairs, skipped = hotpot_pairs(args.hotpot, args.hotpot_start, known, args.hotpot_count)
        sets["hotpot"] = ([{k: p[k] for k in ("text", "evidence")} for p in pairs],
                          [p["label"] for p in pairs])  # fmt: skip
        meta["hotpot"] = {"pairs": len(pairs), "supported": sum(p["label"] for p in pairs),
                          "kinds": dict(Counter(p["kind"] for p in pairs)), "skipped": skipped,
                          "start": args.hotpot_start, "count": args.hotpot_count}  # fmt: skip
        if args.write_pairs:
            Path(args.write_pairs).write_text(
                "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pairs), encoding="utf-8"
            )
    kinds_of: dict[str, list[str]] = {}
    if args.hotpot:
        kinds_of["hotpot"] = [p["kind"] for p in pairs]
    if args.synthetic:
        rows = [json.loads(x) for path in args.synthetic
                for x in Path(path).read_text("utf-8").splitlines() if x]  # fmt: skip
        sets["synthetic"] = ([{"text": r["claim"], "evidence": r["evidence"], "topic": r["topic"]}
                              for r in rows], [r["label"] for r in rows])  # fmt: skip
        kinds_of["synthetic"] = [r["kind"] for r in rows]
        meta["synthetic"] = {"pairs": len(rows), "kinds": dict(Counter(kinds_of["synthetic"]))}
    out: list[dict[str, Any]] = [{"meta": meta}]
    print(json.dumps(meta), flush=True)
    from favakit.decompose import RuleFactSplitter, fact_coverage

    facts = RuleFactSplitter([data["topic"]]).facts([data["output"]])[0]
    # the results name atoms by id and keep no text of the data set (it stays in ../shared)
    row0 = {"decomposer": "rules", **fact_coverage(facts, [a["text"] for a in atoms])}
    print(json.dumps(row0), flush=True)
    out.append(row0)
    for judge in args.judges.split(","):
        verifier = _open_judge(judge, args)
        for name in args.sets.split(","):
            if name not in sets:
                continue
            claims, labels = sets[name]
            if name == "hotpot" and args.limit_slow and judge == "editor":
                claims, labels = claims[: args.limit_slow], labels[: args.limit_slow]
            row = {"judge": judge, "model": verifier.model, "set": name, "claims": len(claims),
                   **_measure(verifier, claims, labels)}  # fmt: skip
            if name in kinds_of:
                row["by_kind"] = by_kind(kinds_of[name][: len(claims)], labels, row["verdicts"])
                # the kind it does worst on: a pooled score can hide one (docs/verifier.md)
                kind, (right, total) = min(
                    row["by_kind"].items(), key=lambda kv: kv[1][0] / kv[1][1]
                )
                row["worst_kind"] = [kind, round(right / total, 4)]
                row["auc"] = auc(labels, [v["score"] for v in row["verdicts"]])
            if judge in ("verifier", "llm"):
                row["threshold"] = verifier.judge.threshold
                row["prompt_style"] = verifier.judge.style
                if name == "synthetic":
                    from favakit.inference.verifiers import choose_threshold

                    scores = [v["score"] for v in row["verdicts"]]
                    t, acc = choose_threshold(labels, scores)
                    row["chosen_threshold"] = {"threshold": t, "balanced_accuracy": round(acc, 4)}
                    if t in (0.05, 0.95):  # the grid's ends: the best value may lie beyond them
                        row["chosen_threshold"]["at_grid_edge"] = True
            if name == "hotpot":
                row["verdicts"] = [
                    {"pair_id": p["id"], **v}
                    for p, v in zip(pairs[: len(claims)], row["verdicts"], strict=True)
                ]
            if name == "flaherty":
                row["factscore"] = row["supported_share"]
                row["verdicts"] = [
                    {"atom_id": a["id"], "human": a["label"], **v}
                    for a, v in zip(atoms, row["verdicts"], strict=True)
                ]
            print(json.dumps({k: v for k, v in row.items() if k != "verdicts"}), flush=True)
            out.append(row)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
