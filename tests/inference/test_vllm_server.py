"""vLLM's server from its own environment: the process manager (always), and vLLM itself on
loopback (where ``make vllm`` has built ``.venv-vllm``, or $FAVAKIT_VLLM_ENV names one).

The process-manager tests run a real child process (a small HTTP server script) in place of vLLM:
start, readiness, a child that dies while starting, signal forwarding and clean shutdown.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from favakit.errors import UsageError
from favakit.inference.vllm_server import (
    VLLMServer,
    find_vllm_python,
    group_members,
    vllm_env,
    vllm_serve_argv,
)

ROOT = Path(__file__).resolve().parents[2]


def test_argv_runs_the_module_with_the_flags() -> None:
    argv = vllm_serve_argv("/m/smol", python="/e/bin/python", port=9000)
    assert argv[:3] == ["/e/bin/python", "-m", "vllm.entrypoints.openai.api_server"]
    assert argv[argv.index("--model") + 1] == "/m/smol"
    assert argv[argv.index("--port") + 1] == "9000"
    assert argv[argv.index("--served-model-name") + 1] == "smol"
    assert "--dtype" not in argv and "--enable-lora" not in argv
    argv = vllm_serve_argv(
        "base", adapter="/ad", adapter_name="fava", max_lora_rank=16,
        dtype="float32", max_model_len=1024, max_num_seqs=32,
    )  # fmt: skip
    assert argv[argv.index("--lora-modules") + 1] == "fava=/ad"
    assert "--enable-lora" in argv and argv[argv.index("--max-lora-rank") + 1] == "16"
    assert argv[argv.index("--dtype") + 1] == "float32"
    assert argv[argv.index("--max-model-len") + 1] == "1024"
    assert argv[argv.index("--max-num-seqs") + 1] == "32"
    assert "--api-key" not in argv  # a key goes through the environment (ps shows argv)


def test_environment_sizes_the_cpu_kv_cache() -> None:
    env = vllm_env(cpu=True, kv_cache_gb=3, base={"PATH": "/bin"})
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "3" and env["HF_HUB_OFFLINE"] == "1"
    assert "VLLM_CPU_KVCACHE_SPACE" not in vllm_env(cpu=False, base={})
    with pytest.raises(UsageError, match="whole GiB"):
        vllm_env(cpu=True, kv_cache_gb=0)
    assert vllm_env(cpu=True, base={}, reserved_cpus=0)["VLLM_CPU_NUM_OF_RESERVED_CPU"] == "0"
    assert vllm_env(cpu=False, base={}, api_key="s3cret")["VLLM_API_KEY"] == "s3cret"
    assert "VLLM_API_KEY" not in vllm_env(cpu=False, base={})
    assert "VLLM_CPU_NUM_OF_RESERVED_CPU" not in vllm_env(cpu=True, base={})


def test_a_named_environment_without_vllm_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a virtual environment"):
        find_vllm_python(str(tmp_path))
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").symlink_to(sys.executable)  # a Python without vLLM
    with pytest.raises(UsageError, match="make vllm"):
        find_vllm_python(environ={"FAVAKIT_VLLM_ENV": str(tmp_path)})


FAKE = textwrap.dedent(
    """
    import http.server, os, signal, sys, time
    delay, port, marker = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    def bye(signum, frame):
        # written whole, then renamed: a reader never sees the file half written
        with open(marker + ".part", "w") as f:
            f.write("terminated")
        os.replace(marker + ".part", marker)
        sys.exit(0)
    signal.signal(signal.SIGTERM, bye)
    if delay < 0:
        print("fake vLLM: no model here")
        sys.exit(3)
    time.sleep(delay)
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.end_headers(); self.wfile.write(b"ok")
        def log_message(self, *a): pass
    http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
    """
)


def _fake(tmp_path: Path, port: int, delay: float) -> VLLMServer:
    script = tmp_path / "fake_vllm.py"
    script.write_text(FAKE)
    argv = [sys.executable, str(script), str(delay), str(port), str(tmp_path / "marker")]
    return VLLMServer(argv, dict(os.environ), f"http://127.0.0.1:{port}", tmp_path / "log")


def test_server_waits_for_health_and_stops_cleanly(tmp_path: Path, free_port: Any) -> None:
    server = _fake(tmp_path, free_port(), delay=1.0)
    server.start()
    assert server.wait_ready(timeout=30) >= 0.9
    assert server.proc is not None and group_members(server.proc.pid) == [server.proc.pid]
    assert server.stop() == 0
    assert group_members(server.proc.pid) == []
    assert (tmp_path / "marker").read_text() == "terminated"  # got SIGTERM, not SIGKILL


def test_server_that_dies_while_starting_raises_with_its_log(
    tmp_path: Path, free_port: Any
) -> None:
    server = _fake(tmp_path, free_port(), delay=-1.0)
    server.start()
    with pytest.raises(RuntimeError, match=r"(?s)exited with status 3.*no model here"):
        server.wait_ready(timeout=30)
    server.stop()


def test_serve_llm_forwards_sigterm(tmp_path: Path, free_port: Any) -> None:
    """serve_foreground in a child process: SIGTERM to it reaches the server, both exit 0."""
    port = free_port()
    server_code = textwrap.dedent(
        f"""
        import os, sys
        from pathlib import Path
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_vllm_server import _fake
        from favakit.inference.vllm_server import serve_foreground
        sys.exit(serve_foreground(_fake(Path({str(tmp_path)!r}), {port}, 0.5), "ready"))
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", server_code], stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:  # until it says the server is ready
        lines.append(line)
        if "ready" in line:
            break
    assert "ready" in lines[-1], lines
    urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    assert (tmp_path / "marker").read_text() == "terminated"


def test_server_goes_when_favakit_is_killed(tmp_path: Path, free_port: Any) -> None:
    """serve-llm killed with SIGKILL (no chance to forward anything): the server still stops."""
    port = free_port()
    code = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_vllm_server import _fake
        server = _fake(Path({str(tmp_path)!r}), {port}, 0.2)
        server.start()
        server.wait_ready(timeout=30)
        print("up", flush=True)
        time.sleep(600)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline().strip()
    assert first == "up", (
        first,
        proc.poll(),
        proc.stderr.read() if proc.poll() is not None else "",
    )
    proc.kill()
    proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while not (tmp_path / "marker").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert (tmp_path / "marker").read_text() == "terminated"


# -- vLLM itself -------------------------------------------------------------------------------


def _vllm_python() -> str | None:
    try:
        return find_vllm_python(os.environ.get("FAVAKIT_VLLM_ENV") or str(ROOT / ".venv-vllm"))
    except UsageError:
        return None


VLLM_PYTHON = _vllm_python()
if VLLM_PYTHON is None and os.environ.get("FAVAKIT_REQUIRE_VLLM"):  # make test-vllm: never skip
    raise RuntimeError("FAVAKIT_REQUIRE_VLLM is set but no working vLLM environment was found")
needs_vllm = pytest.mark.skipif(
    VLLM_PYTHON is None,
    reason="no vLLM environment (.venv-vllm or $FAVAKIT_VLLM_ENV): `make vllm`, then "
    "`make test-vllm`",
)


@pytest.fixture(scope="module")
def vllm_llama(tmp_path_factory: pytest.TempPathFactory, tiny_llama: Path) -> tuple[Path, Path]:
    """A random Llama with vLLM-sized heads (64 dims) on the tiny tokenizer, and a LoRA adapter
    with non-zero weights (so it changes the output), both saved as real HF/PEFT folders."""
    import shutil

    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaConfig, LlamaForCausalLM

    folder = tmp_path_factory.mktemp("vllm_llama")
    for f in tiny_llama.iterdir():  # the tokenizer and its chat template
        if "token" in f.name or f.name.startswith(("special_tokens", "chat_template")):
            shutil.copy(f, folder / f.name)
    vocab = json.loads((tiny_llama / "config.json").read_text())["vocab_size"]
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=vocab, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=512,
        pad_token_id=0, bos_token_id=2, eos_token_id=3, tie_word_embeddings=True,
        initializer_range=0.5,  # spread-out logits: greedy choices far from ties
    )  # fmt: skip
    model = LlamaForCausalLM(config)
    model.save_pretrained(folder)
    lora = LoraConfig(
        r=8, lora_alpha=16, target_modules=["q_proj", "v_proj", "down_proj"],
        init_lora_weights=False, task_type="CAUSAL_LM",
    )  # fmt: skip
    adapter = folder.parent / "adapter"
    get_peft_model(model, lora).save_pretrained(adapter)
    return folder, adapter


PROMPTS = [
    "user : marie curie won the nobel prize in physics in 1903 . assistant : ",
    "user : saturn is the sixth planet from the sun . assistant : ",
    "user : mount etna is a volcano in sicily . assistant : ",
]


@pytest.mark.slow
@needs_vllm
def test_vllm_serves_greedy_text_equal_to_transformers_with_lora(
    vllm_llama: tuple[Path, Path], free_port: Any, tmp_path: Path
) -> None:
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams, OpenAIClient

    model, adapter = vllm_llama
    port = free_port()
    argv = vllm_serve_argv(
        str(model), python=str(VLLM_PYTHON), adapter=str(adapter), served_name="base",
        port=port, dtype="float32", max_model_len=512, max_lora_rank=8,
    )  # fmt: skip
    server = VLLMServer(argv, vllm_env(cpu=True, kv_cache_gb=1), f"http://127.0.0.1:{port}")
    params = GenerationParams(max_tokens=12, temperature=0.0)
    with server.running(timeout=600):
        listing = json.loads(urllib.request.urlopen(server.url + "/v1/models").read())
        assert {m["id"] for m in listing["data"]} == {"base", "favakit"}
        got = {
            name: [c.text for c in OpenAIClient(server.url, model=name).complete(PROMPTS, params)]
            for name in ("base", "favakit")
        }
        status = urllib.request.urlopen(
            urllib.request.Request(
                server.url + "/v1/chat/completions",
                data=json.dumps({"model": "favakit", "max_tokens": 4,
                                 "messages": [{"role": "user", "content": "saturn"}]}).encode(),
                headers={"Content-Type": "application/json"},
            )
        ).status  # fmt: skip
        assert status == 200
        # the editor in front of it (what `favakit serve --llm-endpoint` builds)
        from favakit.inference.factory import open_editor
        from favakit.spec import ClientSpec

        editor = open_editor(ClientSpec(endpoint=server.url))
        result = editor.edit({"text": "saturn is the sixth planet .", "evidence": ["saturn"]})
        assert result["original"] == "saturn is the sixth planet ." and "corrected" in result
        assert result["model"].endswith("favakit") and result["usage"]["completion_tokens"] > 0
        # a judge fits evidence longer than vLLM's context into pieces (max_model_len from
        # /v1/models, token counts from /tokenize) instead of stopping at its HTTP 400
        from favakit.contracts import EditRequest
        from favakit.inference.judges import Judge
        from favakit.inference.verifiers import LLMVerifier

        client = OpenAIClient(server.url, model="base")
        assert client.context_tokens() == 512
        assert client.count_tokens("completion", PROMPTS[1]) in (len(PROMPTS[1].split()), len(PROMPTS[1].split()) + 1)  # fmt: skip
        evidence = [{"title": "saturn", "text": "saturn is a planet . " * 150}]  # 750 words
        (judged,) = LLMVerifier(Judge(client, chat=False, max_tokens=1)).verify(
            [EditRequest.from_obj({"text": "saturn is a planet .", "evidence": evidence})]
        )
        # (the random model's answer is no verdict worth reading; that it came back at all is)
        assert "judged in" in judged["warnings"][0] and isinstance(judged["supported"], bool)
        pid = server.proc.pid if server.proc else -1
    assert server.proc is not None and server.proc.returncode is not None  # it exited
    assert group_members(pid) == []  # and so did its engine processes
    want_base = HFGenerator.load(str(model), device="cpu").generate(PROMPTS, params)
    want_lora = HFGenerator.load(str(model), adapter=str(adapter), device="cpu").generate(
        PROMPTS, params
    )
    # The same tokens; the toy word-level tokenizer has no decoder, so vLLM's incremental
    # detokenizer puts a space before the first generated word that transformers' decode of the
    # new tokens alone does not (byte-level tokenizers such as SmolLM2's decode identically).
    assert [t.removeprefix(" ") for t in got["base"]] == [g.text for g in want_base]
    assert [t.removeprefix(" ") for t in got["favakit"]] == [g.text for g in want_lora]
    assert got["base"] != got["favakit"]  # the adapter is in the path


def test_merged_adapter_is_built_once_and_generates_the_same(
    tiny_llama: Path, tiny_adapter: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What serve-llm --backend vllm serves on the CPU: the adapter merged into its base."""
    from favakit.inference.generators import HFGenerator
    from favakit.inference.vllm_server import merged_model
    from favakit.llm import GenerationParams

    monkeypatch.setenv("FAVAKIT_CACHE", str(tmp_path / "cache"))
    folder = merged_model(str(tiny_llama), str(tiny_adapter))
    assert (Path(folder) / "config.json").exists() and str(tmp_path) in folder
    stamp = (Path(folder) / "config.json").stat().st_mtime_ns
    assert merged_model(str(tiny_llama), str(tiny_adapter)) == folder  # cached
    assert (Path(folder) / "config.json").stat().st_mtime_ns == stamp
    prompts = ["user : saturn is the sixth planet from the sun . assistant : "]
    params = GenerationParams(max_tokens=8, temperature=0.0)
    merged = HFGenerator.load(folder, device="cpu").generate(prompts, params)
    lora = HFGenerator.load(str(tiny_llama), adapter=str(tiny_adapter), device="cpu").generate(
        prompts, params
    )
    assert [g.text for g in merged] == [g.text for g in lora]


@pytest.mark.slow
@needs_vllm
def test_serve_llm_cli_serves_the_merged_adapter_and_stops_on_sigterm(
    vllm_llama: tuple[Path, Path], free_port: Any, tmp_path: Path
) -> None:
    """`favakit serve-llm --backend vllm --adapter` as a user runs it: on the CPU the adapter is
    merged once and served as `favakit`; SIGTERM stops vLLM and everything it started."""
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams, OpenAIClient

    model, adapter = vllm_llama
    port = free_port()
    env = {**os.environ, "FAVAKIT_CACHE": str(tmp_path / "cache"),
           "FAVAKIT_VLLM_ENV": str(Path(str(VLLM_PYTHON)).parents[1])}  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "favakit", "serve-llm", "--backend", "vllm", "--model", str(model),
         "--adapter", str(adapter), "--port", str(port), "--max-model-len", "512",
         "--kv-cache-gb", "1"],
        stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
    )  # fmt: skip
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if "ready in" in line or proc.poll() is not None:
            break
    assert "ready in" in lines[-1], "".join(lines)[-3000:]
    url = f"http://127.0.0.1:{port}"
    listing = json.loads(urllib.request.urlopen(url + "/v1/models").read())
    assert [m["id"] for m in listing["data"]] == ["favakit"]
    assert any("merging" in line for line in lines)
    params = GenerationParams(max_tokens=12, temperature=0.0)
    got = [c.text for c in OpenAIClient(url, model="favakit").complete(PROMPTS, params)]
    want = HFGenerator.load(str(model), adapter=str(adapter), device="cpu").generate(
        PROMPTS, params
    )
    assert [t.removeprefix(" ") for t in got] == [g.text for g in want]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=120) == 0
    assert group_members(proc.pid) == []  # serve-llm's group: vLLM had its own, checked below
    vllm_pids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()
                 and "vllm.entrypoints" in (p / "cmdline").read_bytes().decode(errors="replace")
                 and str(port) in (p / "cmdline").read_bytes().decode(errors="replace")]  # fmt: skip
    assert vllm_pids == []
