from __future__ import annotations

import json
from pathlib import Path

import pytest

from favakit.retrieval.kb import build_kb

# Articles written for these tests: people with life spans (so first names are known), places,
# organisations, years, numbers and relation words for every rule to find.
ARTICLES = {
    "Ada Lovelace": "Ada Lovelace (10 December 1815 – 27 November 1852) was an English mathematician. "
    "She worked with Charles Babbage on the Analytical Engine. She was the first person to publish "
    "an algorithm for such a machine. Her father was the poet Lord Byron. She died in London in 1852.",
    "Charles Babbage": "Charles Babbage (26 December 1791 – 18 October 1871) was an English engineer. "
    "He designed the Difference Engine in 1822. He was a member of the Royal Society. "
    "Babbage was born in London and studied at Trinity College. He won a gold medal in 1824.",
    "Grace Hopper": "Grace Hopper (December 9, 1906 – January 1, 1992) was an American computer "
    "scientist. She joined the United States Navy in 1943. She led the team that developed an early "
    "compiler. Hopper was one of the first programmers of the Harvard Mark I. She retired in 1986.",
    "Alan Turing": "Alan Turing (23 June 1912 – 7 June 1954) was an English mathematician. He studied "
    "at King's College in Cambridge. During the war he worked at Bletchley Park. He wrote a famous paper "
    "in 1950. He was born in Maida Vale, and he was elected to the Royal Society in 1951.",
    "Lake Baikal": "Lake Baikal is a rift lake in Siberia. It is the deepest lake in the world, with a "
    "depth of 1,642 metres. The lake holds about 23,600 cubic kilometres of fresh water. More than 300 "
    "rivers flow into the lake. It is older than most other lakes on Earth.",
    "Danube River": "The Danube River is the second longest river in Europe. It rises in the Black Forest "
    "and flows east for 2,850 kilometres. The river passes through ten countries. It flows into the "
    "Black Sea in Romania. Vienna and Budapest lie on its banks.",
    "Royal Society": "The Royal Society is a learned society in London. It was founded in 1660. The "
    "society publishes scientific journals and awards medals. Its largest prize is the Copley Medal. "
    "Isaac Newton was its president for many years.",
    "Harvard University": "Harvard University is a private research university in Cambridge, "
    "Massachusetts. It was founded in 1636. It is the oldest institution of higher learning in the "
    "United States. The university has 13 schools. Its library is the largest academic library in the world.",
}


@pytest.fixture(scope="session")
def synth_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synth")
    src = root / "articles.jsonl"
    src.write_text("".join(json.dumps({"title": t, "text": x}) + "\n" for t, x in ARTICLES.items()))
    build_kb(src, root / "kb.db")
    return root / "kb.db"
