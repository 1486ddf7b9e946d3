"""Copy-guarded decoding: the grammar, the allowed tokens of a real byte-level BPE tokenizer, and
an editor whose model would rather stop at once (a real tiny Llama)."""

from __future__ import annotations

from typing import Any

import pytest

from favakit.inference.copy_guard import CopyGuard, State, advance, token_bytes
from favakit.tags import strip

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

SOURCE = "Marie Curie won the Nobel Prize in 1903. She was born in Warsaw."


def test_the_grammar_copies_the_input_and_frees_corrections() -> None:
    src = b"a<b is 1903."
    ok = advance(State(), src, b"a<b is <entity><mark>1911</mark><delete>1903</delete></entity>.")
    assert ok == State(pos=len(src))
    # inside <mark> anything goes but '<', which can only close it
    assert advance(State(), src, b"a<b is <entity><mark>x > y </ma") == State(
        7, b"entity", b"mark", b"</ma"
    )
    assert advance(State(), src, b"a<b is <entity><mark>x < y") is None
    assert advance(State(), src, b"a<b is 1904") is None  # changes the input outside a tag
    assert advance(State(), src, b"a<b is <wrong>") is None  # not one of favakit's tags
    assert advance(State(), src, b"a<b is 1903.!") is None  # runs past the input
    partial = advance(State(), src, b"a<b is <entity><del")
    assert partial == State(pos=7, kind=b"entity", pending=b"<del", empty=True)
    # tags must nest: no part outside a type, no closing what is not open
    assert advance(State(), src, b"a<b is <mark>") is None
    assert advance(State(), src, b"a<b is <entity>1903</relation>") is None
    assert advance(State(), src, b"a<b is <entity><delete>1903</entity>") is None
    # and hold something: an empty tag or part is never closed (no endless <entity></entity>)
    assert advance(State(), src, b"a<b is <entity></entity>") is None
    assert advance(State(), src, b"a<b is <entity><mark></mark>") is None
    assert advance(State(), src, b"a<b is <entity><mark>1911</mark></entity>") is not None
    # nothing left to delete at the end of the input: no <delete> to get stuck in
    assert advance(State(), src, b"a<b is 1903.<invented><mark>!</mark></invented>") is not None
    assert advance(State(), src, b"a<b is 1903.<invented><d") is None


@pytest.fixture(scope="module")
def byte_bpe() -> Any:
    """A real byte-level BPE tokenizer (the kind SmolLM2 and Llama 3 use), trained here."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = [SOURCE, "Read the text. [Edited] <entity><mark>x</mark><delete>y</delete></entity>"]
    corpus += ["Ärger über Ümlaute, naïve café — 東京 🙂"] * 3
    trainer = trainers.BpeTrainer(
        vocab_size=420,
        special_tokens=["<eos>", "<pad>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(corpus * 20, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<eos>", pad_token="<pad>")


def test_token_bytes_agree_with_the_tokenizer(byte_bpe: Any) -> None:
    pieces = token_bytes(byte_bpe)
    assert pieces is not None
    assert pieces[byte_bpe.eos_token_id] is None  # special tokens stand for no text
    text = "Ärger über 東京 🙂 in 1903."
    ids = byte_bpe(text, add_special_tokens=False)["input_ids"]
    assert b"".join(pieces[i] or b"" for i in ids).decode() == text


def test_allowed_tokens_follow_the_input(byte_bpe: Any) -> None:
    guard = CopyGuard.for_tokenizer(byte_bpe)
    assert guard is not None
    src = SOURCE.encode()
    start = guard.only(State(), src)
    assert guard.eos_id not in start  # no stopping before the text is copied
    assert all(advance(State(), src, guard.pieces[i] or b"") is not None for i in start)
    assert byte_bpe.convert_tokens_to_ids("<") in start  # a tag may open anywhere
    assert any(src.startswith(guard.pieces[i] or b"-") for i in start)
    end = guard.only(State(pos=len(src)), src)
    assert guard.eos_id in end
    banned = guard.banned_in_mark(State(pos=3, kind=b"entity", part=b"mark", empty=True), src)
    assert len(banned) < len(guard.plain) // 2  # corrections are free text
    assert guard.eos_id in banned  # an open <mark> must close first


def _random_llama(byte_bpe: Any, seed: int, width: int = 16, layers: int = 1) -> Any:
    """A real Llama (1 layer, 16 wide, unless told) with random weights over the byte-level
    vocabulary."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(byte_bpe),
        hidden_size=width,
        intermediate_size=2 * width,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=512,
        pad_token_id=byte_bpe.pad_token_id,
        eos_token_id=byte_bpe.eos_token_id,
    )
    return LlamaForCausalLM(config).eval()


def _stubborn_model(byte_bpe: Any) -> Any:
    """A real tiny Llama whose output layer prefers EOS above everything, then the
    longest tokens, and never opens a tag: left alone it stops at once, which drops the whole
    text."""
    model = _random_llama(byte_bpe, seed=0)
    head = torch.nn.Linear(16, len(byte_bpe), bias=True)
    with torch.no_grad():
        head.weight.zero_()
        pieces = token_bytes(byte_bpe) or []
        head.bias.copy_(torch.tensor([len(p or b"") for p in pieces], dtype=torch.float))
        head.bias[[i for i, p in enumerate(pieces) if p and b"<" in p]] = -100.0  # no tags
        head.bias[byte_bpe.eos_token_id] = 1000.0
    model.lm_head = head
    return model


def test_the_editor_under_the_guard_reproduces_the_text(byte_bpe: Any) -> None:
    from favakit.inference.editor import EditorSettings, GenerativeEditor
    from favakit.inference.generators import GeneratorClient, HFGenerator

    client = GeneratorClient(HFGenerator(_stubborn_model(byte_bpe), byte_bpe, "stubborn"))
    evidence = [{"title": "Marie Curie", "text": "Marie Curie won the Nobel Prize in 1903."}]
    requests = [
        {"text": SOURCE, "evidence": evidence},
        {"text": "Ärger über 東京 🙂 in 1903.", "evidence": evidence},
    ]
    guarded = GenerativeEditor(client, settings=EditorSettings(max_new_tokens=200)).edit_many(
        requests
    )
    for request, result in zip(requests, guarded, strict=True):
        assert result["faithful"], result["mismatches"]
        assert result["corrected"] == request["text"]
        assert "output_cut_at_token_limit" not in result["repairs"]
    free = GenerativeEditor(client, settings=EditorSettings(max_new_tokens=200, copy_guard=False))
    result = free.edit(requests[0])
    assert not result["faithful"]  # the same model unguarded drops the text


def test_a_guarded_output_stays_on_the_grammar(byte_bpe: Any) -> None:
    """Even a random model that opens tags stays on the grammar: whatever it writes, the text
    outside its corrections is the input, in order."""
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams

    gen = HFGenerator(_random_llama(byte_bpe, seed=1), byte_bpe, "random")
    sources = (SOURCE, "Warsaw.")
    out = gen.generate(
        ["Text: a", "Edit this one"], GenerationParams(max_tokens=40, copy_sources=sources)
    )
    for source, got in zip(sources, out, strict=True):
        state = advance(State(), source.encode(), got.text.encode())
        assert state is not None, got.text
        if got.finish_reason == "stop":
            assert strip(got.text, keep_bare=True).endswith(source[-3:])


def test_the_server_batches_guarded_prompts_each_with_its_own_text(byte_bpe: Any) -> None:
    from favakit.inference.batching import BatchedClient
    from favakit.inference.editor import EditorSettings, GenerativeEditor
    from favakit.inference.generators import HFGenerator

    client = BatchedClient(
        HFGenerator(_stubborn_model(byte_bpe), byte_bpe, "stubborn"), max_batch=4
    )
    try:
        editor = GenerativeEditor(client, settings=EditorSettings(max_new_tokens=200))
        texts = ["Marie Curie was born in Warsaw.", "Pierre Curie was born in Paris."]  # one budget
        results = editor.edit_many([{"text": t, "evidence": ["Warsaw."]} for t in texts])
        assert [r["corrected"] for r in results] == texts
        assert [(r["faithful"], r["mismatches"], r["repairs"]) for r in results] == [
            (True, [], [])
        ] * 2
        assert client.batcher.largest_batch == 2  # one generate() for both, each guarded
    finally:
        client.close()


def test_the_tokens_a_real_model_writes_count_toward_the_editors_part(byte_bpe: Any) -> None:
    """`favakit edit` on one long text showed nothing for minutes; the editor's part counts the
    steps the model takes (a transformers streamer): one per token of its longest output, and
    the step that ends it."""
    import io

    from favakit.inference.editor import EditorSettings, GenerativeEditor
    from favakit.inference.generators import GeneratorClient, HFGenerator
    from favakit.progress import showing_work

    client = GeneratorClient(HFGenerator(_stubborn_model(byte_bpe), byte_bpe, "stubborn"))
    editor = GenerativeEditor(client, settings=EditorSettings(max_new_tokens=200))
    evidence = [{"title": "Marie Curie", "text": "Marie Curie won the Nobel Prize in 1903."}]
    out = io.StringIO()
    with showing_work("favakit edit", out=out, after_s=0):
        [result] = editor.edit_many([{"text": SOURCE, "evidence": evidence}])
    assert result["corrected"] == SOURCE  # the guard makes the model copy the text
    tokens = result["usage"]["completion_tokens"] + 1  # the end of text is a step of its own
    [line] = out.getvalue().splitlines()
    assert line.startswith(f"favakit edit: editing 1 window with stubborn: {tokens} tokens, ")
    quiet = io.StringIO()
    with showing_work("favakit edit", out=quiet, after_s=3600):  # a part shorter: nothing
        editor.edit_many([{"text": SOURCE, "evidence": evidence}])
    assert quiet.getvalue() == ""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    # where the editor counts the model's tokens (in-process), the part expects the window's
    # tokens and a tenth more for the tags: "N of about M tokens", with a time left
    count = lambda text: len(byte_bpe(text)["input_ids"])  # noqa: E731
    counting = GenerativeEditor(client, settings=EditorSettings(max_new_tokens=200),
                                count_tokens=count)  # fmt: skip
    screen = Terminal()
    with showing_work("favakit edit", out=screen, after_s=0):
        counting.edit_many([{"text": SOURCE, "evidence": evidence}])
    expected = round(count(SOURCE) * 1.1)
    assert f": 1 of about {expected} tokens, " in screen.getvalue()
    last = screen.getvalue().rsplit("\r\x1b[2K", 1)[1]  # the line as the part ends
    assert last.startswith(f"favakit edit: editing 1 window with stubborn: {tokens} tokens, ")


def _passes(model: Any) -> list[int]:
    """A count of the model's forward passes, kept up to date by a hook."""
    calls = [0]
    model.register_forward_pre_hook(lambda *_: calls.__setitem__(0, calls[0] + 1))
    return calls


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_copy_drafting_writes_what_batched_decoding_writes(
    byte_bpe: Any, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A guarded greedy output written a prompt at a time with drafts of its input is the one
    batched decoding writes, token for token, whatever the model: a random one opens tags, marks
    and corrections, so most drafts are cut short and their keys and values dropped."""
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams

    gen = HFGenerator(_random_llama(byte_bpe, seed), byte_bpe, "random")
    monkeypatch.setattr(byte_bpe, "padding_side", "left")  # as favakit loads a model
    sources = (SOURCE, "Ärger über 東京 🙂 in 1903.", "Warsaw.")
    params = GenerationParams(max_tokens=60, copy_sources=sources)
    prompts = ["Text: a", "Edit this one, please", "Read the text."]
    assert gen.copy_drafts(params)
    drafted = gen.generate(prompts, params)
    gen.copy_draft_tokens = 0
    assert not gen.copy_drafts(params)
    batched = gen.generate(prompts, params)
    assert [(o.text, o.completion_tokens, o.finish_reason) for o in drafted] == [
        (o.text, o.completion_tokens, o.finish_reason) for o in batched
    ]
    assert any("<" in o.text for o in drafted)  # the model did leave the copy


def test_a_model_that_copies_writes_several_tokens_a_pass(byte_bpe: Any) -> None:
    """Where the model copies its input, each pass keeps most of its draft: the output comes
    in a fraction of the passes batched decoding takes (one a token), the same output."""
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams

    model = _stubborn_model(byte_bpe)
    passes = _passes(model)
    gen = HFGenerator(model, byte_bpe, "stubborn")
    params = GenerationParams(max_tokens=200, copy_sources=(SOURCE,))
    [drafted] = gen.generate(["Read the text."], params)
    drafted_passes, passes[0] = passes[0], 0
    gen.copy_draft_tokens = 0
    [batched] = gen.generate(["Read the text."], params)
    assert drafted.text == batched.text == SOURCE
    assert drafted.finish_reason == "stop"
    tokens = drafted.completion_tokens + 1  # and the end of text
    assert passes[0] == tokens  # the prompt's pass writes the first token, one a token after
    assert drafted_passes <= tokens // 3, (drafted_passes, tokens)


TAGGED = (
    "Marie Curie won the Nobel Prize in <entity><mark>1911</mark><delete>1903</delete></entity>. "
    "<unverifiable><delete>She was born in Warsaw.</delete></unverifiable>"
)


def _memorized_llama(byte_bpe: Any, prompt: str, output: str) -> Any:
    """A real 2-layer Llama trained here until it writes ``output`` after ``prompt`` (about
    130 steps, 2 s): an editor that tags two errors of :data:`SOURCE` in favakit's grammar."""
    model = _random_llama(byte_bpe, seed=0, width=64, layers=2).train()
    start = byte_bpe(prompt, add_special_tokens=False)["input_ids"]
    rest = byte_bpe(output, add_special_tokens=False)["input_ids"] + [byte_bpe.eos_token_id]
    ids = torch.tensor([start + rest])
    labels = ids.clone()
    labels[0, : len(start)] = -100
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(400):
        loss = model(input_ids=ids, labels=labels).loss
        if loss.item() < 0.01:
            break
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval()


def test_tags_are_drafted_in_their_usual_order(
    byte_bpe: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor that tags errors writes its tags in a few passes: the rest of a tag begun, a
    correction's ``<delete>`` after its ``</mark>``, the closing tags and the deleted input are
    drafted, not only the input between edits; the output is batched decoding's."""
    from favakit.inference.copy_draft import copy_drafted, source_tokens
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams

    prompt = "Read the text."
    model = _memorized_llama(byte_bpe, prompt, TAGGED)
    passes = _passes(model)
    gen = HFGenerator(model, byte_bpe, "tagger")
    monkeypatch.setattr(byte_bpe, "padding_side", "left")  # as favakit loads a model
    params = GenerationParams(max_tokens=100, copy_sources=(SOURCE,))
    [drafted] = gen.generate([prompt], params)
    drafted_passes, passes[0] = passes[0], 0
    gen.copy_draft_tokens = 0
    [batched] = gen.generate([prompt], params)
    assert drafted.text == batched.text == TAGGED
    assert passes[0] == batched.completion_tokens + 1  # a pass a token, and the end of text
    # the input alone drafted (no tokenizer for the rest): the tags cost a pass a token
    guard = gen.copy_guard()
    passes[0] = 0
    ids = byte_bpe(prompt, add_special_tokens=False)["input_ids"]
    alone = copy_drafted(model, guard, ids, source_tokens(byte_bpe, guard, SOURCE),
                         SOURCE.encode(), 100)  # fmt: skip
    assert byte_bpe.decode(alone[:-1]) == TAGGED
    assert drafted_passes * 3 <= passes[0], (drafted_passes, passes[0])


def test_drafting_is_left_to_greedy_guarded_outputs(byte_bpe: Any) -> None:
    """Drafting is for guarded greedy outputs, calls of any size on a CPU (of no more than
    ``drafted_prompts`` where that is set, as on a GPU); a sampled output, log-probabilities and
    a model whose scores generate() changes decode as before."""
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams

    gen = HFGenerator(_random_llama(byte_bpe, 1), byte_bpe, "random")
    assert gen.copy_drafts(GenerationParams(copy_sources=("a",)))
    assert gen.drafted_prompts is None  # a model on the CPU
    assert gen.copy_drafts(None, 50)
    gen.drafted_prompts = 4  # what a model on a GPU gets
    assert gen.copy_drafts(None, 4)
    assert not gen.copy_drafts(None, 5)  # there many prompts of one call go in batches
    assert not gen.copy_drafts(GenerationParams(temperature=0.7, copy_sources=("a",)))
    assert not gen.copy_drafts(GenerationParams(logprobs=2, copy_sources=("a",)))
    gen.model.generation_config.repetition_penalty = 1.3  # scores changed: generate() decides
    assert not gen.copy_drafts(GenerationParams(copy_sources=("a",)))


def test_after_a_less_than_sign_in_a_correction_only_its_closing_tag_goes_on(byte_bpe: Any) -> None:
    """A correction holds no '<': once one is written in a ``<mark>``, the guard allows only
    what goes on to "</mark>" (it let any text through, and the output left the grammar)."""
    guard = CopyGuard.for_tokenizer(byte_bpe)
    assert guard is not None
    src = SOURCE.encode()
    state = advance(State(), src, b"<entity><mark>x <")
    assert state is not None and state.in_mark and state.pending == b"<"
    scores = torch.zeros(len(byte_bpe))
    scores[byte_bpe.convert_tokens_to_ids("a")] = 5.0  # the model would rather write text
    choice = guard.choose(state, src, scores)
    assert advance(state, src, guard.pieces[choice] or b"") is not None
    processor = guard.processor([SOURCE], width=0)
    written = byte_bpe("<entity><mark>x <", add_special_tokens=False)["input_ids"]
    masked = processor(torch.tensor([written]), scores.clone()[None])[0]
    allowed = [i for i in range(len(byte_bpe)) if masked[i] > float("-inf")]
    assert allowed and all(advance(state, src, guard.pieces[i] or b"") for i in allowed)


def test_what_a_draft_expects_next() -> None:
    """The text drafted where the output does not stand at one of the input's tokens: the rest
    of a tag begun and the tags' usual order, then the input; nothing where an error type is to
    be chosen or a correction is under way."""
    from favakit.inference.copy_draft import _likely

    src = b"She won in 1903. Born in Warsaw."

    def after(written: bytes) -> State:
        state = advance(State(), src, written)
        assert state is not None, written
        return state

    def likely(written: bytes, closed: bytes = b"") -> bytes:
        return _likely(after(written), src, closed, width=8)

    assert likely(b"She won in <") == b""  # which error type: not known
    assert likely(b"She won in <ent") == b"ity><mark>1903. Bo"  # a correction often starts so
    assert likely(b"She won in <invented>") == b"<delete>1903. Bo"  # a sentence type: deleted
    assert likely(b"She won in <entity><mark>1911") == b""  # where a correction ends: unknown
    assert likely(b"She won in <entity><mark>1911</") == b"mark><delete>1903. Bo"
    assert likely(b"She won in <entity><mark>1911</mark>", closed=b"mark") == b"<delete>1903. Bo"
    assert likely(b"She won in <entity><mark>1911</mark><delete>1903</", b"mark") == (
        b"delete></entity>. Born i"
    )
    assert likely(b"She won in <entity><delete>1903</delete>", closed=b"delete") == (
        b"</entity>. Born i"
    )
    assert likely(b"She wo") == b"n in 190"  # the input, from the middle of a word
