"""``favakit tags``: the tag grammar on the command line.

Model output is read leniently (repairs are reported on stderr); ``check`` and ``convert`` are
strict by default, since they are for data favakit itself should have written canonically.
"""

from __future__ import annotations

import argparse
import json
import sys

from favakit.errors import UsageError

__all__ = ["configure"]


def _read_input(name: str) -> str:
    if name == "-":
        data = sys.stdin.buffer.read()
        where = "standard input"
    else:
        try:
            with open(name, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise UsageError(f"cannot read {name!r}: {exc.strerror}") from None
        where = repr(name)
    from favakit.records import document_text

    try:
        text = document_text(data)  # UTF-8, or UTF-16 with its byte-order mark
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{where} is not UTF-8 text (byte {exc.start}); re-encode it as UTF-8"
        ) from None
    _refuse_json(text, where)
    return text


def _refuse_json(text: str, where: str) -> None:
    """Refuse JSON rows (a model's outputs saved as JSONL): read as tagged text, their quotes and
    field names became the text, and spans were offsets into the JSON."""
    first = text.lstrip().split("\n", 1)[0].strip()
    if not first.startswith("{"):
        return
    try:
        row = json.loads(first)
    except json.JSONDecodeError:
        return
    if isinstance(row, dict):
        fields = [k for k, v in row.items() if isinstance(v, str)][:4]
        pick = f"'.{fields[0]}'" if fields else "'.FIELD'"
        raise UsageError(
            f"{where} holds JSON rows (fields: {', '.join(map(repr, fields)) or 'none'}), and "
            f"favakit tags reads tagged text: take the field out first, e.g. jq -r {pick}"
        )


def _write(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _load(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from favakit import tags

    text = _read_input(args.file)
    if getattr(args, "strict", False):
        return tags.parse(text, args.view)
    result = tags.parse_lenient(text, args.view)
    if result.repairs and not args.quiet:
        counts = ", ".join(f"{k} x{v}" for k, v in sorted(result.counts().items()))
        print(f"favakit tags: repaired malformed tags: {counts}", file=sys.stderr)
    return result.tagged


def _strip(args: argparse.Namespace) -> int:
    _write(_load(args).corrected(keep_bare=args.keep_bare))
    return 0


def _original(args: argparse.Namespace) -> int:
    _write(_load(args).original())
    return 0


def _spans(args: argparse.Namespace) -> int:
    spans = [s.to_dict() for s in _load(args).spans()]
    _write(json.dumps(spans, ensure_ascii=False, indent=None if args.compact else 2))
    return 0


def _check(args: argparse.Namespace) -> int:
    from favakit import tags

    text = _read_input(args.file)
    try:
        tagged = tags.parse(text, args.view)
    except tags.TagParseError as exc:
        print(f"invalid: {exc}", file=sys.stderr)
        return 1
    counts: dict[str, int] = {}
    for e in tagged.edits:
        counts[e.type] = counts.get(e.type, 0) + 1
    detail = ", ".join(f"{t} {n}" for t, n in counts.items())
    print(f"valid: {len(tagged.edits)} edit(s)" + (f" ({detail})" if detail else ""))
    return 0


def _convert(args: argparse.Namespace) -> int:
    from favakit import tags

    if args.source == args.target:
        raise UsageError(f"--from and --to are both {args.source!r}; nothing to convert")
    args.view = args.source
    args.strict = not args.lenient
    try:
        tagged = _load(args)
    except tags.TagParseError as exc:
        raise UsageError(
            f"input is not valid {args.source}-view text: {exc}\n(use --lenient to repair it)"
        ) from None
    _write(tags.render(tagged, args.target))
    return 0


def configure(parser: argparse.ArgumentParser) -> None:
    views = ["edit", "synthetic"]
    sub = parser.add_subparsers(dest="tags_command", metavar="ACTION", required=True)

    def add(name: str, help_text: str, func, view: bool = True, lenient: bool = True):  # type: ignore[no-untyped-def]
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument(
            "file",
            nargs="?",
            default="-",
            metavar="FILE",
            help="input file, or - for stdin (default)",
        )
        if view:
            p.add_argument(
                "--view",
                choices=views,
                default="edit",
                help="tag convention of the input (default: edit)",
            )
        if lenient:
            p.add_argument(
                "--strict",
                action="store_true",
                help="fail on malformed tags instead of repairing them",
            )
            p.add_argument(
                "-q", "--quiet", action="store_true", help="do not report repairs on stderr"
            )
        p.set_defaults(func=func)
        return p

    p = add("strip", "print the corrected text: every edit applied, tags removed", _strip)
    p.add_argument(
        "--keep-bare",
        action="store_true",
        help="keep the text of bare type tags (<subjective>...</subjective>), as FAVA's code does",
    )
    add(
        "original",
        "print the text as written: tags and corrections removed, wrong text kept",
        _original,
    )
    p = add(
        "spans",
        "print the edits as JSON spans {type,start,end,wrong,right} into the original text",
        _spans,
    )
    p.add_argument("--compact", action="store_true", help="one-line JSON")
    add(
        "check",
        "exit 0 if the input is strictly valid tagged text, else exit 1 with the error",
        _check,
        lenient=False,
    )
    p = add(
        "convert",
        "re-render tagged text from one view into the other",
        _convert,
        view=False,
        lenient=False,
    )
    p.add_argument("--from", dest="source", choices=views, required=True, help="view of the input")
    p.add_argument("--to", dest="target", choices=views, required=True, help="view of the output")
    p.add_argument(
        "--lenient", action="store_true", help="repair malformed input instead of failing"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="do not report repairs on stderr")
