"""Molecular facts and D-FActScore on hand-built cases (scripted LLMs, a real KB)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from favakit.eval.successors import Decontextualizer, FactGrouper, link_groups, parse_groups
from favakit.inference.judges import Judge
from favakit.llm import FunctionClient, GenerationParams


def test_parse_groups_covers_every_fact_once() -> None:
    assert parse_groups("Group 1: 1, 2, 4\nGroup 2: 3, 5", 5) == [[0, 1, 3], [2, 4]]
    assert parse_groups("1, 2\n2, 3\n9", 4) == [[0, 1, 3], [2]]  # 2 stays first; 4 joins group 1
    assert parse_groups("no numbers", 2) == [[0, 1]]
    assert parse_groups("Group 1: 2", 3) == [[0, 1, 2]]


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    from favakit.retrieval.kb import build_kb

    src = tmp_path / "docs.jsonl"
    src.write_text(
        json.dumps({"title": "Dick Hanley", "text": "Dick Hanley was an American football coach."}) + "\n"
        + json.dumps({"title": "Dick Hanley (swimmer)", "text": "Dick Hanley was an American swimmer. He won gold in 1956."}) + "\n"
        + json.dumps({"title": "Other", "text": "Nothing here."}) + "\n"
    )  # fmt: skip
    build_kb(src, tmp_path / "kb.db", max_tokens=32)
    return tmp_path / "kb.db"


def _reply(prompt: str) -> str:
    """One scripted LLM for every step: grouping, ambiguity, rewriting, judging."""
    if prompt.rstrip().endswith("Groups:"):
        return "Group 1: 1\nGroup 2: 2, 3\n"
    if "be more than one real-world entity" in prompt:
        return " Yes" if "He " in prompt.split("Fact: ")[1].split("\n")[0] else " No"
    if prompt.rstrip().endswith("Rewritten fact:"):
        return " Dick Hanley, the swimmer, won gold in 1956."
    passages, _, question = prompt.rpartition("Input: ")
    key = question.split(" True or False?")[0].rstrip(".").split()[-1]
    return " True" if key in passages else " False"


def test_link_groups_picks_the_article_that_supports_each_group(kb: Path) -> None:
    from favakit.retrieval.evidence import TopicRetriever
    from favakit.retrieval.kb import KnowledgeSource

    facts = [
        "Dick Hanley was a football coach.",
        "Dick Hanley was a swimmer.",
        "He won gold in 1956.",
    ]
    judge = Judge(FunctionClient(lambda p, _: _reply(p)))
    retriever = TopicRetriever(str(kb), k=3)
    names = KnowledgeSource(str(kb)).titles_with_base("Dick Hanley")
    assert names == ["Dick Hanley", "Dick Hanley (swimmer)"]
    groups = FactGrouper(FunctionClient(lambda p, _: _reply(p))).groups("Dick Hanley", facts)
    assert groups == [[0], [1, 2]]
    decisions = link_groups("Dick Hanley", facts, groups, names, retriever.retrieve, judge)
    assert [(d["article"], d["is_supported"]) for d in decisions] == [
        ("Dick Hanley", True),
        ("Dick Hanley (swimmer)", True),
        ("Dick Hanley (swimmer)", True),
    ]


def test_molecular_facts_rewrite_only_ambiguous_subjects() -> None:
    calls: list[GenerationParams] = []

    def llm(prompt: str, params: GenerationParams) -> str:
        calls.append(params)
        return _reply(prompt)

    facts = ["Dick Hanley was a swimmer.", "He won gold in 1956."]
    out = Decontextualizer(FunctionClient(llm)).molecular("Dick Hanley", "A bio.", facts)
    assert out == ["Dick Hanley was a swimmer.", "Dick Hanley, the swimmer, won gold in 1956."]
    assert len(calls) == 3  # two ambiguity questions, one rewrite


def test_cli_d_factscore_and_molecular(kb: Path, tmp_path: Path, openai_server: Any) -> None:
    server = openai_server(_reply)
    inp = tmp_path / "in.jsonl"
    facts = [
        "Dick Hanley was a football coach.",
        "Dick Hanley was a swimmer.",
        "He won gold in 1956.",
    ]
    inp.write_text(
        json.dumps({"topic": "Dick Hanley", "output": "A merged bio.", "atomic_facts": facts})
        + "\n"
    )
    out = tmp_path / "d.json"
    base = [sys.executable, "-m", "favakit", "eval", "factscore", "--input", str(inp), "--kb", str(kb),
            "--use-atomic-facts", "--llm-endpoint", server.url, "--model", "m", "--gamma", "0"]  # fmt: skip
    run = subprocess.run(
        [*base, "--method", "d-factscore", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(out.read_text())
    # FActScore judges everything against "Dick Hanley" (the coach): only fact 1 holds there
    assert result["score"] == pytest.approx(1 / 3)
    # D-FActScore links facts 2-3 to the swimmer's article: all hold
    assert result["d_factscore"] == 1.0
    assert [d["article"] for d in result["d_decisions"][0]] == [
        "Dick Hanley", "Dick Hanley (swimmer)", "Dick Hanley (swimmer)"
    ]  # fmt: skip
    mol = subprocess.run([*base, "--decontextualize", "molecular", "--out", str(tmp_path / "m.json")],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert mol.returncode == 0, mol.stderr
    atoms = [d["atom"] for d in json.loads((tmp_path / "m.json").read_text())["decisions"][0]]
    assert atoms[2] == "Dick Hanley, the swimmer, won gold in 1956." and atoms[0] == facts[0]
