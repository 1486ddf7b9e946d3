"""Command-line front ends: ``favakit kb``, ``favakit index``, ``favakit search``.

Light at import time (argparse only); the work is imported when a command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from favakit.cli_args import changed_options, device, positive_int, weights
from favakit.distributed import add_ray_options
from favakit.errors import UsageError

__all__ = ["configure_index", "configure_kb", "configure_search"]


#: `favakit kb build`'s passage budget in tokens where none is given
KB_MAX_TOKENS = 256


def _kb_build(args: argparse.Namespace) -> int:
    from favakit.retrieval.kb import build_kb

    token_flags = changed_options(
        args, (("--max-tokens", "max_tokens", None), ("--tokenizer", "tokenizer", None))
    )
    if args.max_words is not None and token_flags:
        verb = "count" if len(token_flags) > 1 else "counts"
        raise UsageError(f"--max-words counts words, and {' and '.join(token_flags)} {verb} "
                         "tokens: give one budget")  # fmt: skip
    count = None
    if args.tokenizer:
        from favakit.deps import require
        from favakit.retrieval.encoder import resolve_encoder
        from favakit.text import tokenizer_counter

        transformers = require("transformers", "train", "--tokenizer")
        try:
            tok = transformers.AutoTokenizer.from_pretrained(resolve_encoder(args.tokenizer).model)
        except OSError as exc:
            raise UsageError(f"cannot load tokenizer {args.tokenizer!r}: {exc}") from None
        count = tokenizer_counter(tok)
    stats = build_kb(
        args.input,
        args.out,
        fmt=args.format,
        max_tokens=args.max_tokens if args.max_tokens is not None else KB_MAX_TOKENS,
        max_words=args.max_words,
        progress=not args.quiet,
        count=count,
    )
    print(json.dumps({"out": args.out, **stats.__dict__}))
    return 0


def _kb_get(args: argparse.Namespace) -> int:
    from favakit.retrieval.kb import KnowledgeSource, UnknownTitleError

    with KnowledgeSource(args.kb) as kb:
        try:
            passages = kb.get(args.title)
        except UnknownTitleError as exc:
            print(f"favakit kb get: error: {exc}", file=sys.stderr)
            return 2
        title = kb.resolve(args.title)
        if args.json:
            for i, p in enumerate(passages):
                print(json.dumps({"title": title, "passage": i, "text": p}, ensure_ascii=False))
        else:
            for i, p in enumerate(passages):
                print(f"[{title} #{i}] {p}\n")
    return 0


def _kb_titles(args: argparse.Namespace) -> int:
    from favakit.retrieval.kb import KnowledgeSource

    with KnowledgeSource(args.kb) as kb:
        for title in kb.titles():
            print(title)
    return 0


def configure_kb(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="kb_command", metavar="ACTION", required=True)
    p = sub.add_parser("build", help="build a knowledge-source DB (FActScore's sqlite schema)")
    p.add_argument(
        "--input",
        required=True,
        action="append",
        help="JSONL/JSON file, a .txt/.md file or a folder of them (Markdown read as prose), "
        "DPR .tsv, or HotpotQA JSON; repeat to combine",
    )
    p.add_argument("--out", required=True, help="output sqlite file")
    p.add_argument(
        "--format", default="auto", choices=["auto", "jsonl", "json", "dir", "dpr-tsv", "hotpot"]
    )
    p.add_argument(
        "--max-tokens",
        type=positive_int,
        default=None,
        help=f"passage budget in tokens (default {KB_MAX_TOKENS})",
    )
    p.add_argument(
        "--max-words",
        type=positive_int,
        default=None,
        help="passage budget in words instead (DPR: 100)",
    )
    p.add_argument(
        "--tokenizer",
        default=None,
        help="count --max-tokens with this tokenizer (minilm, contriever-msmarco or a folder)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_kb_build)
    p = sub.add_parser("get", help="print the passages of one article")
    p.add_argument("--kb", required=True, help="knowledge-source sqlite file")
    p.add_argument("title")
    p.add_argument("--json", action="store_true", help="JSON lines {title, passage, text}")
    p.set_defaults(func=_kb_get)
    p = sub.add_parser("titles", help="list every title")
    p.add_argument("--kb", required=True)
    p.set_defaults(func=_kb_titles)


def _index_build(args: argparse.Namespace) -> int:
    from favakit.distributed import parse_shard, ray_options
    from favakit.records import kept_note
    from favakit.retrieval.index import SHARDS_DIR, build_index

    ray = ray_options(args)
    if ray is not None and args.kind == "bm25":
        raise UsageError(
            "--ray distributes the embedding of dense indexes; BM25 builds in one process"
        )
    dense_only = changed_options(args, (
        ("--encoder", "encoder", None), ("--shard-size", "shard_size", None),
        ("--shard", "shard", None), ("--batch-size", "batch_size", None), ("--device", "device", None),
    ))  # fmt: skip
    if args.kind == "bm25" and dense_only:
        raise UsageError(f"{', '.join(dense_only)}: options of the dense indexes' embedding, and "
                         "--kind bm25 embeds nothing")  # fmt: skip
    if args.nlist is not None and args.kind != "ivf":
        raise UsageError(f"--nlist sets the clusters of --kind ivf, not {args.kind}")
    if args.kind != "bm25":  # stopped part way, a dense build says what it kept
        args.on_interrupt = lambda: kept_note(
            Path(args.out) / SHARDS_DIR, "the shards embedded so far"
        )
    meta = build_index(
        args.kb,
        args.out,
        encoder=args.encoder or "minilm",
        kind=args.kind,
        shard_size=20_000 if args.shard_size is None else args.shard_size,
        shard=parse_shard(args.shard),
        batch_size=64 if args.batch_size is None else args.batch_size,
        device=args.device,
        nlist=args.nlist,
        progress=not args.quiet,
        ray=ray,
    )
    if meta is not None:
        print(json.dumps(meta))
    return 0


def configure_index(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="index_command", metavar="ACTION", required=True)
    p = sub.add_parser("build", help="embed a KB's passages and build a dense or BM25 index folder")
    p.add_argument("--kb", required=True, help="knowledge-source sqlite file")
    p.add_argument("--out", required=True, help="index folder")
    p.add_argument(
        "--encoder",
        default=None,
        help="minilm | contriever-msmarco | model folder (default minilm)",
    )
    p.add_argument(
        "--kind",
        default="flat",
        choices=["flat", "ivf", "hnsw", "bm25"],
        help="flat, ivf, hnsw: a dense (FAISS) index over the encoder's vectors, flat exact (the "
        "default), ivf and hnsw approximate, for large sources; bm25: a word index. Name a "
        "dense and a BM25 index together at search, edit or verify to fuse them",
    )
    p.add_argument(
        "--shard-size",
        type=positive_int,
        default=None,
        help="passages per embedding shard (default 20000)",
    )
    p.add_argument(
        "--shard",
        default=None,
        help="i/n: embed only shards k with k %% n == i (split across machines)",
    )
    p.add_argument(
        "--batch-size", type=positive_int, default=None, help="passages a pass (default 64)"
    )
    p.add_argument(
        "--device", type=device, default=None,
        help="cpu, cuda, cuda:1 (default: cuda when available)",
    )  # fmt: skip
    p.add_argument(
        "--nlist", type=positive_int, default=None, help="IVF clusters (default about 4*sqrt(n))"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    add_ray_options(p)
    p.set_defaults(func=_index_build)


def _search(args: argparse.Namespace) -> int:
    from favakit.records import valid_rows
    from favakit.retrieval.search import Searcher

    if (args.query is None) == (args.queries is None):
        raise UsageError("give either QUERY or --queries FILE.jsonl")
    if args.query is not None and not args.query.strip():  # an unset shell variable, say
        raise UsageError("the QUERY is empty: give the words to search for")
    if args.query is not None and args.batch_size is not None:
        raise UsageError("--batch-size groups the rows of --queries; one QUERY is one search")

    def query_row(row: dict[str, Any], lineno: int, where: str) -> tuple[Any, str]:
        if not isinstance(row.get("query"), str):
            raise UsageError(f'{where}: expected {{"id", "query"}}')
        return row.get("id", lineno), row["query"]

    # checked before the index loads; a row without an id is known by its line number
    rows = [] if args.queries is None else valid_rows(args.queries, query_row)
    if args.weights is not None and len(args.weights) != len(args.index):
        raise UsageError(f"--weights: {len(args.weights)} weight(s) for {len(args.index)} "
                         "--index: give one per index, in their order")  # fmt: skip
    searcher = Searcher(
        args.index,
        kb=args.kb,
        weights=args.weights,
        title_match=args.title_match,
        device=args.device,
    )
    if args.device is not None and all(idx.kind == "bm25" for idx in searcher.indexes):
        raise UsageError(f"--device {args.device} places a dense index's encoder, and these "
                         "indexes are BM25, which needs none: leave it out")  # fmt: skip
    if args.query is not None:
        hits = searcher.search(args.query, args.k)
        for hit in hits:
            print(json.dumps(hit.to_dict(), ensure_ascii=False))
        if not hits:  # BM25 finds nothing where no word of the query is in the index
            print(f"favakit search: no passage matches {args.query!r}", file=sys.stderr)
        return 0
    batch = args.batch_size or 64
    for start in range(0, len(rows), batch):
        chunk = rows[start : start + batch]
        for (rid, _), hits in zip(
            chunk, searcher.search_many([query for _, query in chunk], args.k), strict=True
        ):
            out = {"id": rid, "results": [h.to_dict() for h in hits]}
            print(json.dumps(out, ensure_ascii=False))
    return 0


def configure_search(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", nargs="?", default=None, help="the query (or use --queries)")
    parser.add_argument(
        "--index",
        required=True,
        action="append",
        help="index folder; repeat to fuse several (hybrid)",
    )
    parser.add_argument("-k", "--k", type=int, default=5, help="results per query (default 5)")
    parser.add_argument(
        "--queries",
        default=None,
        help='JSONL file of {"id"?, "query"} rows; the results keep each id (else the line number)',
    )
    parser.add_argument(
        "--weights",
        type=weights,
        default=None,
        help="comma-separated fusion weights, one per --index",
    )
    parser.add_argument(
        "--title-match",
        action="store_true",
        help="also fuse in articles whose title occurs in the query",
    )
    parser.add_argument(
        "--batch-size",
        type=positive_int,
        default=None,
        help="with --queries: queries searched together (default 64)",
    )
    parser.add_argument(
        "--device",
        type=device,
        default=None,
        help="for a dense index: cpu, cuda, cuda:1 (default: cuda when available)",
    )
    parser.add_argument("--kb", default=None, help="knowledge source, if it moved after indexing")
    parser.set_defaults(func=_search)
