"""The ``bm25`` retriever: BM25Okapi over each chunk's indexed text, with the document prior
and the statement prior (bm25_retriever.py). Its index: ``<index dir>/bm25/``."""
from __future__ import annotations

import pandas as pd

from ..analyzer import ANALYSIS_MODULES, DEFAULT_ANALYZER
from ..bm25_retriever import DEFAULT_DOC_PRIOR, DEFAULT_STATEMENT_PRIOR, BM25Retriever
from ..documents import document_texts
from ..files import SharedIndexes, Traversable
from ..registry import BuiltIndex, IndexSettings, IndexSpec, LoadRequest, RetrieverSpec

NAME = "bm25"


def build_retriever(chunks: pd.DataFrame, analyzer: str = DEFAULT_ANALYZER,
                    doc_prior: float = DEFAULT_DOC_PRIOR, doc_languages: dict[str, str] | None = None,
                    language_override: str | None = None,
                    statement_prior: float = DEFAULT_STATEMENT_PRIOR,
                    documents: SharedIndexes | None = None) -> BM25Retriever:
    """``chunks``: doc_id, embedding_text, source_text, view_spans (the last two give the
    documents' text for the document prior), section_path if present (the statement prior);
    ``doc_languages``: {doc_id: analysis language} (languages.document_languages), English
    without; ``documents``: the store's document-level indexes, shared between chunk sets.
    Its files (``to_files``) are stored as ``<index dir>/bm25``."""
    doc_ids = chunks["doc_id"].tolist() if (doc_prior or doc_languages) else None
    doc_texts = document_texts(chunks) if doc_prior else None
    sections = chunks["section_path"].tolist() if "section_path" in chunks.columns else None
    retriever = BM25Retriever.build(chunks["embedding_text"].tolist(), analyzer, doc_ids, doc_texts, doc_prior,
                                    doc_languages, language_override, sections, statement_prior, documents)
    return retriever


def _prior(settings: IndexSettings) -> float:
    return DEFAULT_DOC_PRIOR if settings.doc_prior is None else settings.doc_prior


def _statement_prior(settings: IndexSettings) -> float:
    return DEFAULT_STATEMENT_PRIOR if settings.statement_prior is None else settings.statement_prior


def _build(chunks: pd.DataFrame, settings: IndexSettings) -> BuiltIndex:
    retriever = build_retriever(chunks, settings.analyzer or DEFAULT_ANALYZER, _prior(settings),
                                settings.doc_languages, settings.language_override, _statement_prior(settings),
                                settings.documents)
    return BuiltIndex(retriever.to_files(),
                      {"chunks": len(chunks), "vocabulary": len(retriever.index.vocab), **retriever.describe()})


def _config(settings: IndexSettings) -> dict:
    """The analyzers of the languages present (and a forced language) and the priors' weights."""
    return {"languages": settings.languages_key, "prior": f"{_prior(settings):g}",
            "statement_prior": f"{_statement_prior(settings):g}"}


def _load(index_dir: Traversable, request: LoadRequest) -> BM25Retriever:
    return BM25Retriever.from_files(index_dir / NAME)


RETRIEVER = RetrieverSpec(
    name=NAME, load=_load,
    index=IndexSpec(columns=("chunk_id", "doc_id", "embedding_text", "source_text", "view_spans", "section_path"),
                    build=_build,
                    required=("bm25.npz",), config=_config,
                    modules=(__name__, "finchunk_pipeline.index.bm25_retriever", "finchunk_pipeline.index.bm25",
                             *ANALYSIS_MODULES, "finchunk_pipeline.index.documents",
                             "finchunk_pipeline.index.languages", "finchunk_pipeline.index.statements")),
)
