"""An index build is pure: it returns its files in memory (index/files.py) and writes nothing;
storage/indexes.py writes them, and the registry loads the retriever back from them."""
from __future__ import annotations

import pandas as pd
import pyarrow as pa

from finchunk_pipeline.index import registry
from finchunk_pipeline.index.registry import IndexSettings, LoadRequest
from finchunk_pipeline.storage.indexes import DocumentIndexFolder, write_index_files

CHUNKS = pd.DataFrame({
    "chunk_id": ["c0", "c1", "c2"], "doc_id": ["a", "a", "b"],
    "embedding_text": ["Revenue grew to 120 million.", "Net debt fell.", "The dividend was raised."],
    "source_text": ["Revenue grew to 120 million.", "Net debt fell.", "The dividend was raised."],
    "view_spans": [[{"start": 0, "end": 28}], [{"start": 30, "end": 44}], [{"start": 0, "end": 24}]],
    "section_path": [["Results"], ["Balance sheet"], ["Dividends"]],
})


def test_the_bm25_build_returns_its_files_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    built = registry.index_spec("bm25").build(CHUNKS, IndexSettings())
    assert list(tmp_path.iterdir()) == []  # nothing written anywhere relative
    assert {"vocab.parquet", "bm25.npz", "retriever.json", "row_doc.npy",
            "documents/vocab.parquet", "documents/bm25.npz"} <= set(built.parts)
    assert isinstance(built.parts["vocab.parquet"], pa.Table) and isinstance(built.parts["bm25.npz"], bytes)
    assert built.info["chunks"] == 3 and built.info["doc_prior"] == 1.0
    write_index_files(tmp_path / "idx" / "bm25", built.parts)
    assert registry.index_exists("bm25", tmp_path / "idx")
    loaded = registry.load_retriever("bm25", tmp_path / "idx", LoadRequest())
    assert loaded.search_many(["dividend raised"], 2)[0][0][0] == 2


def test_the_document_index_is_shared_through_the_store(tmp_path):
    """Two builds over the same documents: the second reads the document index the first kept."""
    shared = DocumentIndexFolder(tmp_path / "docs")
    first = registry.index_spec("bm25").build(CHUNKS, IndexSettings(documents=shared))
    kept = sorted(p.name for p in (tmp_path / "docs").iterdir())
    assert len(kept) == 1 and kept[0].startswith("finance-")
    again = registry.index_spec("bm25").build(CHUNKS.iloc[[1, 0, 2]].reset_index(drop=True),
                                              IndexSettings(documents=shared))
    assert sorted(p.name for p in (tmp_path / "docs").iterdir()) == kept
    assert first.parts["documents/bm25.npz"] and again.parts["documents/vocab.parquet"] == \
        first.parts["documents/vocab.parquet"]
