"""Generation backends behind one interface, :class:`favakit.llm.LLMClient`.

- in-process transformers: :class:`HFGenerator` runs a model with true batching (prompts sorted
  by length, padded on the left, generated together, answers in the caller's order; greedy when
  ``temperature`` is 0); :class:`GeneratorClient` puts it behind the client interface.
- in-process vLLM: :class:`VLLMClient` (``vllm.LLM`` with a ``LoRARequest`` for an adapter); the
  arguments it hands vLLM are built by pure functions tested without vLLM.
- HTTP: :class:`favakit.llm.OpenAIClient` for ``vllm serve``, ``favakit serve-llm`` or any
  OpenAI-compatible endpoint.

:func:`open_client` builds the one a :class:`~favakit.spec.ClientSpec` describes; ``backend="auto"`` takes vLLM when
it is importable and CUDA is there, else transformers, and logs the choice.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from favakit.deps import cuda_available, require
from favakit.errors import UsageError
from favakit.inference.copy_draft import (
    DRAFT_TOKENS,
    GPU_DRAFTED_PROMPTS,
    copy_drafted,
    source_tokens,
)
from favakit.inference.last_positions import kept_positions_only
from favakit.llm import (
    Completion,
    GenerationParams,
    LLMClient,
    OpenAIClient,
    api_root,
    list_models,
)
from favakit.progress import counted
from favakit.spec import ClientSpec
from favakit.text import tokenizer_lock

__all__ = [
    "Generated",
    "GeneratorClient",
    "HFGenerator",
    "VLLMClient",
    "choose_backend",
    "lora_request_kwargs",
    "open_client",
    "passes",
    "shared_prefix_groups",
    "vllm_engine_kwargs",
    "vllm_sampling_kwargs",
]

log = logging.getLogger(__name__)


@dataclass
class Generated:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str  # "stop" (EOS or a stop string) or "length"
    logprobs: list[dict[str, float]] | None = None  # per generated token: top {token: logprob}


class HFGenerator:
    """In-process transformers generation (CPU or GPU), batched."""

    def __init__(self, model: Any, tokenizer: Any, name: str, max_batch: int = 8) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.name = name
        self.max_batch = max_batch
        # where set, a one-token pass (_shared) holds only as many prompts as fit in this many
        # padded tokens of their own, at least one (on a CPU, where a pass of a few hundred
        # tokens keeps the cores busy and padding only costs: docs/benchmarks.md, session 74)
        self.pass_tokens: int | None = None
        # prompts sharing this many leading tokens share one pass (0: never); see generate()
        self.shared_prefix_tokens = SHARED_PREFIX_TOKENS
        # a one-token pass runs the last decoder layer at each prompt's last position only
        # (last_positions.py); False: the whole layer
        self.kept_positions_only = True
        self._lock = threading.Lock()  # one generate() at a time on one model
        self._guard: Any = None  # CopyGuard, built on first use; False: tokenizer unsupported
        # the last shared start run (its token ids, and its keys and values), kept for later
        # calls whose prompts begin with it; and the last prompt that came alone (see
        # _earlier_start)
        self._start: tuple[tuple[int, ...], Any] | None = None
        self._last_alone: Sequence[int] = ()
        # a guarded greedy output is decoded a prompt at a time, each pass checking this many
        # tokens of its input drafted ahead (copy_draft.py; 0: batched decoding, a token a pass)
        self.copy_draft_tokens = DRAFT_TOKENS
        # False: drafts are the input alone, as before session 89 (a tag then costs a pass a
        # token); True: also the rest of a tag and the tags' usual order (copy_draft._likely)
        self.copy_draft_tags = True
        # more prompts than this in one call are decoded in batches (None: none are): on a CPU
        # drafting beats a batch at every size, on a GPU a batch's pass costs about one
        # prompt's (copy_draft.py)
        on_cpu = str(getattr(model, "device", "cpu")).startswith("cpu")
        self.drafted_prompts: int | None = None if on_cpu else GPU_DRAFTED_PROMPTS

    @classmethod
    def load(
        cls,
        model: str,
        adapter: str | None = None,
        device: str | None = None,
        max_batch: int = 8,
        dtype: str = "auto",
    ) -> HFGenerator:
        from favakit.inference.models import load_causal_lm

        m, tok, name = load_causal_lm(model, adapter=adapter, device=device, dtype=dtype)
        return cls(m, tok, name, max_batch=max_batch)

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        if getattr(self.tokenizer, "chat_template", None) is None:
            # no template: a plain transcript the model can continue
            return "\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\nassistant:"
        text = self.tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )
        return str(text)

    @property
    def context_tokens(self) -> int:
        """The model's context length in tokens (0: unknown)."""
        return int(getattr(self.model.config, "max_position_embeddings", 0) or 0)

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` as :meth:`generate` feeds it (no special tokens added)."""
        with tokenizer_lock(self.tokenizer):
            return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def copy_guard(self) -> Any:
        """The tokenizer's :class:`~favakit.inference.copy_guard.CopyGuard`, or None where the
        tokenizer's tokens cannot be mapped to bytes (then decoding is unguarded)."""
        if self._guard is None:
            from favakit.inference.copy_guard import CopyGuard

            with tokenizer_lock(self.tokenizer):
                self._guard = CopyGuard.for_tokenizer(self.tokenizer) or False
            if self._guard is False:
                log.warning("copy guard unavailable for this tokenizer; decoding unguarded")
        return self._guard or None

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Generated]:
        """Completions for ``prompts`` in order, generated in length-sorted batches. Where only
        the first token is asked for (greedy, one token: a judge's verdict), prompts that begin
        with the same ``shared_prefix_tokens`` or more tokens (default
        :data:`SHARED_PREFIX_TOKENS`; claims against the same evidence, or a judge's
        instructions) are scored from one pass over what they share (:meth:`_shared`), and a
        prompt that shares its start with no other in its call is scored that way where it
        shares it with an earlier call's (:meth:`_earlier_start`): a judge asked about one
        claim at a time runs its instructions once."""
        results: list[Generated | None] = [None] * len(prompts)
        sources = params.copy_sources
        if sources and len(sources) != len(prompts):
            raise ValueError(f"{len(sources)} copy_sources for {len(prompts)} prompts")
        first_only = params.max_tokens == 1 and params.temperature <= 0 and not sources
        if first_only and self.shared_prefix_tokens > 0 and self._plain():
            with tokenizer_lock(self.tokenizer):
                ids = [self.tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
            groups = shared_prefix_groups(ids, self.shared_prefix_tokens) if len(ids) > 1 else []
            grouped = {i for members, _ in groups for i in members}
            earlier: dict[tuple[int, ...], list[int]] = {}  # start: prompts alone in this call
            for i in range(len(ids)):
                if i not in grouped and (shared := self._earlier_start(ids[i])):
                    earlier.setdefault(tuple(ids[i][:shared]), []).append(i)
            for members, shared in [*groups, *((m, len(k)) for k, m in earlier.items())]:
                done = self._shared([ids[i] for i in members], shared, params)
                for i, out in zip(members, done, strict=True):
                    results[i] = out
        if sources and self.copy_drafts(params, len(prompts)):
            for i, (prompt, source) in enumerate(zip(prompts, sources, strict=True)):
                results[i] = self._drafted(prompt, source, params)
        order = sorted((i for i in range(len(prompts)) if results[i] is None),
                       key=lambda i: len(prompts[i]))  # fmt: skip
        for start in range(0, len(order), self.max_batch):
            idx = order[start : start + self.max_batch]
            part = (
                replace(params, copy_sources=tuple(sources[i] for i in idx)) if sources else params
            )
            for i, out in zip(idx, self._batch([prompts[i] for i in idx], part), strict=True):
                results[i] = out
        return [r for r in results if r is not None]

    def copy_drafts(self, params: GenerationParams | None = None, prompts: int = 1) -> bool:
        """Whether ``prompts`` guarded outputs asked for in one call (``params``: these, where
        given) are decoded a prompt at a time with drafts of their input
        (:mod:`~favakit.inference.copy_draft`): any number of them on a CPU, no more than
        :attr:`drafted_prompts` where it is set (on a GPU), greedy, with no log-probabilities
        asked for, a guard for this tokenizer, and the model's scores taken as they are
        (:meth:`_plain`)."""
        if params is not None and (params.temperature > 0 or params.logprobs is not None):
            return False
        most = self.drafted_prompts
        if prompts <= 0 or (most is not None and prompts > most) or self.copy_draft_tokens <= 0:
            return False
        return self._plain() and self.copy_guard() is not None

    def _drafted(self, prompt: str, source: str, params: GenerationParams) -> Generated:
        """``prompt``'s guarded greedy output, copying ``source``, by
        :func:`~favakit.inference.copy_draft.copy_drafted`."""
        guard = self.copy_guard()
        with tokenizer_lock(self.tokenizer):
            ids = self.tokenizer(prompt, add_special_tokens=False)["input_ids"]
            tokens = source_tokens(self.tokenizer, guard, source)

        def tokenize(text: str) -> list[int]:
            with tokenizer_lock(self.tokenizer):
                return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

        with self._lock:
            new = copy_drafted(
                self.model, guard, ids, tokens, source.encode(), params.max_tokens,
                draft=self.copy_draft_tokens, cache_word=self._cache_word(),
                counted=counted("token"), tokenize=tokenize if self.copy_draft_tags else None,
            )  # fmt: skip
        return self._result(new, len(ids), [], params)

    def _forward_takes(self) -> Any:
        """The parameters of the model's ``forward`` (its base's, under an adapter)."""
        base = self.model.get_base_model() if hasattr(self.model, "get_base_model") else self.model
        return inspect.signature(base.forward).parameters

    def _cache_word(self) -> str:
        """The keyword under which the model takes its keys and values: ``cache``
        (transformers 5), ``past_key_values`` before."""
        return "cache" if "cache" in self._forward_takes() else "past_key_values"

    def _batch(self, prompts: list[str], params: GenerationParams) -> list[Generated]:
        import torch

        tok = self.tokenizer
        with tokenizer_lock(tok):
            enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        enc = enc.to(self.model.device)
        kwargs: dict[str, Any] = {
            "max_new_tokens": params.max_tokens,
            "pad_token_id": tok.pad_token_id,
            "eos_token_id": tok.eos_token_id,
        }
        if params.temperature > 0:
            kwargs.update(do_sample=True, temperature=params.temperature, top_p=params.top_p)
            if params.seed is not None:
                torch.manual_seed(params.seed)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        guard = self.copy_guard() if params.copy_sources else None
        if guard is not None:
            width = enc["input_ids"].shape[1]
            from transformers import LogitsProcessorList

            kwargs["logits_processor"] = LogitsProcessorList(
                [guard.processor(params.copy_sources, width)]
            )
        top_k = params.logprobs
        if top_k is not None:
            kwargs.update(output_scores=True, return_dict_in_generate=True)
        step = counted("token")  # where a caller shows its part's progress: each step counts
        if step is not None:
            kwargs["streamer"] = _Steps(step)
        with self._lock, torch.inference_mode():
            out = self.model.generate(**enc, **kwargs)
        sequences = out.sequences if top_k is not None else out
        steps = (
            [torch.log_softmax(s.float(), dim=-1) for s in out.scores] if top_k is not None else []
        )
        width = enc["input_ids"].shape[1]
        return [
            self._result(row[width:].tolist(), int(mask.sum()), [s[i] for s in steps], params)
            for i, (row, mask) in enumerate(zip(sequences, enc["attention_mask"], strict=True))
        ]

    def _plain(self) -> bool:
        """Whether greedy generation here takes the model's next-token scores as they are: no
        setting of its generation config (a repetition penalty, say, as Qwen's has) changes them,
        so the shared pass, which reads the scores itself, gives what ``generate`` would."""
        config = getattr(self.model, "generation_config", None)
        if config is None:
            return True
        for name, neutral in _NEUTRAL_GENERATION.items():
            if getattr(config, name, neutral) not in (neutral, None):
                return False
        return True

    def _shared(
        self, ids: list[list[int]], shared: int, params: GenerationParams
    ) -> list[Generated]:
        """The first token after each prompt of ``ids`` (token ids that all begin with the same
        ``shared`` tokens, each with at least one more): the shared tokens are run once (or
        not at all where the last call's shared start was the same) and their keys and values
        reused for every prompt, whose own tokens then run together, padded on the right,
        ``max_batch`` at a time (fewer where :attr:`pass_tokens` is set: :func:`passes`),
        shortest first; the model's head scores only each prompt's last position, and its last
        layer computes only there (:mod:`~favakit.inference.last_positions`). Answers in
        the order of ``ids``."""
        import copy

        import torch

        tok = self.tokenizer
        device = self.model.device
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        results: list[Generated | None] = [None] * len(ids)
        # the keys and values go in and come out as `cache` (transformers 5), `past_key_values`
        # before; `logits_to_keep` (where the model takes it) spares the head's scores of every
        # other position (a 150k-word vocabulary: about 15% of the pass)
        takes = self._forward_takes()
        word = self._cache_word()
        with self._lock, torch.inference_mode():
            key = tuple(ids[0][:shared])
            if self._start is None or self._start[0] != key:
                prefix = torch.tensor([list(key)], device=device)
                self._start = (key, getattr(self.model(input_ids=prefix, use_cache=True), word))
            cache = self._start[1]
            # shortest first, so that each batch pads its prompts' own tokens the least
            order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
            sizes = [len(ids[i]) - shared for i in order]
            for idx in passes(order, sizes, self.max_batch, self.pass_tokens):
                part = [ids[i][shared:] for i in idx]
                width = max(len(r) for r in part)
                suffix = torch.tensor([r + [pad] * (width - len(r)) for r in part], device=device)
                mask = torch.tensor(
                    [[1] * (shared + len(r)) + [0] * (width - len(r)) for r in part], device=device
                )
                positions = torch.arange(shared, shared + width, device=device).expand(
                    len(part), -1
                )
                past = copy.deepcopy(cache)
                past.batch_repeat_interleave(len(part))
                last = [len(r) - 1 for r in part]
                if "logits_to_keep" in takes:  # the positions read, each once
                    keep = sorted(set(last))
                    extra = {"logits_to_keep": torch.tensor(keep, device=device)}
                else:
                    keep, extra = list(range(width)), {}
                shortened = (
                    kept_positions_only(self.model, last)
                    if self.kept_positions_only
                    else contextlib.nullcontext()
                )
                with shortened:
                    logits = self.model(
                        input_ids=suffix, attention_mask=mask, position_ids=positions,
                        use_cache=True, **{word: past}, **extra,
                    ).logits  # fmt: skip
                column = torch.tensor([keep.index(n) for n in last], device=device)
                step = torch.log_softmax(logits[torch.arange(len(part)), column].float(), dim=-1)
                for j, (i, r) in enumerate(zip(idx, part, strict=True)):
                    first = int(step[j].argmax())
                    top = [step[j]] if params.logprobs is not None else []
                    results[i] = self._result([first], shared + len(r), top, params)
        return [r for r in results if r is not None]

    def _earlier_start(self, ids: Sequence[int]) -> int:
        """How many leading tokens of ``ids``, a prompt alone in its call, to score from a
        shared pass: what it shares with the kept shared start (:meth:`_shared`), else with the
        last prompt that came alone, where that is ``shared_prefix_tokens`` or more (at least
        one token of ``ids`` stays its own); 0 where neither. A start shorter than the kept one
        is run anew and kept in its place: the kept start shrinks to what a judge's prompts
        all share, its instructions."""
        with self._lock:
            kept = self._start[0] if self._start is not None else ()
            last, self._last_alone = self._last_alone, ids
        for earlier in (kept, last):
            common = _leading_common(ids, earlier, min(len(ids) - 1, len(earlier)))
            if common >= self.shared_prefix_tokens:
                return common
        return 0

    def _result(
        self, new: list[int], prompt_tokens: int, steps: list[Any], params: GenerationParams
    ) -> Generated:
        """A :class:`Generated` from the token ids generated after a prompt (up to EOS, padding
        dropped) and each step's log-probabilities (empty unless ``params.logprobs``)."""
        with tokenizer_lock(self.tokenizer):
            return self._decoded(new, prompt_tokens, steps, params)

    def _decoded(
        self, new: list[int], prompt_tokens: int, steps: list[Any], params: GenerationParams
    ) -> Generated:
        tok = self.tokenizer
        ended = tok.eos_token_id in new
        if ended:
            new = new[: new.index(tok.eos_token_id)]
        while new and new[-1] == tok.pad_token_id:
            new.pop()
        text = tok.decode(new, skip_special_tokens=True)
        finish = "stop" if ended else "length"
        for stop in params.stop:
            cut = text.find(stop)
            if cut >= 0:
                text, finish = text[:cut], "stop"
        logprobs = None
        if params.logprobs is not None:
            logprobs = []
            for step in steps[: max(1, len(new))]:
                values, ids = step.topk(max(1, params.logprobs))
                logprobs.append(
                    {tok.decode([int(t)]): float(v) for v, t in zip(values, ids, strict=True)}
                )
        return Generated(text, prompt_tokens, len(new), finish, logprobs)


# Generation-config settings, at the values that leave greedy next-token scores as they are.
_NEUTRAL_GENERATION: dict[str, Any] = {
    "repetition_penalty": 1.0, "encoder_repetition_penalty": 1.0, "no_repeat_ngram_size": 0,
    "bad_words_ids": None, "suppress_tokens": None, "begin_suppress_tokens": None,
    "forced_bos_token_id": None, "forced_decoder_ids": None, "sequence_bias": None,
    "min_length": 0, "min_new_tokens": None, "guidance_scale": None,
    "watermarking_config": None, "renormalize_logits": False,
}  # fmt: skip

# Prompts that begin with at least this many of the same tokens share one pass over them when a
# single token is asked for (docs/benchmarks.md, "Many claims against one document").
SHARED_PREFIX_TOKENS = 64


def _leading_common(x: Sequence[int], y: Sequence[int], limit: int) -> int:
    """How many leading tokens ``x`` and ``y`` share, counting no further than ``limit``."""
    common = 0
    while common < limit and x[common] == y[common]:
        common += 1
    return common


def passes(
    order: Sequence[int], sizes: Sequence[int], max_batch: int, budget: int | None = None
) -> list[list[int]]:
    """``order`` (prompt indices, shortest first; ``sizes``: each one's tokens, in the same
    order) cut into consecutive passes of at most ``max_batch`` prompts and, with ``budget``,
    at most ``budget`` padded tokens (prompts x the longest one's tokens; a prompt longer than
    the budget runs alone)."""
    out: list[list[int]] = []
    for i, size in zip(order, sizes, strict=True):
        # shortest first: the prompt joining a pass is its longest, so sets its padded width
        last = out[-1] if out else []
        fits = budget is None or (len(last) + 1) * size <= budget
        if last and len(last) < max_batch and fits:
            last.append(i)
        else:
            out.append([i])
    return out


def shared_prefix_groups(
    ids: Sequence[Sequence[int]], min_shared: int
) -> list[tuple[list[int], int]]:
    """Groups of two or more prompts (indices into ``ids``, token ids) that begin with the same
    ``shared`` >= ``min_shared`` tokens, as ``(indices, shared)``, chosen to skip the most
    tokens: a group saves ``shared`` tokens for every member but one, and is split where that
    saves more (one prompt that shares little does not cut what the rest share). Each prompt
    keeps at least one token beyond ``shared``; prompts in no group are left out."""
    order = sorted(range(len(ids)), key=lambda i: list(ids[i]))
    links = []  # what neighbours in sorted order share; a run of them shares its minimum
    for a, b in itertools.pairwise(order):
        x, y = ids[a], ids[b]
        links.append(_leading_common(x, y, min(len(x), len(y)) - 1))
    # runs of neighbours that share enough; in each, the best grouping of order[lo..hi]: the run
    # whole, or split at its weakest link (a stack, not recursion: thousands of claims against
    # one document make deep splits)
    cuts = [k for k, n in enumerate(links) if n < min_shared]
    runs = list(zip([0] + [k + 1 for k in cuts], [*cuts, len(order) - 1], strict=True))
    best: dict[tuple[int, int], tuple[int, list[tuple[list[int], int]]]] = {}
    stack = [(lo, hi, False) for lo, hi in runs]
    while stack:
        lo, hi, ready = stack.pop()
        if lo >= hi:
            best[lo, hi] = (0, [])
            continue
        k = min(range(lo, hi), key=links.__getitem__)
        if not ready:
            stack += [(lo, hi, True), (lo, k, False), (k + 1, hi, False)]
            continue
        (saved_l, left), (saved_r, right) = best.pop((lo, k)), best.pop((k + 1, hi))
        whole = (hi - lo) * links[k] if links[k] >= min_shared else 0
        if whole and whole >= saved_l + saved_r:
            best[lo, hi] = (whole, [(order[lo : hi + 1], links[k])])
        else:
            best[lo, hi] = (saved_l + saved_r, left + right)
    return [group for run in runs for group in best[run][1]]


class _Steps:
    """A ``transformers`` streamer that counts generation steps (``streamer=`` of
    ``generate``): its first ``put`` is the prompt, each later one a step's tokens."""

    def __init__(self, advance: Callable[[int], None]) -> None:
        self.advance, self.prompt_seen = advance, False

    def put(self, value: Any) -> None:
        if self.prompt_seen:
            self.advance(1)
        self.prompt_seen = True

    def end(self) -> None:
        pass


class GeneratorClient(LLMClient):
    """An in-process model (:class:`HFGenerator`) behind the :class:`~favakit.llm.LLMClient`
    interface, so the synthetic-data and FActScore code can use it like a server. Requests of
    one ``complete``/``chat`` call are generated in batches."""

    kind = "in-process"
    copy_guard = True  # honours GenerationParams.copy_sources

    def __init__(self, generator: HFGenerator, **kwargs: Any) -> None:
        super().__init__(generator.name, **kwargs)
        self.generator = generator

    def complete(
        self, prompts: Sequence[str], params: GenerationParams | None = None, progress: bool = False
    ) -> list[Completion]:
        return self._batched([("completion", p) for p in prompts], params or GenerationParams())

    def chat(
        self,
        conversations: Sequence[list[dict[str, str]]],
        params: GenerationParams | None = None,
        progress: bool = False,
    ) -> list[Completion]:
        return self._batched(
            [("chat", list(c)) for c in conversations], params or GenerationParams()
        )

    def context_tokens(self) -> int | None:
        return self.generator.context_tokens or None

    def count_tokens(self, endpoint: str, payload: Any) -> int | None:
        text = self.generator.chat_prompt(payload) if endpoint == "chat" else payload
        return self.generator.count_tokens(text)

    def _batched(
        self, requests: list[tuple[str, Any]], params: GenerationParams
    ) -> list[Completion]:
        # cache first, then one batched generate() for everything the cache did not have
        keys = [
            self._key(kind, payload, _one_source(params, i))
            for i, (kind, payload) in enumerate(requests)
        ]
        results = [self._lookup(key) for key in keys]
        todo = [i for i, r in enumerate(results) if r is None]
        prompts = [
            self.generator.chat_prompt(requests[i][1])
            if requests[i][0] == "chat"
            else requests[i][1]
            for i in todo
        ]
        if params.copy_sources:
            params = replace(params, copy_sources=tuple(params.copy_sources[i] for i in todo))
        for i, out in zip(todo, self.generator.generate(prompts, params), strict=True):
            done = Completion(
                out.text, out.finish_reason, out.prompt_tokens, out.completion_tokens, out.logprobs
            )
            results[i] = self._record(keys[i], done)
        return [r for r in results if r is not None]


def _one_source(params: GenerationParams, i: int) -> GenerationParams:
    """The parameters of request ``i`` alone (its cache key must not depend on its batch)."""
    if not params.copy_sources:
        return params
    return replace(params, copy_sources=(params.copy_sources[i],))


# -- vLLM in-process --------------------------------------------------------------------------


def lora_request_kwargs(adapter: str, name: str = "favakit", lora_id: int = 1) -> dict[str, Any]:
    """Arguments of ``vllm.lora.request.LoRARequest`` for an adapter folder."""
    folder = Path(adapter)
    if not (folder / "adapter_config.json").exists():
        raise UsageError(f"{adapter} is not a PEFT adapter folder (no adapter_config.json)")
    if lora_id < 1:
        raise ValueError("vLLM LoRA ids start at 1")
    return {"lora_name": name, "lora_int_id": lora_id, "lora_path": str(folder.resolve())}


def adapter_rank(adapter: str) -> int:
    import json

    return int(json.loads((Path(adapter) / "adapter_config.json").read_text()).get("r", 16))


def vllm_engine_kwargs(
    model: str, adapter: str | None = None, dtype: str = "auto", max_model_len: int | None = None
) -> dict[str, Any]:
    """Arguments of ``vllm.LLM`` for a base model (and LoRA adapter)."""
    kwargs: dict[str, Any] = {"model": model, "dtype": dtype}
    if adapter:
        rank = adapter_rank(adapter)
        # vLLM accepts these LoRA ranks; take the smallest that holds the adapter's
        allowed = [r for r in (8, 16, 32, 64, 128, 256, 320, 512) if r >= rank]
        if not allowed:
            raise UsageError(f"adapter rank {rank} is above vLLM's largest LoRA rank (512)")
        kwargs.update(enable_lora=True, max_lora_rank=allowed[0], max_loras=1)
    if max_model_len:
        kwargs["max_model_len"] = max_model_len
    return kwargs


def vllm_sampling_kwargs(params: GenerationParams) -> dict[str, Any]:
    """Arguments of ``vllm.SamplingParams`` for favakit's generation parameters."""
    kwargs: dict[str, Any] = {
        "max_tokens": params.max_tokens,
        "temperature": params.temperature,
        "top_p": params.top_p if params.temperature > 0 else 1.0,
    }
    if params.stop:
        kwargs["stop"] = list(params.stop)
    if params.seed is not None:
        kwargs["seed"] = params.seed
    if params.logprobs is not None:
        kwargs["logprobs"] = params.logprobs
    return kwargs


class VLLMClient(LLMClient):
    """vLLM in the same process (a CUDA GPU): one ``LLM.generate`` call per batch of prompts."""

    kind = "vllm"

    def __init__(
        self, model: str, adapter: str | None = None, dtype: str = "auto", **kwargs: Any
    ) -> None:
        vllm = require("vllm", "vllm", "in-process vLLM generation")
        from vllm.lora.request import LoRARequest

        from favakit.inference.models import resolve_model

        path = resolve_model(model, adapter)
        super().__init__(Path(path).name if Path(path).exists() else path, **kwargs)
        self.vllm = vllm
        self.llm = vllm.LLM(**vllm_engine_kwargs(path, adapter, dtype))
        self.lora = LoRARequest(**lora_request_kwargs(adapter)) if adapter else None
        self._lock = threading.Lock()  # one generate() at a time; vLLM batches inside it

    def complete(
        self, prompts: Sequence[str], params: GenerationParams | None = None, progress: bool = False
    ) -> list[Completion]:
        p = params or GenerationParams()
        sampling = self.vllm.SamplingParams(**vllm_sampling_kwargs(p))
        with self._lock:
            outs = self.llm.generate(
                list(prompts), sampling, lora_request=self.lora, use_tqdm=progress
            )
        results = []
        for out in outs:
            best = out.outputs[0]
            results.append(
                Completion(
                    best.text,
                    best.finish_reason,
                    len(out.prompt_token_ids or ()),
                    len(best.token_ids),
                )
            )
        self.usage.add(calls=len(results))
        return results


# -- choosing a backend -----------------------------------------------------------------------


def choose_backend(requested: str, vllm_importable: bool, cuda: bool) -> str:
    """``auto`` -> ``vllm`` when vLLM is importable and CUDA is there, else ``hf``."""
    if requested not in ("auto", "vllm", "hf"):
        raise UsageError(f"unknown backend {requested!r}; choose auto, vllm or hf")
    if requested == "vllm" and not (vllm_importable and cuda):
        raise UsageError(
            "backend vllm needs the vllm package and a CUDA GPU; use --backend hf (transformers)"
        )
    if requested != "auto":
        return requested
    return "vllm" if (vllm_importable and cuda) else "hf"


def endpoint_model(base_url: str, wanted: str = "", api_key: str | None = None) -> str:
    """The model id to ask an OpenAI-compatible endpoint for: ``wanted`` if given, else the
    LoRA module ``favakit`` when the server has one (``favakit serve-llm --adapter`` on vLLM),
    else the server's first model."""
    if wanted:
        return wanted
    url = api_root(base_url) + "/models"
    try:
        ids = [m["id"] for m in list_models(base_url, api_key)]
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"cannot list the models of {url}: {exc}") from None
    if not ids:
        raise UsageError(f"{url} lists no models")
    return "favakit" if "favakit" in ids else str(ids[0])


def open_client(spec: ClientSpec) -> LLMClient:
    """The generation client ``spec`` describes (see the module docstring)."""
    model, adapter, endpoint = spec.model, spec.adapter, spec.endpoint
    if endpoint:
        name = endpoint_model(endpoint, model if model and adapter is None else "", spec.api_key)
        log.info("generation: %s at %s", name, endpoint)
        return OpenAIClient(endpoint, name, api_key=spec.api_key, max_concurrency=spec.max_batch)
    if not model and not adapter:
        raise UsageError("give --model DIR|ID (or --adapter DIR, or --llm-endpoint URL)")
    from favakit.deps import is_available

    chosen = choose_backend(spec.backend, is_available("vllm"), cuda_available())
    log.info("generation backend: %s (requested %s)", chosen, spec.backend)
    if chosen == "vllm":
        return VLLMClient(model, adapter=adapter, dtype=spec.dtype)
    generator = HFGenerator.load(
        model, adapter=adapter, device=spec.device, max_batch=spec.max_batch, dtype=spec.dtype
    )
    return GeneratorClient(generator)
