"""Knowledge sources: title -> passages, in FActScore's sqlite schema.

The database holds one table, ``documents(title TEXT PRIMARY KEY, text TEXT)``, with a
document's passages joined by ``####SPECIAL####SEPARATOR####``; FActScore's own enwiki DB opens
here unchanged, and ours opens in FActScore. favakit adds a ``favakit_titles`` table (normalized
title and base name, indexed) for lenient lookup and for finding every article that shares a
name ("Dick Hanley", "Dick Hanley (swimmer)"); on a database without it, the same lookup is built
in memory on first use.

Builders read JSONL or JSON lists of ``{"title", "text"}`` (text a string or a list of
sections), a folder of .txt/.md files or one such file (title: the file's name; Markdown read
as prose, a heading starting a section: :mod:`favakit.retrieval.markdown`), DPR's
``psgs_w100.tsv`` and HotpotQA-style ``context`` records, and pack whole sentences into
passages (:mod:`favakit.text`).
"""

from __future__ import annotations

import csv
import difflib
import json
import logging
import os
import re
import sqlite3
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from favakit.errors import UsageError
from favakit.progress import Progress
from favakit.records import document_text, numbered_jsonl, sqlite_tables, valid_rows
from favakit.retrieval.markdown import markdown_sections
from favakit.text import count_tokens, count_words, pack_passages

__all__ = [
    "SEPARATOR",
    "BuildStats",
    "KnowledgeSource",
    "Passage",
    "UnknownTitleError",
    "base_name",
    "build_kb",
    "normalize_title",
    "read_documents",
    "strip_qualifier",
]

log = logging.getLogger(__name__)
SEPARATOR = "####SPECIAL####SEPARATOR####"
Format = Literal["auto", "jsonl", "json", "dir", "dpr-tsv", "hotpot"]
FORMATS: tuple[str, ...] = ("auto", "jsonl", "json", "dir", "dpr-tsv", "hotpot")


def normalize_title(title: str) -> str:
    """Case-, width- and underscore-insensitive form of a title."""
    t = unicodedata.normalize("NFKC", title).replace("_", " ")
    return " ".join(t.casefold().split())


_QUALIFIER_RE = re.compile(r"\s*\([^()]*\)\s*$")


def strip_qualifier(title: str) -> str:
    """A title without its trailing parenthesized qualifier: "Ed Wood (film)" -> "Ed Wood"."""
    return _QUALIFIER_RE.sub("", title)


def base_name(title: str) -> str:
    """Normalized title without a trailing parenthesized qualifier: "Ed Wood (film)" -> "ed wood"."""
    return normalize_title(strip_qualifier(title)) or normalize_title(title)


class UnknownTitleError(UsageError, KeyError):
    """A title not in the knowledge source; carries the closest titles."""

    def __init__(self, title: str, closest: list[str]) -> None:
        self.title = title
        self.closest = closest
        hint = f"; closest titles: {', '.join(repr(c) for c in closest)}" if closest else ""
        super().__init__(f"no document titled {title!r} in the knowledge source{hint}")

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


@dataclass(frozen=True)
class Passage:
    title: str
    text: str
    doc: int  # document rowid
    index: int  # position of the passage in its document

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "text": self.text}


class KnowledgeSource:
    """Read access to a knowledge-source sqlite file (ours or FActScore's)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            index = (
                " (an index folder goes with --index)" if (self.path / "meta.json").exists() else ""
            )
            raise UsageError(
                f"knowledge source {str(self.path)!r} is a folder: a knowledge source is one "
                f"sqlite file, built with 'favakit kb build'{index}"
            )
        if not self.path.is_file():
            raise UsageError(
                f"knowledge source {str(self.path)!r} does not exist; build one with 'favakit kb build'"
            )
        # the path quoted into the URI: '#', '?' and '%' are file-name characters here, and an
        # unquoted '#' would drop mode=ro and make an empty database beside the file
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        self.conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        try:
            self.conn.execute("SELECT title, text FROM documents LIMIT 1")
        except sqlite3.DatabaseError as exc:
            raise UsageError(
                f"{str(self.path)!r} is not a knowledge source (no documents table): {exc}"
            ) from None
        self._has_title_table = bool(
            self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='favakit_titles'"
            ).fetchone()
        )
        self._memo_titles: dict[str, list[str]] | None = None
        self._memo_bases: dict[str, list[str]] | None = None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> KnowledgeSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0])

    def __contains__(self, title: object) -> bool:
        return isinstance(title, str) and self.resolve(title) is not None

    def titles(self) -> Iterator[str]:
        for (title,) in self.conn.execute("SELECT title FROM documents ORDER BY rowid"):
            yield title

    # -- title lookup ----------------------------------------------------------------------------
    def _title_maps(self) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        if self._memo_titles is None or self._memo_bases is None:
            norms: dict[str, list[str]] = {}
            bases: dict[str, list[str]] = {}
            for title in self.titles():
                norms.setdefault(normalize_title(title), []).append(title)
                bases.setdefault(base_name(title), []).append(title)
            self._memo_titles, self._memo_bases = norms, bases
        return self._memo_titles, self._memo_bases

    def resolve(self, title: str) -> str | None:
        """The stored title for ``title``: exact match first, then normalized match."""
        row = self.conn.execute("SELECT title FROM documents WHERE title = ?", (title,)).fetchone()
        if row:
            return str(row[0])
        norm = normalize_title(title)
        if self._has_title_table:
            row = self.conn.execute(
                "SELECT title FROM favakit_titles WHERE norm = ? ORDER BY title LIMIT 1", (norm,)
            ).fetchone()
            return str(row[0]) if row else None
        found = self._title_maps()[0].get(norm)
        return found[0] if found else None

    def titles_with_base(self, name: str) -> list[str]:
        """Every title whose name, qualifier removed, is ``name`` (for ambiguous entities)."""
        key = base_name(name)
        if self._has_title_table:
            rows = self.conn.execute(
                "SELECT title FROM favakit_titles WHERE base = ? ORDER BY title", (key,)
            )
            return [str(r[0]) for r in rows]
        return sorted(self._title_maps()[1].get(key, []))

    def closest_titles(self, title: str, n: int = 5) -> list[str]:
        norm = normalize_title(title)
        if self._has_title_table and len(self) > 50_000:
            # large sources: only compare against titles sharing the first word
            head = norm.split(" ")[0] if norm else ""
            rows = self.conn.execute(
                "SELECT norm, title FROM favakit_titles WHERE norm >= ? AND norm < ? LIMIT 20000",
                (head, head + "\uffff"),
            ).fetchall()
            candidates = {str(r[0]): str(r[1]) for r in rows}
        else:
            candidates = {normalize_title(t): t for t in self.titles()}
        close = difflib.get_close_matches(norm, list(candidates), n=n, cutoff=0.4)
        return [candidates[c] for c in close]

    def get(self, title: str) -> list[str]:
        """Passages of a document; :class:`UnknownTitleError` names the closest titles."""
        stored = self.resolve(title)
        if stored is None:
            raise UnknownTitleError(title, self.closest_titles(title))
        row = self.conn.execute("SELECT text FROM documents WHERE title = ?", (stored,)).fetchone()
        return [p for p in str(row[0]).split(SEPARATOR) if p.strip()]

    def lead(self, title: str) -> Passage:
        """The first passage of an article (resolved like :meth:`get`)."""
        stored = self.resolve(title)
        if stored is None:
            raise UnknownTitleError(title, self.closest_titles(title))
        row = self.conn.execute(
            "SELECT rowid, text FROM documents WHERE title = ?", (stored,)
        ).fetchone()
        parts = str(row[1]).split(SEPARATOR)
        j = next((i for i, p in enumerate(parts) if p.strip()), 0)
        return Passage(stored, parts[j], int(row[0]), j)

    def passages(
        self, start_doc: int = 0, start_index: int = 0, limit: int | None = None
    ) -> Iterator[Passage]:
        """Every passage, in a stable order (document rowid, then position); or ``limit`` of
        them from the passage ``(start_doc, start_index)`` on (one index shard)."""
        cur = self.conn.execute(
            "SELECT rowid, title, text FROM documents WHERE rowid >= ? ORDER BY rowid", (start_doc,)
        )
        left = limit
        for rowid, title, text in cur:
            for j, p in enumerate(str(text).split(SEPARATOR)):
                if not p.strip() or (rowid == start_doc and j < start_index):
                    continue
                if left is not None:
                    if left <= 0:
                        return
                    left -= 1
                yield Passage(str(title), p, int(rowid), j)

    def passage(self, doc: int, index: int) -> Passage:
        row = self.conn.execute(
            "SELECT title, text FROM documents WHERE rowid = ?", (doc,)
        ).fetchone()
        if row is None:
            raise UsageError(
                f"{self.path}: no document with rowid {doc}; was the KB rebuilt after indexing?"
            )
        return Passage(str(row[0]), str(row[1]).split(SEPARATOR)[index], doc, index)

    def count_passages(self) -> int:
        return sum(1 for _ in self.passages())


# ------------------------------------------------------------------------------------------------
# Readers: yield (title, text or sections, prepacked)


def _detect(path: Path) -> str:
    if path.is_dir():
        return "dir"
    name = path.name.lower()
    if name.endswith((".tsv", ".tsv.gz")):
        return "dpr-tsv"
    if name.endswith(".jsonl"):
        return "jsonl"
    if name.endswith((".txt", ".md")):
        return "dir"  # one document, read as a folder's files are
    if name.endswith(".json"):
        with path.open(encoding="utf-8-sig") as fh:
            head = fh.read(4096)
        return "hotpot" if '"context"' in head else "json"
    raise UsageError(
        f"cannot tell the format of {str(path)!r}; pass --format ({', '.join(FORMATS[1:])})"
    )


def _doc(obj: Any, where: str) -> tuple[str, str | list[str]]:
    if not isinstance(obj, dict) or "title" not in obj or "text" not in obj:
        raise UsageError(f"{where}: expected an object with 'title' and 'text'")
    title, text = obj["title"], obj["text"]
    if not isinstance(title, str) or not title.strip():
        raise UsageError(f"{where}: 'title' must be a non-empty string")
    if isinstance(text, list) and all(isinstance(t, str) for t in text):
        return title.strip(), text
    if not isinstance(text, str):
        raise UsageError(f"{where}: 'text' must be a string or a list of strings")
    return title.strip(), text


def _check_jsonl_documents(path: Path, fmt: str) -> None:
    """Refuse a JSONL documents file with bad rows before the build starts, naming every bad
    row: a build reads its documents once, so a bad row at the end of a large file used to cost
    the whole build, and named the first bad row alone. Reading the rows twice costs a small
    part of a build (JSON parsing beside packing and writing passages)."""

    def check(obj: Any, _: int, where: str) -> None:
        _doc(obj, where)

    if path.is_file() and (_detect(path) if fmt == "auto" else fmt) == "jsonl":
        valid_rows(path, check)


def _say_skipped(skipped: list[Path], folder: Path) -> None:
    """Warn about the files of a documents folder that are not read (hidden ones aside)."""
    if skipped:
        names = ", ".join(str(f.relative_to(folder)) for f in skipped[:5])
        more = f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
        log.warning("%s: %d file(s) skipped, as only .txt and .md files are read: %s%s "
                    "(convert other documents to text first)", folder, len(skipped), names,
                    more)  # fmt: skip


def _hidden(f: Path, folder: Path) -> bool:
    """Whether ``f`` is hidden in ``folder``: itself or a folder on its way (``.git``)."""
    return any(part.startswith(".") for part in f.relative_to(folder).parts)


def _read_text(f: Path) -> str:
    """:func:`document_text` of a file; bytes it cannot read are replaced, and said."""
    data = f.read_bytes()
    try:
        return document_text(data)
    except UnicodeDecodeError as exc:
        log.warning("%s is not UTF-8 (byte %d): its unreadable bytes are replaced", f, exc.start)
        return data.decode("utf-8-sig", errors="replace")


def read_documents(
    path: str | os.PathLike[str], fmt: str = "auto"
) -> Iterator[tuple[str, str | list[str], bool]]:
    """Yield ``(title, text_or_sections, prepacked)`` from any supported input format."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"input {str(p)!r} does not exist")
    kind = _detect(p) if fmt == "auto" else fmt
    if kind not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if kind == "dir":
        found = [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.is_file())
        files, skipped = [], []
        for f in found:
            if f.suffix.lower() in (".txt", ".md"):
                files.append(f)
            elif not _hidden(f, p):
                skipped.append(f)
        if not files:
            raise UsageError(f"{str(p)!r} holds no .txt or .md files")
        _say_skipped(skipped, p)
        for f in files:
            raw = _read_text(f)
            yield f.stem, markdown_sections(raw) if f.suffix.lower() == ".md" else raw, False
    elif kind == "jsonl":
        for lineno, obj in numbered_jsonl(p):
            title, text = _doc(obj, f"{p}:{lineno}")
            yield title, text, False
    elif kind in ("json", "hotpot"):
        try:
            data = json.loads(p.read_text(encoding="utf-8-sig"))
        except json.JSONDecodeError as exc:
            raise UsageError(f"{p}: invalid JSON ({exc.msg} at line {exc.lineno})") from None
        if isinstance(data, dict):
            data = data.get("data", data.get("rows", [data]))
        if not isinstance(data, list):
            raise UsageError(f"{p}: expected a JSON list of records")
        for i, obj in enumerate(data):
            if kind == "hotpot" or (isinstance(obj, dict) and "context" in obj):
                ctx = obj.get("context") if isinstance(obj, dict) else None
                for title, text in _hotpot_paragraphs(ctx, f"{p}[{i}]"):
                    yield title, text, False
            else:
                title, text = _doc(obj, f"{p}[{i}]")
                yield title, text, False
    else:  # dpr-tsv: one row per ready-made passage; rows of an article are consecutive
        with p.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, delimiter="\t")
            for lineno, row in enumerate(reader, start=1):
                if lineno == 1 and row[:1] == ["id"]:
                    continue
                if len(row) < 3:
                    raise UsageError(f"{p}:{lineno}: expected 'id<TAB>text<TAB>title'")
                text, title = row[1], row[2]
                if text.startswith('"') and text.endswith('"'):
                    text = text[1:-1]
                yield title, text, True


def _hotpot_paragraphs(ctx: Any, where: str) -> list[tuple[str, str]]:
    """A HotpotQA record's ``context`` as (title, text) paragraphs, in either form it comes in:
    the released files' ``[[title, [sentence, ...]], ...]`` or the datasets library's
    ``{"title": [...], "sentences": [[...], ...]}``. Sentences keep their own spacing."""
    if isinstance(ctx, dict) and "title" in ctx and "sentences" in ctx:
        titles, sentences = ctx["title"], ctx["sentences"]
        if not (isinstance(titles, list) and isinstance(sentences, list)
                and len(titles) == len(sentences)):  # fmt: skip
            raise UsageError(f"{where}: 'context' needs as many 'title's as 'sentences' lists")
        pairs = list(zip(titles, sentences, strict=True))
    elif isinstance(ctx, list) and all(isinstance(c, list) and len(c) == 2 for c in ctx):
        pairs = [(c[0], c[1]) for c in ctx]
    else:
        raise UsageError(
            f"{where}: expected 'context' as [[title, [sentence, ...]], ...] (HotpotQA's files) "
            "or {'title': [...], 'sentences': [[...], ...]}"
        )
    paragraphs = []
    for n, (title, sents) in enumerate(pairs):
        if not isinstance(title, str) or not (
            isinstance(sents, list) and all(isinstance(x, str) for x in sents)
        ):
            raise UsageError(f"{where}: context paragraph {n}: expected a title and a list of "
                             "sentence strings")  # fmt: skip
        paragraphs.append((title, "".join(sents)))
    return paragraphs


@dataclass
class BuildStats:
    documents: int = 0
    passages: int = 0
    duplicates: int = 0  # same title, same text: skipped
    merged: int = 0  # same title, other text: appended to the document
    empty: int = 0  # no text: skipped
    longest_passage: int = 0
    budget: int = 0
    unit: str = "tokens"
    extra: dict[str, Any] = field(default_factory=dict)


def _counted(
    docs: Iterable[tuple[str, str | list[str], bool]], shown: Progress
) -> Iterator[tuple[str, str | list[str], bool]]:
    for doc in docs:
        yield doc
        shown.advance()


def build_kb(
    source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    fmt: str = "auto",
    max_tokens: int = 256,
    max_words: int | None = None,
    progress: bool = False,
    count: Callable[[str], int] | None = None,
) -> BuildStats:
    """Build a knowledge-source DB from ``source``; written to a temporary file, then renamed.

    Budgets are ``max_words`` words when given, else ``max_tokens`` tokens as ``count`` counts
    them (default: :func:`~favakit.text.count_tokens`, an estimate)."""
    if max_words is not None:
        budget, count, unit = max_words, count_words, "words"
    else:
        budget, unit = max_tokens, "tokens"
        count = count or count_tokens
    stats = BuildStats(budget=budget, unit=unit)
    sources = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    for src in sources:  # before any output (progress bar, partial file) appears
        if not Path(src).exists():
            raise UsageError(f"input {str(src)!r} does not exist")
        if fmt not in ("auto", *FORMATS):
            raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
        _check_jsonl_documents(Path(src), fmt)
    target = Path(out)
    if target.is_dir():
        raise UsageError(
            f"{target} is a folder: the knowledge source is one sqlite file, such as {target / 'kb.db'}"
        )
    if (
        target.exists()
        and target.stat().st_size
        and "documents" not in (sqlite_tables(target) or set())
    ):
        raise UsageError(
            f"{target} exists and is not a knowledge source: building would replace it; "
            "remove it or choose another --out"
        )  # a knowledge source is rebuilt in place; any other file is left alone
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.partial")
    tmp.unlink(missing_ok=True)
    conn = sqlite3.connect(tmp)
    try:
        conn.execute("CREATE TABLE documents (title TEXT PRIMARY KEY, text TEXT)")
        docs: Iterable[tuple[str, str | list[str], bool]] = (
            doc for src in sources for doc in read_documents(src, fmt)
        )
        shown = Progress(None, "documents", "favakit kb build") if progress else None
        if shown is not None:
            docs = _counted(docs, shown)
        # DPR rows of one article are consecutive: gather them before writing
        pending_title: str | None = None
        pending: list[str] = []

        def flush() -> None:
            if pending_title is not None and pending:
                _store(conn, pending_title, pending, stats, count)

        for title, text, prepacked in docs:
            passages = (
                [text]
                if prepacked and isinstance(text, str)
                else pack_passages(text, budget, count)
            )
            if prepacked:
                if title != pending_title:
                    flush()
                    pending_title, pending = title, []
                pending.extend(p for p in passages if p.strip())
                continue
            if not passages:
                stats.empty += 1
                continue
            _store(conn, title, passages, stats, count)
        flush()
        if shown is not None:
            shown.close()
        conn.execute(
            "CREATE TABLE favakit_titles (norm TEXT NOT NULL, base TEXT NOT NULL, title TEXT NOT NULL)"
        )
        rows = (
            (normalize_title(t), base_name(t), t)
            for (t,) in conn.execute("SELECT title FROM documents").fetchall()
        )
        conn.executemany("INSERT INTO favakit_titles VALUES (?, ?, ?)", rows)
        conn.execute("CREATE INDEX favakit_titles_norm ON favakit_titles(norm)")
        conn.execute("CREATE INDEX favakit_titles_base ON favakit_titles(base)")
        stats.documents = int(conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0])
        conn.commit()
        conn.close()
        if stats.documents == 0:
            named = ", ".join(str(src) for src in sources)
            raise UsageError(f"no documents with text found in {named}")
        os.replace(tmp, target)
    except BaseException:
        conn.close()
        tmp.unlink(missing_ok=True)
        raise
    return stats


def _store(
    conn: sqlite3.Connection,
    title: str,
    passages: list[str],
    stats: BuildStats,
    counter: Callable[[str], int],
) -> None:
    joined = SEPARATOR.join(passages)
    row = conn.execute("SELECT text FROM documents WHERE title = ?", (title,)).fetchone()
    if row is not None:
        if row[0] == joined:
            stats.duplicates += 1
            return
        stats.merged += 1
        conn.execute(
            "UPDATE documents SET text = ? WHERE title = ?", (row[0] + SEPARATOR + joined, title)
        )
    else:
        conn.execute("INSERT INTO documents VALUES (?, ?)", (title, joined))
    stats.passages += len(passages)
    stats.longest_passage = max([stats.longest_passage, *(counter(p) for p in passages)])
