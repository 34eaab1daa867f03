"""The BM25 analyzer's shortcuts against its plain definitions (issue 16): ``strip_accents``
without a Python loop over characters, no marks translated in an ASCII text, phrases tried
only at tokens that start one, stems remembered in a dict, fiscal years tried only at "fy".
The plain definitions below are the code as it was; both must give the same terms, on random
text of every kind of character the rules read and on the real documents of the corpora."""
from __future__ import annotations

import random
import re
import unicodedata

import pyarrow.parquet as pq
import pytest

from finchunk_pipeline.index import tokenize as tk
from finchunk_pipeline import get_analyzer
from finchunk_pipeline.index.analyzer import CONCEPT_PREFIX, _FISCAL
from finchunk_pipeline.lang.numbers import COMMA_DECIMAL, join_group_spaces, normalise_number
from finchunk_pipeline.lang.stopwords import ENGLISH as STOP_WORDS
from finchunk_pipeline.lang.stopwords import stop_words
from finchunk_pipeline import DEFAULT_CORPUS



# --- the plain definitions ---------------------------------------------------------------------
def plain_strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def plain_tokenize(text: str) -> list[str]:
    out = []
    for tok in tk._TOKEN.findall(plain_strip_accents(text.translate(tk._MARKS)).lower()):
        tok = tok.replace(",", "") if tok[0].isdigit() else tok.replace("'", "")
        if tok and tok not in STOP_WORDS:
            out.append(tok)
    return out


def plain_tokenize_locale(text: str, language: str) -> list[str]:
    stops = stop_words(language)
    text = text.translate(tk._MARKS)
    if language in COMMA_DECIMAL:
        text = join_group_spaces(text)
    out = []
    for tok in tk._TOKEN.findall(plain_strip_accents(text).lower()):
        parts = [normalise_number(tok, language)] if tok[0].isdigit() else tok.split("'")
        out += [part for part in parts if part and part not in stops]
    return out


def plain_match_phrases(tokens, table) -> list[str]:
    out, lengths, i = [], sorted(table, reverse=True), 0
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


def plain_terms(analyzer, text: str, query: bool = False) -> list[str]:
    tokens = []
    for t in plain_tokenize(text):
        m = _FISCAL.match(t)
        tokens.append((("20" + m.group(1)) if len(m.group(1)) == 2 else m.group(1)) if m else t)
    words = [t if t[0].isdigit() else analyzer._stem(t) for t in tokens]
    out = list(words)
    out += [f"{a}_{b}" for a, b in zip(words, words[1:]) if not (a[0].isdigit() or b[0].isdigit())]
    concepts = plain_match_phrases(tokens, dict(analyzer._concepts))
    if query:
        for metric in plain_match_phrases(tokens, dict(analyzer._metrics)):
            concepts.extend(analyzer._metric_parts[metric])
    return out + [CONCEPT_PREFIX + c for c in concepts]


# --- random text of what the rules read --------------------------------------------------------
_WORDS = ("revenue", "Revenues", "total", "net", "income", "statement", "of", "cash", "flows", "balance",
          "sheet", "working", "capital", "current", "assets", "liabilities", "FY2019", "fy19", "fiscal",
          "2019", "1,234.5", "(3,587)", "CONSOLIDATED", "the", "and", "Energía", "café", "naïve", "Straße",
          "don't", "company’s", "Revenue¹", "ﬁnancial", "Ⅳ", "½", "x²", "ＡＢＣ", "e\u0301", "n\u0303o",
          "\u0345", "\u20dd", "\U0001d400", "İstanbul", "ǅ", "PP&E", "EBITDA", "12.3%", "—", "•")
_CHARS = "aZ09 .,'’-\n\t\xa0¹²³⁰é\u0301\u0308ßﬁ½²İǅ\u3000ＡΩж中\U0001f600\u200b\u2009"


def _random_text(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 40)))
    return "".join(rng.choice(_CHARS) for _ in range(rng.randint(0, 80)))


def test_strip_accents_and_tokenize_equal_the_plain_definitions_on_random_text():
    rng = random.Random(3)
    for _ in range(4000):
        text = _random_text(rng)
        assert tk.strip_accents(text) == plain_strip_accents(text), repr(text)
        assert tk.tokenize(text) == plain_tokenize(text), repr(text)
        for language in ("es", "de", "xx"):
            assert tk.tokenize(text, language) == plain_tokenize_locale(text, language), (language, repr(text))


def test_every_code_point_is_dropped_exactly_when_unicodedata_calls_it_combining():
    """All of Unicode in one text (lone surrogates included: they pass through): what
    strip_accents keeps of an already decomposed text is what the plain loop keeps."""
    chars = "".join(chr(c) for c in range(0x110000) if unicodedata.normalize("NFKD", chr(c)) == chr(c))
    assert tk.strip_accents(chars) == plain_strip_accents(chars)
    assert tk.strip_accents("a\ud800e\u0301") == "a\ud800e"


@pytest.mark.parametrize("query", [False, True])
def test_finance_terms_equal_the_plain_definitions_on_random_text(query):
    fin = get_analyzer("finance")
    rng = random.Random(17 + query)
    for _ in range(3000):
        text = _random_text(rng)
        got = fin.query_terms(text) if query else fin.terms(text)
        assert got == plain_terms(fin, text, query), repr(text)


def test_the_stem_memo_forgets_and_learns_again():
    fin = get_analyzer("finance")
    kept = fin.STEMS_KEPT
    try:
        type(fin).STEMS_KEPT = 3
        words = ["revenues", "incomes", "assets", "liabilities", "revenues", "flows"]
        assert [fin.stem(w) for w in words] == [fin._stem(w) for w in words]
        assert len(fin._stems) <= 3
    finally:
        type(fin).STEMS_KEPT = kept


def _document_texts(corpus) -> list[str]:
    return [t for t in pq.read_table(corpus / "documents.parquet", columns=["text"]).column("text").to_pylist() if t]


def _paragraphs(texts: list[str], limit: int) -> list[str]:
    """Chunk-sized pieces of the documents (their blank-line paragraphs), at most ``limit``."""
    out = [p for t in texts for p in re.split(r"\n\s*\n", t) if p.strip()]
    return out[:limit]


def test_finance_terms_equal_the_plain_definitions_on_the_embedded_corpora():
    fin = get_analyzer("finance")
    for corpus in (DEFAULT_CORPUS, DEFAULT_CORPUS.parent / "es"):
        for text in _paragraphs(_document_texts(corpus), 3000):
            assert fin.terms(text) == plain_terms(fin, text), text[:80]
            assert tk.tokenize(text, "es") == plain_tokenize_locale(text, "es"), text[:80]
