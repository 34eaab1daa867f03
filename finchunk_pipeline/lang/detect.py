"""A question's language from its words: a small deterministic stop-word detector.

Each candidate language scores the number of the text's (accent-folded, lower-cased) words
that are its stop words, plus its marks (¿ ¡ ñ for Spanish; ß ä ö ü for German …). The
best-scoring language wins when it scores at least 1 and strictly more than every other;
otherwise the text is undecided (None) and the caller falls back (e.g. to the index's main
language). Words shared by several lists ("a", "de", "la") count for each.
"""
from __future__ import annotations

import re
from typing import Iterable

from .stopwords import fold, stop_words

_WORD = re.compile(r"[^\W\d_]+")
_MARKS = {"es": "¿¡ñ", "de": "ßäöü", "fr": "çèêëàâœ", "it": "ìò"}


def detect_language(text: str, candidates: Iterable[str]) -> str | None:
    candidates = [c for c in candidates]
    if len(candidates) == 1:
        return candidates[0]
    words = [fold(w) for w in _WORD.findall(text)]
    lowered = text.lower()
    scores = {}
    for lang in candidates:
        sw = stop_words(lang)
        scores[lang] = sum(1 for w in words if w in sw) + sum(lowered.count(c) for c in _MARKS.get(lang, ""))
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    if not ranked or ranked[0][1] < 1 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return ranked[0][0]
