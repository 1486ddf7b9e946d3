"""Editor quality and speed in one run: the shipped editor against baselines, on data the
model never saw.

    python scripts/bench_editor.py --validation runs/synth/validation.jsonl \
        --train runs/synth/train.jsonl --flaherty ../shared/data/factscore/flaherty_wikipedia.json \
        --out docs/results/bench_editor_DATE.json

Systems, on the synthetic validation split (source titles never seen in training):
  * ``no-edit``: returns every text unchanged (what "find nothing" scores);
  * ``untuned few-shot``: SmolLM2-135M-Instruct with two training examples before each prompt;
  * ``shipped`` (or ``--adapter``): the default editor, as ``favakit edit`` runs it (decoding
    under the copy guard);
  * ``unguarded``: the same model decoding freely (what the weights alone do);
  * ``encoder``: the encoder detector (``--detector``, default the shipped one) alone;
  * ``cascade``: the encoder picks the windows, the shipped editor edits only those;
  * ``encoder+gate``: the encoder detector behind the checker's gate (``--checker``, default the
    shipped one, or ``mpnet``, or ``qwen``: the tuned Qwen judge; docs/checker.md): what ``favakit edit --backend encoder --gate
    checker`` does;
  * ``shipped+gate``: the shipped editor behind the same gate (``favakit edit --gate checker``).
  ``SYSTEM:CHECKER`` (e.g. ``shipped+gate:mpnet``) names a gated system's checker; a gated system
  listed after its ungated one reuses that run's edits (its seconds are then the gate's alone).
Figures per system: FAVA's sentence-level F1 per type, macro F1, binary F1, span F1, the share
of faithful outputs (the model reproduced the text around its tags), and corrected-text exact
match. Then seconds per ~100-word passage (one at a time, and batched), and the real checks:
the human-labelled atomic facts of the Flaherty biography (FActScore's data) as claims with
their own retrieved passages as evidence, and the biography itself, sentence by sentence and as
one text (`--flaherty-judge qwen`: edited atoms judged again by the tuned Qwen judge).
Prints one JSON object per measurement and writes them all to ``--out``.
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from favakit.contracts import Editor, EditRequest
from favakit.eval.detect import annotated_from_row, detection_report
from favakit.inference.editor import EditorSettings, GenerativeEditor
from favakit.inference.factory import open_editor, open_qwen_judge
from favakit.records import read_jsonl
from favakit.spec import ClientSpec
from favakit.tags import apply_edits, parse_lenient
from favakit.text import sentence_spans, split_sentences


def _emit(results: list[dict[str, Any]], record: dict[str, Any]) -> None:
    print(json.dumps(record), flush=True)
    results.append(record)


def _score(rows: list[dict[str, Any]], preds: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    pairs = [
        (annotated_from_row(r), annotated_from_row(p)) for r, p in zip(rows, preds, strict=True)
    ]
    report = detection_report(pairs)
    exact = sum(
        p["corrected"].split() == parse_lenient(r["completion"]).tagged.corrected().split()
        for r, p in zip(rows, preds, strict=True)
    )
    clean = [
        not p["edits"]
        for r, p in zip(rows, preds, strict=True)
        if not parse_lenient(r["completion"]).tagged.edits
    ]
    return {
        "n": len(rows),
        # texts with no error at all that the system left without an edit
        "clean_texts": len(clean),
        "clean_left_alone": round(sum(clean) / len(clean), 4) if clean else None,
        "per_type_f1": {t: v["f1"] for t, v in report["per_type"].items()},
        "macro_f1": report["macro_f1"],
        "binary_f1": report["binary"]["f1"],
        "binary_precision": report["binary"]["precision"],
        "binary_recall": report["binary"]["recall"],
        "span_f1": report["span"]["micro"]["f1"],
        "faithful": round(sum(bool(p.get("faithful", True)) for p in preds) / len(preds), 4),
        "exact_match": round(exact / len(rows), 4),
    }


def _no_edit(requests: list[EditRequest]) -> list[dict[str, Any]]:
    return [
        {"original": r.text, "corrected": r.text, "edits": [], "faithful": True} for r in requests
    ]


def _passages(rows: list[dict[str, Any]], n: int, words: int = 100) -> list[EditRequest]:
    """~100-word passages: consecutive validation texts of one article joined, with the
    references of both as evidence. Stops the run where the rows make none (too few texts of
    one article to reach ``words``)."""
    by_title: dict[str, list[EditRequest]] = {}
    for row in rows:
        by_title.setdefault(row["source_title"], []).append(EditRequest.from_row(row))
    out = []
    for reqs in by_title.values():
        text, evidence = "", []
        for req in reqs:
            text = f"{text} {req.text}".strip()
            evidence += [e for e in req.evidence or [] if e not in evidence]
            if len(text.split()) >= words:
                out.append(EditRequest(text, evidence=evidence[:3]))
                text, evidence = "", []
        if len(out) >= n:
            break
    if not out:
        raise SystemExit(f"bench_editor.py: the {len(rows)} validation rows make no {words}-word "
                         "passage to time (too few texts of one article): pass --speed 0 and "
                         "--encoder-speed 0, or more rows")  # fmt: skip
    return out[:n]


def _atom_sentences(atoms: list[dict[str, Any]], sentences: list[str]) -> list[int]:
    """Each atom's bio sentence: the one sharing most of its words (the atoms are FActScore's
    rewrites, "He has appeared in numerous films.", rarely substrings of the bio)."""

    def words(text: str) -> set[str]:
        return {w.strip(".,\"'").lower() for w in text.split()} - {"he", "his", "she", "her", ""}

    bags = [words(s) for s in sentences]
    atom_words = [words(a.get("original") or a["text"]) for a in atoms]
    return [max(range(len(bags)), key=lambda i: len(w & bags[i])) for w in atom_words]


def _flaherty_stats(
    atoms: list[dict[str, Any]], claims: list[Any], sentences: list[str], bio: list[Any]
) -> dict[str, Any]:
    """What one pipeline did to the Flaherty facts (as claims) and to the bio, sentence by
    sentence, counted with the human labels."""
    flagged = [bool(r["edits"]) for r in claims]
    # an edit whose correction is its own text (a flag) changes nothing
    changed = [any(e["wrong"] != e["right"] for e in r["edits"]) for r in claims]
    ns = [a["label"] == "NS" for a in atoms]
    claim_stats = {
        "atoms": len(atoms),
        "refuted_flagged": sum(f and n for f, n in zip(flagged, ns, strict=True)),
        "refuted": sum(ns),
        "supported_left_alone": sum((not f) and (not n) for f, n in zip(flagged, ns, strict=True)),
        "supported": len(atoms) - sum(ns),
        "refuted_changed": sum(c and n for c, n in zip(changed, ns, strict=True)),
        "supported_left_unchanged": sum(
            (not c) and (not n) for c, n in zip(changed, ns, strict=True)
        ),
        "no_op_edits": sum(
            e["wrong"] == e["right"] and not e.get("flagged") for r in claims for e in r["edits"]
        ),
        "edits": sum(len(r["edits"]) for r in claims),
        "faithful": sum(bool(r["faithful"]) for r in claims),
        "examples": [
            {"atom": a["text"], "label": a["label"], "edits": r["edits"]}
            for a, r in zip(atoms, claims, strict=True)
            if r["edits"]
        ],
    }
    # FActScore with the human labels, before and after: an atom of a deleted sentence is gone;
    # one whose words an edit changed needs judging again (the Qwen scorer does that:
    # edit-gain), so it is set aside and listed (an edit of more words than the atom, a whole
    # sentence replaced, touches every atom of it); every other atom keeps its label
    where = _atom_sentences(atoms, sentences)
    deleted = {i for i, r in enumerate(bio) if r["edits"] and not r["corrected"].strip()}
    changed_words = [
        [e["wrong"].strip().lower() for e in r["edits"] if e["wrong"] != e["right"]] for r in bio
    ]

    def edited(atom: dict[str, Any], i: int) -> bool:
        words = f"{atom['text']} {atom.get('original', '')}".lower()
        return i not in deleted and any(
            w and (w in words or len(w) > len(words)) for w in changed_words[i]
        )

    touched = {n for n, (a, i) in enumerate(zip(atoms, where, strict=True)) if edited(a, i)}

    def rewritten(atom: dict[str, Any], i: int) -> str | None:
        """The atom as its sentence's edits leave it (each changed span's fix put in for its
        wrong words, where the atom holds them); None when no edit's words are in it."""
        text = atom["text"]
        for e in bio[i]["edits"]:
            wrong = e["wrong"].strip()
            if e["wrong"] != e["right"] and wrong and wrong.lower() in text.lower():
                at = text.lower().index(wrong.lower())
                text = text[:at] + e["right"].strip() + text[at + len(wrong) :]
        return None if text == atom["text"] else text

    gone = {n for n, i in enumerate(where) if i in deleted}
    kept = [a for n, a in enumerate(atoms) if n not in touched | gone]

    def by_label(chosen: set[int]) -> dict[str, int]:
        return dict(Counter(atoms[n]["label"] for n in sorted(chosen)))

    return {
        "claims": claim_stats,
        "bio": {
            "sentences": len(sentences),
            "sentences_flagged": sum(bool(r["edits"]) for r in bio),
            "sentences_changed": sum(
                bool(w) for i, w in enumerate(changed_words) if i not in deleted
            ),
            "sentences_deleted": len(deleted),
            "faithful": sum(bool(r["faithful"]) for r in bio),
            "edits": [
                {"sentence": s, "corrected": r["corrected"], "edits": r["edits"]}
                for s, r in zip(sentences, bio, strict=True)
                if r["edits"]
            ],
            "factscore_human_before": round(sum(a["label"] == "S" for a in atoms) / len(atoms), 4),
            "factscore_human_after": round(
                sum(a["label"] == "S" for a in kept) / max(1, len(kept)), 4
            ),
            "atoms_after_unchanged": len(kept),
            "supported_after_unchanged": sum(a["label"] == "S" for a in kept),
            "atoms_deleted": by_label(gone),
            "atoms_edited": by_label(touched),
            "edited_atoms": [atoms[n]["text"] for n in sorted(touched)],
            "rewritten_atoms": [
                {
                    "id": atoms[n].get("id"),
                    "atom": atoms[n]["text"],
                    "label": atoms[n]["label"],
                    "rewritten": rewritten(atoms[n], where[n]),
                }
                for n in sorted(touched)
            ],
        },
    }


def _flaherty(
    editor: Any, path: str, checker: str | None = None, judge: str | None = None,
    cache: Path | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The Flaherty facts (as claims, each with its own passages) and the bio (sentence by
    sentence, two BM25 passages each), edited once; the results as they are (``ungated``) and,
    with ``checker``, behind the checker's gate (``gated``, what ``favakit edit`` does); with
    ``judge``, the edited atoms of the gated run (else the ungated one) judged again
    (:func:`_rejudge`). ``cache``: a file holding the editor's results, written on the first
    run and read instead of editing again on the next (the gate and the counting run anew)."""
    from favakit.retrieval.index import BM25Index

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    contexts = {c["id"]: c for c in data["contexts"]}
    atoms = data["atoms"]

    def ctx(ids: Any) -> list[dict[str, str]]:
        ids = json.loads(ids.replace("'", '"')) if isinstance(ids, str) else ids
        return [{"title": contexts[i]["title"], "text": contexts[i]["text"]} for i in ids[:2]]

    claim_reqs = [{"text": a["text"], "evidence": ctx(a["contexts"])} for a in atoms]
    passages = [c["text"] for c in data["contexts"]]
    bm25 = BM25Index.build(passages)
    sentences = split_sentences(data["output"])
    _, ids = bm25.search_text(sentences, 2)
    bio_reqs = [
        {
            "text": s,
            "topic": data["topic"],
            "evidence": [{"title": data["topic"], "text": passages[int(i)]} for i in row if i >= 0],
        }
        for s, row in zip(sentences, ids, strict=True)
    ]
    # the whole bio as one text, with every passage its sentences retrieved (once each)
    every = {p["text"]: p for r in bio_reqs for p in r["evidence"]}
    whole_req = {"text": data["output"], "topic": data["topic"], "evidence": list(every.values())}
    if cache is not None and cache.exists():  # the editor's results of an earlier run
        claims, bio, whole = json.loads(cache.read_text(encoding="utf-8"))
    else:
        claims, bio = editor.edit_many(claim_reqs), editor.edit_many(bio_reqs)
        whole = editor.edit_many([whole_req])
        if cache is not None:
            cache.write_text(json.dumps([claims, bio, whole]), encoding="utf-8")
    out = {"ungated": _flaherty_stats(atoms, claims, sentences, bio)}
    out["ungated"]["bio_whole"] = _flaherty_stats(
        atoms, claims, sentences, _by_sentence(whole[0], sentences)
    )["bio"]
    if checker is not None:
        model = getattr(editor, "model", "editor")
        gated_claims = _gated(_Replay(claims, model), checker).edit_many(claim_reqs)
        gated_bio = _gated(_Replay(bio, model), checker).edit_many(bio_reqs)
        gated_whole = _gated(_Replay(whole, model), checker).edit_many([whole_req])
        out["gated"] = _flaherty_stats(atoms, gated_claims, sentences, gated_bio)
        out["gated"]["bio_whole"] = _flaherty_stats(
            atoms, gated_claims, sentences, _by_sentence(gated_whole[0], sentences)
        )["bio"]
        out["gated"]["bio_whole"]["corrected"] = gated_whole[0]["corrected"]
    if judge is not None:
        # as FActScore judges: against the topic's own article (its passages here)
        article = list({c["text"]: {"title": c["title"], "text": c["text"]}
                        for c in data["contexts"] if c["title"] == data["topic"]}.values())  # fmt: skip
        evidence = {a.get("id"): article or ctx(a["contexts"]) for a in atoms}
        chosen = out["gated" if "gated" in out else "ungated"]
        verifier = open_qwen_judge()  # --flaherty-judge qwen: never the gate's own checker
        for part in ("bio", "bio_whole"):
            _rejudge(chosen[part], evidence, verifier)
    return out


def _by_sentence(result: Any, sentences: list[str]) -> list[dict[str, Any]]:
    """A whole text's edit result as one result per sentence (each edit in the sentence that
    holds its start, offsets from the sentence's start), as the sentence-by-sentence run has."""
    spans = sentence_spans(result["original"])
    assert [result["original"][a:b] for a, b in spans] == sentences
    out = []
    for a, b in spans:
        edits = [{**e, "start": e["start"] - a, "end": min(e["end"], b) - a,
                  "wrong": result["original"][e["start"] : min(e["end"], b)]}
                 for e in result["edits"] if a <= e["start"] < b]  # fmt: skip
        text = result["original"][a:b]
        out.append({"original": text, "edits": edits, "corrected": apply_edits(text, edits),
                    "faithful": result.get("faithful", True)})  # fmt: skip
    return out


def _rejudge(bio: dict[str, Any], evidence: dict[Any, Any], verifier: Any) -> None:
    """Judge each edited atom again, before and as the edits leave it, by ``verifier`` (a judge
    independent of the gate), each against ``evidence`` (the topic's own article, as FActScore
    judges), and count FActScore after editing with the human labels for the atoms left as they
    were and the judge's verdicts for the rewritten ones (atoms no edit's words reach stay set
    aside)."""
    rows = [r for r in bio["rewritten_atoms"] if r["rewritten"]]
    if not rows:
        bio["factscore_after_rejudged"] = bio["factscore_human_after"]
        return
    claims = [{"text": t, "evidence": [p["text"] for p in evidence[r["id"]]]}
              for r in rows for t in (r["atom"], r["rewritten"])]  # fmt: skip
    verdicts = verifier.verify(claims)
    for n, r in enumerate(rows):
        before, after = verdicts[2 * n], verdicts[2 * n + 1]
        r["judge_before"] = {"supported": before["supported"], "score": round(before["score"], 4)}
        r["judge_after"] = {"supported": after["supported"], "score": round(after["score"], 4)}
    kept = bio["atoms_after_unchanged"]
    supported = bio["supported_after_unchanged"] + sum(r["judge_after"]["supported"] for r in rows)
    bio["factscore_after_rejudged"] = round(supported / max(1, kept + len(rows)), 4)
    bio["rejudged_by"] = "favakit-qwen-judge"


class _Replay:
    """An editor that answers with results already made (the same requests, in order): a gated
    variant reuses its editor's run instead of editing again; its seconds are the gate's."""

    def __init__(self, results: Sequence[Mapping[str, Any]], model: str) -> None:
        self.results, self.model = results, model

    def edit_many(self, requests: Any) -> list[Any]:
        assert len(requests) == len(self.results)
        return [copy.deepcopy(dict(r)) for r in self.results]


def _gated(editor: Any, checker: str | None) -> Any:
    """``editor`` behind the gate of ``checker`` (a shipped checker's name, ``auto``, a folder,
    or ``qwen``: the tuned Qwen judge; :func:`~favakit.inference.factory.open_gate`)."""
    from favakit.inference.factory import open_gate
    from favakit.inference.gate import GatedEditor

    return GatedEditor(editor, open_gate(checker or "checker"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--validation", required=True)
    ap.add_argument("--train", required=True, help="training rows: the few-shot demonstrations")
    ap.add_argument("--adapter", default=None, help="default: the shipped editor")
    ap.add_argument("--model", default="", help="a whole model folder instead of an adapter")
    ap.add_argument("--limit", type=int, default=0, help="validation rows for the editor (0: all)")
    ap.add_argument("--baseline-limit", type=int, default=100, help="rows for the few-shot base")
    ap.add_argument("--systems", default="no-edit,untuned,shipped")
    ap.add_argument("--flaherty", default=None)
    ap.add_argument(
        "--no-flaherty-editor", dest="flaherty_editor", action="store_false",
        help="with --flaherty: check only the encoder there, not the generative editor",
    )  # fmt: skip
    ap.add_argument(
        "--no-flaherty-gate", dest="flaherty_gate", action="store_false",
        help="with --flaherty: the editor's results alone, not also behind the checker's gate",
    )  # fmt: skip
    ap.add_argument(
        "--flaherty-judge", default=None, choices=["qwen"],
        help="with --flaherty: judge the edited atoms again, before and after (the tuned Qwen "
        "judge), for FActScore after editing",
    )  # fmt: skip
    ap.add_argument(
        "--flaherty-cache", type=Path, default=None,
        help="with --flaherty: a file for the editor's results (written once, then reused)",
    )  # fmt: skip
    ap.add_argument("--speed", type=int, default=8, help="~100-word passages timed (0: skip)")
    ap.add_argument("--max-batch", type=int, default=8)
    ap.add_argument(
        "--dtype", default="auto", help="the editor's weights (as favakit edit --dtype)"
    )
    ap.add_argument(
        "--copy-draft", type=int, default=None,
        help="input tokens drafted a pass under the copy guard (0: batched decoding; default: "
        "the editor's own)",
    )  # fmt: skip
    ap.add_argument("--detector", default=None, help="detector folder (default: the shipped one)")
    ap.add_argument(
        "--checker",
        default=None,
        help="the gate's checker (default: the shipped one; mpnet, auto, qwen, a folder)",
    )
    ap.add_argument("--encoder-speed", type=int, default=64, help="passages for encoder speed")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    rows = list(read_jsonl(args.validation))
    random.Random(0).shuffle(rows)  # a fixed sample across titles when --limit is given
    results: list[dict[str, Any]] = []
    meta = {
        "date": date.today().isoformat(),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "validation": args.validation,
        "validation_rows": len(rows),
    }
    _emit(results, {"meta": meta})
    systems = args.systems.split(",")
    kinds = {system.partition(":")[0] for system in systems}  # "encoder+gate:mpnet": its checker
    editor: GenerativeEditor | None = None
    if {"shipped", "shipped+gate", "unguarded", "cascade"} & kinds or args.flaherty or args.speed:
        opened = open_editor(
            ClientSpec(args.model, args.adapter, max_batch=args.max_batch, dtype=args.dtype)
        )
        assert isinstance(opened, GenerativeEditor)  # no gate asked: the editor itself
        editor = opened
        generator = getattr(getattr(editor, "client", None), "generator", None)
        if generator is not None and args.copy_draft is not None:
            generator.copy_draft_tokens = args.copy_draft
        if generator is not None:
            decoding = {"dtype": str(generator.model.dtype),
                        "copy_draft_tokens": generator.copy_draft_tokens}  # fmt: skip
            _emit(results, {"editor": decoding})
    detector = None
    if {"encoder", "cascade", "encoder+gate"} & kinds:
        from favakit.inference.detector import Detector, DetectorEditor, default_detector

        detector = Detector(args.detector or default_detector())
    # each ungated system's results, for its gated variants
    made: dict[str, Sequence[Mapping[str, Any]]] = {}
    for name in systems:
        system, _, gate_checker = name.partition(":")
        n = args.baseline_limit if system == "untuned" else (args.limit or len(rows))
        part = rows[:n]
        requests = [EditRequest.from_row(r) for r in part]
        t0 = time.perf_counter()
        preds: Sequence[Mapping[str, Any]]  # results (no-edit's carry only what scoring reads)
        inner: Editor
        if system == "no-edit":
            preds = _no_edit(requests)
        elif system in ("encoder", "cascade", "encoder+gate"):
            assert detector is not None
            front = DetectorEditor(detector, generative=editor if system == "cascade" else None)
            if system == "encoder+gate":
                inner = _Replay(made["encoder"], front.model) if "encoder" in made else front
                preds = _gated(inner, gate_checker or args.checker).edit_many(requests)
            else:
                preds = front.edit_many(requests)
            if system == "cascade":
                _emit(results, {"cascade_windows": {"seen": front.windows_seen,
                                                    "sent": front.windows_sent}})  # fmt: skip
        elif system == "untuned":
            shots = [(r["prompt"], r["completion"]) for r in list(read_jsonl(args.train))[:2]]
            base = open_editor(ClientSpec("smollm2", max_batch=args.max_batch),
                               settings=EditorSettings(fewshot=shots))  # fmt: skip
            preds = base.edit_many(requests)
        elif system == "shipped+gate":
            assert editor is not None
            inner = _Replay(made["shipped"], editor.model) if "shipped" in made else editor
            preds = _gated(inner, gate_checker or args.checker).edit_many(requests)
        else:
            assert editor is not None
            editor.settings.copy_guard = system != "unguarded"
            preds = editor.edit_many(requests)
            editor.settings.copy_guard = True
        seconds = time.perf_counter() - t0
        if system in ("encoder", "shipped"):
            made[system] = copy.deepcopy(preds)
        _emit(results, {"system": name, **_score(part, preds), "seconds": round(seconds, 1),
                        "model": preds[0].get("model", "none") if preds else None})  # fmt: skip
    if args.speed and editor is not None:
        passages = _passages(rows, args.speed)
        t0 = time.perf_counter()
        for p in passages:
            editor.edit(p)
        one = (time.perf_counter() - t0) / len(passages)
        t0 = time.perf_counter()
        editor.edit_many(passages)
        batched = (time.perf_counter() - t0) / len(passages)
        words = sum(len(p.text.split()) for p in passages) / len(passages)
        _emit(results, {"speed": {"passages": len(passages), "mean_words": round(words, 1),
                                  "seconds_per_passage_one_at_a_time": round(one, 2),
                                  "seconds_per_passage_batched": round(batched, 2),
                                  "batch": args.max_batch}})  # fmt: skip
    if detector is not None and args.encoder_speed:
        from favakit.inference.detector import DetectorEditor

        passages = _passages(rows, args.encoder_speed)
        front = DetectorEditor(detector)
        front.edit_many(passages[:4])  # warm-up
        t0 = time.perf_counter()
        front.edit_many(passages)
        seconds = time.perf_counter() - t0
        _emit(results, {"encoder_speed": {
            "passages": len(passages),
            "mean_words": round(sum(len(p.text.split()) for p in passages) / len(passages), 1),
            "passages_per_s": round(len(passages) / seconds, 2),
            "seconds_per_passage": round(seconds / len(passages), 4)}})  # fmt: skip
    if args.flaherty and editor is not None and args.flaherty_editor:
        gate = (args.checker or "auto") if args.flaherty_gate else None
        found = _flaherty(editor, args.flaherty, gate, args.flaherty_judge, args.flaherty_cache)
        _emit(results, {"flaherty": found})
    if args.flaherty and detector is not None:
        from favakit.inference.detector import DetectorEditor

        _emit(results, {"flaherty_encoder": _flaherty(DetectorEditor(detector), args.flaherty)})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
