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
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import ClassVar

from .finance_terms import CONCEPTS, METRICS, VOCABULARY_VERSION
from .tokenize import tokenize

CONCEPT_PREFIX = "§"
_FISCAL = re.compile(r"^fy(\d{2}|\d{4})$")


class Analyzer:
    name: ClassVar[str]
    version: ClassVar[str]

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"

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
        return tokenize(text)


def _phrase_table(forms: dict[str, tuple[str, ...]]) -> dict[int, dict[tuple[str, ...], str]]:
    """{phrase length: {normalised tokens: concept}} for longest-first matching."""
    table: dict[int, dict[tuple[str, ...], str]] = {}
    for concept, names in forms.items():
        for name in names:
            toks = tuple(tokenize(name))
            if toks:
                table.setdefault(len(toks), {})[toks] = concept
    return table


def match_phrases(tokens: list[str], table: dict[int, dict[tuple[str, ...], str]]) -> list[str]:
    """Concepts whose names occur in ``tokens`` (longest match first, non-overlapping)."""
    out: list[str] = []
    lengths = sorted(table, reverse=True)
    i = 0
    while i < len(tokens):
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
        m = _FISCAL.match(t)
        if m:
            y = m.group(1)
            out.append(("20" + y) if len(y) == 2 else y)
        else:
            out.append(t)
    return out


class FinanceAnalyzer(Analyzer):
    name = "finance"
    version = f"1.{VOCABULARY_VERSION}"

    def __init__(self) -> None:
        import Stemmer  # PyStemmer: Snowball stemmers in C

        self._stem = Stemmer.Stemmer("english").stemWord
        self._concepts = _phrase_table(CONCEPTS)
        self._metrics = _phrase_table({m: (m,) for m in METRICS})

    @lru_cache(maxsize=200_000)
    def stem(self, word: str) -> str:
        return self._stem(word)

    def _analyse(self, text: str, query: bool) -> list[str]:
        tokens = fiscal_years(tokenize(text))
        words = [t if t[0].isdigit() else self.stem(t) for t in tokens]
        out = list(words)
        out += [f"{a}_{b}" for a, b in zip(words, words[1:]) if not (a[0].isdigit() or b[0].isdigit())]
        concepts = match_phrases(tokens, self._concepts)
        if query:
            for metric in match_phrases(tokens, self._metrics):
                concepts.extend(METRICS[metric])
        out += [CONCEPT_PREFIX + c for c in concepts]
        return out

    def terms(self, text: str) -> list[str]:
        return self._analyse(text, query=False)

    def query_terms(self, text: str) -> list[str]:
        return self._analyse(text, query=True)


ANALYZERS: dict[str, type[Analyzer]] = {a.name: a for a in (PlainAnalyzer, FinanceAnalyzer)}
DEFAULT_ANALYZER = "finance"


@lru_cache(maxsize=None)
def get_analyzer(name: str = DEFAULT_ANALYZER) -> Analyzer:
    if name not in ANALYZERS:
        raise ValueError(f"unknown analyzer {name!r}; known: {sorted(ANALYZERS)}")
    return ANALYZERS[name]()
