"""Choose the gate's rule on development data: the shipped editor edits each text once, the
checker scores each sentence once, and every rule variant is then applied to those same results.

Development data only (issue 32 asks for >= 0.90 binary F1 on synthetic validation and the real
claims' shape, but the eval sets only measure):

* ``--synthetic``: favakit's own validation split (source titles never trained on), scored as
  ``bench_editor.py`` scores it (FAVA's binary F1, clean texts left alone);
* ``--real FILE[@SOURCE][#N]`` (repeatable): real labelled rows from the training folders
  (``train/fm2.jsonl``, ``train_spans/summedits.jsonl@summedits_podcast``), ``N`` (default
  ``--per-label``) supported and unsupported each, seeded; a text is flagged when its result has any edit or
  flag (supported left alone, unsupported flagged, their mean), as ``bench_gate.py`` counts.
  ``--checker-dev 0.05`` keeps only rows the checker's training held out (its development
  split), so that the checker is not scored on claims it learned.

The editor's results and the sentence scores are cached in ``--cache`` (JSONL, by row), so a
stopped run resumes and new variants cost nothing (give another editor, ``--adapter``, its own
cache folder).

    python scripts/gate_rules.py --synthetic runs/synth_tagged/validation.jsonl --synthetic-limit 60 \\
        --real ../shared/data/real/train/fm2.jsonl \\
        --real ../shared/data/real/train_spans/summedits.jsonl@summedits_podcast \\
        --checker mpnet --cache runs/gate_rules --out docs/results/gate_rules_DATE.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_editor import _score
from bench_gate import shape

from favakit.contracts import EditResult
from favakit.records import read_jsonl, refuse_measuring_set

#: a result's sentence spans and the checker's P(supported) of each (None: no evidence)
Scored = tuple[list[tuple[int, int]], list[float]] | None


def _real_rows(spec: str, per_label: int, checker_dev: float = 0.0) -> list[dict[str, Any]]:
    from favakit.training.pairs import in_dev_split, normalize

    spec, _, count = spec.partition("#")
    per_label = int(count or per_label)
    path, _, source = spec.partition("@")
    refuse_measuring_set(path)
    rows = [r for r in read_jsonl(path) if not source or r.get("source") == source]
    if checker_dev:  # only the claims the checker's training held out (seed 0, as trained)
        rows = [r for r in rows if in_dev_split(normalize(r["text"]), checker_dev)]
    rng = random.Random(f"gate-rules:{spec}")
    pos = [r for r in rows if r["label"] == "supported"]
    neg = [r for r in rows if r["label"] != "supported"]
    return rng.sample(pos, min(per_label, len(pos))) + rng.sample(neg, min(per_label, len(neg)))


def _cached_run(name: str, requests: list[Any], ids: list[str], cache: Path, editor: Any,
                checker: Any) -> list[tuple[EditResult, Scored]]:  # fmt: skip
    """(raw result, sentence scores) for each request, from ``cache/name.jsonl`` where there,
    else made (in batches of 8, each appended at once)."""
    from favakit.inference.gate import sentence_scores

    path = cache / f"{name}.jsonl"
    done = {r["id"]: r for r in read_jsonl(path)} if path.exists() else {}
    todo = [i for i, k in enumerate(ids) if k not in done]
    t0 = time.perf_counter()
    for at in range(0, len(todo), 8):
        batch = todo[at : at + 8]
        results = editor.edit_many([requests[i] for i in batch])
        scored = sentence_scores(checker, results, [requests[i].topic for i in batch])
        with path.open("a", encoding="utf-8") as out:
            for i, result, s in zip(batch, results, scored, strict=True):
                row = {"id": ids[i], "result": result, "scores": s}
                done[ids[i]] = row
                out.write(json.dumps(row) + "\n")
        print(f"{name}: {at + len(batch)}/{len(todo)} made, {time.perf_counter() - t0:.0f} s",
              file=sys.stderr, flush=True)  # fmt: skip
    return [(done[k]["result"], done[k]["scores"]) for k in ids]


def _gate(
    made: list[tuple[EditResult, Scored]], threshold: float, swaps: bool, flags: bool = True
) -> list[EditResult]:
    from favakit.inference.gate import gate_result

    return [
        r if s is None else gate_result(r, s[0], s[1], threshold, flags, keep_evidence_swaps=swaps)
        for r, s in made
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--synthetic", required=True, help="favakit's synthetic validation split")
    ap.add_argument("--synthetic-limit", type=int, default=60)
    ap.add_argument(
        "--real", action="append", default=[], help="FILE[@SOURCE][#N] of training data"
    )
    ap.add_argument("--per-label", type=int, default=40)
    ap.add_argument(
        "--checker-dev", type=float, default=0.0, metavar="FRACTION",
        help="real rows only from the checker's development split (its training's "
        "data.validation_fraction, 0.05 for the shipped checkers): rows it never trained on",
    )  # fmt: skip
    ap.add_argument("--checker", default="mpnet")
    ap.add_argument("--adapter", default=None, help="another editor adapter (default: the shipped)")
    ap.add_argument("--thresholds", default="", help="gate thresholds besides the checker's own")
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.contracts import EditRequest
    from favakit.inference.checker import Checker, checker_folder
    from favakit.inference.factory import open_editor
    from favakit.spec import ClientSpec

    args.cache.mkdir(parents=True, exist_ok=True)
    checker = Checker(checker_folder(args.checker))
    editor = open_editor(ClientSpec(adapter=args.adapter))
    synthetic = list(read_jsonl(args.synthetic))
    random.Random(0).shuffle(synthetic)  # bench_editor.py's sample
    synthetic = synthetic[: args.synthetic_limit]
    sets: dict[str, tuple[list[dict[str, Any]], list[tuple[EditResult, Scored]]]] = {}
    reqs = [EditRequest.from_row(r) for r in synthetic]
    sets["synthetic"] = (synthetic, _cached_run("synthetic", reqs, [r["id"] for r in synthetic],
                                                args.cache, editor, checker))  # fmt: skip
    for spec in args.real:
        rows = _real_rows(spec, args.per_label, args.checker_dev)
        reqs = [EditRequest.from_obj({"text": r["text"], "evidence": r["evidence"]}) for r in rows]
        path, _, source = spec.partition("#")[0].partition("@")
        name = Path(path).stem + (f"@{source}" if source else "")
        sets[name] = (rows, _cached_run(name.replace("@", "_"), reqs, [r["id"] for r in rows],
                                        args.cache, editor, checker))  # fmt: skip
    thresholds = [checker.threshold] + [float(t) for t in args.thresholds.split(",") if t]
    out: list[dict[str, Any]] = [{"meta": {
        "date": date.today().isoformat(), "checker": checker.name, "editor": editor.model,
        "sets": {k: len(v[0]) for k, v in sets.items()}}}]  # fmt: skip
    # each threshold: the default rule (edits in supported sentences dropped, unsupported
    # sentences without an edit flagged), with evidence swaps kept, and edits only (no flags:
    # a text is flagged only where the editor and the checker agree)
    variants = [("ungated", None, False, False)] + [
        (f"gate@{t:g}" + suffix, t, swaps, flags)
        for t in thresholds
        for suffix, swaps, flags in (("", False, True), ("+swaps", True, True),
                                     (":edits-only", False, False))
    ]  # fmt: skip
    for label, threshold, swaps, flags in variants:
        row: dict[str, Any] = {"variant": label}
        for name, (rows, made) in sets.items():
            preds = (
                [r for r, _ in made] if threshold is None else _gate(made, threshold, swaps, flags)
            )
            if name == "synthetic":
                got = _score(rows, preds)
                row[name] = {k: got[k] for k in ("binary_f1", "binary_precision",
                                                 "binary_recall", "clean_left_alone")}  # fmt: skip
            else:
                row[name] = shape(rows, [bool(p["edits"]) for p in preds])
        print(json.dumps(row), flush=True)
        out.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
