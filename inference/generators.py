"""Generation backends behind one interface.

:class:`HFGenerator` runs a transformers model in-process with true batching: prompts sorted by
length, padded on the left, generated together, answers returned in the caller's order. Greedy
decoding when ``temperature`` is 0. Chat requests go through the tokenizer's chat template.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from favakit.llm import Completion, GenerationParams, LLMClient

__all__ = ["Generated", "GeneratorClient", "HFGenerator"]

log = logging.getLogger(__name__)


@dataclass
class Generated:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str  # "stop" (EOS or a stop string) or "length"


class HFGenerator:
    """In-process transformers generation (CPU or GPU), batched."""

    def __init__(self, model: Any, tokenizer: Any, name: str, max_batch: int = 8) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.name = name
        self.max_batch = max_batch
        self._lock = threading.Lock()  # one generate() at a time on one model

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

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Generated]:
        """Completions for ``prompts`` in order, generated in length-sorted batches."""
        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
        results: list[Generated | None] = [None] * len(prompts)
        for start in range(0, len(order), self.max_batch):
            idx = order[start : start + self.max_batch]
            for i, out in zip(idx, self._batch([prompts[i] for i in idx], params), strict=True):
                results[i] = out
        return [r for r in results if r is not None]

    def _batch(self, prompts: list[str], params: GenerationParams) -> list[Generated]:
        import torch

        tok = self.tokenizer
        enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(
            self.model.device
        )
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
        with self._lock, torch.inference_mode():
            out = self.model.generate(**enc, **kwargs)
        width = enc["input_ids"].shape[1]
        results = []
        for row, mask in zip(out, enc["attention_mask"], strict=True):
            new = row[width:].tolist()
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
            results.append(Generated(text, int(mask.sum()), len(new), finish))
        return results


class GeneratorClient(LLMClient):
    """An in-process model (:class:`HFGenerator`) behind the :class:`~favakit.llm.LLMClient`
    interface, so the synthetic-data and FActScore code can use it like a server. Requests of
    one ``complete``/``chat`` call are generated in batches."""

    kind = "in-process"

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

    def _batched(
        self, requests: list[tuple[str, Any]], params: GenerationParams
    ) -> list[Completion]:
        # cache first, then one batched generate() for everything the cache did not have
        keys = [self._key(kind, payload, params) for kind, payload in requests]
        results = [self._lookup(key) for key in keys]
        todo = [i for i, r in enumerate(results) if r is None]
        prompts = [
            self.generator.chat_prompt(requests[i][1])
            if requests[i][0] == "chat"
            else requests[i][1]
            for i in todo
        ]
        for i, out in zip(todo, self.generator.generate(prompts, params), strict=True):
            done = Completion(out.text, out.finish_reason, out.prompt_tokens, out.completion_tokens)
            results[i] = self._record(keys[i], done)
        return [r for r in results if r is not None]
