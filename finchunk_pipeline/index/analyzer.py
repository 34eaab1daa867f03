"""Lexical analyzers: text to the terms BM25 indexes and searches, one versioned object each.

An analyzer is used for the documents and for the questions of one index, so it is saved
with the index (``bm25/retriever.json``) and a query is always analysed as the index was.

- ``plain``: ``tokenize.py`` — lowercase, accents stripped, English stop words removed,
  numbers as one token without thousands separators.
- ``finance`` (default): ``plain``, then
  1. fiscal periods as years: "FY2019", "FY19", "fiscal 2019" → "2019";
  2. Snowball (Porter 2) stemming of words (PyStemmer): "revenues", "revenue" → "revenu";
  3. phrases: adjacent word pairs as extra terms ("total_sales", "statutori_feder"), so a
     row label or a metric's name matches as a phrase, not as scattered words (pairs with a
     number are left out: "2019_2018" is a column header, not a phrase);
  4. accounting concepts (``finance_terms.py``): a concept term wherever one of its names
     occurs — "statement of financial position" and "CONSOLIDATED BALANCE SHEETS" both add
     ``§balance_sheet``; in questions, a metric adds the concepts it is computed from
     ("working capital" → current assets, current liabilities).

Measured (README, "Evidence-aware chunking on real filings"): each step's effect on the
three dev sets, at equal budget.

Languages (``get_analyzer(name, language)``): each flavour exists once per analysis language
(``lang/codes.py``). English is the analyzer above, unchanged (key ``finance-1.1``). Spanish,
German, French and Italian use their Snowball stop words and stemmer (PyStemmer) and their
number locale ("13.668,9" = 13668.9); Spanish also has its accounting vocabulary
(``finance_terms_es.py``: "cuenta de resultados" adds the same ``§income_statement`` as
"income statement"). An unsupported code is analysed language-neutrally (no stop words, no
stemming, no vocabulary). Every non-English analyzer's key names its language and version
("finance-es-1.1.1"), so an index built before a language's rules changed is rebuilt.
How one index holds documents of several languages: ``index/languages.py``.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import ClassVar

from .finance_terms import CONCEPTS, METRICS, VOCABULARY_VERSION
from .tokenize import tokenize

CONCEPT_PREFIX = "§"
# the modules an analyzer's terms come from: what keys anything built from terms
ANALYSIS_MODULES = ("finchunk_pipeline.index.analyzer", "finchunk_pipeline.index.tokenize",
                    "finchunk_pipeline.index.finance_terms", "finchunk_pipeline.index.finance_terms_es")
_FISCAL = re.compile(r"^fy(\d{2}|\d{4})$")


# bump a language's entry when its stop words, number locale or vocabulary change
LANGUAGE_VERSIONS = {"es": "1", "de": "1", "fr": "1", "it": "1", "xx": "1"}


class Analyzer:
    name: ClassVar[str]
    version: ClassVar[str]

    def __init__(self, language: str = "en") -> None:
        self.language = language

    @property
    def key(self) -> str:
        if self.language == "en":
            return f"{self.name}-{self.version}"
        return f"{self.name}-{self.language}-{self.version}.{LANGUAGE_VERSIONS[self.language]}"

    def terms(self, text: str) -> list[str]:
        """The terms of a document (chunk) text."""
        raise NotImplementedError

    def query_terms(self, text: str) -> list[str]:
        """The terms of a question (documents and questions may be analysed differently)."""
        return self.terms(text)


class PlainAnalyzer(Analyzer):
    name = "plain"
    version = "1"

    def terms(self, text: str) -> list[str]:
        return tokenize(text, self.language)


class PhraseTable(dict):
    """{phrase length: {normalised tokens: concept}} for longest-first matching, with the
    lengths longest first and the tokens any phrase starts with (``match_phrases`` tries no
    phrase at a token that starts none)."""

    def __init__(self, by_length: dict[int, dict[tuple[str, ...], str]]):
        super().__init__(by_length)
        self.lengths = sorted(self, reverse=True)
        self.firsts = frozenset(toks[0] for phrases in self.values() for toks in phrases)


def _phrase_table(forms: dict[str, tuple[str, ...]], language: str = "en") -> PhraseTable:
    table: dict[int, dict[tuple[str, ...], str]] = {}
    for concept, names in forms.items():
        for name in names:
            toks = tuple(tokenize(name, language))
            if toks:
                table.setdefault(len(toks), {})[toks] = concept
    return PhraseTable(table)


def match_phrases(tokens: list[str], table: PhraseTable) -> list[str]:
    """Concepts whose names occur in ``tokens`` (longest match first, non-overlapping)."""
    out: list[str] = []
    lengths, firsts = table.lengths, table.firsts
    i, n_tokens = 0, len(tokens)
    while i < n_tokens:
        if tokens[i] not in firsts:  # no phrase starts here: none of the look-ups could match
            i += 1
            continue
        for n in lengths:
            concept = table[n].get(tuple(tokens[i:i + n]))
            if concept is not None:
                out.append(concept)
                i += n
                break
        else:
            i += 1
    return out


def fiscal_years(tokens: list[str]) -> list[str]:
    """"fy2019"/"fy19" → "2019"; "fiscal 2019" stays "fiscal", "2019" (already a year)."""
    out = []
    for t in tokens:
        m = _FISCAL.match(t) if t.startswith("fy") else None  # the pattern opens with "fy"
        if m:
            y = m.group(1)
            out.append(("20" + y) if len(y) == 2 else y)
        else:
            out.append(t)
    return out


class FinanceAnalyzer(Analyzer):
    name = "finance"
    version = f"1.{VOCABULARY_VERSION}"

    def __init__(self, language: str = "en") -> None:
        import Stemmer  # PyStemmer: Snowball stemmers in C

        from ..lang.codes import STEMMERS

        super().__init__(language)
        algorithm = STEMMERS.get(language)
        self._stem = Stemmer.Stemmer(algorithm).stemWord if algorithm else str
        self._stems: dict[str, str] = {}
        concepts, metrics = vocabulary(language)
        self._concepts = _phrase_table(concepts, language)
        self._metrics = _phrase_table({m: (m,) for m in metrics}, language)
        self._metric_parts = metrics

    STEMS_KEPT = 200_000  # distinct words whose stems are remembered (then forgotten, and learnt again)

    def stem(self, word: str) -> str:
        stem = self._stems.get(word)
        if stem is None:
            if len(self._stems) >= self.STEMS_KEPT:
                self._stems.clear()
            stem = self._stems[word] = self._stem(word)
        return stem

    def _analyse(self, text: str, query: bool) -> list[str]:
        tokens = fiscal_years(tokenize(text, self.language))
        stem = self.stem
        words = [t if t[0].isdigit() else stem(t) for t in tokens]
        out = list(words)
        num = [w[0].isdigit() for w in words]  # pairs with a number are left out
        out += [f"{a}_{b}" for a, b, x, y in zip(words, words[1:], num, num[1:]) if not (x or y)]
        concepts = match_phrases(tokens, self._concepts)
        if query:
            for metric in match_phrases(tokens, self._metrics):
                concepts.extend(self._metric_parts[metric])
        out += [CONCEPT_PREFIX + c for c in concepts]
        return out

    def terms(self, text: str) -> list[str]:
        return self._analyse(text, query=False)

    def query_terms(self, text: str) -> list[str]:
        return self._analyse(text, query=True)


def vocabulary(language: str) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """(concepts, metrics) of a language's accounting vocabulary; empty where there is none."""
    if language == "en":
        return CONCEPTS, METRICS
    if language == "es":
        from .finance_terms_es import CONCEPTS_ES, METRICS_ES

        return CONCEPTS_ES, METRICS_ES
    return {}, {}


ANALYZERS: dict[str, type[Analyzer]] = {a.name: a for a in (PlainAnalyzer, FinanceAnalyzer)}
DEFAULT_ANALYZER = "finance"


def get_analyzer(name: str = DEFAULT_ANALYZER, language: str = "en") -> Analyzer:
    """The analyzer ``name`` for an analysis language (``lang.codes.normalise`` it first);
    one shared instance per (name, language)."""
    return _analyzer(name, language)


@lru_cache(maxsize=None)
def _analyzer(name: str, language: str) -> Analyzer:
    if name not in ANALYZERS:
        raise ValueError(f"unknown analyzer {name!r}; known: {sorted(ANALYZERS)}")
    if language != "en" and language not in LANGUAGE_VERSIONS:
        raise ValueError(f"analyzer {name!r}: unknown analysis language {language!r}; "
                         f"known: en, {', '.join(sorted(LANGUAGE_VERSIONS))}")
    return ANALYZERS[name](language)
