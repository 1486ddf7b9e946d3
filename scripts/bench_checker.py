"""Judges on the real labelled claim sets, side by side in one run: every set of
``../shared/data/real/eval`` (measured, never trained or tuned on), as the LLM-AggreFact
leaderboard reports them: balanced accuracy, ROC AUC, F1 of each label, the share called
supported, claims per second, and the mean over the four target sets (fm2_test, wice_test,
scifact, citint_test; anli_dev is reported beside them).

    python scripts/bench_checker.py --real ../shared/data/real --judges checker,verifier \
        --checker runs/checker_minilm/model --slow-per-label 50 --out docs/results/bench_checker_DATE.json

``--judges checker,checker=runs/mpnet/model`` runs a second checker folder beside the first.

Fast judges (the checker, the encoder detector) read every row; slow ones (the trained
verifier, the editor, the llm judge) a fixed sample of ``--slow-per-label`` supported and as
many unsupported rows per set (seeded), and the fast judges are also scored on that sample so
that every judge has a figure on the same rows. ``--every-row`` has the slow judges read every
row too (the cascade, favakit's default judge where both its bases are installed: over an hour
for the four target sets on 2 CPU cores).

``--dev FILES`` scores the checker on the development split that training carves from those
training files (the same seed and fraction, so no row of it was trained on): per source and
the mean over the sources with both labels (as training chooses), at the checker's stored
threshold. This is the figure to choose a recipe by; the eval sets only measure.

``--spans`` also measures the checker on ``eval_spans``: its token head's unsupported spans on
WiCE's unsupported tokens (character precision, recall and F1, spaces not counted), and on the
SummEdits sets both heads: a summary is flagged when its P(supported) is at or below the
checker's threshold (balanced accuracy against the label), and its spans against the words that
differ from the original summary.

``--cites SET=MARK,MARK`` reads SET's texts as citing several sources: a verdict judges only the
sentences carrying one of the marks (``favakit verify --cites``; Citation-Integrity's
``citint_test`` marks the cited paper ``<|cit|>`` or ``<|multi_cit|>`` and others
``<|other_cit|>``). Without it the whole text is read, its citation marks removed.

``--speed-file FILE --speed-words N`` times the judges side by side on claims whose evidence is
cut to exactly ``N`` words (rows of FILE with at least that many; its labels are not read):
``--speed-rounds`` rounds, the judges taking turns in each, every claim in one call (as
``favakit verify --input`` reads a file) and one claim a call (as a server asked about one);
the median round counts.

    python scripts/bench_checker.py --real ../shared/data/real --sets "" --judges checker,checker=mpnet \
        --speed-file ../shared/data/real/train/wice.jsonl --speed-words 200 --out speed.json
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_verify import agreement, auc

TARGETS = ("fm2_test", "wice_test", "scifact", "citint_test")
FAST = {"checker", "encoder"}


def eval_file(real: Path, name: str) -> Path:
    """A measuring set by name: ``eval/NAME.jsonl``, else ``eval_spans/NAME.jsonl`` (its rows'
    labels, the edited summaries of SummEdits as claims)."""
    path = real / "eval" / f"{name}.jsonl"
    if not path.exists() and (real / "eval_spans" / f"{name}.jsonl").exists():
        path = real / "eval_spans" / f"{name}.jsonl"
    if not path.exists():
        raise SystemExit(f"{name}: no {path}")
    return path


def sample(rows: list[dict[str, Any]], per_label: int, seed: int = 0) -> list[dict[str, Any]]:
    rng = random.Random(f"bench:{seed}")
    pos = [r for r in rows if r["label"] == "supported"]
    neg = [r for r in rows if r["label"] != "supported"]
    picked = rng.sample(pos, min(per_label, len(pos))) + rng.sample(neg, min(per_label, len(neg)))
    return sorted(picked, key=lambda r: r["id"])


_READING_NOTES = ("evidence read in ", "evidence cut")


def _read_in_pieces(verdict: dict[str, Any]) -> bool:
    """Whether a verdict says its evidence was read in pieces or cut to fit."""
    return any(w.startswith(_READING_NOTES) for w in verdict.get("warnings", []))


def measure(verifier: Any, rows: list[dict[str, Any]], cites: list[str] | None = None
            ) -> dict[str, Any]:  # fmt: skip
    """A judge on ``rows``; ``cites``: the marks of the citation each row's evidence backs (only
    the sentences carrying one are judged, as ``favakit verify --cites`` reads them)."""
    from favakit.contracts import EditRequest
    from favakit.inference.verifiers import CitedSentences

    claims = [EditRequest.from_obj({"text": r["text"], "evidence": r["evidence"], "cites": cites})
              for r in rows]  # fmt: skip
    verifier = CitedSentences(verifier)
    verifier.verify(claims[:2])  # warm-up
    t0 = time.perf_counter()
    verdicts = verifier.verify(claims)
    seconds = time.perf_counter() - t0
    human = [r["label"] == "supported" for r in rows]
    judged = [bool(v["supported"]) for v in verdicts]
    return {
        "claims": len(rows),
        **agreement(human, judged),
        "auc": auc(human, [float(v["score"]) for v in verdicts]),
        "supported_share": round(sum(judged) / len(judged), 4),
        "claims_per_s": round(len(rows) / seconds, 3),
        # evidence read in pieces or cut to fit (the checker's reading notes), and verdicts
        # with any note (the year, count and number-form rules' included)
        "pieced": sum(_read_in_pieces(v) for v in verdicts),
        "with_warnings": sum(bool(v.get("warnings")) for v in verdicts),
    }


def _chars(text: str, spans: list[tuple[int, int]]) -> set[int]:
    return {i for a, b in spans for i in range(a, b) if not text[i].isspace()}


def prf(gold: list[set[int]], pred: list[set[int]]) -> dict[str, float]:
    """Character precision, recall and F1 over all rows together (micro)."""
    tp = sum(len(g & p) for g, p in zip(gold, pred, strict=True))
    n_pred, n_gold = sum(map(len, pred)), sum(map(len, gold))
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4),
            "f1": round(2 * p * r / (p + r), 4) if p + r else 0.0}  # fmt: skip


def span_sets(real: Path, checker_dir: str | None) -> list[dict[str, Any]]:
    """The checker's token head and sequence head on ``eval_spans`` (see the module)."""
    from favakit.inference.checker import Checker, checker_folder
    from favakit.training.pairs import edited_spans

    checker = Checker(checker_folder(checker_dir))
    out = []
    for name in ("wice_tokens_test", "summedits_ectsum", "summedits_scitldr"):
        rows = [json.loads(line) for line in (real / "eval_spans" / f"{name}.jsonl").open()]
        t0 = time.perf_counter()
        found = checker.unsupported_spans([r["text"] for r in rows], [r["evidence"] for r in rows])
        seconds = time.perf_counter() - t0
        pred = [
            _chars(r["text"], [(a, b) for a, b, _ in f]) for r, f in zip(rows, found, strict=True)
        ]
        row: dict[str, Any] = {"judge": "checker", "model": checker.name, "set": name,
                               "rows": len(rows), "span_seconds_per_row": round(seconds / len(rows), 3)}  # fmt: skip
        if name == "wice_tokens_test":
            gold = [_chars(r["text"], [(s["start"], s["end"]) for s in r["spans"]]) for r in rows]
            row["spans"] = prf(gold, pred)
            row["rows_flagged"] = sum(bool(p) for p in pred)
        else:
            from bench_verify import agreement

            scores = [
                p
                for p, _ in checker.score([r["text"] for r in rows], [r["evidence"] for r in rows])
            ]
            human = [r["label"] == "supported" for r in rows]
            row.update(agreement(human, [p > checker.threshold for p in scores]))
            row["auc"] = auc(human, scores)
            edited = [
                i for i, r in enumerate(rows) if r["label"] != "supported" and r.get("original")
            ]
            gold = [
                _chars(rows[i]["text"], edited_spans(rows[i]["original"], rows[i]["text"]))
                for i in edited
            ]
            row["spans_on_edited"] = {"rows": len(edited), **prf(gold, [pred[i] for i in edited])}
        print(json.dumps(row), flush=True)
        out.append(row)
    return out


def synthetic_spans(path: str, checker_dir: str | None, limit: int) -> list[dict[str, Any]]:
    """The checker's untyped token head against the shipped detector (its spans, types ignored)
    on favakit's synthetic validation split: character precision, recall and F1 of the error
    spans, and the share of error-free texts left without a span (the token head replaces the
    detector only if at least as good here; issue 31)."""
    from favakit.contracts import EditRequest
    from favakit.inference.checker import Checker, checker_folder
    from favakit.inference.detector import Detector, default_detector
    from favakit.records import read_jsonl
    from favakit.tags import parse_lenient

    rows = list(read_jsonl(path))
    random.Random(0).shuffle(rows)  # bench_editor.py's sample
    rows = rows[: limit or len(rows)]
    texts, evidence, gold = [], [], []
    for r in rows:
        tagged = parse_lenient(r["completion"]).tagged
        req = EditRequest.from_row(r)
        texts.append(tagged.original())
        evidence.append([e.text for e in req.evidence or []])
        gold.append(_chars(texts[-1], [(sp.start, sp.end) for sp in tagged.spans()]))
    checker = Checker(checker_folder(checker_dir))
    detector = Detector(default_detector())
    found = {
        "checker token head": [[(a, b) for a, b, _ in f]
                               for f in checker.unsupported_spans(texts, evidence)],
        "detector": [[(sp.start, sp.end) for sp in f] for f in detector.spans(texts, evidence)],
    }  # fmt: skip
    out = []
    for name, spans in found.items():
        pred = [_chars(t, s) for t, s in zip(texts, spans, strict=True)]
        clean = [not p for g, p in zip(gold, pred, strict=True) if not g]
        row = {"judge": name, "model": checker.name if name != "detector" else "default_detector",
               "set": "synthetic validation", "rows": len(rows), "spans": prf(gold, pred),
               "clean_left_alone": round(sum(clean) / len(clean), 4) if clean else None}  # fmt: skip
        print(json.dumps(row, default=str), flush=True)
        out.append(row)
    return out


def dev_sets(files: str, checker_dir: str | None, fraction: float) -> list[dict[str, Any]]:
    """The checker on the development split of ``files`` (see the module)."""
    from bench_verify import agreement

    from favakit.inference.checker import Checker, checker_folder
    from favakit.training.checker import data_files
    from favakit.training.pairs import prepare

    dev = prepare(data_files(files), fraction, hard_share=0.0).dev
    checker = Checker(checker_folder(checker_dir))
    scores = [p for p, _ in checker.score([d.text for d in dev], [d.evidence for d in dev])]
    out: list[dict[str, Any]] = []
    both: list[dict[str, Any]] = []
    for source in sorted({d.source for d in dev}):
        idx = [i for i, d in enumerate(dev) if d.source == source]
        human = [dev[i].label for i in idx]
        mine = [scores[i] for i in idx]
        row = {"judge": "checker", "model": checker.name, "set": f"dev:{source}", "rows": len(idx),
               **agreement(human, [x > checker.threshold for x in mine]), "auc": auc(human, mine)}  # fmt: skip
        print(json.dumps(row), flush=True)
        out.append(row)
        if len(set(human)) == 2:  # a source with one label has no balanced accuracy
            both.append(row)
    mean = {"judge": "checker", "model": checker.name, "set": "dev mean",
            "balanced_accuracy": round(sum(r["balanced_accuracy"] for r in both) / len(both), 4),
            "sources": len(both)}  # fmt: skip
    print(json.dumps(mean), flush=True)
    return [*out, mean]


def reads_every_row(kind: str, every_row: bool, sample_only: bool) -> bool:
    """Whether a judge of ``kind`` reads every row of a set, not only its sample: a fast one
    unless ``--sample-only``, a slow one only with ``--every-row``."""
    return not sample_only and (kind in FAST or every_row)


def cut_words(rows: list[dict[str, Any]], words: int, claims: int) -> list[dict[str, Any]]:
    """The first ``claims`` rows whose evidence has at least ``words`` words, each with its
    evidence cut to its first ``words`` words (one passage)."""
    out = []
    for r in rows:
        ev = " ".join(r["evidence"]).split()
        if len(ev) >= words:
            out.append({"text": r["text"], "evidence": [" ".join(ev[:words])]})
        if len(out) == claims:
            break
    if len(out) < claims:
        raise SystemExit(f"only {len(out)} rows with {words} words of evidence (wanted {claims})")
    return out


def speed_sets(verifiers: dict[str, Any], rows: list[dict[str, Any]], rounds: int,
               words: int) -> list[dict[str, Any]]:  # fmt: skip
    """Claims per second of each judge on ``rows``, side by side (see the module)."""
    import statistics

    from favakit.contracts import EditRequest

    claims = [EditRequest.from_obj(r) for r in rows]
    times: dict[tuple[str, str], list[float]] = {}
    for judge in verifiers.values():
        judge.verify(claims[:2])  # warm-up
    for _ in range(rounds):
        for name, judge in verifiers.items():
            t0 = time.perf_counter()
            judge.verify(claims)
            times.setdefault((name, "batched"), []).append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for c in claims:
                judge.verify([c])
            times.setdefault((name, "one by one"), []).append(time.perf_counter() - t0)
    out = []
    for (name, how), seconds in times.items():
        row = {"judge": name, "model": verifiers[name].model, "set": f"speed: {words} words",
               "calls": how, "claims": len(claims), "rounds": rounds,
               "claims_per_s": round(len(claims) / statistics.median(seconds), 3),
               "claims_per_s_each_round": [round(len(claims) / s, 3) for s in seconds]}  # fmt: skip
        print(json.dumps(row), flush=True)
        out.append(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, required=True, help="../shared/data/real")
    ap.add_argument("--sets", default=",".join((*TARGETS, "anli_dev")))
    ap.add_argument(
        "--judges",
        default="checker,verifier",
        help="comma-separated; checker=DIR adds another checker folder; a checker judge with "
        "@pieces or @selected reads long evidence that way, with @whole or @sentences reads texts "
        "of several sentences that way, with @fp32 or @bf16 in that precision",
    )
    ap.add_argument("--checker", default=None, help="checker folder (default: the shipped one)")
    ap.add_argument(
        "--cites", action="append", default=[], metavar="SET=MARK[,MARK]",
        help="read SET's texts as citing several sources: only the sentences carrying MARK are "
        "judged (favakit verify --cites); e.g. citint_test='<|cit|>,<|multi_cit|>'",
    )  # fmt: skip
    ap.add_argument("--slow-per-label", type=int, default=50)
    ap.add_argument(
        "--sample-only",
        action="store_true",
        help="fast judges too read only the sample (side by side with slow ones)",
    )
    ap.add_argument(
        "--every-row", action="store_true", help="slow judges too read every row (and the sample)"
    )
    ap.add_argument("--spans", action="store_true", help="also the checker on eval_spans")
    ap.add_argument("--dev", default="", help="training files: score their development split")
    ap.add_argument(
        "--synthetic-spans",
        default="",
        help="favakit's synthetic validation: token head against the detector",
    )
    ap.add_argument("--synthetic-limit", type=int, default=0)
    ap.add_argument("--dev-fraction", type=float, default=0.05, help="as data.validation_fraction")
    ap.add_argument("--speed-file", type=Path, default=None,
                    help="rows to time the judges on (labels not read)")  # fmt: skip
    ap.add_argument("--speed-words", type=int, default=200, help="evidence words a timed claim")
    ap.add_argument("--speed-claims", type=int, default=32)
    ap.add_argument("--speed-rounds", type=int, default=3)
    ap.add_argument("--llm-endpoint", default=None,
                    help="an OpenAI-compatible server for the llm judge and the cascade's second "
                         "judge (favakit serve-llm --model qwen2.5-coder-1.5b)")  # fmt: skip
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.inference.checker import READINGS, TEXT_READINGS, CheckerVerifier
    from favakit.inference.factory import open_verifier
    from favakit.spec import ClientSpec

    cites = {name: marks.split(",") for name, _, marks in (c.partition("=") for c in args.cites)}
    sets = {
        name: [json.loads(line) for line in eval_file(args.real, name).open()]
        for name in args.sets.split(",")
        if name
    }
    results: list[dict[str, Any]] = [{"meta": {
        "date": date.today().isoformat(), "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "slow_per_label": args.slow_per_label, "sets": {k: len(v) for k, v in sets.items()}}}]  # fmt: skip
    timed: dict[str, Any] = {}
    for judge in filter(None, args.judges.split(",")):
        # checker=DIR: another checker beside the first; NAME@pieces: that checker reading long
        # evidence in pieces (its own evidence_reading otherwise, favakit.inference.checker);
        # NAME@sentences or @whole: texts of several sentences read that way (its own
        # text_reading otherwise); NAME@fp32 or @bf16: in that precision (default: bf16 where
        # the CPU has it)
        name, *options = judge.split("@")
        kind, _, folder = name.partition("=")
        known = {*READINGS, *TEXT_READINGS, "fp32", "bf16"}
        if options and (kind != "checker" or not set(options) <= known):
            raise SystemExit(f"{judge}: @OPTION is for checker judges: {sorted(known)}")
        served = (
            ClientSpec(endpoint=args.llm_endpoint) if kind in ("llm", "qwen", "cascade") else None
        )
        if served and kind == "llm":  # the served model is the llm judge's preset
            served = served.with_(model="qwen2.5-coder-1.5b")
        verifier = open_verifier(
            kind, served, detector=folder or (args.checker if kind == "checker" else None)
        )
        for option in options:  # a checker judge's (refused above for the others)
            assert isinstance(verifier, CheckerVerifier)
            if option in READINGS:
                verifier.checker.reading = option
            elif option in TEXT_READINGS:
                verifier.checker.text_reading = option
            else:
                verifier.checker.bf16 = option == "bf16"
        if args.speed_file:
            timed[judge] = verifier
        for name, rows in sets.items():
            for part, chosen in (("all", rows), ("sample", sample(rows, args.slow_per_label))):
                if part == "all" and not reads_every_row(kind, args.every_row, args.sample_only):
                    continue
                row = {"judge": judge, "model": verifier.model, "set": name, "rows": part,
                       **({"cites": cites[name]} if name in cites else {}),
                       **measure(verifier, chosen, cites.get(name))}  # fmt: skip
                print(json.dumps(row), flush=True)
                results.append(row)
        for part in ("all", "sample"):
            got = [r for r in results if r.get("judge") == judge and r.get("rows") == part
                   and r.get("set") in TARGETS]  # fmt: skip
            if len(got) == len(TARGETS):
                mean = {"judge": judge, "rows": part, "set": "mean of the four targets",
                        "balanced_accuracy": round(sum(r["balanced_accuracy"] for r in got) / 4, 4),
                        "auc": round(sum(r["auc"] for r in got) / 4, 4),
                        "lowest": min(r["balanced_accuracy"] for r in got)}  # fmt: skip
                print(json.dumps(mean), flush=True)
                results.append(mean)
    if args.speed_file:
        rows = [json.loads(line) for line in args.speed_file.open()]
        results += speed_sets(timed, cut_words(rows, args.speed_words, args.speed_claims),
                              args.speed_rounds, args.speed_words)  # fmt: skip
    if args.dev:
        results += dev_sets(args.dev, args.checker, args.dev_fraction)
    if args.spans:
        results += span_sets(args.real, args.checker)
    if args.synthetic_spans:
        results += synthetic_spans(args.synthetic_spans, args.checker, args.synthetic_limit)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
