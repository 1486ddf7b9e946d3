"""favakit.language: a text in another language than English is told apart, so that a verdict
or an edit of it says its models were trained on English; English with foreign names is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from favakit.language import NOT_ENGLISH, language_note, other_language

SHARED_REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "real"

#: one-sentence claims, written for this test, that the rule tells apart
OTHER = {
    "Berlin ist die Hauptstadt von Deutschland.": "words such as 'ist', 'die'",
    "Die Firma wurde im Jahr 1998 gegründet.": "words such as 'wurde', 'im', 'gegründet'",
    "Marie Curie est née à Varsovie en 1867.": "words such as 'est', 'née', 'à'",
    "La torre Eiffel fue construida para la Exposición Universal de 1889.":
        "words such as 'fue', 'para', 'la'",
    "Roma è la capitale d'Italia.": "words such as 'è', 'la'",
    "A torre Eiffel foi construída para a Exposição Universal de 1889.":
        "words such as 'foi', 'construída', 'para'",
    "De Eiffeltoren werd gebouwd voor de wereldtentoonstelling van 1889.":
        "words such as 'werd', 'voor'",
    "Москва — столица России.": "Cyrillic letters",
    "巴黎是法国的首都。": "Chinese or Japanese letters",
}  # fmt: skip

#: English, with the names, particles and phrases of other languages that English text uses
ENGLISH = [
    "Oscar de la Renta designed dresses.",
    "Charles de Gaulle was president of France.",
    "Ludwig van Beethoven composed nine symphonies.",
    "Vasco da Gama sailed to India.",
    "Wernher von Braun designed rockets.",
    "Los Angeles is in California.",
    "El Niño warms the Pacific.",
    "The film Das Boot is set in a U-boat.",
    "José de la Cruz y Fernández del Castillo was a painter.",
    "IL-6 levels rise in sepsis.",
    "Die Hard is a 1988 film.",
    "La Paz is the seat of government of Bolivia.",
    "Je ne sais quoi is a French phrase.",
    "Jean-Paul Sartre wrote La Nausée.",
    "The Brothers Grimm collected Kinder- und Hausmärchen.",
    # a pronunciation in IPA is no other language's words
    "Ludwig van Beethoven ( [ˈlʊdvɪɡ væn ˈbeɪˌtoʊvən] ) was a German composer and pianist.",
    "The Greek letters α and β name the two forms of the protein.",
]


@pytest.mark.parametrize(("text", "told"), OTHER.items())
def test_another_language_is_told_by_its_words_or_its_letters(text: str, told: str) -> None:
    assert other_language(text) == told


@pytest.mark.parametrize("text", ENGLISH)
def test_english_with_foreign_names_reads_as_english(text: str) -> None:
    assert other_language(text) is None


def test_a_short_text_or_one_without_letters_is_left_alone() -> None:
    assert other_language("Ist die Hauptstadt.") is None  # under four words
    assert other_language("1867 - 1934") is None
    assert other_language("") is None


def test_the_note_names_the_text_or_the_evidence() -> None:
    assert language_note("Paris is the capital of France.", ["Paris is in France."]) is None
    note = language_note("Berlin ist die Hauptstadt von Deutschland.", [], "claim")
    assert note is not None and note.startswith(f"the claim {NOT_ENGLISH} (words such as 'ist'")
    note = language_note("Moscow is the capital of Russia.", ["Москва — столица России."])
    assert note is not None and note.startswith(f"the evidence {NOT_ENGLISH} (Cyrillic letters)")


@pytest.mark.skipif(not SHARED_REAL.exists(), reason="../shared/data/real is not beside the repo")
def test_no_claim_of_the_real_training_files_reads_as_another_language() -> None:
    """45,447 English claims (FEVER, SNLI, Fool Me Twice, WiCE, BEGIN, SummEdits): none warned."""
    files = sorted(SHARED_REAL.glob("train*/*.jsonl"))
    assert files
    warned = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            text = json.loads(line)["text"]
            if other_language(text) is not None:
                warned.append(text)
    assert warned == []
