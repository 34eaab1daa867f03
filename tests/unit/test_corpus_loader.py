"""The loader accepts valid corpora and rejects broken ones naming file, row and problem."""
from __future__ import annotations

import pytest

from finchunk_pipeline.corpus import CorpusError, load_corpus
from finchunk_pipeline import DEFAULT_CORPUS

from tests.conftest import write_corpus

TEXT = "# T\n\nHello world. Revenue rose.\n"


def test_default_corpus_is_valid():
    corpus = load_corpus(DEFAULT_CORPUS)
    assert corpus.labelled and len(corpus.documents) >= 8 and not corpus.document_problems


def test_unlabelled_corpus_loads(tmp_path):
    corpus = load_corpus(write_corpus(tmp_path / "c", [{"doc_id": "a", "text": TEXT}]))
    assert not corpus.labelled and corpus.passages is None


def test_missing_documents_file(tmp_path):
    (tmp_path / "c").mkdir()
    with pytest.raises(CorpusError, match="documents.parquet: required file missing"):
        load_corpus(tmp_path / "c")


def test_not_parquet(tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "documents.parquet").write_bytes(b"this is not parquet")
    with pytest.raises(CorpusError, match="documents.parquet: not a readable Parquet file"):
        load_corpus(folder)


def test_duplicate_doc_id_names_rows(tmp_path):
    folder = write_corpus(tmp_path / "c", [{"doc_id": "a", "text": TEXT}, {"doc_id": "a", "text": TEXT}])
    with pytest.raises(CorpusError, match=r"documents.parquet rows \[0, 1\]: duplicate doc_id 'a'"):
        load_corpus(folder)


def test_passage_outside_document(tmp_path):
    folder = write_corpus(tmp_path / "c", [{"doc_id": "a", "text": TEXT}],
                          [{"passage_id": "p1", "doc_id": "a", "section": "", "kind": "text", "start": 5, "end": 999}])
    with pytest.raises(CorpusError, match=r"passages.parquet row 0 \(passage_id='p1'\): span \[5, 999\) outside document of length"):
        load_corpus(folder)


def test_overlapping_passages(tmp_path):
    folder = write_corpus(tmp_path / "c", [{"doc_id": "a", "text": TEXT}], [
        {"passage_id": "p1", "doc_id": "a", "section": "", "kind": "text", "start": 5, "end": 20},
        {"passage_id": "p2", "doc_id": "a", "section": "", "kind": "text", "start": 10, "end": 25},
    ])
    with pytest.raises(CorpusError, match="passages 'p1' and 'p2' of 'a' overlap"):
        load_corpus(folder)


def test_question_with_unknown_gold_passage(tmp_path):
    folder = write_corpus(
        tmp_path / "c", [{"doc_id": "a", "text": TEXT}],
        [{"passage_id": "p1", "doc_id": "a", "section": "", "kind": "text", "start": 5, "end": 20}],
        [{"question_id": "q1", "question": "What?", "question_type": "text", "doc_ids": ["a"], "gold_passages": ["nope"]}],
    )
    with pytest.raises(CorpusError, match=r"questions.parquet row 0 \(question_id='q1'\): unknown gold passage 'nope'"):
        load_corpus(folder)


def test_missing_column(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "c"
    folder.mkdir()
    pq.write_table(pa.table({"doc_id": ["a"], "text": [TEXT]}), folder / "documents.parquet")
    with pytest.raises(CorpusError, match="documents.parquet: missing required column 'title'"):
        load_corpus(folder)


def test_bad_documents_are_recorded_not_fatal(tmp_path):
    folder = write_corpus(tmp_path / "c", [
        {"doc_id": "good", "text": TEXT},
        {"doc_id": "empty", "text": "   \n"},
        {"doc_id": "binary", "text": "\x00\x01\x02\x03" * 100},
        {"doc_id": "weird-type", "text": TEXT, "doc_type": "tweet"},
        {"doc_id": "weird-format", "text": TEXT, "format": "docx"},
        {"doc_id": "pdf-as-text", "text": TEXT, "format": "pdf"},
    ])
    corpus = load_corpus(folder)
    probs = corpus.document_problems
    assert set(probs) == {"empty", "binary", "weird-type", "weird-format", "pdf-as-text"}
    assert probs["empty"] == "text is empty"
    assert "binary" in probs["binary"]
    assert "unknown doc_type 'tweet'" in probs["weird-type"]
    assert "unknown format 'docx'" in probs["weird-format"]
    assert "format pdf is given as a file in 'path'" in probs["pdf-as-text"]
