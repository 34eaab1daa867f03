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

from ..lang.numbers import COMMA_DECIMAL, join_group_spaces, normalise_number
from ..lang.stopwords import ENGLISH as STOP_WORDS
from ..lang.stopwords import stop_words

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
