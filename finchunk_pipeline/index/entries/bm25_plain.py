"""The ``bm25-plain`` retriever: the neutral reference for comparing chunkers. BM25Okapi
(rank_bm25's scores, index/bm25.py) over each chunk's indexed text (``embedding_text``: a
chunk set's context header is part of its chunking) with the ``plain`` analyzer (lowercase,
accents stripped, stop words out, numbers as one token: no stems, phrases, fiscal years or
accounting concepts), no document prior and no statement prior — none of the retriever
levers that lift every chunk set, so the gap between two chunk sets under it is what their
chunking alone contributes. The report's Summary shows its comparisons as the neutral view.

Not evaluated unless named (``--retrievers bm25,bm25-plain`` or FINCHUNK_RETRIEVERS): it is a
yardstick, not a retriever to use. Its index: ``<index dir>/bm25-plain/``.
"""
from __future__ import annotations

import pandas as pd

from ..analyzer import ANALYSIS_MODULES
from ..bm25_retriever import BM25Retriever
from ..files import Traversable
from ..languages import languages_key
from ..registry import BuiltIndex, IndexSettings, IndexSpec, LoadRequest, RetrieverSpec

NAME = "bm25-plain"
ANALYZER = "plain"


class PlainBM25Retriever(BM25Retriever):
    """A BM25Retriever without priors, named for the report."""

    name = NAME


def build_retriever(chunks: pd.DataFrame, doc_languages: dict[str, str] | None = None,
                    language_override: str | None = None) -> PlainBM25Retriever:
    """``chunks``: doc_id, embedding_text. Each row analysed in its document's language
    (``doc_languages``), as the bm25 retriever does. Stored as ``<index dir>/bm25-plain``."""
    doc_ids = chunks["doc_id"].tolist() if doc_languages else None
    retriever = PlainBM25Retriever.build(chunks["embedding_text"].tolist(), ANALYZER, doc_ids, None, 0.0,
                                         doc_languages, language_override, None, 0.0)
    return retriever


def _build(chunks: pd.DataFrame, settings: IndexSettings) -> BuiltIndex:
    retriever = build_retriever(chunks, settings.doc_languages, settings.language_override)
    return BuiltIndex(retriever.to_files(),
                      {"chunks": len(chunks), "vocabulary": len(retriever.index.vocab), **retriever.describe()})


def _config(settings: IndexSettings) -> dict:
    """The plain analyzer's keys for the languages present, and a forced language."""
    return {"languages": languages_key(ANALYZER, set((settings.doc_languages or {}).values())),
            "forced": settings.language_override or ""}


def _load(index_dir: Traversable, request: LoadRequest) -> PlainBM25Retriever:
    return PlainBM25Retriever.from_files(index_dir / NAME)


RETRIEVER = RetrieverSpec(
    name=NAME, load=_load, default=False, neutral=True,
    index=IndexSpec(columns=("chunk_id", "doc_id", "embedding_text"), build=_build, required=("bm25.npz",),
                    config=_config,
                    modules=(__name__, "finchunk_pipeline.index.bm25_retriever", "finchunk_pipeline.index.bm25",
                             *ANALYSIS_MODULES, "finchunk_pipeline.index.languages")),
)
