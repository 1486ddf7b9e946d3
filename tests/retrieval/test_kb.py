from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from favakit.errors import UsageError
from favakit.retrieval.kb import SEPARATOR, KnowledgeSource, UnknownTitleError, base_name, build_kb
from favakit.text import count_tokens


def test_build_from_jsonl_and_read_back(corpus_jsonl: Path, tmp_path: Path) -> None:
    out = tmp_path / "kb.db"
    stats = build_kb(corpus_jsonl, out, max_tokens=24)
    assert stats.documents == 6 and stats.passages >= 7
    with KnowledgeSource(out) as kb:
        assert len(kb) == 6
        passages = kb.get("Marie Curie")
        assert len(passages) >= 2 and all(count_tokens(p) <= 24 for p in passages)
        assert passages[0].startswith("Marie Curie was a physicist")
        # sections are never packed together
        assert not any("Warsaw" in p and "1911" in p for p in passages)
        assert kb.get("marie_curie") == passages  # normalized fallback
        assert kb.resolve("MARIE  CURIE") == "Marie Curie"
        assert kb.titles_with_base("Dick Hanley") == ["Dick Hanley", "Dick Hanley (swimmer)"]
        assert sum(1 for _ in kb.passages()) == stats.passages


def test_factscore_schema_on_disk(corpus_jsonl: Path, tmp_path: Path) -> None:
    out = tmp_path / "kb.db"
    build_kb(corpus_jsonl, out)
    conn = sqlite3.connect(out)
    (text,) = conn.execute("SELECT text FROM documents WHERE title = 'Marie Curie'").fetchone()
    assert SEPARATOR in text
    cols = [r[1] for r in conn.execute("PRAGMA table_info(documents)")]
    assert cols == ["title", "text"]


def test_a_bare_factscore_db_works(tmp_path: Path) -> None:
    """FActScore's enwiki DB has only the documents table: lookups still work."""
    db = tmp_path / "enwiki.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE documents (title PRIMARY KEY, text)")
    conn.execute(
        "INSERT INTO documents VALUES (?, ?)", ("Lanny Flaherty", f"Born 1942.{SEPARATOR}Actor.")
    )
    conn.execute("INSERT INTO documents VALUES (?, ?)", ("Ed Wood (film)", "A 1994 film."))
    conn.commit()
    conn.close()
    with KnowledgeSource(db) as kb:
        assert kb.get("Lanny Flaherty") == ["Born 1942.", "Actor."]
        assert kb.get("lanny flaherty") == ["Born 1942.", "Actor."]
        assert kb.titles_with_base("Ed Wood") == ["Ed Wood (film)"]
        with pytest.raises(UnknownTitleError, match="closest titles: 'Lanny Flaherty'"):
            kb.get("Lanny Flaherti")


def test_unknown_title_lists_closest(corpus_jsonl: Path, tmp_path: Path) -> None:
    build_kb(corpus_jsonl, tmp_path / "kb.db")
    with KnowledgeSource(tmp_path / "kb.db") as kb, pytest.raises(UnknownTitleError) as info:
        kb.get("Marie Curry")
    assert info.value.closest[0] == "Marie Curie"


def test_a_documents_folder_says_what_it_skips_and_what_is_not_utf8(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "Alpha.txt").write_text("Alpha is first.", encoding="utf-8")
    (docs / "Latin.txt").write_bytes("Caf\xe9 is open.".encode("latin-1"))
    (docs / "Notepad.txt").write_text("Caf\xe9 is open.", encoding="utf-16")  # with its BOM
    (docs / "sub" / "report.pdf").write_bytes(b"%PDF-1.4")
    (docs / ".hidden").write_text("x")
    (docs / ".git").mkdir()
    (docs / ".git" / "HEAD").write_text("ref: refs/heads/main")
    build_kb(docs, tmp_path / "kb.db")
    said = [r.getMessage() for r in caplog.records]
    assert (
        f"{docs}: 1 file(s) skipped, as only .txt and .md files are read: sub/report.pdf "
        "(convert other documents to text first)" in said
    )
    assert f"{docs / 'Latin.txt'} is not UTF-8 (byte 3): its unreadable bytes are replaced" in said
    assert len(said) == 2  # hidden files are not named
    with KnowledgeSource(tmp_path / "kb.db") as kb:
        assert kb.get("Latin") == ["Caf\ufffd is open."]
        assert kb.get("Notepad") == ["Caf\xe9 is open."]


def test_document_text_reads_utf8_and_utf16_with_its_mark() -> None:
    from favakit.records import document_text

    text = "Caf\xe9 \u2013 open."
    for data in (text.encode("utf-8"), text.encode("utf-8-sig"), text.encode("utf-16"),
                 b"\xfe\xff" + text.encode("utf-16-be")):  # fmt: skip
        assert document_text(data) == text
    with pytest.raises(UnicodeDecodeError):
        document_text("Caf\xe9".encode("latin-1"))
    with pytest.raises(UnicodeDecodeError):  # a mark, then bytes UTF-16 cannot read either
        document_text(b"\xff\xfe\x00\xd8")


def test_other_formats(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "Alpha.txt").write_text("Alpha is first. It leads.", encoding="utf-8")
    (docs / "Beta.md").write_text("Beta is second.", encoding="utf-8")
    build_kb(docs, tmp_path / "dir.db")
    with KnowledgeSource(tmp_path / "dir.db") as kb:
        assert sorted(kb.titles()) == ["Alpha", "Beta"]

    tsv = tmp_path / "psgs_w100.tsv"
    tsv.write_text(
        'id\ttext\ttitle\n1\t"First part."\tAlpha\n2\tSecond part.\tAlpha\n3\tOther.\tBeta\n',
        encoding="utf-8",
    )
    stats = build_kb(tsv, tmp_path / "dpr.db", max_words=100)
    assert stats.passages == 3
    with KnowledgeSource(tmp_path / "dpr.db") as kb:
        assert kb.get("Alpha") == ["First part.", "Second part."]

    hotpot = tmp_path / "hotpot.json"
    rows = [
        {
            "question": "q1",
            "context": {"title": ["A", "B"], "sentences": [["A one.", " A two."], ["B one."]]},
        },
        {"question": "q2", "context": {"title": ["A"], "sentences": [["A one.", " A two."]]}},
    ]
    hotpot.write_text(json.dumps(rows), encoding="utf-8")
    stats = build_kb(hotpot, tmp_path / "hp.db")
    assert (stats.documents, stats.duplicates) == (2, 1)
    with KnowledgeSource(tmp_path / "hp.db") as kb:
        assert kb.get("A") == ["A one. A two."]
    # HotpotQA's own files keep each paragraph as [title, [sentence, ...]]: they were refused
    released = [{"question": "q1", "context": [["A", ["A one.", " A two."]], ["B", ["B one."]]]}]
    hotpot.write_text(json.dumps(released), encoding="utf-8")
    assert build_kb(hotpot, tmp_path / "released.db").documents == 2
    with KnowledgeSource(tmp_path / "released.db") as kb:
        assert kb.get("A") == ["A one. A two."]
    for context, said in (
        ({"title": ["A", "B"], "sentences": [["x."]]}, "as many 'title's as 'sentences'"),
        ([["A", "not a list"]], "context paragraph 0: expected a title and a list"),
        (3, r"expected 'context' as \[\[title"),
    ):  # a traceback each (zip's ValueError, join's TypeError) or the one form named
        hotpot.write_text(json.dumps([{"context": context}]), encoding="utf-8")
        with pytest.raises(UsageError, match=said):
            build_kb(hotpot, tmp_path / "bad.db")

    listing = tmp_path / "list.json"
    listing.write_text(
        json.dumps([{"id": 1, "title": "T", "text": "Body.", "url": "x"}]), encoding="utf-8"
    )
    build_kb(listing, tmp_path / "list.db")
    with KnowledgeSource(tmp_path / "list.db") as kb:
        assert kb.get("T") == ["Body."]


def test_bad_input_names_the_record_and_leaves_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"title": "A", "text": "ok"}\n{"title": "B"}\n', encoding="utf-8")
    with pytest.raises(
        UsageError, match=r"bad.jsonl:2: expected an object with 'title' and 'text'"
    ):
        build_kb(bad, tmp_path / "kb.db")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]
    # every bad row named, before the build (which once stopped at the first, at its end)
    rows = ['{"title": "A", "text": "ok"}', '{"title": "", "text": "x"}', "{}", '{"text": "y"}']
    bad.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        build_kb([tmp_path / "missing.jsonl", bad], tmp_path / "kb.db")  # the missing one first
    assert "does not exist" in str(caught.value)
    with pytest.raises(UsageError) as caught:
        build_kb(bad, tmp_path / "kb.db", progress=True)
    said = str(caught.value).splitlines()
    assert said[0] == "3 of 4 rows are bad:" and said[1].endswith("bad.jsonl:2: 'title' must be "
                                                                   "a non-empty string")  # fmt: skip
    assert said[3].endswith("bad.jsonl:4: expected an object with 'title' and 'text'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]
    with pytest.raises(UsageError, match="does not exist"):
        KnowledgeSource(tmp_path / "missing.db")
    (tmp_path / "an_index").mkdir()
    (tmp_path / "an_index" / "meta.json").write_text("{}")
    with pytest.raises(UsageError, match=r"is a folder: a knowledge source is one sqlite file, "
                                         r"built with 'favakit kb build' \(an index folder goes "
                                         r"with --index\)$"):  # fmt: skip
        KnowledgeSource(tmp_path / "an_index")
    with pytest.raises(UsageError, match="cannot tell the format"):
        build_kb(
            bad.with_suffix(".csv").write_text("x") and bad.with_suffix(".csv"), tmp_path / "kb.db"
        )
    good = tmp_path / "good.jsonl"
    good.write_text('{"title": "A", "text": "ok"}\n', encoding="utf-8")
    (tmp_path / "folder").mkdir()
    with pytest.raises(UsageError, match="is a folder: the knowledge source is one sqlite file"):
        build_kb(good, tmp_path / "folder")  # was IsADirectoryError once the build was done
    # a file that is not a knowledge source is never replaced (it was: a JSONL file given as
    # --out became an sqlite file); a knowledge source is rebuilt in place
    with pytest.raises(UsageError, match="exists and is not a knowledge source"):
        build_kb(good, good)
    assert good.read_text(encoding="utf-8") == '{"title": "A", "text": "ok"}\n'
    build_kb(good, tmp_path / "kb.db")
    assert build_kb(good, tmp_path / "kb.db").documents == 1
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(UsageError) as caught:  # the files named as given, not as a list
        build_kb([empty, empty], tmp_path / "e.db")
    assert str(caught.value) == f"no documents with text found in {empty}, {empty}"
    assert not (tmp_path / "e.db").exists()


def test_files_that_start_with_a_byte_order_mark_read_as_without_one(tmp_path: Path) -> None:
    """Some Windows tools start a UTF-8 file with a byte-order mark; it is no part of the text."""
    bom = "\ufeff"
    (tmp_path / "Alpha.txt").write_text(bom + "Alpha is first.", encoding="utf-8")
    tsv = tmp_path / "psgs.tsv"
    tsv.write_text(bom + "id\ttext\ttitle\n1\tFirst part.\tBeta\n", encoding="utf-8")
    listing = tmp_path / "list.json"
    listing.write_text(bom + json.dumps([{"title": "Gamma", "text": "Body."}]), encoding="utf-8")
    rows = tmp_path / "rows.jsonl"
    rows.write_text(bom + json.dumps({"title": "Delta", "text": "Rows."}) + "\n", encoding="utf-8")
    for source, title, text in ((tmp_path / "Alpha.txt", "Alpha", "Alpha is first."),
                                (tsv, "Beta", "First part."), (listing, "Gamma", "Body."),
                                (rows, "Delta", "Rows.")):  # fmt: skip
        db = tmp_path / f"{source.stem}.db"
        assert build_kb(source, db).passages == 1
        with KnowledgeSource(db) as kb:
            assert list(kb.titles()) == [title] and kb.get(title) == [text]


def test_base_name() -> None:
    assert base_name("Ed Wood (film)") == "ed wood"
    assert base_name("(Untitled)") == "(untitled)"


@pytest.mark.parametrize("name", ["kq#.db", "k%41b.db", "a?mode=rw.db", "space d.db"])
def test_kb_paths_with_uri_characters_open_read_only(tmp_path: Path, name: str) -> None:
    """The path is quoted into the SQLite URI: '#', '%', '?' are file-name characters, and the
    read-only mode is never dropped (no empty database is made beside it)."""
    src = tmp_path / "docs.jsonl"
    src.write_text('{"title": "Ada", "text": "Ada was born in 1815."}\n', encoding="utf-8")
    path = tmp_path / name
    build_kb(src, path)
    before = sorted(p.name for p in tmp_path.iterdir())
    kb = KnowledgeSource(path)
    assert kb.resolve("Ada") is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing created
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        kb.conn.execute("CREATE TABLE t (x)")
