"""The synthetic-data job: seed passages -> error insertion -> validation -> prompt/completion.

``run_synthesis(kb, out_dir, SynthConfig(...))`` writes:

* ``log.jsonl``: one line per processed seed passage (an example, or the reason it was
  rejected), appended and flushed as it goes. A crashed or interrupted run resumes from it, and
  because every passage's randomness comes from ``(seed, passage id)`` alone, the resumed run
  gives exactly the examples of an uninterrupted one.
* ``train.jsonl`` and ``validation.jsonl``: ``{"schema","id","prompt","completion",
  "error_types","source_title"}`` rows, split by source title (no article in both).
* ``stats.json``: counts per error type, errors per passage, rejection reasons, genres, speed.
* ``hf/``: the same split as a Hugging Face ``datasets`` folder, when ``datasets`` is installed.

Every example is validated before it is kept: the completion parses strictly, contains each
type it claims, its original text is the prompt's text, and applying its edits gives back the
gold passage (modulo whitespace).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import logging
import math
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from favakit.config import changed_settings
from favakit.distributed import RayOptions, map_chunks_in_order
from favakit.errors import UsageError
from favakit.llm import LLMClient, OpenAIClient, check_endpoint
from favakit.prompts import Reference, build_prompt
from favakit.records import (
    SPLIT_FILES,
    JsonlAppender,
    TrainExample,
    output_folder,
    read_jsonl,
    write_jsonl_atomic,
)
from favakit.retrieval.kb import KnowledgeSource, Passage
from favakit.synth_data.llm_inserter import LLMInserter
from favakit.synth_data.rules import EntityPools, RuleInserter
from favakit.tags import ERROR_TYPES, Tagged, TagParseError, parse
from favakit.text import split_sentences

__all__ = ["SynthConfig", "finalize", "run_synthesis", "select_seeds", "summarize"]

log = logging.getLogger(__name__)

# Weights for the order in which types are tried: phrase-level rules apply to fewer passages,
# so they are tried earlier more often; measured to give each type 10-25% of all errors.
TYPE_WEIGHTS = {
    "entity": 1.3,
    "relation": 2.5,
    "contradictory": 1.6,
    "invented": 0.8,
    "subjective": 0.8,
    "unverifiable": 0.8,
}
ERRORS_PER_PASSAGE = {1: 0.15, 2: 0.30, 3: 0.30, 4: 0.25}
# Windows of a few sentences hold fewer errors.
ERRORS_PER_WINDOW = {1: 0.55, 2: 0.32, 3: 0.13}


@dataclass
class SynthConfig:
    n: int = 1000
    inserter: str = "rules"  # rules | llm | mix
    seed: int = 0
    val_fraction: float = 0.05
    references: int = 4  # retrieved distractor passages besides the gold one
    min_words: int = 40
    max_words: int = 400
    min_sentences: int = 3
    template: str = "favakit"
    variants: int = 8  # at most this many examples per passage, each with other errors
    llm_fraction: float = 0.5  # share of passages given to the LLM with inserter="mix"
    llm_endpoint: str = ""  # OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1
    llm_model: str = ""
    llm_concurrency: int = 8
    llm_retries: int = 2
    genres: bool = True  # rewrite each LLM passage into a random genre first
    batch: int = 32  # passages handled together (LLM calls of one stage run concurrently)
    max_passages: int = 0  # stop after trying this many passages, whatever the yield (0: no cap)
    # Short examples (sized for small models and CPUs): each example's text is a window of
    # MIN-MAX consecutive sentences of a passage ("" keeps whole passages as texts).
    window: str = ""
    window_words: int = 80  # a window is shortened (fewer sentences) until it has at most this many
    context_words: int = (
        100  # the gold reference: the window plus neighbouring sentences, this long
    )
    distractor_words: int = 50  # distractor references are cut to this many words (0: whole)
    no_error_fraction: float = 0.0  # share of examples whose text is left correct

    def window_range(self) -> tuple[int, int] | None:
        if not self.window:
            return None
        m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", self.window)
        if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
            raise UsageError(f"window {self.window!r}: expected MIN-MAX sentences, e.g. 2-5")
        return int(m.group(1)), int(m.group(2))

    def __post_init__(self) -> None:
        if self.inserter not in ("rules", "llm", "mix"):
            raise UsageError(f"unknown inserter {self.inserter!r}; choose rules, llm or mix")
        if not 0 <= self.val_fraction < 1:
            raise UsageError("val_fraction must be in [0, 1)")
        if self.n < 1:
            raise UsageError("n must be at least 1")
        if not 0 <= self.llm_fraction <= 1:
            raise UsageError("llm_fraction must be in [0, 1]")
        if not 0 <= self.no_error_fraction < 1:
            raise UsageError("no_error_fraction must be in [0, 1)")
        if self.references < 0 or self.variants < 1:
            raise UsageError("references must be >= 0 and variants >= 1")
        if self.window_range() is not None and self.inserter != "rules":
            raise UsageError(
                "window applies to the rules inserter only (the LLM rewrites passages)"
            )

    @property
    def uses_llm(self) -> bool:
        return self.inserter == "llm" or (self.inserter == "mix" and self.llm_fraction > 0)


def _is_prose(text: str, min_words: int, max_words: int, min_sentences: int) -> bool:
    words = text.split()
    if not min_words <= len(words) <= max_words:
        return False
    sentences = split_sentences(text)
    ended = sum(s.rstrip("\"')”’").endswith((".", "!", "?")) for s in sentences)
    letters = sum(c.isalpha() for c in text)
    ascii_letters = sum(c.isascii() and c.isalpha() for c in text)
    # English prose: enough finished sentences, mostly ASCII letters (a cheap language filter)
    return ended >= min_sentences and letters > 0 and ascii_letters / letters > 0.9


def normalize_text(text: str) -> str:
    """The one whitespace normalisation of synthesis: every run of whitespace (non-breaking and
    other Unicode spaces, line breaks) becomes one plain space. Seed texts pass through it before
    anything else, so prompts, references and completions are all built from the same string."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Seed:
    """One example's source: the text errors go into, and the gold reference that covers it."""

    title: str
    key: str  # passage index in its document, plus ".w" for a window of it
    text: str
    context: str  # the gold reference (the whole passage, or the window with its neighbours)


def passage_id(p: Seed, variant: int = 0) -> str:
    return f"{p.title}#{p.key}@{variant}"


def _windows(p: Passage, cfg: SynthConfig, span: tuple[int, int]) -> list[Seed]:
    """Cut a passage into consecutive windows of ``span`` sentences (lengths drawn per window,
    fixed by the seed), each at most ``window_words`` long, with its gold reference: the window
    grown by neighbouring sentences up to ``context_words``."""
    sentences = split_sentences(normalize_text(p.text))
    rng = random.Random(f"windows:{cfg.seed}:{p.title}#{p.index}")
    out: list[Seed] = []
    start = 0
    while start < len(sentences):
        k = rng.randint(*span)
        while k > 1 and len(" ".join(sentences[start : start + k]).split()) > cfg.window_words:
            k -= 1
        end = min(len(sentences), start + k)
        text = " ".join(sentences[start:end])
        if end - start >= span[0] and _is_prose(text, 6, cfg.window_words, end - start):
            lo, hi = start, end
            while True:  # grow the reference by whole sentences, on a random side first
                options = [i for i in (lo - 1, hi) if 0 <= i < len(sentences)]
                if not options:
                    break
                i = rng.choice(options)
                grown = sentences[min(i, lo) : max(i + 1, hi)]
                if len(" ".join(grown).split()) > cfg.context_words:
                    break
                lo, hi = min(i, lo), max(i + 1, hi)
            out.append(Seed(p.title, f"{p.index}.{len(out)}", text, " ".join(sentences[lo:hi])))
        start = end
    return out


def select_seeds(kb: KnowledgeSource, cfg: SynthConfig) -> list[Seed]:
    """Prose passages (or windows of them), deduplicated by text, in a random order fixed by
    the seed."""
    span = cfg.window_range()
    seen: set[str] = set()
    seeds = []
    for p in kb.passages():
        if span is None:
            if not _is_prose(p.text, cfg.min_words, cfg.max_words, cfg.min_sentences):
                continue
            text = normalize_text(p.text)
            candidates = [Seed(p.title, str(p.index), text, text)]
        else:
            candidates = _windows(p, cfg, span)
        for seed in candidates:
            key = hashlib.sha1(" ".join(seed.text.lower().split()).encode()).hexdigest()
            if key not in seen:
                seen.add(key)
                seeds.append(seed)
    random.Random(f"seeds:{cfg.seed}").shuffle(seeds)
    return seeds


def _type_order(rng: random.Random) -> list[str]:
    # weighted random permutation: sort by u ** (1 / w)
    keys = {t: rng.random() ** (1.0 / TYPE_WEIGHTS[t]) for t in ERROR_TYPES}
    return sorted(ERROR_TYPES, key=lambda t: -keys[t])


def _validate(tagged: Tagged, completion: str, gold: str, applied: list[str]) -> str | None:
    """Reason for rejection, or None when the example is valid."""
    try:
        reparsed = parse(completion)
    except TagParseError:
        return "completion_not_strict"
    if reparsed != tagged:
        return "completion_round_trip"
    if sorted(e.type for e in reparsed.edits) != sorted(applied):
        return "types_mismatch"
    if reparsed.corrected().split() != gold.split():
        return "reverse_mismatch"
    return None


class _Distractors:
    """Passages of other articles most similar to the gold passage (BM25)."""

    def __init__(self, passages: list[Passage], k: int) -> None:
        from favakit.retrieval.index import BM25Index, passage_text

        self.passages = passages
        self.k = k
        self.index = (
            BM25Index.build([passage_text(p.title, p.text) for p in passages]) if k else None
        )

    def get(self, gold: Seed) -> list[Passage]:
        if self.index is None:
            return []
        _, ids = self.index.search_text([gold.text], min(len(self.passages), self.k * 4 + 8))
        out = []
        for i in ids[0]:
            if i < 0:
                continue
            p = self.passages[int(i)]
            if p.title != gold.title:
                out.append(p)
            if len(out) == self.k:
                break
        return out


class SplitSettings(Protocol):
    """What the split by article needs (:class:`SynthConfig`, or ``synth claims``'
    :class:`~favakit.synth_data.claims.ClaimConfig`)."""

    seed: int
    val_fraction: float


def validation_titles(titles: set[str], cfg: SplitSettings) -> set[str]:
    """The source titles held out for validation: each title by a hash of (seed, title), so a
    title's side never depends on the others; and never none while there are two titles or more
    (a small source would otherwise often give an empty validation split)."""

    def h(title: str) -> float:
        return int(hashlib.sha1(f"split:{cfg.seed}:{title}".encode()).hexdigest()[:8], 16) / (
            0xFFFFFFFF
        )

    held = {t for t in titles if h(t) < cfg.val_fraction}
    if not held and cfg.val_fraction > 0 and len(titles) >= 2:
        held = {min(titles, key=h)}
    return held


def run_synthesis(
    kb_path: str | Path,
    out_dir: str | Path,
    cfg: SynthConfig,
    progress: bool = False,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    client: LLMClient | None = None,
    shard: tuple[int, int] | None = None,
    ray: RayOptions | None = None,
) -> dict[str, Any]:
    """Run (or resume) a synthesis job; returns the stats.

    The LLM path talks to ``cfg.llm_endpoint`` (responses cached in ``out_dir/llm_cache.sqlite``)
    unless a ``client`` is given. ``shard=(i, n)`` takes every n-th work item starting at i and
    aims at ``ceil(n_examples / n)`` examples, logging to its own file, so n machines can share
    one job; every run's outputs combine all logs present (``favakit synth finalize`` redoes that
    step alone). ``ray`` makes the examples in a pool of Ray actors (each reads ``kb_path``, which
    must exist at that path on every node); this process logs them in the same order, so the
    run writes what it writes without Ray and resumes the same way."""
    i_shard, n_shards = shard or (0, 1)
    if not 0 <= i_shard < n_shards:
        raise UsageError(f"--shard {i_shard}/{n_shards}: expected i/n with 0 <= i < n")
    log_name = "log.jsonl" if n_shards == 1 else f"log.shard-{i_shard}-of-{n_shards}.jsonl"
    target = -(-cfg.n // n_shards)
    # a folder of the user's with a train.jsonl of their own is not a run to resume
    out = output_folder(out_dir, writes=(*SPLIT_FILES, "stats.json", log_name, "hf"),
                        marker="config.json")  # fmt: skip
    cfg_path = out / "config.json"
    cfg_dict = {**asdict(cfg), "kb": str(Path(kb_path).resolve())}
    if cfg_path.exists():
        said = changed_settings(json.loads(cfg_path.read_text()), cfg_dict, ignore=("n",))
        if said:  # a run may be asked for more examples (n), nothing else
            raise UsageError(
                f"{out} holds a run with other settings ({said}); give the same settings to "
                "resume it (--n may grow), or use another --out"
            )
    cfg_path.write_text(json.dumps(cfg_dict, indent=2))
    if cfg.uses_llm and client is None and not (cfg.llm_endpoint and cfg.llm_model):
        raise UsageError("the llm and mix inserters need --llm-endpoint URL and --llm-model NAME")
    if cfg.uses_llm and client is None:  # a server that is down: say so now, not in log.jsonl
        check_endpoint(str(cfg.llm_endpoint), str(cfg.llm_model))
    t0 = time.perf_counter()
    with KnowledgeSource(kb_path) as kb:
        seeds = select_seeds(kb, cfg)
    if not seeds:
        raise UsageError(f"{kb_path} has no passages that pass the seed filters")
    llm: LLMInserter | None = None
    with JsonlAppender(out / log_name) as logf:
        ok = sum(1 for row in read_jsonl(out / log_name) if row.get("status") == "ok")
        bar: Any = None
        if progress:
            from favakit.progress import Progress

            bar = Progress(target, "examples", "favakit synth", initial=min(ok, target))
        # every seed passage once (variant 0), then every one again with other errors, ...
        everything = ((p, v) for v in range(cfg.variants) for p in seeds)
        work = (item for k, item in enumerate(everything) if k % n_shards == i_shard)

        made_now = 0

        def log_row(row: dict[str, Any]) -> None:
            nonlocal ok, made_now
            logf.append(row)
            if on_row is not None:
                on_row(row)
            if row["status"] == "ok":
                ok += 1
                made_now += 1

        def count_since(before: int) -> None:
            # a batch's rows come at once: counted one by one, the first would read as having
            # taken the whole batch's time
            if bar is not None and ok > before:
                bar.advance(ok - before)

        if ray is None:
            make_rows = _RowMaker(str(kb_path), cfg, out, client)
            llm = make_rows.llm
            pending: list[tuple[Seed, int]] = []

            def flush() -> None:
                before = ok
                for row in make_rows(pending):
                    log_row(row)
                count_since(before)
                pending.clear()

            for p, variant in work:
                if ok + len(pending) >= target:
                    flush()
                    if ok >= target:
                        break
                if passage_id(p, variant) in logf:
                    continue
                if cfg.max_passages and len(logf) + len(pending) >= cfg.max_passages:
                    break
                pending.append((p, variant))
                if len(pending) >= cfg.batch:
                    flush()
            flush()
        else:
            if client is not None:
                raise UsageError("a client object cannot travel to Ray workers; give cfg.llm_*")
            # The same items in the same order as above, in waves a little larger than what
            # is still missing; rows are logged in order until the target is reached, so the
            # log is the one a run without Ray writes (rows of a wave's last chunks past the
            # target are dropped: at most a wave's overshoot is wasted).
            todo = (item for item in work if passage_id(*item) not in logf)
            stage = functools.partial(_RowMaker, str(kb_path), cfg, str(out))
            while ok < target:
                room = cfg.max_passages - len(logf) if cfg.max_passages else None
                size = max(cfg.batch, math.ceil((target - ok) * 1.25))
                wave = list(itertools.islice(todo, size if room is None else min(size, room)))
                if not wave:
                    break
                for rows in map_chunks_in_order(wave, stage, ray, cfg.batch):
                    before = ok
                    for row in rows:
                        log_row(row)
                        if ok >= target:
                            break
                    count_since(before)
                    if ok >= target:
                        break
        if bar is not None:
            bar.close()
    if ok < target:
        why = (
            f"--max-passages {cfg.max_passages} reached"
            if cfg.max_passages and len(list(read_jsonl(out / log_name))) >= cfg.max_passages
            else "the knowledge source ran out of seed passages"
        )
        log.warning("only %d of %d examples: %s", ok, target, why)
    stats = _finalize(out, cfg)
    seconds = time.perf_counter() - t0
    stats["run"] = {
        "examples_this_run": made_now,
        "seconds": round(seconds, 2),
        "examples_per_s": round(made_now / seconds, 1) if seconds > 0 else None,
        "seed_passages_available": len(seeds),
    }
    if llm is not None:
        stats["llm"] = {
            "usage": llm.client.usage.to_dict(),
            "failed_attempts": dict(llm.rejections),
        }
    (out / "stats.json").write_text(json.dumps(stats, indent=2))
    return stats


class _RowMaker:
    """The per-item work of a synthesis run (in this process, or once per Ray worker): the rules
    and distractors over the whole knowledge source, the LLM inserter if the run uses one; called
    on a batch of (passage, variant), it returns one row per item, in order."""

    def __init__(
        self, kb_path: str, cfg: SynthConfig, out: str | Path, client: LLMClient | None = None
    ) -> None:
        with KnowledgeSource(kb_path) as kb:
            passages = list(kb.passages())
        pools = EntityPools.from_passages((p.title, p.text) for p in passages)
        self.rules = RuleInserter(pools, forbidden=(w for p in passages for w in p.text.split()))
        self.distractors = _Distractors(passages, cfg.references)
        self.cfg = cfg
        self.llm: LLMInserter | None = None
        if cfg.uses_llm:
            if client is None:
                cache = Path(out) / "llm_cache.sqlite"  # shared where the run folder is
                client = OpenAIClient(
                    str(cfg.llm_endpoint), str(cfg.llm_model),
                    cache=cache if cache.parent.is_dir() else None,
                    max_concurrency=cfg.llm_concurrency,
                )  # fmt: skip
            self.llm = LLMInserter(client, retries=cfg.llm_retries, genres=cfg.genres)

    def __call__(self, batch: list[tuple[Seed, int]]) -> list[dict[str, Any]]:
        return _make_rows(batch, self.cfg, self.rules, self.llm, self.distractors)


def _make_rows(
    batch: list[tuple[Seed, int]],
    cfg: SynthConfig,
    rules: RuleInserter,
    llm: LLMInserter | None,
    distractors: _Distractors,
) -> list[dict[str, Any]]:
    """Rows for a batch of (passage, variant), in order; LLM work runs batched."""
    plans = []
    for p, variant in batch:
        pid = passage_id(p, variant)
        rng = random.Random(f"{cfg.seed}:{pid}")
        dist = ERRORS_PER_WINDOW if cfg.window else ERRORS_PER_PASSAGE
        n_err = rng.choices(list(dist), weights=list(dist.values()))[0]
        if cfg.no_error_fraction and rng.random() < cfg.no_error_fraction:
            n_err = 0  # drawn only when asked for, so runs without it keep their examples
        use_llm = llm is not None and (cfg.inserter == "llm" or rng.random() < cfg.llm_fraction)
        plans.append((p, pid, rng, n_err, use_llm))
    jobs = []
    for p, _, rng, n_err, use_llm in plans:
        if use_llm:
            assert llm is not None
            types, genre = llm.plan(rng, n_err)
            jobs.append((p.text, types, genre))
    llm_results = iter(llm.run(jobs) if (llm is not None and jobs) else [])
    rows = []
    for p, pid, rng, n_err, use_llm in plans:
        base: dict[str, Any] = {"id": pid, "source_title": p.title}
        if use_llm:
            res = next(llm_results)
            base.update(genre=res.genre, inserter="llm")
            if res.tagged is None:
                rows.append({**base, "status": "rejected", "reason": res.reason or "llm_failed"})
                continue
            tagged, applied, gold = res.tagged, res.applied, res.tagged.corrected(tidy=False)
        else:
            base.update(genre="passage", inserter="rules")
            tagged, applied = rules.insert(p.text, p.title, _type_order(rng), rng, limit=n_err)
            gold = p.text
            if not applied and n_err:
                rows.append({**base, "status": "rejected", "reason": "no_rule_applies"})
                continue
        completion = tagged.render("edit")
        reason = _validate(tagged, completion, gold, applied)
        if reason is not None:
            rows.append({**base, "status": "rejected", "reason": reason})
            continue
        others = distractors.get(p)
        if cfg.window:  # short examples: the gold reference and 0..references distractors
            others = others[: rng.randint(0, len(others))]
        refs = [Reference(p.context, p.title)]
        refs += [Reference(_cut(o.text, cfg.distractor_words), o.title) for o in others]
        rng.shuffle(refs)
        prompt = build_prompt(tagged.original(), refs, template=cfg.template)
        types = sorted(set(applied), key=ERROR_TYPES.index)
        example = TrainExample(pid, prompt, completion, types, p.title)
        rows.append(
            {
                **base,
                "status": "ok",
                "n_errors": len(applied),
                "types": applied,
                "example": example.to_dict(),
            }
        )
    return rows


def _cut(text: str, words: int) -> str:
    """``text`` cut to whole sentences of at most ``words`` words (at least its first sentence,
    itself cut at ``words``); 0 keeps it whole."""
    text = normalize_text(text)
    if not words or len(text.split()) <= words:
        return text
    kept: list[str] = []
    for sentence in split_sentences(text):
        if kept and len(" ".join([*kept, sentence]).split()) > words:
            break
        kept.append(sentence)
    return " ".join(" ".join(kept).split()[:words])


def finalize(out_dir: str | Path) -> dict[str, Any]:
    """Rebuild train/validation/stats from the logs in a run folder (after sharded runs)."""
    out = Path(out_dir)
    if not (out / "config.json").exists():
        raise UsageError(f"{out} is not a synthesis run folder (no config.json)")
    cfg_dict = json.loads((out / "config.json").read_text())
    cfg_dict.pop("kb", None)
    stats = _finalize(out, SynthConfig(**cfg_dict))
    (out / "stats.json").write_text(json.dumps(stats, indent=2))
    return stats


def _finalize(out: Path, cfg: SynthConfig) -> dict[str, Any]:
    rows = [row for log_file in sorted(out.glob("log*.jsonl")) for row in read_jsonl(log_file)]
    ok_rows = [r for r in rows if r["status"] == "ok"][: cfg.n]
    held = validation_titles({r["source_title"] for r in ok_rows}, cfg)
    train = [r["example"] for r in ok_rows if r["source_title"] not in held]
    val = [r["example"] for r in ok_rows if r["source_title"] in held]
    write_jsonl_atomic(out / "train.jsonl", train)
    write_jsonl_atomic(out / "validation.jsonl", val)
    stats = summarize(rows, ok_rows, n_train=len(train), n_val=len(val))
    try:
        from datasets import Dataset, DatasetDict
        from datasets.utils.logging import disable_progress_bar

        disable_progress_bar()

        keys = ("id", "prompt", "completion", "error_types", "source_title")
        DatasetDict(
            {
                "train": Dataset.from_list([{k: r[k] for k in keys} for r in train]),
                "validation": Dataset.from_list([{k: r[k] for k in keys} for r in val]),
            }
        ).save_to_disk(str(out / "hf"))
        stats["hf_dataset"] = str(out / "hf")
    except ImportError:
        stats["hf_dataset"] = None
    return stats


def summarize(
    rows: list[dict[str, Any]], ok_rows: list[dict[str, Any]], n_train: int, n_val: int
) -> dict[str, Any]:
    types = Counter(t for r in ok_rows for t in r["types"])
    total = sum(types.values())
    per_passage = Counter(r["n_errors"] for r in ok_rows)
    return {
        "examples": len(ok_rows),
        "train": n_train,
        "validation": n_val,
        "errors": total,
        "errors_per_type": {t: types.get(t, 0) for t in ERROR_TYPES},
        "share_per_type": {
            t: round(types.get(t, 0) / total, 4) if total else 0.0 for t in ERROR_TYPES
        },
        "errors_per_passage": {str(k): per_passage[k] for k in sorted(per_passage)},
        "mean_errors_per_passage": round(total / len(ok_rows), 3) if ok_rows else 0.0,
        "no_error_examples": per_passage.get(0, 0),
        "rejected": dict(Counter(r["reason"] for r in rows if r["status"] == "rejected")),
        "genres": dict(Counter(r.get("genre", "passage") for r in ok_rows)),
    }
