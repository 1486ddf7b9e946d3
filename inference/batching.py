"""Request batching for a model loaded in this process and shared by many threads.

:class:`Batcher` collects prompts from the server's worker threads and runs what has queued up
through the generator in batches (up to ``max_batch``, waiting at most ``batch_window_ms`` for a
batch to fill; prompts with the same sampling parameters go together). :class:`BatchedClient` is
an :class:`~favakit.llm.LLMClient` over a Batcher, so an editor built for one caller serves many:
``favakit serve`` uses it for in-process generation and ``favakit serve-llm --backend hf`` uses
the Batcher directly.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace

from favakit.inference.generators import Generated, HFGenerator
from favakit.llm import Completion, GenerationParams, LLMClient

__all__ = ["BatchedClient", "Batcher"]

log = logging.getLogger(__name__)


@dataclass
class _Job:
    prompt: str
    params: GenerationParams
    future: Future[Generated]


class Batcher:
    """Collects requests from many threads and runs them through the generator in batches."""

    def __init__(
        self, generator: HFGenerator, max_batch: int = 8, batch_window_ms: float = 50.0
    ) -> None:
        self.generator = generator
        self.max_batch = max_batch
        self.window = batch_window_ms / 1000.0
        self.jobs: queue.Queue[_Job | None] = queue.Queue()
        self.batches = 0
        self.largest_batch = 0
        self.thread = threading.Thread(target=self._loop, name="favakit-batcher", daemon=True)
        self.thread.start()

    def submit(self, prompt: str, params: GenerationParams) -> Future[Generated]:
        """The prompt's future answer; cancelling it before its batch begins drops the prompt."""
        fut: Future[Generated] = Future()
        self.jobs.put(_Job(prompt, params, fut))
        return fut

    def close(self) -> None:
        self.jobs.put(None)
        self.thread.join(timeout=30)

    def _loop(self) -> None:
        while True:
            first = self.jobs.get()
            if first is None:
                return
            batch = [first]
            deadline = time.monotonic() + self.window
            while len(batch) < self.max_batch:
                try:
                    job = self.jobs.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if job is None:
                    self.jobs.put(None)  # finish this batch, then stop
                    break
                batch.append(job)
            # a request cancelled while it waited (its client gone, its time up) is dropped
            batch = [job for job in batch if job.future.set_running_or_notify_cancel()]
            # one generate() per set of parameters; copy-guarded prompts (one source each)
            # batch together, their sources joined in order
            groups: dict[tuple[GenerationParams, bool], list[_Job]] = {}
            for job in batch:
                key = (replace(job.params, copy_sources=()), bool(job.params.copy_sources))
                groups.setdefault(key, []).append(job)
            for (params, guarded), jobs in groups.items():
                if guarded:
                    params = replace(
                        params, copy_sources=tuple(j.params.copy_sources[0] for j in jobs)
                    )
                self.batches += 1
                self.largest_batch = max(self.largest_batch, len(jobs))
                try:
                    outs = self.generator.generate([j.prompt for j in jobs], params)
                except Exception as exc:  # a failed batch fails its requests, not the server
                    log.exception("generation failed")
                    for j in jobs:
                        j.future.set_exception(exc)
                    continue
                for j, out in zip(jobs, outs, strict=True):
                    j.future.set_result(out)


class BatchedClient(LLMClient):
    """An in-process generator shared by many request threads: every prompt goes into one
    :class:`Batcher`, which generates what has queued up together."""

    kind = "in-process"
    copy_guard = True  # honours GenerationParams.copy_sources

    def __init__(self, generator: HFGenerator, max_batch: int = 8, batch_window_ms: float = 50.0):
        super().__init__(generator.name)
        self.generator = generator
        self.batcher = Batcher(generator, max_batch=max_batch, batch_window_ms=batch_window_ms)

    def complete(
        self, prompts: Sequence[str], params: GenerationParams | None = None, progress: bool = False
    ) -> list[Completion]:
        p = params or GenerationParams()
        if p.copy_sources and len(p.copy_sources) != len(prompts):
            raise ValueError(f"{len(p.copy_sources)} copy_sources for {len(prompts)} prompts")
        futures = [
            self.batcher.submit(
                prompt, replace(p, copy_sources=(p.copy_sources[i],)) if p.copy_sources else p
            )
            for i, prompt in enumerate(prompts)
        ]
        outs = [f.result() for f in futures]
        self.usage.add(calls=len(outs))
        return [
            Completion(o.text, o.finish_reason, o.prompt_tokens, o.completion_tokens, o.logprobs)
            for o in outs
        ]

    def close(self) -> None:
        self.batcher.close()
