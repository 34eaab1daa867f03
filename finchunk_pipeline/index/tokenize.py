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
import sys
import unicodedata
from functools import lru_cache

import numpy as np

from ..lang.numbers import COMMA_DECIMAL, join_group_spaces, normalise_number
from ..lang.stopwords import ENGLISH as STOP_WORDS
from ..lang.stopwords import stop_words

_TOKEN = re.compile(r"[a-z0-9]+(?:[.,'][a-z0-9]+)*")
# footnote marks are not part of the word they follow ("Revenue¹" is "revenue")
_MARK_CHARS = "⁰¹²³⁴⁵⁶⁷⁸⁹’"
_MARKS = str.maketrans({c: " " for c in _MARK_CHARS[:-1]} | {"’": "'"})


def _without_marks(text: str) -> str:
    """``text.translate(_MARKS)``; a text holding none of the marks (all ASCII ones) is
    returned as it is, after a search per mark instead of a dictionary look-up per character."""
    if text.isascii() or not any(c in text for c in _MARK_CHARS):
        return text
    return text.translate(_MARKS)


@lru_cache(maxsize=1)
def _combining() -> np.ndarray:
    """Per code point, whether ``unicodedata.combining`` flags it (this Python's Unicode
    version): one boolean table, built on the first text that needs it (~0.07 s)."""
    n = sys.maxunicode + 1
    return np.fromiter(map(unicodedata.combining, map(chr, range(n))), dtype=np.uint8, count=n).astype(bool)


def strip_accents(text: str) -> str:
    """NFKD, then the combining characters (accents) dropped. An ASCII text is its own
    decomposition and holds none; in the others they are found by one table look-up over the
    code points (numpy), not a Python loop over every character (16x on whole filings).
    Lone surrogates pass through as they are."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    if decomposed.isascii():
        return decomposed
    codes = np.frombuffer(decomposed.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    drop = _combining()[codes]
    if not drop.any():
        return decomposed
    return codes[~drop].tobytes().decode("utf-32-le", "surrogatepass")


def tokenize(text: str, language: str = "en") -> list[str]:
    if language != "en":
        return _tokenize_locale(text, language)
    out = []
    for tok in _TOKEN.findall(strip_accents(_without_marks(text)).lower()):
        if tok[0].isdigit():
            tok = tok.replace(",", "")
        else:
            tok = tok.replace("'", "")
        if tok and tok not in STOP_WORDS:
            out.append(tok)
    return out


def _tokenize_locale(text: str, language: str) -> list[str]:
    stops = stop_words(language)
    text = _without_marks(text)
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
