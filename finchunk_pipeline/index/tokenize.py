"""Lexical normalisation for BM25: lowercase, accents stripped, stop words removed.

Numbers keep their digits as one token with thousands separators removed
("1,234.5" -> "1234.5"), so figures match however they are written.

``tokenize(text, language)``: the language (an analysis language, ``lang/codes.py``) picks the
stop words (``lang/stopwords.py``) and the number locale (``lang/numbers.py``: "13.668,9" is
13668.9 in Spanish, "13,668.9" in English). English (the default) is exactly the historic
tokenizer; in the other languages an apostrophe separates words ("l'azienda": "l", "azienda").
"""
from __future__ import annotations

import re
import unicodedata

STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves
""".split())

_TOKEN = re.compile(r"[a-z0-9]+(?:[.,'][a-z0-9]+)*")
# footnote marks are not part of the word they follow ("Revenue¹" is "revenue")
_MARKS = str.maketrans({c: " " for c in "⁰¹²³⁴⁵⁶⁷⁸⁹"} | {"’": "'"})


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokenize(text: str, language: str = "en") -> list[str]:
    if language != "en":
        return _tokenize_locale(text, language)
    out = []
    for tok in _TOKEN.findall(strip_accents(text.translate(_MARKS)).lower()):
        if tok[0].isdigit():
            tok = tok.replace(",", "")
        else:
            tok = tok.replace("'", "")
        if tok and tok not in STOP_WORDS:
            out.append(tok)
    return out


def _tokenize_locale(text: str, language: str) -> list[str]:
    from ..lang.numbers import COMMA_DECIMAL, join_group_spaces, normalise_number
    from ..lang.stopwords import stop_words

    stops = stop_words(language)
    text = text.translate(_MARKS)
    if language in COMMA_DECIMAL:
        text = join_group_spaces(text)
    out = []
    for tok in _TOKEN.findall(strip_accents(text).lower()):
        if tok[0].isdigit():
            parts = [normalise_number(tok, language)]
        else:
            parts = tok.split("'")
        for part in parts:
            if part and part not in stops:
                out.append(part)
    return out
