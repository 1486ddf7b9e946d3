"""Whether a text reads as English: favakit's checkers, judges and editor were trained on
English text, with English prompts, and what they say of another language is untested. A
verdict or an edit of such a text says so (:func:`language_note`) rather than pass for one as
sure as any other (the mpnet checker called "Berlin ist die Hauptstadt von Deutschland." not
supported by "Die Hauptstadt Deutschlands ist Berlin.", P 0.01, with nothing said).

Pure Python, no dependencies, and no model: a text is another language where most of its
letters are of another script (Cyrillic, Greek, Arabic, CJK, ...), or, in Latin letters, where
words that only another language uses (German "ist", French "est", Spanish "fue", and
lower-case words with accents, "née", "nació") number at least two, and at least twice
English's own ("the", "was", "of") plus two. Names alone do not count: "Oscar de la Renta",
"Vasco da Gama", "Los Angeles" or "Das Boot" leave an English sentence English.

Measured (docs/checker.md, "English only"): of the 45,447 claims of the real training files
none read as another language, and two rows' evidence did, both rightly (a French news page; a
page whose letters are 60% Arabic); of 29 one-sentence claims written for the tests in six
European languages and two other scripts, 23 were told apart. A claim of a few words can pass
unwarned.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

__all__ = ["NOT_ENGLISH", "language_note", "other_language"]

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")

#: words of running English text that no language below writes the same way ("is" is Dutch,
#: "in" German, "a" French, so neither side counts them)
_ENGLISH_WORDS = (
    "the and of was are were with which that this from by for has have had his her its it not "
    "be been or but their they who what when where would will can than these those there into"
)
_ENGLISH = frozenset(_ENGLISH_WORDS.split())

#: frequent words of each language that are no English word, written in lower case as running
#: text writes them; the particles of names ("de", "van", "von", "da", "del", "di", "du",
#: "le", "y") are left out, and "la" of "Oscar de la Renta" is one word of the two needed
_OTHER = {
    lang: frozenset(words.split()) - _ENGLISH
    for lang, words in {
        "German": "der das und ist nicht ein eine einer eines mit den dem des auf für sich auch "
        "wurde wurden sind zu im bei nach aus wird oder über wie noch nur zum zur sie er wir ich "
        "die",
        "French": "les et est une des dans pour pas que qui sur avec sont était au aux cette il "
        "elle ils nous vous leur été par plus ou mais où la",
        "Spanish": "el los las es una que por con para fue su sus se como está son al lo más "
        "pero sin sobre entre también fueron la",
        "Italian": "il lo gli della delle è che per con non sono nel nella alla dal anche questo "
        "più ma come stato la",
        "Portuguese": "os um uma dos das em que para não foi seu sua na nos pelo pela são mais "
        "também como",
        "Dutch": "het een en niet op zijn met voor dat werd ook naar bij wordt deze er uit",
    }.items()
}

#: accented letters of the languages above: a lower-case word with one is theirs, not
#: English's ("née", "nació"); a word with other letters (IPA in a pronunciation, "ˈlʊdvɪɡ")
#: is not counted
_ACCENTED = frozenset("áéíóúàèìòùâêîôûäëïöüçñãõß")


@functools.lru_cache(maxsize=4096)
def _script(letter: str) -> str:
    """The script a letter's Unicode name opens with: LATIN, CYRILLIC, CJK, ..."""
    try:
        return unicodedata.name(letter).split()[0]
    except ValueError:
        return "?"


def other_language(text: str, min_words: int = 4) -> str | None:
    """What tells that ``text`` is not English, else None: its script, where most of its letters
    are of one other than Latin (``"Cyrillic letters"``), or the words of another language it
    uses (``"words such as 'ist', 'die'"``; which language is not said: "la" is French, Spanish
    and Italian). A text of fewer than ``min_words`` words in Latin letters is left
    alone."""
    scripts = Counter(_script(c) for c in text if c.isalpha() and not c.isascii())
    scripts["LATIN"] += sum(c.isascii() and c.isalpha() for c in text)
    letters = sum(scripts.values())
    if not letters:
        return None
    if scripts["LATIN"] < letters / 2:
        script = max(scripts, key=lambda s: scripts[s])
        return f"{'Chinese or Japanese' if script == 'CJK' else script.title()} letters"
    words = _WORD.findall(text)
    if len(words) < min_words:
        return None
    english = sum(w.lower() in _ENGLISH for w in words)
    lang = max(_OTHER, key=lambda name: sum(w in _OTHER[name] for w in words))
    told = [
        w
        for w in words
        if w in _OTHER[lang]
        or (w.islower() and not w.isascii() and all(c.isascii() or c in _ACCENTED for c in w))
    ]
    if len(told) >= 2 and len(told) >= 2 * english + 2:
        return "words such as " + ", ".join(repr(w) for w in dict.fromkeys(told[:3]))
    return None


#: what every note of :func:`language_note` says (a command counts its notes by it)
NOT_ENGLISH = "does not read as English"


def language_note(text: str, evidence: Sequence[str] = (), what: str = "text") -> str | None:
    """What a verdict or an edit says where its text (``what``: "text", "claim"), or its
    evidence taken together, does not read as English (:func:`other_language`); None where
    both do."""
    for whose, words in ((what, text), ("evidence", " ".join(evidence))):
        told = other_language(words)
        if told is not None:
            return (f"the {whose} {NOT_ENGLISH} ({told}): favakit's models were trained on "
                    "English text, and what they say of other languages is untested")  # fmt: skip
    return None
