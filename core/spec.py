"""Which model to run and how: :class:`ClientSpec`, built once from command-line flags or code.

Every command that loads a model (``edit``, ``serve``, ``verify``, ``eval factscore``,
``eval edit-gain``, the benchmarks) describes it with one spec and hands it to the factories of
:mod:`favakit.inference.factory` (``favakit.open_editor``, ``favakit.open_verifier``)::

    spec = ClientSpec(adapter="runs/editor/adapter")               # in-process
    spec = ClientSpec(endpoint="http://127.0.0.1:8000/v1")         # an OpenAI-compatible server

:func:`add_model_options` adds the flags a command shares (``--model``, ``--adapter``,
``--llm-endpoint``, ``--device``, ``--dtype``, ``--max-batch``, ``--llm-api-key``) and
:meth:`ClientSpec.from_args` reads them back. Torch-free: parsing flags imports nothing heavy.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from favakit.cli_args import device, given, is_http_address, positive_int, url
from favakit.devices import check_device_name

__all__ = ["BACKENDS", "DTYPES", "ClientSpec", "add_model_options", "written_as_a_path"]

#: where generation runs: vLLM or transformers in this process (auto: vLLM when installed)
BACKENDS = ("auto", "vllm", "hf")
DTYPES = ("auto", "float32", "bfloat16", "float16")


def written_as_a_path(name: str) -> bool:
    """A model name written as a path, not a Hub id ``NAME`` or ``ORG/NAME``: when it does not
    exist on this machine, say so at once, not after the Hub client's retries (about 50 s
    offline) and its "Repo id must be in the form" error."""
    return (
        name.startswith(("/", ".", "~"))
        or name.count("/") > 1
        or name.endswith((".gguf", ".safetensors", ".bin", ".json"))
        or ("/" in name and Path(name.split("/", 1)[0]).is_dir())  # runs/typo: a local folder
    )


@dataclass(frozen=True)
class ClientSpec:
    """A model and where it runs.

    ``model``: a folder, a Hub id, a ``.gguf`` file or a preset name (``smollm2``,
    ``qwen2.5-coder-1.5b``); ``adapter``: a PEFT adapter folder (its base model when ``model`` is
    empty); ``endpoint``: an OpenAI-compatible server to generate through instead (``vllm
    serve``, ``favakit serve-llm``), asked with ``api_key``. With none of the three, each factory
    uses the model shipped for its job. ``backend``, ``device``, ``dtype`` and ``max_batch``
    apply to a model loaded in this process (``max_batch`` also caps requests in flight to an
    endpoint).
    """

    model: str = ""
    adapter: str | None = None
    endpoint: str | None = None
    backend: str = "auto"
    device: str | None = None
    dtype: str = "auto"
    max_batch: int = 8
    api_key: str | None = None

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {self.backend!r}")
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, not {self.dtype!r}")
        if self.max_batch < 1:
            raise ValueError(f"max_batch must be at least 1, not {self.max_batch}")
        if self.device is not None:
            check_device_name(self.device)
        for name in ("adapter", "endpoint"):  # None is none; a blank one meant the default
            value = getattr(self, name)
            if value is not None and not value.strip():
                raise ValueError(f"{name} is empty: give None for none")
        if self.endpoint is not None and not is_http_address(self.endpoint):
            raise ValueError(f"endpoint {self.endpoint!r} is not an http(s) address, such as "
                             "http://127.0.0.1:8000/v1")  # fmt: skip
        if self.model and not self.model.strip():
            raise ValueError("model is blank: give '' (or leave it out) for the shipped model")

    @property
    def names_model(self) -> bool:
        """Whether a model was named (else the factory's shipped default is used)."""
        return bool(self.model or self.adapter or self.endpoint)

    def with_(self, **changes: Any) -> ClientSpec:
        """A copy with ``changes`` (``spec.with_(model="smollm2")``)."""
        return replace(self, **changes)

    @classmethod
    def from_args(cls, args: argparse.Namespace, prefix: str = "") -> ClientSpec:
        """The spec :func:`add_model_options` flags describe. With ``prefix`` (a second model,
        ``--editor-model``, ...) the model, adapter, endpoint and key are the prefixed flags and
        the rest is shared with the first model. A ``--backend`` that is not a generation
        backend (``encoder``, ``cascade``: the editor's kind) leaves ``backend`` at auto."""
        dest = prefix.replace("-", "_")
        backend = getattr(args, "backend", "auto")
        return cls(
            model=getattr(args, dest + "model", "") or "",
            adapter=getattr(args, dest + "adapter", None),
            endpoint=getattr(args, f"{dest}endpoint" if dest else "llm_endpoint", None),
            backend=backend if backend in BACKENDS else "auto",
            device=getattr(args, "device", None),
            dtype=getattr(args, "dtype", "auto") or "auto",
            max_batch=getattr(args, "max_batch", 8) or 8,
            api_key=getattr(args, f"{dest}api_key" if dest else "llm_api_key", None),
        )


def add_model_options(
    parser: argparse.ArgumentParser,
    *,
    title: str = "model",
    prefix: str = "",
    backends: tuple[str, ...] = BACKENDS,
    backend_help: str | None = None,
    max_batch: int | None = 8,
) -> argparse._ArgumentGroup:
    """The flags of a :class:`ClientSpec`, in a group called ``title``; ``prefix`` names a
    second model of the same command (``--editor-model``, ``--editor-adapter``, ...).
    ``backends``: the ``--backend`` choices (a command may add editor kinds to them)."""
    g = parser.add_argument_group(title)
    p = f"--{prefix}"
    g.add_argument(
        f"{p}model", type=given, default=None,
        help="model folder, Hub id, .gguf file, or a preset ('smollm2')",
    )  # fmt: skip
    g.add_argument(
        f"{p}adapter", type=given, default=None,
        help="PEFT adapter folder (its base model if no --model)",
    )  # fmt: skip
    g.add_argument(
        f"{p}endpoint" if prefix else "--llm-endpoint",
        type=url,
        default=None,
        metavar="URL",
        help="generate through an OpenAI-compatible server (vllm serve, favakit serve-llm)",
    )
    g.add_argument(
        f"{p}api-key" if prefix else "--llm-api-key",
        default=None,
        help="key for the endpoint (or set OPENAI_API_KEY)",
    )
    if prefix:
        return g
    g.add_argument(
        "--backend",
        default="auto",
        choices=list(backends),
        help=backend_help or "where the model runs in this process (auto: vLLM if installed)",
    )
    g.add_argument(
        "--device", type=device, default=None,
        help="cpu, cuda, cuda:1 (default: a GPU if any)",
    )  # fmt: skip
    g.add_argument(
        "--dtype",
        default="auto",
        choices=list(DTYPES),
        help="weights dtype (auto: bf16 on GPUs that have it, else fp32; the tuned Qwen judge "
        "also in bf16 on a CPU that multiplies bf16 natively)",
    )
    if max_batch is not None:
        g.add_argument(
            "--max-batch", type=positive_int, default=max_batch, help="prompts generated together"
        )
    return g
