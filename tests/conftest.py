"""Shared test setup: everything offline and deterministic."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

# Tests never reach a model hub; anything that tries fails fast instead of hanging.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

# A small corpus written for the tests: a few articles with distinctive words, one name shared by
# two articles (for title lookup), and enough text for several passages.
CORPUS: list[dict[str, object]] = [
    {
        "title": "Marie Curie",
        "text": [
            "Marie Curie was a physicist and chemist born in Warsaw. She studied radioactivity in "
            "Paris. She won the Nobel Prize in Physics in 1903.",
            "Curie won a second Nobel Prize, in Chemistry, in 1911. She discovered polonium and "
            "radium with Pierre Curie. She died in 1934 in Passy.",
        ],
    },
    {
        "title": "Pierre Curie",
        "text": "Pierre Curie was a French physicist. He studied crystals and magnetism. He shared "
        "the Nobel Prize in Physics in 1903 with Marie Curie and Henri Becquerel.",
    },
    {
        "title": "Dick Hanley",
        "text": "Dick Hanley was an American football coach. He coached at Northwestern University.",
    },
    {
        "title": "Dick Hanley (swimmer)",
        "text": "Dick Hanley was an American swimmer. He won a gold medal in the relay at the 1956 "
        "Olympic Games in Melbourne.",
    },
    {
        "title": "Volcano",
        "text": "A volcano is a rupture in the crust of a planet. Lava, ash and gases escape from "
        "a magma chamber below the surface. Mount Etna is a volcano in Sicily.",
    },
    {
        "title": "Saturn",
        "text": "Saturn is the sixth planet from the Sun. It has a ring system made of ice. Titan "
        "is its largest moon. Saturn is a gas giant.",
    },
]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _corpus_words() -> list[str]:
    words: set[str] = set()
    for doc in CORPUS:
        text = doc["text"] if isinstance(doc["text"], str) else " ".join(doc["text"])  # type: ignore[arg-type]
        words |= set(re.findall(r"\w+|[^\w\s]", f"{doc['title']} {text}".lower()))
    return sorted(words)


@pytest.fixture(scope="session")
def corpus_jsonl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "docs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in CORPUS), encoding="utf-8")
    return path


def _tiny_tokenizer(folder: Path) -> None:
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordLevel
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(SPECIAL + _corpus_words())}
    tok = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=128,
    )
    fast.save_pretrained(folder)


def _tiny_bert(folder: Path, seed: int, model_class: str, **extra: int) -> Path:
    """A random 2-layer BERT of the given transformers class, with the word-level tokenizer."""
    import torch
    import transformers

    _tiny_tokenizer(folder)
    torch.manual_seed(seed)
    config = transformers.BertConfig(
        vocab_size=len(SPECIAL) + len(_corpus_words()),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        **extra,
    )
    getattr(transformers, model_class)(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 2-layer BERT encoder folder with a word-level tokenizer over the test corpus."""
    return _tiny_bert(tmp_path_factory.mktemp("tiny_encoder"), 0, "BertModel")


@pytest.fixture(scope="session")
def tiny_detector(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained detector folder: a random 2-layer BERT token classifier and its
    ``detector.json`` (for what needs a real encoder, not a good one: servers, concurrency)."""
    from favakit.inference.detector import CONFIG_NAME, LABELS
    from favakit.tags import ERROR_TYPES

    folder = _tiny_bert(
        tmp_path_factory.mktemp("tiny_detector"), 2, "BertForTokenClassification",
        num_labels=len(LABELS),
    )  # fmt: skip
    config = {"name": "tiny-detector", "max_length": 128, "labels": list(LABELS),
              "thresholds": dict.fromkeys(ERROR_TYPES, 0.2)}  # fmt: skip
    (folder / CONFIG_NAME).write_text(json.dumps(config))
    return folder


@pytest.fixture(scope="session")
def tiny_reranker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 2-layer BERT cross-encoder (one relevance logit)."""
    return _tiny_bert(
        tmp_path_factory.mktemp("tiny_reranker"), 1, "BertForSequenceClassification", num_labels=1
    )


class ScriptedOpenAIServer:
    """A real HTTP server on loopback speaking the OpenAI-compatible subset favakit uses.

    ``reply(prompt_or_messages) -> str`` decides each answer; ``fail_next`` makes the next N
    requests answer HTTP 500; ``delay`` slows each answer down (for concurrency tests).
    """

    def __init__(self, reply):  # type: ignore[no-untyped-def]
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.reply = reply
        self.requests: list[dict[str, object]] = []
        self.fail_next = 0
        self.fail_status = 500
        self.delay = 0.0
        self.models = ["scripted"]  # what GET /v1/models lists
        self.in_flight = 0
        self.max_in_flight = 0
        lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                if not self.path.endswith("/v1/models"):
                    self.send_error(404)
                    return
                data = json.dumps({"data": [{"id": m} for m in server.models]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                import time as _time

                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    server.requests.append({"path": self.path, **body})
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    fail = server.fail_next > 0
                    if fail:
                        server.fail_next -= 1
                left = False  # in flight until its answer is ready, not until it is sent: the
                # client may send its next request before this thread runs again

                def leave() -> None:
                    nonlocal left
                    if not left:
                        with lock:
                            server.in_flight -= 1
                        left = True

                try:
                    if server.delay:
                        _time.sleep(server.delay)
                    if fail:
                        leave()
                        self.send_response(server.fail_status)
                        self.end_headers()
                        self.wfile.write(b'{"error": "scripted failure"}')
                        return
                    chat = self.path.endswith("/chat/completions")
                    text = server.reply(body["messages"] if chat else body["prompt"])
                    choice = {"index": 0, "finish_reason": "stop"}
                    choice.update(
                        {"message": {"role": "assistant", "content": text}}
                        if chat
                        else {"text": text}
                    )
                    out = {
                        "choices": [choice],
                        "usage": {"prompt_tokens": 7, "completion_tokens": len(text.split())},
                    }
                    data = json.dumps(out).encode()
                    leave()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                finally:
                    leave()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def openai_server():  # type: ignore[no-untyped-def]
    """Factory: ``openai_server(reply_fn)`` starts a scripted server, stopped after the test."""
    servers: list[ScriptedOpenAIServer] = []

    def start(reply):  # type: ignore[no-untyped-def]
        server = ScriptedOpenAIServer(reply)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 2-layer Llama causal LM folder with a word-level tokenizer and a chat template."""
    import torch
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordLevel
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("tiny_llama")
    specials = ["<pad>", "<unk>", "<s>", "</s>"]
    words = [
        *_corpus_words(),
        "user",
        "assistant",
        "system",
        ":",
        "<entity>",
        "</entity>",
        "<mark>",
        "</mark>",
        "<delete>",
        "</delete>",
    ]
    vocab = {w: i for i, w in enumerate(specials + sorted(set(words)))}
    tok = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="<unk>",
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        model_max_length=512,
    )
    fast.chat_template = (
        "{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} {% endfor %}"
        "{% if add_generation_prompt %}assistant : {% endif %}"
    )
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=512,
        pad_token_id=0,
        bos_token_id=2,
        eos_token_id=3,
        tie_word_embeddings=True,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    return folder


EDIT_FACTS = [
    ("marie curie won the nobel prize in physics in 1903 .", "1903", "1911"),
    ("saturn is the sixth planet from the sun .", "sixth", "second"),
    ("lava , ash and gases escape from a magma chamber .", "lava", "ice"),
    ("pierre curie studied crystals and magnetism .", "crystals", "lava"),
    ("titan is its largest moon .", "largest", "ice"),
    ("mount etna is a volcano in sicily .", "sicily", "warsaw"),
]


@pytest.fixture(scope="session")
def edit_facts() -> list[tuple[str, str, str]]:
    """(correct text, right word, wrong word) of the planted errors in ``rows_file``."""
    return list(EDIT_FACTS)


@pytest.fixture(scope="session")
def rows_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Editor training rows {prompt, completion} in the words of the tiny Llama's vocabulary."""
    from favakit.prompts import build_prompt
    from favakit.tags import Edit, Tagged

    path = tmp_path_factory.mktemp("train") / "rows.jsonl"
    with path.open("w") as fh:
        for i in range(40):
            text, right, wrong = EDIT_FACTS[i % len(EDIT_FACTS)]
            a, b = text.split(right, 1)
            tagged = Tagged([a, Edit("entity", wrong, right), b])
            prompt = build_prompt(tagged.original(), [text], template="fava")
            fh.write(json.dumps({"prompt": prompt, "completion": tagged.render()}) + "\n")
    return path


@pytest.fixture(scope="session")
def tiny_adapter(
    tiny_llama: Path, rows_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A LoRA adapter trained by `favakit train --config tiny_cpu` (a few steps)."""
    from favakit.training.config import load_train_config
    from favakit.training.recipe import train

    out = tmp_path_factory.mktemp("tiny_adapter") / "run"
    cfg = load_train_config(
        "tiny_cpu",
        [f"model={tiny_llama}", f"data.train_file={rows_file}", f"output_dir={out}", "max_steps=6"],
    )
    return Path(train(cfg)["output"])


@pytest.fixture(scope="session")
def free_port():  # type: ignore[no-untyped-def]
    """A function giving a free TCP port on loopback (for servers and torchrun)."""
    import socket

    def pick() -> int:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return int(sock.getsockname()[1])

    return pick


@pytest.fixture(scope="session")
def ray_cluster():  # type: ignore[no-untyped-def]
    """A real local Ray cluster with 2 CPUs, started once for the session (favakit's ``--ray``
    joins it, since Ray is already initialised in this process)."""
    ray = pytest.importorskip("ray")  # favakit[ray] is part of `make setup`; never absent in CI
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
