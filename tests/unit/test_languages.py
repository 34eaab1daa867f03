"""Languages: locale numbers, accent folding, Spanish stop words and stems, language-driven
BM25 (documents by their language column, queries by their documents' language or detected),
answer containment by locale."""
from __future__ import annotations

import logging

import pytest

from finchunk_pipeline.evaluation.containment import contains_answer
from finchunk_pipeline import get_analyzer
from finchunk_pipeline.index.bm25_retriever import BM25Retriever
from finchunk_pipeline.index.languages import document_languages, languages_key
from finchunk_pipeline.index.tokenize import tokenize
from finchunk_pipeline.lang.codes import normalise
from finchunk_pipeline.lang.detect import detect_language
from finchunk_pipeline.lang.numbers import normalise_number
from finchunk_pipeline.storage.indexes import save_index

ES = get_analyzer("finance", "es")
EN = get_analyzer("finance")


def test_european_and_us_number_formats_meet():
    assert tokenize("Ventas | 13.668,9 | 13.378,6", "es") == ["ventas", "13668.9", "13378.6"]
    assert tokenize("Revenue | 13,668.9 | 13,378.6") == ["revenue", "13668.9", "13378.6"]
    assert tokenize("1.234 millones", "es") == ["1234", "millones"]
    assert tokenize("un 12,5 %", "es") == ["12.5"]
    assert tokenize("13 668,9 millions", "fr") == ["13668.9", "millions"]
    # English reads "13.668,9" as before: its own locale, unchanged
    assert tokenize("13.668,9") == ["13.6689"]
    assert normalise_number("1.234", "es") == "1234" and normalise_number("1.234", "en") == "1.234"
    # language-neutral: by shape
    assert normalise_number("13.668,9", "xx") == "13668.9" and normalise_number("1,5", "xx") == "1.5"


def test_accents_folded_and_spanish_stop_words():
    assert tokenize("Energía, depreciación y la compañía", "es") == ["energia", "depreciacion", "compania"]
    assert tokenize("¿Cuál fue el beneficio neto del ejercicio?", "es") == ["beneficio", "neto", "ejercicio"]
    # English stop words do not know "de", "la", "del"
    assert "del" in tokenize("el beneficio del ejercicio")


def test_spanish_stems_and_concepts():
    assert ES.terms("ventas")[0] == ES.terms("venta")[0]
    assert ES.terms("inversiones")[0] == ES.terms("inversión")[0]
    assert "§income_statement" in ES.terms("Cuenta de pérdidas y ganancias consolidada")
    assert "§revenue" in ES.terms("Importe neto de la cifra de negocios")
    # a metric in a question adds its parts, as in English
    assert {"§current_assets", "§current_liabilities"} <= set(ES.query_terms("¿Cuál es el fondo de maniobra?"))
    assert ES.key == "finance-es-1.1.1" and EN.key == "finance-1.1"


def test_english_analyzer_unchanged_for_english_text():
    text = "FY2019 revenues of $13,668.9 million; Revenue¹ in the statement of operations"
    assert get_analyzer("finance", "en") is EN
    # the output of the analyzer before languages existed (commit 7c09a3e)
    assert EN.terms(text) == ['2019', 'revenu', '13668.9', 'million', 'revenu', 'statement', 'oper', 'million_revenu',
                              'revenu_statement', 'statement_oper', '§revenue', '§revenue', '§income_statement']


def test_unsupported_language_is_neutral_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING):
        assert normalise("nl", "document D1") == "xx"
    assert "document D1" in caplog.text and "'nl'" in caplog.text
    assert normalise("es-ES") == "es" and normalise(None) == "en" and normalise("ES") == "es"
    assert get_analyzer("finance", "xx").terms("Omzet steeg") == ["omzet", "steeg", "omzet_steeg"]
    with pytest.raises(ValueError, match="unknown analysis language 'nl'"):
        get_analyzer("finance", "nl")


def test_detector():
    assert detect_language("¿Cuál fue el beneficio neto de la compañía en 2024?", ["en", "es"]) == "es"
    assert detect_language("What was the net income of the company in 2024?", ["en", "es"]) == "en"
    assert detect_language("EBITDA 2024", ["en", "es"]) is None
    assert detect_language("EBITDA 2024", ["es"]) == "es"


DOCS = {"es1": "es", "es2": "es", "en1": "en"}
TEXTS = [("es1", "Ventas | 13.668,9 | 13.378,6 millones de euros"),
         ("es1", "Plantilla media de la compañía: 4.210 empleados en España"),
         ("es2", "Las inversiones en inmovilizado material del ejercicio"),
         ("en1", "Revenue 9,120.4 million and capital expenditure"),
         ("en1", "The company employs de la Rosa as chief executive")]


def _retriever(doc_languages=DOCS, override=None):
    return BM25Retriever.build([t for _, t in TEXTS], "finance", [d for d, _ in TEXTS], None, 0.0,
                               doc_languages, override)


def test_language_column_selects_the_analyzer_without_a_flag(tmp_path):
    langs = document_languages(["es1", "es2", "en1"], ["es", "es-ES", "en"])
    assert langs == DOCS
    r = _retriever(langs)
    assert r.languages.present == ("en", "es") and r.languages.main == "es"
    # the Spanish rows hold Spanish stems, the English rows English ones
    assert "vent" in r.index.vocab and "revenu" in r.index.vocab and "ventas" not in r.index.vocab
    # a Spanish query: detected Spanish, stems meet the Spanish rows, the European number too
    hits = r.search_many(["¿Cuáles fueron las ventas de 13.668,9?"], 1)[0]
    assert hits[0][0] == 0
    assert r.search_many(["inversión en inmovilizado"], 1, languages=["es"])[0][0][0] == 2
    # a US-formatted number in an English query finds the Spanish row by value
    assert r.search_many(["sales of 13,668.9"], 1, languages=["en"])[0][0][0] == 0
    save_index(r, tmp_path / "bm25")
    loaded = BM25Retriever.from_files(tmp_path / "bm25")
    assert loaded.languages == r.languages and loaded.question_language(["en1"]) == "en"
    assert loaded.describe()["analyzer"] == languages_key("finance", ["en", "es"]) == "finance-1.1+finance-es-1.1.1"


def test_stale_language_rules_ask_for_a_rebuild(tmp_path):
    import json

    r = _retriever()
    save_index(r, tmp_path / "bm25")
    meta = json.loads((tmp_path / "bm25" / "retriever.json").read_text())
    meta["analyzer_keys"]["es"] = "finance-es-1.1.0"
    (tmp_path / "bm25" / "retriever.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="rebuild the index"):
        BM25Retriever.from_files(tmp_path / "bm25")


def test_english_index_is_unchanged_and_override_forces_one_language():
    texts = [t for _, t in TEXTS]
    plain = BM25Retriever.build(texts, "finance", None, None, 0.0)
    english = BM25Retriever.build(texts, "finance", [d for d, _ in TEXTS], None, 0.0, {d: "en" for d in DOCS})
    assert plain.index.vocab == english.index.vocab
    assert (plain.index.weights != english.index.weights).nnz == 0
    forced = _retriever(document_languages(DOCS, DOCS.values(), "en"), "en")
    # English rules on Spanish text: "13.668,9" read as 13.6689, "de" kept, "ventas" stemmed as English
    assert {"13.6689", "de", "venta"} <= set(forced.index.vocab) and "13668.9" not in forced.index.vocab
    assert forced.languages.for_query("¿Cuáles fueron las ventas?") == "en"


def test_containment_reads_numbers_by_locale():
    assert contains_answer("13.668,9", "Ventas | 13.668,9 | 13.378,6", "es")
    assert contains_answer("1.234 millones", "un total de 1.234 millones", "es")
    assert not contains_answer("1.234", "un ratio de 1,234", "es")   # es: 1234 vs 1.234
    assert contains_answer("1.234", "un ratio de 1,234")              # en: ambiguous, either reading
    assert contains_answer("Iberia Energía", "la sociedad iberia energia, s.a.", "es")
    assert not contains_answer("Iberia Energía", "la sociedad iberia energia, s.a.")
