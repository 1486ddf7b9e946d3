from __future__ import annotations

from pathlib import Path

from favakit.retrieval.kb import KnowledgeSource, build_kb
from favakit.retrieval.markdown import markdown_sections
from favakit.text import split_sentences

DOC = """---
title: About us
---
# About Northwind Home

Northwind Home is an online retailer
of furniture, founded in **2011** by [Priya Sharma](https://example.com/ps) and *Tom Hughes*.
Its `snake_case` name is north_wind and 2 * 3 = 6.

Warehouses
----------

- Leeds
- Coventry, opened
  in 2015

```python
print("not prose")
```

| city | staff |
|---|---|
| Leeds | 400 |

> A quoted line
> that goes on.
![a chart](chart.png)
<!-- a comment -->
"""


def test_headings_start_sections_and_markup_goes() -> None:
    sections = markdown_sections(DOC)
    assert sections == [
        "Northwind Home is an online retailer of furniture, founded in 2011 by Priya Sharma and "
        "Tom Hughes. Its snake_case name is north_wind and 2 * 3 = 6.",
        # list items and table rows end as sentences; a row says its column's names
        "Leeds.\nCoventry, opened in 2015.\nCity: Leeds; staff: 400.\nA quoted line that goes on.",
    ]
    # the heading no longer runs into the first sentence
    assert split_sentences(sections[0])[0].startswith("Northwind Home is an online retailer")
    # joined into one passage, the list's items stay sentences apart
    assert split_sentences(" ".join(sections[1].splitlines()))[:3] == [
        "Leeds.", "Coventry, opened in 2015.", "City: Leeds; staff: 400."]  # fmt: skip
    # a table without a header row: its cells
    assert markdown_sections("| Leeds | 400 |\n| Coventry | 450 |") == [
        "Leeds; 400.\nCoventry; 450."
    ]


def test_a_document_without_markup_is_its_paragraphs() -> None:
    assert markdown_sections("One line.\n\nTwo lines\nread as one.\n") == [
        "One line.\nTwo lines read as one."
    ]
    assert markdown_sections("# Only a title\n\n```\ncode\n```\n") == []


def test_knowledge_source_from_markdown_files(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "company.md").write_text(DOC, encoding="utf-8")
    (docs / "notes.txt").write_text("# not a heading in a .txt file. It stays.", encoding="utf-8")
    build_kb(docs, tmp_path / "kb.db")
    with KnowledgeSource(tmp_path / "kb.db") as kb:
        assert sorted(kb.titles()) == ["company", "notes"]
        passages = kb.get("company")
        assert passages[0].startswith("Northwind Home is an online retailer")
        assert not any("#" in p or "**" in p or "](" in p or "print(" in p for p in passages)
        assert not any("Tom Hughes" in p and "Coventry" in p for p in passages)  # two sections
        assert kb.get("notes") == ["# not a heading in a .txt file. It stays."]
    # one file is read as a folder's files are
    build_kb(docs / "company.md", tmp_path / "one.db")
    with KnowledgeSource(tmp_path / "one.db") as kb:
        assert list(kb.titles()) == ["company"]


def test_a_question_heading_stays_with_its_answer() -> None:
    faq = (
        "# Questions\n\n## Can I buy a ticket on board?\n\nOnly on the Keel route.\n\n"
        "Is it free?\n-----------\n\nYes.\n\n## Opening hours ##\n\nDaily.\n"
    )
    # an FAQ's answer says nothing without its question; a title stays dropped
    assert markdown_sections(faq) == [
        "Can I buy a ticket on board?\nOnly on the Keel route.",
        "Is it free?\nYes.",
        "Daily.",
    ]
