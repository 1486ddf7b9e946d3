"""Record types and JSONL I/O: versioned records, atomic writes, append-and-resume.

Every record favakit writes carries ``"schema": "<kind>/<version>"``. Readers check it, name the
file and line of any bad row, and never silently skip one.

Long jobs write through :class:`JsonlAppender`: each finished record is appended and flushed at
once, the ids already written are known on restart (resume by id), and a last line cut short
by a crash is removed before appending; while one run appends, a second run on the same output
is refused. Whole-file outputs go through :func:`write_jsonl_atomic`
(temporary file in the same folder, fsync, rename), so a crash never leaves half a file in place.
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import logging
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, ClassVar, TypeVar

from favakit.errors import UsageError
from favakit.tags import ERROR_TYPES

__all__ = [
    "BAD_ROWS_QUOTED",
    "JSONL_FORMS",
    "MEASURING_FOLDERS",
    "SPLIT_FILES",
    "EditResult",
    "JsonlAppender",
    "Record",
    "RecordError",
    "TrainExample",
    "atomic_open",
    "completed_ids",
    "default_file_mode",
    "document_text",
    "kept_note",
    "model_output_folder",
    "numbered_jsonl",
    "output_folder",
    "read_jsonl",
    "read_records",
    "refuse_folder_output",
    "refuse_measuring_set",
    "refuse_output_in_use",
    "refuse_output_over_input",
    "refuse_replacing_other",
    "refuse_replacing_rows",
    "replace_folder",
    "settle_folder",
    "share_like_open",
    "some_names",
    "sqlite_tables",
    "valid_rows",
    "write_jsonl_atomic",
]

log = logging.getLogger(__name__)

#: folders whose files only measure (../shared/data/real/SOURCES.md): never read for training
MEASURING_FOLDERS = frozenset({"eval", "eval_spans"})


def refuse_measuring_set(path: str | os.PathLike[str]) -> None:
    """``UsageError`` when ``path`` lies in a measuring-only folder (``eval``, ``eval_spans``):
    what every reader of training data calls before reading a line."""
    parts = Path(path).resolve().parts
    hit = MEASURING_FOLDERS.intersection(parts[:-1])
    if hit:
        raise UsageError(
            f"{path} is in a measuring-only folder ({sorted(hit)[0]}/): favakit never trains, "
            "tunes thresholds or picks checkpoints on it (../shared/data/real/SOURCES.md)"
        )


R = TypeVar("R", bound="Record")
T = TypeVar("T")
PathLike = str | os.PathLike[str]


class RecordError(UsageError):
    """A row that is not valid JSON or not a valid record; names the file and line."""


@dataclass
class Record:
    """Base of favakit's JSONL records. Subclasses set ``KIND`` and ``VERSION``."""

    KIND: ClassVar[str] = "record"
    VERSION: ClassVar[int] = 1

    @classmethod
    def schema(cls) -> str:
        return f"{cls.KIND}/{cls.VERSION}"

    def to_dict(self) -> dict[str, Any]:
        return {"schema": self.schema(), **dataclasses.asdict(self)}

    @classmethod
    def from_dict(cls: type[R], row: Mapping[str, Any], where: str = "") -> R:
        """Validate and build a record; errors say which field of which row is wrong."""
        at = f"{where}: " if where else ""
        if not isinstance(row, Mapping):
            raise RecordError(f"{at}expected a JSON object, got {type(row).__name__}")
        data = dict(row)
        schema = data.pop("schema", None)
        if schema is not None and schema != cls.schema():
            raise RecordError(f"{at}schema {schema!r} is not {cls.schema()!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise RecordError(
                f"{at}unknown field(s) {unknown} for {cls.KIND}; known: {sorted(names)}"
            )
        required = {
            f.name
            for f in dataclasses.fields(cls)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
        missing = sorted(required - set(data))
        if missing:
            raise RecordError(f"{at}missing field(s) {missing} for {cls.KIND}")
        try:
            return cls(**data)
        except (TypeError, ValueError) as exc:
            raise RecordError(f"{at}{exc}") from exc


@dataclass
class TrainExample(Record):
    """One editor training example (the synthetic-data pipeline's output)."""

    KIND: ClassVar[str] = "train_example"

    id: str
    prompt: str
    completion: str
    error_types: list[str] = field(default_factory=list)
    source_title: str = ""

    def __post_init__(self) -> None:
        for name in ("id", "prompt", "completion", "source_title"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} must be a string")
        bad = [t for t in self.error_types if t not in ERROR_TYPES]
        if bad:
            raise ValueError(f"unknown error type(s) {bad}; expected {list(ERROR_TYPES)}")


@dataclass
class EditResult(Record):
    """The editor's answer for one text; spans are offsets into ``original``."""

    KIND: ClassVar[str] = "edit_result"

    id: str
    original: str
    corrected: str
    edits: list[dict[str, Any]] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    model: str = ""


# --------------------------------------------------------------------------------------------
# Reading


def numbered_jsonl(
    path: PathLike, *, allow_truncated_tail: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for each row of a JSONL file; a bad line raises
    :class:`RecordError` naming it.

    Blank lines are ignored, and so is a byte-order mark before the first row (what some Windows
    tools write at the start of a UTF-8 file). A file that starts with UTF-16's byte-order mark
    is read as UTF-16 (what Windows PowerShell 5's ``>`` and ``Out-File`` write). A file whose
    first character is ``[`` is read as one JSON array of objects (what many datasets ship),
    each numbered by its place in the array. A file that is neither (one object pretty-printed
    over several lines, a CSV table) is refused with what favakit reads instead. With
    ``allow_truncated_tail``, a last line without its newline that does not parse (a write cut
    short by a crash) is skipped with a warning instead.
    """
    p = Path(path)
    if not p.exists():
        raise RecordError(f"{p}: no such file")
    if p.is_dir():
        raise RecordError(
            f"{p} is a folder: give a JSONL file (or, where globs are read, {p}/*.jsonl)"
        )
    utf16 = _has_utf16_mark(p)
    if _first_character(p, utf16) == "[":
        yield from _array_rows(p, utf16)
        return
    for lineno, line in _text_lines(p, utf16):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            if allow_truncated_tail and not line.endswith("\n"):
                log.warning(
                    "%s:%d: a truncated last line (a write cut short) is left out", p, lineno
                )
                return
            raise RecordError(
                f"{p}:{lineno}: invalid JSON ({exc.msg}){_not_jsonl_hint(p)}"
            ) from exc
        if not isinstance(obj, dict):
            raise RecordError(f"{p}:{lineno}: expected a JSON object, got {type(obj).__name__}")
        yield lineno, obj


#: what a refused input file is told favakit reads
JSONL_FORMS = "favakit reads JSON Lines (one object per line) or a JSON array of objects"
#: a file whose line does not parse is read whole, for a better message, only up to this size
_WHOLE_FILE_HINT_BYTES = 64 * 2**20


def document_text(data: bytes) -> str:
    """A document file's text: UTF-8 (a byte-order mark dropped), or UTF-16 where the file
    starts with its byte-order mark, as Windows' editors save "Unicode" text. Raises
    ``UnicodeDecodeError`` for bytes that are neither."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        with suppress(UnicodeDecodeError):
            return data.decode("utf-16")
    return data.decode("utf-8-sig")


def _has_utf16_mark(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(2) in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


#: why a file that starts with UTF-16's byte-order mark is refused
_NOT_UTF16 = "starts with UTF-16's byte-order mark but is not UTF-16; re-encode the file as UTF-8"


def _text_lines(path: Path, utf16: bool) -> Iterator[tuple[int, str]]:
    """The file's lines, numbered from 1: UTF-16 where the file starts with its byte-order mark
    (``utf16``), else UTF-8 (a byte-order mark dropped); bytes that are neither raise
    :class:`RecordError`."""
    if utf16:
        lineno = 0
        try:
            with path.open(encoding="utf-16", newline="") as fh:  # the codec drops the mark
                for lineno, line in enumerate(fh, start=1):
                    yield lineno, line
        except UnicodeDecodeError:
            raise RecordError(f"{path}:{lineno + 1}: {_NOT_UTF16}") from None
        return
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8) :]
            yield lineno, _utf8(raw, f"{path}:{lineno}")


def _utf8(raw: bytes, where: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(
            f"{where}: not UTF-8 (byte {raw[exc.start]:#04x} at column {exc.start + 1}); "
            "re-encode the file as UTF-8"
        ) from None


def _first_character(path: Path, utf16: bool) -> str:
    """The file's first character that is not white space (a byte-order mark skipped)."""
    if utf16:
        with path.open(encoding="utf-16", errors="replace") as fh:
            chars = fh.read(4096)
            while chars and not chars.strip():
                chars = fh.read(4096)
        return chars.lstrip()[:1]
    with path.open("rb") as fh:
        head = fh.read(4096)
        if head.startswith(codecs.BOM_UTF8):
            head = head[len(codecs.BOM_UTF8) :]
        while head and not head.strip():
            head = fh.read(4096)
    stripped = head.lstrip()
    return chr(stripped[0]) if stripped else ""


def _array_rows(path: Path, utf16: bool) -> Iterator[tuple[int, dict[str, Any]]]:
    """The objects of a file holding one JSON array, numbered from 1 by their place in it."""
    raw = path.read_bytes()
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    try:
        rows = json.loads(raw.decode("utf-16") if utf16 else _utf8(raw, str(path)))
    except UnicodeDecodeError:
        raise RecordError(f"{path}: {_NOT_UTF16}") from None
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"{path}: starts with '[' but is not one JSON array ({exc.msg} at line {exc.lineno}); "
            f"{JSONL_FORMS}"
        ) from None
    for n, obj in enumerate(rows, start=1):
        if not isinstance(obj, dict):
            raise RecordError(
                f"{path}: item {n} of the array: expected a JSON object, got {type(obj).__name__}"
            )
        yield n, obj


def _not_jsonl_hint(path: Path) -> str:
    """Why a file whose line does not parse may not be JSON Lines at all, or nothing."""
    if path.suffix.lower() in {".csv", ".tsv"}:
        return f"; {path.name} looks like a table: {JSONL_FORMS}, not CSV or TSV"
    if path.stat().st_size > _WHOLE_FILE_HINT_BYTES:
        return ""
    try:
        whole = json.loads(document_text(path.read_bytes()))
    except (ValueError, UnicodeDecodeError, OSError):
        return ""
    if isinstance(whole, dict):
        return (
            f"; the file is one JSON object over several lines: {JSONL_FORMS}; "
            "write each row on a line of its own"
        )
    return ""


def read_jsonl(path: PathLike, *, allow_truncated_tail: bool = False) -> Iterator[dict[str, Any]]:
    """The objects of a JSONL file (see :func:`numbered_jsonl`)."""
    for _, obj in numbered_jsonl(path, allow_truncated_tail=allow_truncated_tail):
        yield obj


#: how many bad rows a refusal of :func:`valid_rows` quotes; the rest it counts, with their places
BAD_ROWS_QUOTED = 3


def valid_rows(path: PathLike, make: Callable[[dict[str, Any], int, str], T]) -> list[T]:
    """``make(row, number, where)`` of every row of a JSONL file (``where``: ``"path:number"``).

    A ``ValueError`` from ``make`` does not stop the reading: the file is refused once, after
    its last row, naming every bad row (the first :data:`BAD_ROWS_QUOTED` with their reasons,
    the rest by line number, or place in a JSON array), so a large file is mended in one pass
    rather than a row per run. A line that is not JSON still stops the reading at once
    (:func:`numbered_jsonl`'s :class:`RecordError`), as the lines after it may be cut the same
    way."""
    out: list[T] = []
    bad: list[tuple[int, str]] = []
    for number, row in numbered_jsonl(path):
        try:
            out.append(make(row, number, f"{path}:{number}"))
        except ValueError as exc:
            bad.append((number, str(exc)))
    if len(bad) == 1:
        raise UsageError(bad[0][1])
    if bad:
        said = [f"{len(bad)} of {len(out) + len(bad)} rows are bad:"]
        said += [f"  {reason}" for _, reason in bad[:BAD_ROWS_QUOTED]]
        rest = [str(number) for number, _ in bad[BAD_ROWS_QUOTED:]]
        if rest:
            at = ", ".join(rest[:20]) + (", ..." if len(rest) > 20 else "")
            said.append(f"  and {len(rest)} more, at {path}:{at}")
        raise UsageError("\n".join(said))
    return out


def read_records(path: PathLike, cls: type[R]) -> Iterator[R]:
    """Read a JSONL file as records of ``cls``, validating every row."""
    for lineno, row in numbered_jsonl(path):
        yield cls.from_dict(row, where=f"{path}:{lineno}")


def completed_ids(path: PathLike, key: str = "id") -> set[str]:
    """Ids already written to a (possibly crash-truncated) JSONL output; empty if missing."""
    return _written(path, key, None)[0]


def _written(path: PathLike, key: str, field: str | None) -> tuple[set[str], set[str]]:
    """The ids of the rows already in a JSONL output, and the values of their ``field``."""
    ids: set[str] = set()
    values: set[str] = set()
    p = Path(path)
    if p.exists():
        for number, row in numbered_jsonl(p, allow_truncated_tail=True):
            if key not in row:
                raise RecordError(
                    f"{p}:{number}: a row without {key!r}: it is not an output this command "
                    "writes (each of its rows has one); give another output file"
                )
            ids.add(str(row[key]))
            if field is not None and row.get(field) is not None:
                values.add(str(row[field]))
    return ids, values


def kept_note(path: PathLike, what: str, again: str = "the same command again goes on from there"
              ) -> str | None:  # fmt: skip
    """For a run stopped part way (Ctrl-C): where ``what`` it made ("the results made so far")
    is kept, and how to go on; None where nothing is there yet."""
    p = Path(path)
    files = [p] if p.is_file() else [f for f in p.iterdir() if f.is_file()] if p.is_dir() else []
    if not any(f.stat().st_size for f in files):
        return None
    return f"{what} are kept in {p}: {again}"


# --------------------------------------------------------------------------------------------
# Writing


def _as_row(item: Record | Mapping[str, Any]) -> Mapping[str, Any]:
    return item.to_dict() if isinstance(item, Record) else item


def _dump(item: Record | Mapping[str, Any]) -> str:
    return json.dumps(_as_row(item), ensure_ascii=False) + "\n"


def default_file_mode() -> int:
    """The mode ``open`` gives a new file under the current umask (0644 under umask 022)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def share_like_open(path: PathLike) -> None:
    """Give files under ``path`` (a file or a folder) the mode ``open`` would have given them.

    For files that libraries write through private temporary files (safetensors writes 0600):
    another user or a serving account must be able to read what favakit saves."""
    root = Path(path)
    mode = default_file_mode()
    for item in [root, *root.rglob("*")] if root.is_dir() else [root]:
        if item.is_file() and not item.is_symlink():
            item.chmod(mode)


@contextmanager
def atomic_open(path: PathLike, mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file next to ``path``; on success fsync and rename it into place.

    On any exception (Ctrl-C included) the temporary file is removed and ``path`` is untouched.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, default_file_mode())  # mkstemp makes 0600; a new file gets what open gives
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def settle_folder(folder: PathLike) -> Path:
    """Finish what a killed ``replace_folder`` left: the folder it had moved aside comes back.

    Call before reading a folder that ``replace_folder`` writes (a checkpoint, a best model).
    """
    target = Path(folder)
    aside = target.with_name(target.name + ".old")
    if aside.exists():
        if target.exists():  # the swap finished; only the clean-up was cut short
            shutil.rmtree(aside, ignore_errors=True)
        else:  # killed between the two renames: the old folder is the last whole one
            os.replace(aside, target)
    return target


def replace_folder(new: PathLike, folder: PathLike) -> None:
    """Put the finished folder ``new`` at ``folder``, so that a kill at any moment leaves one
    whole folder: the old one moves aside, the new one moves in, the old one goes.

    A plain remove-then-rename loses both if the process dies between the two; after a kill
    here, ``settle_folder`` finds the old folder again.
    """
    target = settle_folder(folder)
    aside = target.with_name(target.name + ".old")
    if target.exists():
        os.replace(target, aside)
    os.replace(new, target)
    shutil.rmtree(aside, ignore_errors=True)


def write_jsonl_atomic(path: PathLike, rows: Iterable[Record | Mapping[str, Any]]) -> int:
    """Write all rows to ``path`` atomically; returns the number written."""
    n = 0
    with atomic_open(path) as fh:
        for row in rows:
            fh.write(_dump(row))
            n += 1
    return n


def sqlite_tables(path: PathLike) -> set[str] | None:
    """The tables of an sqlite file, read-only; None where ``path`` is not one (so that a command
    about to write an sqlite file can tell its own kind from a file it must not touch)."""
    p = Path(path)
    with p.open("rb") as fh:
        if fh.read(16) != b"SQLite format 3\x00":
            return None
    conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    finally:
        conn.close()


def refuse_output_over_input(output: PathLike, inputs: Mapping[str, PathLike | None]) -> None:
    """A clear error where an output path names one of the command's inputs (``inputs``: flag
    -> path), which writing would overwrite or mix results into."""
    out = Path(output)
    for flag, given in inputs.items():
        if given is not None and out.exists() and Path(given).exists() and out.samefile(given):
            raise RecordError(
                f"{output} is the {flag} file: writing there would overwrite it; choose another output"
            )


#: the training data split files that `synth run`, `synth claims` and `synth from-edits` write
SPLIT_FILES = ("train.jsonl", "validation.jsonl")


def output_folder(
    path: PathLike, flag: str = "--out", writes: Iterable[str] = (), marker: str = ""
) -> Path:
    """``path`` made, as the folder a command writes its outputs into; a clear error where a
    file is already there (``flag`` names the option that gave it). ``writes``: the names the
    command writes there, which it may replace only where ``marker`` (a file its runs write) says
    that an earlier run of it wrote them: a user's own ``train.jsonl`` in a folder given as
    ``--out`` was replaced without a word."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise RecordError(
            f"{flag} {folder} is a file: it names a folder for the outputs; choose another"
        )
    if marker and not (folder / marker).exists():
        theirs = [name for name in writes if (folder / name).exists()]
        if theirs:
            raise RecordError(
                f"{flag} {folder} holds {', '.join(theirs)}, which this command would replace, "
                f"and no {marker} of a run of it: choose another {flag}, or move those away"
            )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def some_names(names: Iterable[str], most: int = 4) -> str:
    """``names`` sorted, for a message: the first ``most`` and how many more."""
    names = sorted(names)
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def model_output_folder(out: PathLike, source: PathLike) -> Path:
    """``out`` made, as the folder a model is written into from ``source`` (a merge, a packing):
    new, empty, or a model folder whose model it replaces. A folder of other files is refused,
    as is ``source`` itself: ``train merge --out`` naming a synthesis run replaced its
    ``config.json`` with the model's."""
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise RecordError(f"--out {folder} is a file: it names a folder for the model")
    if folder.resolve() == Path(source).resolve():
        raise RecordError(f"--out {folder} is the folder the model is read from: give another")
    if folder.is_dir() and any(folder.iterdir()):
        weights = [*folder.glob("model*.safetensors"), *folder.glob("pytorch_model*.bin")]
        if not ((folder / "config.json").exists() and weights):
            shown = some_names(p.name for p in folder.iterdir())
            raise RecordError(
                f"--out {folder} holds other files ({shown}) and no model: a model is written "
                f"into a folder of its own; give a new one, such as {folder / 'model'}"
            )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def refuse_replacing_other(
    out: PathLike, keys: Sequence[str], what: str, beside: Sequence[str] = ()
) -> None:
    """Refuse a report's ``out`` where a file is there that is not an earlier report of the same
    kind (a JSON object holding ``keys``), and the files written beside it (``beside``: ends of
    their names, such as ``.md``) where they are there and such an earlier report is not: `eval
    detect --out train.jsonl` replaced a training file, and ``--out notes.json`` the user's
    ``notes.md``. Checked before the work."""
    path = Path(out)
    for end in beside:
        if path.name.endswith(end):
            raise RecordError(
                f"--out {path} names the {end} file written beside the {what}: give a .json name"
            )
    earlier = path.is_file() and _is_report(path, keys)
    if path.is_file() and not earlier:
        raise RecordError(
            f"--out {path} exists and is no {what} (no {', '.join(map(repr, keys))}): it would "
            "be replaced; remove it or give another --out"
        )
    if earlier:
        return
    for end in beside:
        near = path.with_name(path.stem + end)
        if near.exists():
            raise RecordError(
                f"{near} exists, and the {what}'s {end} file would replace it (it is written "
                f"beside --out {path}): remove it or give another --out"
            )


def refuse_replacing_rows(out: PathLike, kind: type[Record]) -> None:
    """Refuse an ``out`` JSONL file whose rows are not ``kind``'s (their ``schema``), which
    writing ``kind`` rows to it would replace: an empty file, or an earlier output, is fine."""
    path = Path(out)
    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        with path.open(encoding="utf-8") as fh:
            first = json.loads(fh.readline())
    except (OSError, UnicodeDecodeError, ValueError):
        first = None
    if not (isinstance(first, dict) and first.get("schema") == kind.schema()):
        raise RecordError(
            f"--out {path} exists and holds no {kind.schema()} rows: it would be replaced; "
            "remove it or give another --out"
        )


def _is_report(path: Path, keys: Sequence[str]) -> bool:
    """Whether ``path`` holds a JSON object with every one of ``keys``."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(obj, dict) and all(k in obj for k in keys)


def refuse_folder_output(path: PathLike, example: str = "out.jsonl") -> None:
    """A clear error where an output file's path names a folder (checked before slow work)."""
    if Path(path).is_dir():
        raise RecordError(
            f"{path} is a folder: the output is a file, such as {Path(path) / example}"
        )


def _lock_for_writing(fh: IO[str], path: Path) -> None:
    """Hold an exclusive lock on an output while it is appended to (released when ``fh`` closes,
    or its process ends): a second run on the same output would read the ids of a file still
    growing, cut the line being written as if a crash had left it, and write every id twice.
    Where the system has no such locks (Windows, some network file systems) nothing is locked."""
    try:
        import fcntl
    except ImportError:  # Windows
        return
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise RecordError(
            f"{path} is being written by another run: wait for it to end (it resumes from "
            "what is there), or choose another output"
        ) from None
    except OSError as exc:  # a file system without locks
        log.debug("%s: not locked (%s)", path, exc)


def refuse_output_in_use(path: PathLike, key: str = "id") -> None:
    """``RecordError`` when another run is appending to ``path`` now (:class:`JsonlAppender`'s
    lock), or when ``path`` is not an output such a run writes (:func:`_refuse_not_an_output`):
    what a long job asks before it loads its models, so that it fails in a second, not after
    minutes of loading."""
    p = Path(path)
    if not p.is_file():
        return
    with p.open("a", encoding="utf-8") as fh:
        _lock_for_writing(fh, p)  # released as the file closes
    _refuse_not_an_output(p, key)


def _refuse_not_an_output(path: Path, key: str) -> bytes | None:
    """``RecordError`` where ``path`` is not a JSONL output of rows keyed by ``key`` (a user's
    notes, a dataset, a JSON array, UTF-16 text): read from its first row and its last line, and
    refused before anything in it changes (its last line once went as a crash's half row).
    Returns that last line where it has no newline (:func:`_unended_line`)."""
    if not path.is_file() or not path.stat().st_size:
        return None
    not_ours = "is not an output this command writes"
    if _has_utf16_mark(path):
        raise RecordError(f"{path} is UTF-16 text, and favakit's outputs are UTF-8 (appending "
                          "would garble it); give another output file")  # fmt: skip
    if _first_character(path, utf16=False) == "[":
        raise RecordError(f"{path} holds a JSON array: it {not_ours} (JSON Lines: one object "
                          "per line); give another output file")  # fmt: skip
    tail = _unended_line(path)
    if tail is not None and tail.strip() and not tail.lstrip(b" \t\r").startswith(b"{"):
        raise RecordError(f"{path}: its last line does not open a JSON object, so it {not_ours} "
                          "(its rows are JSON objects, one per line); give another output file")  # fmt: skip
    with path.open("rb") as fh:  # the first row says whose the file is; the rest are read
        for number, line in enumerate(fh, start=1):  # as the output is resumed
            if not line.strip():
                continue
            if not line.endswith(b"\n"):
                return tail  # the only row, cut short by a crash (the last line's check passed it)
            try:
                row = json.loads(line)
            except ValueError:
                raise RecordError(f"{path}:{number}: not a JSON object: it {not_ours} (its rows "
                                  "are JSON objects, one per line); give another output file"
                                  ) from None  # fmt: skip
            if not isinstance(row, dict) or key not in row:
                raise RecordError(f"{path}:{number}: a row without {key!r}: it {not_ours} (each "
                                  "of its rows has one); give another output file")  # fmt: skip
            break
    return tail


def _unended_line(path: Path) -> bytes | None:
    """The bytes of the file's last line where it has no newline (a write cut short by a crash,
    or a file favakit did not write), else None."""
    with path.open("rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return None
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return None
        block = min(size, 1 << 20)
        while True:
            fh.seek(size - block)
            data = fh.read(block)
            cut = data.rfind(b"\n")
            if cut >= 0 or block == size:
                return data[cut + 1 :]
            block = min(size, block * 2)


class JsonlAppender:
    """Append records to a JSONL output, one flushed line each, resuming by id.

    ::

        with JsonlAppender("out.jsonl") as out:
            for item in work:
                if item.id in out:      # written by an earlier, interrupted run
                    continue
                out.append(process(item))

    ``noted``: where ``note`` names a field, its values in the rows already there (read in the
    same pass as their ids), such as the judge that wrote them.
    """

    def __init__(
        self, path: PathLike, key: str = "id", fsync_every: int = 100, note: str | None = None
    ) -> None:
        self.path = Path(path)
        self.key = key
        self.fsync_every = fsync_every
        self.note = note
        self.done: set[str] = set()
        self.noted: set[str] = set()
        self._fh: IO[str] | None = None
        self._since_sync = 0

    def __enter__(self) -> JsonlAppender:
        refuse_folder_output(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = self.path.open("a", encoding="utf-8")
        try:
            _lock_for_writing(fh, self.path)
            tail = _refuse_not_an_output(self.path, self.key)  # before anything in it changes
            self.done, self.noted = _written(self.path, self.key, self.note)
            if tail is not None:
                self._mend(fh, tail)
        except BaseException:
            fh.close()
            raise
        self._fh = fh
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __contains__(self, item_id: object) -> bool:
        return str(item_id) in self.done

    def __len__(self) -> int:
        return len(self.done)

    def _mend(self, fh: IO[str], tail: bytes) -> None:
        """End a last line that lacks its newline: a whole row gets the newline (it was read
        as done), a row cut short is removed (it will be made again)."""
        try:
            whole = isinstance(json.loads(tail), dict)
        except ValueError:  # JSONDecodeError, or bytes that are not UTF-8
            whole = False
        if whole:
            fh.write("\n")
            fh.flush()
            return
        with self.path.open("rb+") as raw:
            raw.truncate(raw.seek(0, os.SEEK_END) - len(tail))

    def append(self, item: Record | Mapping[str, Any]) -> None:
        if self._fh is None:
            raise RuntimeError("JsonlAppender is not open; use it as a context manager")
        row = _as_row(item)
        if self.key not in row:
            raise RecordError(f"{self.path}: record has no {self.key!r} field: {row!r:.200}")
        self._fh.write(_dump(row))
        self._fh.flush()
        self.done.add(str(row[self.key]))
        self._since_sync += 1
        if self._since_sync >= self.fsync_every:
            os.fsync(self._fh.fileno())
            self._since_sync = 0

    def close(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None
