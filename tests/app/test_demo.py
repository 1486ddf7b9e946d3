"""`favakit demo` end to end on the tiny model (the real run uses the shipped editor)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from favakit.demo import demo_texts, run_demo
from favakit.tags import ERROR_TYPES, parse


def test_demo_texts_plant_every_error_type_and_one_correct_text() -> None:
    rows = demo_texts()
    planted = [e.type for r in rows for e in parse(r["planted"]).edits]
    assert set(planted) == set(ERROR_TYPES)
    assert any(not parse(r["planted"]).edits for r in rows)
    assert all(r["text"] == parse(r["planted"]).original() for r in rows)


@pytest.mark.slow
def test_demo_runs_end_to_end(tiny_adapter: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    figures = run_demo(tmp_path / "demo", adapter=str(tiny_adapter), limit=2, out=out)
    printed = out.getvalue()
    assert "FActScore before" in printed and "planted:" in printed
    assert "Error" not in printed  # nothing failed, so nothing says so
    assert (tmp_path / "demo" / "edits.html").read_text().lower().startswith("<!doctype html>")
    results = [json.loads(x) for x in (tmp_path / "demo" / "edits.jsonl").read_text().splitlines()]
    assert len(results) == 2 and all(r["evidence"] for r in results)  # evidence from the demo KB
    assert json.loads((tmp_path / "demo" / "demo.json").read_text()) == figures
    assert 0 <= figures["factscore_before"] <= 1 and figures["texts"] == 2


def test_a_second_demo_run_rebuilds_its_knowledge_source_and_index(tmp_path: Path) -> None:
    """`make demo` twice: the second run used to stop at the first run's finished index."""
    from favakit.demo import build_demo_knowledge
    from favakit.retrieval.search import Searcher

    first = build_demo_knowledge(tmp_path)
    stamp = (first[1] / "meta.json").stat().st_mtime_ns
    second = build_demo_knowledge(tmp_path)
    assert second == first and second[2:] == (30, 30)
    assert (second[1] / "meta.json").stat().st_mtime_ns >= stamp
    (hits,) = Searcher([second[1]], kb=second[0]).search_many(["Eiffel Tower"], k=1)
    assert hits and "Eiffel" in hits[0].title


def test_the_encoder_demo_refuses_a_generative_model_it_would_ignore(tmp_path: Path) -> None:
    """`--backend encoder` with `--adapter` used to run the shipped detector and ignore it."""
    from favakit.errors import UsageError

    with pytest.raises(UsageError, match="--backend encoder runs the encoder detector"):
        run_demo(tmp_path / "demo", backend="encoder", adapter="some/adapter")
    assert not (tmp_path / "demo").exists()  # refused before anything was written
    # the other way round: refused only after the knowledge source and index were built, and
    # named the cascade editor, which the demo does not offer
    with pytest.raises(UsageError, match="a detector serves --backend encoder; the demo's gen"):
        run_demo(tmp_path / "demo", detector="some/detector")
    assert not (tmp_path / "demo").exists()


def test_the_demo_leaves_a_folder_of_other_files_as_it_was(tmp_path: Path) -> None:
    """`--out runs` replaced a user's own runs/kb.db with the demo's 30 articles."""
    from favakit.demo import _refuse_a_folder_not_the_demos, build_demo_knowledge
    from favakit.errors import UsageError
    from favakit.retrieval.kb import build_kb

    mine = tmp_path / "mine"
    mine.mkdir()
    build_kb(_one_article(tmp_path), mine / "kb.db")
    before = (mine / "kb.db").read_bytes()
    with pytest.raises(UsageError, match=r"holds a kb\.db that is not the demo's"):
        run_demo(mine, backend="encoder", limit=1)
    assert (mine / "kb.db").read_bytes() == before
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "edits.jsonl").write_text("{}\n")
    with pytest.raises(UsageError, match=r"holds edits.jsonl, which the demo would replace"):
        run_demo(tmp_path / "notes", backend="encoder", limit=1)
    build_demo_knowledge(tmp_path / "demo")  # an earlier demo's folder is the demo's again
    _refuse_a_folder_not_the_demos(tmp_path / "demo")


def _one_article(tmp_path: Path) -> Path:
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"title": "Mine", "text": "My own article."}) + "\n")
    return docs
