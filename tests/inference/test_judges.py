"""The judges: how an LM's answer becomes a verdict, prompt styles, thresholds, evidence in
pieces (by word count, or to fit the model's context)."""

from __future__ import annotations

import math

import pytest

from favakit.inference.judges import Check, Judge, decide, evidence_chunks
from favakit.llm import Completion, FunctionClient, GenerationParams


class _ScoredJudge(FunctionClient):
    """A scripted judge with first-token log-probabilities: P(True) is 0.9 when the fact's last
    word is in the passages shown, else 0.3."""

    def _complete_one(self, prompt: str, params: GenerationParams) -> Completion:
        passages, _, question = prompt.rpartition("Input: ")
        key = question.split(" True or False?")[0].rstrip(".").split()[-1]
        p = 0.9 if key in passages else 0.3
        self.prompts.append(prompt)
        return Completion(
            "True", "stop", logprobs=[{"True": math.log(p), "False": math.log(1 - p)}]
        )


class _SmallContextJudge(_ScoredJudge):
    """:class:`_ScoredJudge` with a 200-token context, one token a word (as a word-level
    tokenizer counts), and a record of what it was asked to count."""

    def context_tokens(self) -> int | None:
        return 200

    def count_tokens(self, endpoint: str, payload: object) -> int | None:
        self.counted.append(payload)
        return len(str(payload).split())


def test_decide_by_logprobs_then_by_parsing() -> None:
    by_lp = Completion("False", logprobs=[{" True": -0.2, " False": -1.9, "The": -3.0}])
    assert decide(by_lp) == (True, "logprobs")  # the probabilities outvote the text
    assert decide(Completion("x", logprobs=[{"false": -0.1}])) == (False, "logprobs")
    assert decide(Completion("", logprobs=[{"<eos>": -0.1, " Yes": -2.0, " no": -2.5}])) == (
        True,
        "logprobs",
    )
    assert decide(Completion(" True. The passage says so.")) == (True, "parsed")
    assert decide(Completion("The claim is not supported.")) == (False, "parsed")
    assert decide(Completion("Hmm.")) == (False, "default")


def test_judge_threshold_and_evidence_in_pieces() -> None:
    from favakit.errors import UsageError

    client = _ScoredJudge(lambda p, _: "")
    client.prompts = []
    filler = " ".join(f"word{i}" for i in range(300)) + "."
    passages = [{"title": "A", "text": filler}, {"title": "B", "text": "Ada was born in 1815."}]
    facts = [Check("Ada", "Ada was born in 1815.", passages), Check("Ada", "Ada was born in 1820.", passages)]  # fmt: skip
    assert Judge(client).judge_scored(facts) == [(True, pytest.approx(0.9)), (False, pytest.approx(0.3))]  # fmt: skip
    assert len(client.prompts) == 2  # whole evidence: one question per fact
    # the threshold moves the decision, not the score
    assert Judge(client, threshold=0.95).judge(facts) == [False, False]
    assert Judge(client, threshold=0.2).judge(facts) == [True, True]
    # in pieces of about 100 words: the year is in one piece only, and the best piece decides
    client.prompts = []
    scored = Judge(client, chunk_words=100).judge_scored(facts)
    assert scored == [(True, pytest.approx(0.9)), (False, pytest.approx(0.3))]
    assert len(client.prompts) == 2 * 2 and sum("1815" in p.split("Input: ")[0] for p in client.prompts) == 2  # fmt: skip
    # evidence of at most chunk_above words stays whole (the verifier's default: 2,000)
    client.prompts = []
    assert Judge(client, chunk_words=100, chunk_above=400).judge(facts) == [True, False]
    assert len(client.prompts) == 2
    client.prompts = []
    assert Judge(client, chunk_words=100, chunk_above=300).judge(facts) == [True, False]
    assert len(client.prompts) == 4
    with pytest.raises(UsageError, match="--threshold"):
        Judge(client, threshold=1.0)
    with pytest.raises(UsageError, match="--chunk-words"):
        Judge(client, chunk_words=-1)


def test_judge_prompt_styles() -> None:
    from favakit.errors import UsageError

    client = _ScoredJudge(lambda p, _: "")
    client.prompts = []
    passages = [{"title": "Ada", "text": "Ada was born in 1815."}]
    fact = Check("Ada Lovelace", "Ada was born in 1820.", passages)
    Judge(client).judge([fact])
    Judge(client, style="strict").judge([fact])
    factscore, strict = client.prompts
    assert factscore == Judge.prompt(fact) and factscore.endswith("True or False?\nAnswer:")
    assert strict != factscore and "every part of it" in strict and "about Ada Lovelace" in strict
    assert "Claim: Ada was born in 1820." in strict and "Text: Ada was born in 1815." in strict
    with pytest.raises(UsageError, match="--prompt-style"):
        Judge(client, style="loose")


def test_prompt_style_names_match() -> None:
    from favakit.inference.judges import JUDGE_STYLES
    from favakit.inference.options import PROMPT_STYLES

    assert tuple(JUDGE_STYLES) == PROMPT_STYLES


def test_judge_fits_evidence_longer_than_the_context_into_pieces() -> None:
    from favakit.errors import UsageError

    client = _SmallContextJudge(lambda p, _: "")
    client.prompts, client.counted = [], []
    sentences = " ".join(f"Ada wrote note number {i} in the year {1800 + i}." for i in range(40))
    run_on = " ".join(f"w{i}" for i in range(250))  # one 250-word sentence: no sentence end
    passages = [
        {"title": "Notes", "text": sentences},
        {"title": "Run", "text": run_on},
        {"title": "B", "text": "Ada was born in 1815."},
    ]
    short = Check("Ada", "Ada was born in 1815.", passages[2:])
    facts = [Check("Ada", "Ada was born in 1815.", passages), Check("Ada", "Ada was born in 1899.", passages), short]  # fmt: skip
    judge = Judge(client)
    got = judge.judge_detailed(facts)
    assert [(ok, round(p or 0, 2)) for ok, p, _ in got] == [(True, 0.9), (False, 0.3), (True, 0.9)]
    n_long = len(client.prompts) - 1
    assert n_long % 2 == 0 and n_long // 2 >= 3  # the same pieces for both long facts
    assert (
        got[0][2]
        == [
            f"evidence longer than the judge's context (200 tokens): judged in {n_long // 2} pieces, "
            "scored by the best"
        ]
        and got[1][2] == got[0][2]
        and got[2][2] == []
    )
    # every prompt asked fits the context, less the answer's tokens
    assert max(len(p.split()) for p in client.prompts) <= 200 - judge.max_tokens
    # nothing lost, nothing repeated: the pieces of one fact hold all the evidence words once
    pieces = client.prompts[: n_long // 2]
    shown = [w for p in pieces for w in p.split("Input: ")[0].split() if w.startswith(("w", "18"))]
    expected = [w for p in passages for w in p["text"].split() if w.startswith(("w", "18"))]
    assert sorted(shown) == sorted(expected)
    # a prompt whose bytes fit is never sent to be counted
    assert Judge.prompt(short) not in client.counted and Judge.prompt(facts[0]) in client.counted
    assert judge.how["fitted to context"] == 2
    with pytest.raises(UsageError, match="too long for the judge"):
        Judge(client).judge([Check("Ada", "Ada " * 300, passages)])


def test_evidence_chunks_cut_sentences_only_when_asked() -> None:
    run_on = [{"title": "R", "text": " ".join(f"w{i}" for i in range(250))}]
    assert [len(c[0]["text"].split()) for c in evidence_chunks(run_on, 100)] == [250]
    cut = evidence_chunks(run_on, 100, cut=True)
    assert [len(c[0]["text"].split()) for c in cut] == [100, 100, 50]
    assert " ".join(c[0]["text"] for c in cut) == run_on[0]["text"]
