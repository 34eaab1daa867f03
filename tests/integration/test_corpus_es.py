"""The Spanish embedded corpus: valid, deterministic, exact gold; analysed as Spanish from its
``language`` column alone, end to end (parse, structure + header chunks, BM25, recall)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from finchunk_pipeline.corpus import load_corpus

ES = Path(__file__).resolve().parents[2] / "data" / "corpus" / "es"


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(ES)   # validates against the corpus format (raises CorpusError)


def test_es_corpus_is_valid_and_shaped_like_the_lesson(corpus):
    docs = corpus.documents
    assert set(docs["language"]) == {"es"} and set(docs["format"]) == {"markdown"}
    assert docs["doc_type"].value_counts().to_dict() == {"annual_report": 8, "prospectus": 5, "kid": 5, "research": 3}
    ar = docs[docs["doc_type"] == "annual_report"]
    assert ar["issuer"].nunique() == 4 and set(ar["fiscal_year"]) == {2023, 2024}
    assert all("cnmv" in u for u in ar["source_uri"])
    text = "".join(docs["text"])
    assert "Ventas¹ |" in text and " millones de euros" in text and "Nota 6" in text
    q = corpus.questions
    assert {"table", "footnote", "text_and_note", "table_and_note", "calculation", "unanswerable",
            "point_in_time"} <= set(q["question_type"])
    assert all(s.startswith("¿") or s.startswith("A ") for s in q["question"])
    facts = pq.read_table(ES / "xbrl_facts.parquet").to_pandas()
    assert len(facts) and set(facts["unit"]) == {"EUR"}


def test_gold_passages_are_exact_and_answers_verbatim(corpus):
    texts = dict(zip(corpus.documents["doc_id"], corpus.documents["text"]))
    passages = corpus.passages.set_index("passage_id")
    for p in passages.itertuples():
        span = texts[p.doc_id][p.start:p.end]
        assert span and span == span.strip()
    for q in corpus.questions.itertuples():
        gold = " ".join(texts[passages.at[g, "doc_id"]][passages.at[g, "start"]:passages.at[g, "end"]]
                        for g in q.gold_passages)
        if q.question_type not in ("calculation", "point_in_time", "unanswerable"):
            assert q.answer in gold, q.question


def test_es_corpus_is_regenerated_identically(tmp_path):
    from finchunk_pipeline.corpus.synth import DEFAULT_SEED
    from finchunk_pipeline.corpus.synth.es import generate_es

    generate_es(tmp_path, DEFAULT_SEED)
    for name in ("documents", "passages", "questions", "xbrl_facts"):
        assert pq.read_table(tmp_path / f"{name}.parquet").equals(pq.read_table(ES / f"{name}.parquet")), name


def _recall_at_3(corpus, language_override=None):
    """Parse, chunk (structure, header), BM25 with the languages of the documents' column;
    mean recall@3 over the answerable questions (global mode)."""
    from finchunk_pipeline import chunk_document
    from finchunk_pipeline import ChunkerConfig
    from finchunk_pipeline.chunking.chunk_set import META_FIELDS
    from finchunk_pipeline.storage.chunks import chunks_to_table
    from finchunk_pipeline import evaluate_retriever
    from finchunk_pipeline.index.bm25_retriever import BM25Retriever
    from finchunk_pipeline.index.languages import document_languages
    from finchunk_pipeline import select_parser

    config = ChunkerConfig(name="structure-h", strategy="structure", params={"max_chars": 800}, header=True)
    chunks = []
    for rec in corpus.documents.to_dict("records"):
        doc = select_parser(rec["doc_type"], rec["format"]).fn(rec["doc_id"], rec["text"], rec)
        chunks.extend(chunk_document(config.chunker, doc, {k: rec.get(k) for k in META_FIELDS}))
    frame = chunks_to_table(chunks).to_pandas()
    langs = document_languages(corpus.documents["doc_id"], corpus.documents["language"], language_override)
    retriever = BM25Retriever.build(frame["embedding_text"].tolist(), "finance", frame["doc_id"].tolist(),
                                    None, 0.0, langs, language_override)
    questions = corpus.questions[corpus.questions["question_type"] != "unanswerable"]
    ev = evaluate_retriever(retriever, frame, corpus.passages, questions, "global")
    return ev.summary()["curve"][2]["recall"], chunks


def test_end_to_end_spanish_analysis_from_the_language_column(corpus):
    recall_es, chunks = _recall_at_3(corpus)
    recall_en, _ = _recall_at_3(corpus, "en")
    # the header is Spanish, Spanish sentences and notes were used
    assert any("ejercicio" in c.embedding_text or "Informe anual" in c.embedding_text for c in chunks)
    assert recall_es > recall_en, (recall_es, recall_en)
    assert recall_es >= 0.8, recall_es


def test_spanish_point_in_time_questions_answered_from_facts(corpus):
    """The es corpus's point-in-time questions (a 2023 figure as first published, then as
    restated in the 2024 report) parse and are answered from its ESEF-like facts, no look-ahead."""
    from finchunk_pipeline.xbrl.answer import parse_question, score_point_in_time
    from finchunk_pipeline import FactsStore

    store = FactsStore()
    store.load_path(ES)
    r = score_point_in_time(corpus.questions, store, corpus.documents)
    assert (r["total"], r["unparsed"]) == (8, 0)
    assert r["correct"] == 8, [(x["question"], x["expected"], x["predicted"], x["error"]) for x in r["rows"]]
    q = parse_question("A 30 de marzo de 2025, ¿cuál era el resultado de explotación de Iberia Energía de 2023 "
                       "publicado, en millones de euros?")
    assert q.fiscal_year == 2023 and q.locale == "es" and "ifrs-full:ProfitLossFromOperatingActivities" in q.concepts
