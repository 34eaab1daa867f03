"""Language codes: the corpus ``language`` column (ISO 639-1) to an analysis language.

Supported languages have stop words (``stopwords.py``), a Snowball stemmer in PyStemmer and a
number locale (``numbers.py``). Any other code is analysed language-neutrally (no stop
words, no stemming, numbers read by their shape) with a warning naming the document, never
an error: a corpus in Dutch still runs.
"""
from __future__ import annotations

import logging

log = logging.getLogger(__name__)

DEFAULT = "en"
NEUTRAL = "xx"          # the language-neutral analysis of unsupported codes
# PyStemmer algorithm per supported language
STEMMERS = {"en": "english", "es": "spanish", "de": "german", "fr": "french", "it": "italian"}
SUPPORTED = tuple(STEMMERS)

_warned: set[str] = set()


def normalise(code, where: str = "") -> str:
    """The analysis language of a ``language`` value: a supported ISO 639-1 code
    ("es", "ES", "es-ES", "es_MX" → "es"), ``DEFAULT`` when missing, else ``NEUTRAL`` with a
    warning (once per code) naming ``where`` (e.g. the document)."""
    if code is None or (isinstance(code, float) and code != code) or not str(code).strip():
        return DEFAULT
    base = str(code).strip().lower().replace("_", "-").split("-")[0]
    if base in STEMMERS:
        return base
    if base not in _warned:
        _warned.add(base)
        log.warning("%slanguage %r is not supported (supported: %s): analysed language-neutrally "
                    "(no stop words, no stemming)", f"{where}: " if where else "", code, ", ".join(SUPPORTED))
    return NEUTRAL
