"""Claim verification against people: each judge on the human-labelled atomic facts of the
Flaherty biography (FActScore's data: 26 atoms, 7 supported, 19 not), each atom with the
Wikipedia passages given with it as evidence.

    python scripts/bench_verify.py --flaherty ../shared/data/factscore/flaherty_wikipedia.json \
        --judges encoder,editor --out docs/results/bench_verify_DATE.json

Per judge: accuracy, balanced accuracy, F1 of each label, FActScore (the share of atoms judged
supported) against the human 0.269, claims per second, and each atom's verdict. Also the rule
decomposer's facts of the bio against the 26 human atoms (count, coverage). The labels are only
measured against, never trained or tuned on.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from datetime import date
from pathlib import Path
from typing import Any


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flaherty", required=True)
    ap.add_argument("--judges", default="encoder,editor")
    ap.add_argument("--detector", default=None, help="detector folder (default: shipped)")
    ap.add_argument("--llm-model", default="qwen2.5-coder-1.5b", help="the llm judge's model")
    ap.add_argument("--llm-endpoint", default=None, help="... or its OpenAI-compatible server")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    from favakit.eval.verify import verdict
    from favakit.inference.detector import Detector, DetectorEditor, default_detector
    from favakit.inference.editor import open_editor

    data = json.loads(Path(args.flaherty).read_text(encoding="utf-8"))
    contexts = {c["id"]: c for c in data["contexts"]}

    def evidence(ids: Any) -> list[dict[str, str]]:
        ids = json.loads(ids.replace("'", '"')) if isinstance(ids, str) else ids
        return [{"title": contexts[i]["title"], "text": contexts[i]["text"]} for i in ids[:2]]

    atoms = data["atoms"]
    claims = [{"text": a["text"], "evidence": evidence(a["contexts"]), "topic": data["topic"]}
              for a in atoms]  # fmt: skip
    human = [a["label"] == "S" for a in atoms]
    out: list[dict[str, Any]] = [{"meta": {
        "date": date.today().isoformat(), "machine": platform.machine(),
        "atoms": len(atoms), "human_factscore": round(sum(human) / len(human), 4)}}]  # fmt: skip
    from favakit.eval.decompose import RuleFactSplitter, fact_coverage

    facts = RuleFactSplitter([data["topic"]]).facts([data["output"]])[0]
    row0 = {"decomposer": "rules", **fact_coverage(facts, [a["text"] for a in atoms]),
            "facts": facts}  # fmt: skip
    print(json.dumps({k: v for k, v in row0.items() if k != "facts"}), flush=True)
    out.append(row0)
    for judge in args.judges.split(","):
        if judge == "encoder":
            editor: Any = DetectorEditor(Detector(args.detector or default_detector()))
        elif judge == "llm":
            from favakit.eval.verify import LLMVerifier
            from favakit.inference.generators import open_client

            editor = LLMVerifier(
                open_client(args.llm_model, None, llm_endpoint=args.llm_endpoint, max_batch=4)
            )
        else:
            editor = open_editor("", None)
        editor.edit_many(claims[:2])  # warm-up
        t0 = time.perf_counter()
        results = editor.edit_many(claims)
        seconds = time.perf_counter() - t0
        verdicts = [verdict(r, editor.model) for r in results]
        judged = [v["supported"] for v in verdicts]
        row = {
            "judge": judge,
            "model": editor.model,
            **agreement(human, judged),
            "factscore": round(sum(judged) / len(judged), 4),
            "claims_per_s": round(len(claims) / seconds, 2),
            "verdicts": [{"atom": a["text"], "human": a["label"], "supported": v["supported"],
                          "score": v["score"]} for a, v in zip(atoms, verdicts, strict=True)],
        }  # fmt: skip
        print(json.dumps({k: v for k, v in row.items() if k != "verdicts"}), flush=True)
        out.append(row)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
